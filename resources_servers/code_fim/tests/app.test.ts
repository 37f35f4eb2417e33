// code_fim over real HTTP with real sandbox runs, on our own problems (data/example_problems.jsonl): a right middle
// passes; a wrong one, one that raises, one that loops past `timeout`, one that exits early after printing a fake
// verdict, and one that writes to the harness's descriptor all score 0 with the library's status strings. The
// NeMo-Skills post-processing (leading newline, prefix/suffix overlaps), <think> removal, validation and metrics.
// Needs bwrap: without it every verify is a 503 and these tests fail.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, overHttp, readRows, responseWith, startServers, type InProcessGraph, type ServerCalls } from "../../../src/testing/index.ts";
import codeFim from "../app.ts";
import { postprocessCompletion } from "../infill.ts";

const dataDir = join(import.meta.dirname, "../data");
const client = http();
let graph: InProcessGraph;
let server: ServerCalls;
before(async () => {
  graph = await startServers({ code_fim: [codeFim, { split: "random_span", num_processes: 2, timeout: 0.5, problems_file: join(dataDir, "example_problems.jsonl") }] });
  server = overHttp(graph.url("code_fim"), client);
});
after(async () => {
  await graph.close();
  await client.close();
});

const SPAN = "RandomSpanInfilling/Example/0/0";
const LINES = "MultiLineInfilling/Example/1/L3-L4";
const fenced = (code: string) => `Answer:\n\`\`\`python\n${code}\`\`\``;
const verify = (taskId: unknown, text: string) =>
  server.post("/verify", { responses_create_params: { input: [] }, response: responseWith([assistantMessage(text)]), verifier_metadata: { task_id: taskId } });
async function scored(taskId: string, text: string) {
  const answer = await verify(taskId, text);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}

describe("verdicts", () => {
  test("a right middle passes: reward 1.0, status 'passed'", async () => {
    const body = await scored(SPAN, fenced("letter"));
    assert.deepEqual([body.reward, body.status, body.passed, body.completion, body.metadata], [1, "passed", true, "letter", null]);
  });

  test("a right multi-line middle keeps its indentation (no strip) after the one leading newline", async () => {
    const body = await scored(LINES, fenced("    for value in values:\n        result.append(value if not result else max(result[-1], value))\n"));
    assert.equal(body.status, "passed", body.completion);
  });

  test("a wrong middle fails with the assertion: 'failed: '", async () => {
    const body = await scored(SPAN, fenced("letter not"));
    assert.deepEqual([body.reward, body.status, body.passed], [0, "failed: ", false]);
  });

  test("a runtime error is 'failed: <message>'", async () => {
    const body = await scored(SPAN, fenced("undefined_name"));
    assert.deepEqual([body.reward, body.status], [0, "failed: name 'undefined_name' is not defined"]);
  });

  test("a middle that loops past `timeout` is 'timed out'", async () => {
    const body = await scored(SPAN, fenced("[0 for _ in iter(int, 1)]"));
    assert.deepEqual([body.reward, body.status], [0, "timed out"]);
  });

  test("the answer after </think> is the one used; no fence gives no code", async () => {
    const thought = await scored(SPAN, "<think>```python\nwrong```</think>" + fenced("letter"));
    assert.equal(thought.reward, 1);
    const plain = await scored(SPAN, "letter");
    assert.deepEqual([plain.reward, plain.extracted_model_code, plain.status], [0, null, null]);
  });
});

describe("what a program cannot forge", () => {
  test("printing a 'passed' record and exiting at once is 'timed out', not a pass", async () => {
    const fake = `letter in 'aeiou') and __import__('os').write(1, b'x {"result": "passed"}\\n') and print('{"result": "passed"}') or __import__('os')._exit(0) or (letter`;
    const body = await scored(SPAN, fenced(fake));
    assert.deepEqual([body.reward, body.status], [0, "timed out"]);
  });

  test("writing to the harness's own descriptor is foreign to the channel: a failure", async () => {
    const hunt = "[__import__('os').write(fd, b'zz {\"result\": \"passed\"}\\n') for fd in range(3, 40) if __import__('os').path.exists('/proc/self/fd/%d' % fd)] and letter";
    const body = await scored(SPAN, fenced(hunt));
    assert.equal(body.reward, 0);
    assert.equal(body.status, "failed: the program wrote to the harness's result channel");
  });
});

test("NeMo-Skills' post-processing: one leading newline, the prefix's tail and the suffix's head trimmed", () => {
  assert.equal(postprocessCompletion("\nx = 1\n", "def f():\n", "return x"), "x = 1\n");
  assert.equal(postprocessCompletion("if letter", "for letter in word if", " in 'aeiou'"), " letter");
  assert.equal(postprocessCompletion("letter in 'aeiou'", "if ", " in 'aeiou')"), "letter");
  assert.equal(postprocessCompletion(" x", "a ", "b"), " x", "an overlap of spaces alone is kept");
});

test("a missing or unknown task_id is a 422 naming it, not a 0 reward", async () => {
  assert.equal((await verify(undefined, fenced("letter"))).status, 422);
  const unknown = await verify("RandomSpanInfilling/HumanEval/0/1", fenced("letter"));
  assert.equal(unknown.status, 422);
  assert.match(unknown.text, /for split \\"random_span\\"/);
});

test("the metrics: pass@k of accuracy, keyed on the completion", async () => {
  const rollout = (passed: boolean, completion: string, i: number) => ({ reward: Number(passed), passed, completion, _ng_task_index: 0, _ng_rollout_index: i });
  const answer = await server.post("/aggregate_metrics", { verify_responses: [rollout(true, "a", 0), rollout(false, "b", 1)] });
  assert.equal(answer.status, 200, answer.text);
  const { agent_metrics, key_metrics } = answer.json<Record<string, Record<string, number>>>();
  assert.equal(agent_metrics["pass@2/accuracy"], 100);
  assert.equal(agent_metrics["pass@1[avg-of-2]/accuracy"], 50);
  assert.ok("majority@2/accuracy" in key_metrics, JSON.stringify(key_metrics));
});

test("the example rows are run requests naming tasks of the example problems", () => {
  const rows = readRows(join(dataDir, "example.jsonl"));
  assertRowsAreRunRequests(rows);
  const ids = new Set(readRows(join(dataDir, "example_problems.jsonl")).map((p) => p.task_id));
  for (const row of rows) assert.ok(ids.has((row.verifier_metadata as { task_id: string }).task_id));
});
