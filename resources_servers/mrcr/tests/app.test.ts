// mrcr's verify, rule by rule (fastify inject; ratios from NeMo Gym's Python): the prefix gate, the prefix removed
// from both sides, difflib's ratio over code points with autojunk, then the per-needle metrics and the data.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import mrcr from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");

let env: InjectedServer;
before(async () => {
  env = await injectServer(mrcr);
});
after(() => env.close());

const row = (fields: Item = {}): Item => ({ responses_create_params: { input: "q" }, expected_answer: "xyz123The quick black fox", random_string_to_prepend: "xyz123", n_needles: 2, n_tokens: 180, ...fields });
const post = (text: string, fields: Item = {}) => env.post("/verify", { ...row(fields), response: responseWith([assistantMessage(text)]) });
async function scored(text: string, fields: Item = {}) {
  const reply = await post(text, fields);
  assert.equal(reply.status, 200, reply.text);
  return reply.json<Item>();
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order: the row's four fields, then prefix_matched and seq_match_ratio (a float)", async () => {
    const reply = await post("xyz123The quick black fox");
    assert.deepEqual(Object.keys(reply.json<Item>()), ["responses_create_params", "response", "reward", "expected_answer", "random_string_to_prepend", "n_needles", "n_tokens", "prefix_matched", "seq_match_ratio"]);
    assert.match(reply.text, /"reward":1\.0,"expected_answer":"xyz123The quick black fox","random_string_to_prepend":"xyz123","n_needles":2,"n_tokens":180,"prefix_matched":true,"seq_match_ratio":1\.0}$/);
  });

  test("the four row fields are required; the counts are ints (pydantic's lax int: '2' is one, 2.5 is not)", async () => {
    const missing = await env.post("/verify", { responses_create_params: { input: "q" }, response: responseWith([]), expected_answer: "x", n_needles: 1, n_tokens: 1 });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.json<Item>().detail[0].loc, ["body", "random_string_to_prepend"]);
    assert.equal((await scored("xyz123x", { n_needles: "2" })).n_needles, 2);
    assert.equal((await post("xyz123x", { n_tokens: 2.5 })).status, 422);
  });
});

describe("the grade", () => {
  test("without the prefix the reward is 0.0, however close the text", async () => {
    assert.deepEqual(await scored("The quick black fox").then(({ reward, prefix_matched }) => [reward, prefix_matched]), [0, false]);
    assert.equal((await scored("<think>…</think>xyz123The quick black fox")).reward, 0, "a reasoning preamble defeats the gate");
  });

  test("the output text is stripped first; then the prefix is removed from both sides and the ratio taken", async () => {
    assert.equal((await scored("  xyz123The quick brown fox\n")).reward, 0.7894736842105263);
    assert.equal((await scored("abc hello", { expected_answer: "hello", random_string_to_prepend: "abc" })).reward, 0.9090909090909091, "an answer without the prefix keeps its text");
    assert.equal((await scored("xyz123")).reward, 0, "only the prefix: '' against the answer");
    assert.deepEqual([(await scored("", { expected_answer: "", random_string_to_prepend: "" })).reward], [1], "'' against '' is 1.0");
  });

  test("the ratio counts code points, and autojunk applies from 200 characters on (NeMo Gym's values)", async () => {
    assert.equal((await scored("pp😀ab", { expected_answer: "pp😀ac", random_string_to_prepend: "pp" })).reward, 0.6666666666666666);
    const answer = "k1" + "the cat sat on a mat and looked at a hat! ".repeat(6);
    assert.equal((await scored("k1" + "the cat sat on the mat and looked at the hat. ".repeat(6), { expected_answer: answer, random_string_to_prepend: "k1" })).reward, 0.056925996204933584);
  });
});

describe("the aggregate metrics", () => {
  test("pass@k over the reward and per n_needles, keyed `n_needles=<n>/…`; no majority@k", async () => {
    const verify_responses = [
      { reward: 1.0, n_needles: 2, _ng_task_index: 0, _ng_rollout_index: 0 },
      { reward: 0.5, n_needles: 2, _ng_task_index: 0, _ng_rollout_index: 1 },
      { reward: 0.8, n_needles: 4, _ng_task_index: 1, _ng_rollout_index: 0 },
      { reward: 0.6, n_needles: 4, _ng_task_index: 1, _ng_rollout_index: 1 },
    ];
    const { agent_metrics, key_metrics } = (await env.post("/aggregate_metrics", { verify_responses })).json<Item>();
    assert.equal(agent_metrics["pass@2/accuracy"], 90);
    assert.equal(agent_metrics["n_needles=2/pass@1[avg-of-2]/accuracy"], 75);
    assert.equal(agent_metrics["n_needles=4/pass@2/accuracy"], 80);
    assert.ok(!Object.keys(agent_metrics).some((key) => key.startsWith("2/") || key.startsWith("4/") || key.startsWith("majority@")));
    assert.deepEqual(Object.keys(key_metrics).filter((key) => key.includes("pass@")).sort(), ["pass@1[avg-of-2]/accuracy", "pass@2/accuracy"]);
  });
});

describe("the data", () => {
  test("example rows are multi-turn /run requests whose expected answer starts with the prefix", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok((r.expected_answer as string).startsWith(r.random_string_to_prepend as string));
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 5 }));
});
