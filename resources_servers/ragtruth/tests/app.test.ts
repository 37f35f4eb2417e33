// ragtruth's verify, rule by rule (fastify inject): thinking blocks and JSON fences are removed, Python's json.loads
// reads the answer, and a non-empty "hallucination list" is the prediction compared with is_halu; then the corpus
// metrics, the example rows and the verifier cases. Every expected value was computed by NeMo Gym's own verify /
// compute_metrics on the same requests.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import ragtruth from "../app.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const row: Item = { responses_create_params: { input: [{ role: "user", content: "Below is a question: …" }] }, task_type: "QA", is_halu: true };

let env: InjectedServer;
let reasoningEnv: InjectedServer;
before(async () => {
  env = await injectServer(ragtruth);
  reasoningEnv = await injectServer(ragtruth, { think_tag: "reasoning" });
});
after(async () => {
  await env.close();
  await reasoningEnv.close();
});

async function scored(text: string, fields: Item = {}, server = env) {
  const answer = await server.post("/verify", { ...row, ...fields, response: responseWith([assistantMessage(text)]) });
  assert.equal(answer.status, 200, answer.text);
  const { reward, is_halu, pred_halu, parse_fail, extracted } = answer.json<Item>();
  return [reward, is_halu, pred_halu, parse_fail, extracted];
}
const HALU = '{"hallucination list": ["x"]}';

describe("the verify response", () => {
  test("has NeMo Gym's fields in order, the flags as ints, then the other row fields", async () => {
    const answer = await env.post("/verify", { ...row, agent_ref: { name: "a" }, response: responseWith([assistantMessage(HALU)]) });
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "task_type", "is_halu", "pred_halu", "parse_fail", "extracted", "agent_ref"]);
    assert.match(answer.text, /"reward":1\.0,"task_type":"QA","is_halu":1,"pred_halu":1,"parse_fail":0,"extracted":"\[\\"x\\"\]"/);
  });

  test("is_halu is read as pydantic reads a bool ('yes', 'off', 0, '1'); anything else is a 422", async () => {
    const empty = '{"hallucination list": []}';
    assert.deepEqual(await scored(empty, { is_halu: "yes" }), [0, 1, 0, 0, "[]"]);
    assert.deepEqual(await scored(empty, { is_halu: "off" }), [1, 0, 0, 0, "[]"]);
    assert.deepEqual(await scored(empty, { is_halu: 0 }), [1, 0, 0, 0, "[]"]);
    assert.deepEqual(await scored(empty, { is_halu: "1" }), [0, 1, 0, 0, "[]"]);
    for (const is_halu of ["maybe", null]) assert.equal((await env.post("/verify", { ...row, is_halu, response: responseWith([]) })).status, 422);
  });
});

describe("the answer text", () => {
  test("paired, unopened and unclosed think blocks are removed, case-insensitively", async () => {
    for (const text of [`<think>a</think>${HALU}`, `plan</think>\n${HALU}`, `<think>${HALU}`, `a</think>b</think>${HALU}`, `<THINK>x</Think>${HALU}`]) {
      assert.deepEqual(await scored(text), [1, 1, 1, 0, '["x"]'], text);
    }
  });

  test("think_tag names the tag: <reasoning> blocks are stripped only when configured", async () => {
    const text = `<reasoning>r</reasoning>${HALU}`;
    assert.deepEqual(await scored(text, {}, reasoningEnv), [1, 1, 1, 0, '["x"]']);
    assert.deepEqual(await scored(text), [0, 1, 0, 1, ""]);
  });

  test("a fence around the whole answer, or the first fenced block, is unwrapped; an empty fence is no answer", async () => {
    assert.deepEqual(await scored("```json\n" + HALU + "\n```"), [1, 1, 1, 0, '["x"]']);
    assert.deepEqual(await scored("Here:\n```json\n" + HALU + "\n```\nthanks"), [1, 1, 1, 0, '["x"]']);
    assert.deepEqual(await scored("```\n```"), [0, 1, 0, 1, ""]);
  });
});

describe("the prediction", () => {
  test("text after the JSON, a list, or no text at all is a parse failure: predicted clean", async () => {
    for (const text of [`${HALU} extra`, '["x"]', ""]) assert.deepEqual(await scored(text), [0, 1, 0, 1, ""], text);
  });

  test("a hallucination list that is not a list predicts clean without a parse failure, and nothing is extracted", async () => {
    assert.deepEqual(await scored('{"hallucination list": "x"}'), [0, 1, 0, 0, ""]);
    assert.deepEqual(await scored('{"hallucination list": []}'), [0, 1, 0, 0, "[]"]);
  });

  test("Python's JSON: NaN and floats survive into `extracted` as json.dumps writes them; a repeated key keeps its last value", async () => {
    assert.deepEqual(await scored('{"hallucination list": [NaN, 1.0, 2, "é"]}'), [1, 1, 1, 0, '[NaN, 1.0, 2, "é"]']);
    assert.deepEqual(await scored('{"hallucination list": ["a"], "hallucination list": []}'), [0, 1, 0, 0, "[]"]);
  });

  test("extracted keeps the first 500 characters", async () => {
    const [, , , , extracted] = await scored(`{"hallucination list": ["${"y".repeat(600)}"]}`);
    assert.equal((extracted as string).length, 500);
  });
});

describe("the metrics", () => {
  test("accuracy, parse failures, precision/recall/F1 overall and per task_type (NeMo Gym's numbers on the verifier cases)", async () => {
    const verifyResponses = [];
    for (const [i, c] of readRows(join(dataDir, "verifier_cases.jsonl")).entries()) {
      const answer = await env.post("/verify", { ...(c.row as Item), response: responseWith([assistantMessage(c.output_text as string)]) });
      verifyResponses.push({ ...answer.json<Item>(), _ng_task_index: Math.floor(i / 2), _ng_rollout_index: i % 2 });
    }
    const { agent_metrics, key_metrics } = (await env.post("/aggregate_metrics", { verify_responses: verifyResponses })).json<any>();
    const expected: Record<string, number> = {
      mean_reward: 0.5,
      count: 16,
      parse_fail_rate: 0.375,
      precision: 5 / 6,
      recall: 5 / 12,
      f1: 5 / 9,
      "task_type/Data2txt/precision": 1,
      "task_type/Data2txt/recall": 0.5,
      "task_type/Data2txt/f1": 2 / 3,
      "task_type/Data2txt/accuracy": 0.5,
      "task_type/Data2txt/count": 4,
      "task_type/QA/f1": 2 / 3,
      "task_type/QA/accuracy": 2 / 3,
      "task_type/QA/count": 6,
      "task_type/Summary/precision": 0.5,
      "task_type/Summary/recall": 0.25,
      "task_type/Summary/f1": 1 / 3,
      "task_type/Summary/accuracy": 1 / 3,
    };
    for (const [key, value] of Object.entries(expected)) assert.ok(Math.abs(agent_metrics[key] - value) < 1e-12, `${key}: ${agent_metrics[key]}`);
    assert.deepEqual(Object.keys(key_metrics), ["mean_reward", "f1", "precision", "recall", "task_type/Data2txt/f1", "task_type/Data2txt/accuracy", "task_type/QA/f1", "task_type/QA/accuracy", "task_type/Summary/f1", "task_type/Summary/accuracy"]);
  });
});

describe("the data", () => {
  test("example rows are /run requests with a task type and a gold label", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok(["QA", "Summary", "Data2txt"].includes(r.task_type as string) && typeof r.is_halu === "boolean");
  });

  test("verifier cases score as NeMo Gym scored them", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 16 }));
});
