// competitive_coding_challenges over real HTTP, each test compiled with g++ and run inside the bubblewrap sandbox by the
// problem's own compile.sh / run.sh, from our one-problem test metadata (data/example_test_metadata.jsonl: a `min`
// subtask worth 30 over the sample, a `sum_tests` subtask over all three tests). Without metadata, or for a problem
// missing from it (NeMo Gym's placeholder rows), verify answers 501 naming what is missing.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assistantMessage, http, overHttp, readRows, responseWith, sharedDataFile, startServers, type InProcessGraph, type ServerCalls } from "../../../src/testing/index.ts";
import ccc from "../app.ts";
import { addIncludes, finalCodeBlock, patchRunSh } from "../evaluate.ts";

const METADATA = join(import.meta.dirname, "../data/example_test_metadata.jsonl");
const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const [samplesRow, allTestsRow, wholeProblemRow] = rows;

let graph: InProcessGraph;
let server: ServerCalls;
let fraction: ServerCalls;
let noMetadata: ServerCalls;
before(async () => {
  graph = await startServers({
    ccc: [ccc, { test_file: METADATA, test_batch_size: 4 }],
    ccc_fraction: [ccc, { test_file: METADATA, test_batch_size: 4, reward_mode: "fraction" }],
    ccc_none: [ccc, { test_file: "data/no_such_metadata.jsonl" }],
  });
  [server, fraction, noMetadata] = ["ccc", "ccc_fraction", "ccc_none"].map((name) => overHttp(graph.url(name), http()));
});
after(() => graph.close());

const RIGHT = "int main() { long long a, b; cin >> a >> b; cout << a + b << endl; }";
/** Right on the sample (1 2), wrong on the secret tests. */
const SAMPLE_ONLY = "int main() { long long a, b; cin >> a >> b; cout << (a == 1 ? 3 : 7) << endl; }";
const answer = (code: string) => `Reasoning…\n\`\`\`cpp\n${code}\n\`\`\``;

async function verify(row: Record<string, unknown>, text: string, on = server) {
  const reply = await on.post("/verify", { ...row, response: responseWith([assistantMessage(text)]) });
  return { status: reply.status, body: reply.json<Record<string, any>>() };
}

test("a right program passes the sum_tests subtask: all 3 tests score 1, reward 1.0, NeMo Gym's fields", async () => {
  const { status, body } = await verify(allTestsRow!, answer(RIGHT));
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.reward, 1);
  assert.equal(body.details.test_case_results.all_tests.score, 3);
  assert.equal(body.num_tests_run, 3);
  const first = body.details.test_case_results.all_tests.outputs[0];
  assert.deepEqual([first.compile_success, first.compile_stderr, first.run_stdout, first.score, first.test_name, first.test_group], [true, "", "1\n", 1, "sample-1", "sample"]);
  assert.deepEqual(Object.keys(body).slice(0, 12), ["responses_create_params", "response", "reward", "competition_id", "problem_id", "subtask", "name", "subtask_score", "details", "num_tests_run", "total_test_execution_time_s", "mean_test_execution_time_s"]);
  assert.deepEqual([body.id, body.agent_ref], [1, { name: "competitive_coding_challenges_simple_agent" }], "the row's other fields are echoed");
});

test("min subtask: right on the sample scores its 30; the whole problem needs 30 + 3, so 30 + 1 is 0.0; fraction mode 1/3", async () => {
  const whole = (await verify(wholeProblemRow!, answer(SAMPLE_ONLY))).body;
  assert.deepEqual([whole.reward, whole.details.test_case_results.samples.score, whole.details.test_case_results.all_tests.score], [0, 30, 1]);
  assert.equal((await verify(wholeProblemRow!, answer(SAMPLE_ONLY), fraction)).body.reward, 1 / 3, "fraction mode: 1 of 3 tests");
});

test("a compile error (any compiler stderr) scores 0 with the compiler's message; printing a score is no score", async () => {
  const broken = (await verify(samplesRow!, answer("int main() { return x; }"))).body;
  assert.equal(broken.reward, 0);
  const output = broken.details.test_case_results.samples.outputs[0];
  assert.equal(output.compile_success, false);
  assert.match(output.compile_stderr, /.x. was not declared/);
  // The program's stdout is run.sh's output.txt, never run.sh's score line.
  const forger = (await verify(samplesRow!, answer('int main() { cout << "1" << endl; cerr << "1" << endl; return 0; }'))).body;
  assert.deepEqual([forger.reward, forger.details.test_case_results.samples.score], [0, 0]);
});

test("without the test metadata, verify is a 501 naming the file; a problem missing from it is a 501 naming it", async () => {
  const missingFile = await verify(samplesRow!, answer(RIGHT), noMetadata);
  assert.equal(missingFile.status, 501);
  assert.match(missingFile.body.detail, /test metadata file .*no_such_metadata\.jsonl does not exist/);
  const unknown = await verify({ ...samplesRow!, competition_id: "usaco25", problem_id: "makingmexes" }, answer(RIGHT));
  assert.equal(unknown.status, 501);
  assert.match(unknown.body.detail, /competition 'usaco25' \(problem 'makingmexes'; competitions there: ngts\)/);
});

const shared = sharedDataFile("competitive_coding_challenges/data/example.jsonl");
test("NeMo Gym's 5 placeholder example rows are 501s, never a 0", { skip: shared.skip }, async () => {
  for (const row of readRows(shared.path!)) {
    for (const on of [server, noMetadata]) {
      const { status, body } = await verify(row, answer(RIGHT), on);
      assert.equal(status, 501, JSON.stringify(body));
      assert.match(body.detail, on === server ? /makingmexes|usaco25/ : /does not exist/);
    }
  }
});

test("extraction: the last ```cpp block, the includes NeMo Gym adds, run.sh's kill before wait", () => {
  assert.equal(finalCodeBlock("```cpp\nfirst\n```\n```CPP\nsecond\n```", ["cpp"]), "second\n");
  assert.equal(finalCodeBlock("no block", ["cpp"]), "no block");
  assert.equal(addIncludes("int main(){}", undefined, "p"), "#include <bits/stdc++.h>\n\nusing namespace std;\n\nint main(){}\n");
  assert.equal(addIncludes("int main(){ std::cout; }\n", "p.h", "p"), '#include <bits/stdc++.h>\n#include "p.h"\nint main(){ std::cout; }\n');
  assert.equal(patchRunSh('  wait "$user_pid"'), '  kill "$user_pid" 2>/dev/null || true\n  wait "$user_pid"');
});

test("metrics: pass@k accuracy, and the best score per subtask summed into total_score", async () => {
  const rollout = (task: number, index: number, scores: Record<string, number>) => ({
    _ng_task_index: task, _ng_rollout_index: index, reward: 0, problem_id: "addtwo", response: {},
    details: { test_case_results: Object.fromEntries(Object.entries(scores).map(([name, score]) => [name, { score, outputs: [] }])) },
  });
  const reply = await server.post("/aggregate_metrics", { verify_responses: [rollout(0, 0, { samples: 30, all_tests: 1 }), rollout(0, 1, { samples: 0, all_tests: 3 })] });
  assert.equal(reply.status, 200, reply.text);
  const { agent_metrics, key_metrics } = reply.json<Record<string, any>>();
  assert.equal(agent_metrics["pass@2/accuracy"], 100);
  assert.equal(agent_metrics.total_score, 33);
  assert.equal(agent_metrics.per_problem_subtask_scores.addtwo.total.score, 33);
  assert.equal(key_metrics.total_score, 33);
});
