// evalplus over real HTTP with real sandbox runs, on our own problems file (data/example_problems.jsonl, EvalPlus's
// format): a right answer passes base and plus; a wrong one, one that raises, one that loops past the per-input limit,
// one that ignores the alarm (the whole run is killed: "timeout"), a program that prints a fake result or writes one to
// the real stdout, and one that fakes the outputs' equality, all score 0. The float tolerance, the find_zero oracle,
// the prompt prepended to a bare body, validation, and the metrics. Needs bwrap: without it every verify is a 503 and
// these tests fail, loudly.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, overHttp, readRows, responseWith, startServers, type InProcessGraph, type ServerCalls } from "../../../src/testing/index.ts";
import evalplus from "../app.ts";
import { timeLimits } from "../checks.ts";

const dataDir = join(import.meta.dirname, "../data");
const client = http();
let graph: InProcessGraph;
let server: ServerCalls;
before(async () => {
  graph = await startServers({
    evalplus: [evalplus, { dataset: "humaneval", num_processes: 2, min_time_limit: 0.2, gt_time_limit_factor: 4.0, problems_file: join(dataDir, "example_problems.jsonl") }],
  });
  server = overHttp(graph.url("evalplus"), client);
});
after(async () => {
  await graph.close();
  await client.close();
});

const fenced = (code: string) => `Here it is:\n\`\`\`python\n${code}\n\`\`\`\n`;
/** The signature of each example task, so an answer's body reads as in a test. */
const SIGNATURES: Record<string, string> = {
  "Example/0": "def sum_of_squares(numbers):",
  "Example/1": "def average(numbers):",
  "Example/2": "def pair_up(letters):",
  "Example/3": "def find_zero(xs):",
};
/** A whole function, as models answer the prompt (the fence is stripped, so a bare body would lose its indent). */
const answer = (taskId: string, body: string) => fenced(`${SIGNATURES[taskId]}\n${body}`);
async function verify(taskId: unknown, text: string) {
  const answer = await server.post("/verify", { responses_create_params: { input: [] }, response: responseWith([assistantMessage(text)]), verifier_metadata: { task_id: taskId } });
  return answer;
}
async function scored(taskId: string, text: string) {
  const answer = await verify(taskId, text);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}

describe("verdicts", () => {
  test("a right function (after the prompt, which brings its imports) passes base and plus: reward 1.0", async () => {
    const body = await scored("Example/0", answer("Example/0", "    return sum(n * n for n in numbers)"));
    assert.equal(body.reward, 1);
    assert.deepEqual([body.base_status, body.plus_status, body.is_correct, body.is_correct_plus], ["pass", "pass", true, true]);
    assert.deepEqual(body.metadata, { base_details: [true, true, true], plus_details: [true, true, true] });
  });

  test("a bare body loses its first line's indent to the strip, as in NeMo Gym: it does not load", async () => {
    const body = await scored("Example/0", fenced("    return sum(n * n for n in numbers)"));
    assert.deepEqual([body.reward, body.base_status, body.extracted_model_code], [0, "fail", "return sum(n * n for n in numbers)"]);
  });

  test("a full solution that repeats the prompt is run as is", async () => {
    const prompt = readRows(join(dataDir, "example_problems.jsonl"))[2]!.prompt as string;
    const body = await scored("Example/2", fenced(prompt + "    out = {}\n    for c in letters:\n        out[c] = out.get(c, 0) + 1\n    return list(out.items())"));
    assert.equal(body.reward, 1, JSON.stringify(body.metadata));
  });

  test("right on base, wrong on plus: is_correct but reward 0.0 (the big int input)", async () => {
    const body = await scored("Example/0", answer("Example/0", "    return sum(float(n) ** 2 for n in numbers) if len(numbers) == 2 else sum(n * n for n in numbers)"));
    assert.deepEqual([body.reward, body.base_status, body.plus_status, body.is_correct, body.is_correct_plus], [0, "pass", "fail", true, false]);
    assert.deepEqual(body.metadata.plus_details, [false, true, true]);
  });

  test("a tuple is not a list: the exact types are compared", async () => {
    const body = await scored("Example/2", answer("Example/2", "    out = {}\n    for c in letters:\n        out[c] = out.get(c, 0) + 1\n    return [list(p) for p in out.items()]"));
    assert.equal(body.base_status, "fail");
    assert.deepEqual(body.metadata.base_details, [false, true], "the empty input returns [] either way");
  });

  test("floats within EvalPlus's 1e-6 floor pass; beyond it they fail", async () => {
    const near = await scored("Example/1", answer("Example/1", "    return sum(numbers) / len(numbers) + 1e-9"));
    assert.equal(near.reward, 1, JSON.stringify(near.metadata));
    const far = await scored("Example/1", answer("Example/1", "    return sum(numbers) / len(numbers) + 1e-3"));
    assert.deepEqual([far.reward, far.base_status], [0, "fail"]);
  });

  test("find_zero is judged by |poly(xs, x)| <= atol, not by equality (and a pass is recorded: evalplus 6eb1e19)", async () => {
    const newton = "    x = 0.5\n    for _ in range(200):\n        d = sum(i * c * x ** (i - 1) for i, c in enumerate(xs) if i)\n        x = x - poly(xs, x) / d if d else x + 1\n    return x";
    const body = await scored("Example/3", answer("Example/3", newton));
    assert.deepEqual([body.reward, body.base_status, body.plus_status], [1, "pass", "pass"], JSON.stringify(body.metadata));
    const wrong = await scored("Example/3", answer("Example/3", "    return 0.0"));
    assert.equal(wrong.reward, 0);
  });

  test("an exception on one input fails that input only", async () => {
    const body = await scored("Example/0", answer("Example/0", "    if not numbers:\n        raise ValueError('empty')\n    return sum(n * n for n in numbers)"));
    assert.deepEqual([body.base_status, body.metadata.base_details], ["fail", [true, false, true]]);
  });

  test("code that does not load (a syntax error, no such function) fails with no details", async () => {
    const broken = await scored("Example/0", answer("Example/0", "    return sum(n * n for n in numbers"));
    assert.deepEqual([broken.reward, broken.base_status, broken.plus_status, broken.metadata.base_details], [0, "fail", "fail", []]);
  });

  test("a loop past the per-input limit fails that input; the run goes on", async () => {
    const body = await scored("Example/0", answer("Example/0", "    while not numbers:\n        pass\n    return sum(n * n for n in numbers)"));
    assert.deepEqual([body.reward, body.base_status, body.metadata.base_details], [0, "fail", [true, false, true]]);
  });

  test("a program that disarms the alarm is killed by the sandbox's wall clock: status timeout", async () => {
    const body = await scored("Example/1", answer("Example/1", "    import signal, time\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n    while numbers == [1.0, 2.0, 4.5]:\n        time.sleep(0.05)\n    return sum(numbers) / len(numbers)"));
    assert.deepEqual([body.reward, body.base_status, body.plus_status, body.is_correct], [0, "timeout", "pass", false]);
  });

  test("EvalPlus's guard applies: open() is None inside the function", async () => {
    const body = await scored("Example/0", answer("Example/0", "    open('x', 'w')\n    return sum(n * n for n in numbers)"));
    assert.equal(body.base_status, "fail");
  });

  test("no fenced block, or empty output: reward 0.0 without running anything", async () => {
    const plain = await scored("Example/0", "return sum(n * n for n in numbers)");
    assert.deepEqual([plain.reward, plain.extracted_model_code, plain.base_status], [0, null, null]);
    const empty = await scored("Example/0", "  ");
    assert.deepEqual([empty.reward, empty.extracted_model_output], [0, null]);
  });
});

describe("what a program cannot forge", () => {
  test("printing a result line (any nonce) to stdout, then exiting 0, is no pass", async () => {
    const fake = "    import os, sys\n    line = 'x {\"done\": \"success\"}\\n'\n    print(line); sys.__stdout__.write(line); os.write(1, line.encode())\n    os._exit(0)";
    const body = await scored("Example/0", answer("Example/0", fake));
    assert.deepEqual([body.reward, body.base_status], [0, "timeout"], "EvalPlus reads a run that vanished as a timeout");
  });

  test("a return value whose __eq__ always says yes does not pass: only its data leaves the sandbox", async () => {
    const liar = "    class Yes(int):\n        def __eq__(self, other): return True\n        __hash__ = int.__hash__\n    return Yes(-1)";
    const body = await scored("Example/0", answer("Example/0", liar));
    assert.deepEqual([body.reward, body.base_status, body.metadata.base_details], [0, "fail", [false, false, false]]);
  });

  test("writing records to the harness's own descriptor is foreign to the channel: fail", async () => {
    const hunt = [
      "    import os",
      "    for fd in range(3, 64):",
      "        try: os.write(fd, b'forged {\"done\": \"success\"}\\n')",
      "        except OSError: pass",
      "    return sum(n * n for n in numbers)",
    ].join("\n");
    const body = await scored("Example/0", answer("Example/0", hunt));
    assert.deepEqual([body.reward, body.base_status], [0, "fail"]);
  });
});

describe("the request", () => {
  test("a missing or unknown task_id is a 422 naming it, not a 0 reward", async () => {
    const missing = await verify(undefined, fenced("pass"));
    assert.equal(missing.status, 422);
    const unknown = await verify("HumanEval/999", fenced("pass"));
    assert.equal(unknown.status, 422);
    assert.match(unknown.text, /unknown task_id \\"HumanEval\/999\\" for dataset \\"humaneval\\"/);
  });
});

test("the time limits are EvalPlus's: max(min, factor · reference) per input; min(60, sum) + 3 s for the run", () => {
  assert.deepEqual(timeLimits([0.001, 0.5], { minTimeLimit: 1, gtTimeLimitFactor: 4 }), { perInput: [1, 2], wallMs: 6000 });
  assert.deepEqual(timeLimits([0.001], { minTimeLimit: 0.2, gtTimeLimitFactor: 4 }), { perInput: [0.2], wallMs: 3200 });
  assert.equal(timeLimits(Array(100).fill(1), { minTimeLimit: 1, gtTimeLimitFactor: 4 }).wallMs, 63_000);
});

test("the metrics: pass@k for base and plus, keyed on the extracted code", async () => {
  const rollout = (base: boolean, plus: boolean, code: string) => ({ reward: Number(plus), is_correct: base, is_correct_plus: plus, extracted_model_code: code });
  const answer = await server.post("/aggregate_metrics", { verify_responses: [rollout(true, true, "a"), rollout(true, false, "b"), rollout(false, false, "c"), rollout(true, true, "a")].map((r, i) => ({ ...r, _ng_task_index: Math.floor(i / 2), _ng_rollout_index: i % 2 })) });
  assert.equal(answer.status, 200, answer.text);
  const { agent_metrics, key_metrics } = answer.json<Record<string, Record<string, number>>>();
  assert.equal(agent_metrics["pass@2/passing_base_tests"], 100);
  assert.equal(agent_metrics["pass@1[avg-of-2]/passing_plus_tests"], 50);
  assert.ok("pass@2/passing_plus_tests" in key_metrics && "majority@2/passing_base_tests" in key_metrics, JSON.stringify(key_metrics));
});

test("the example rows are run requests naming tasks of the example problems", () => {
  const rows = readRows(join(dataDir, "example.jsonl"));
  assertRowsAreRunRequests(rows);
  const ids = new Set(readRows(join(dataDir, "example_problems.jsonl")).map((p) => p.task_id));
  for (const row of rows) assert.ok(ids.has((row.verifier_metadata as { task_id: string }).task_id));
});
