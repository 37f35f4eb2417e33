// lc_niah's verify, rule by rule (fastify inject): the answer's F1, the three reasoning/input overlap signals
// (values from NeMo Gym's Python), the two config rules that pick and combine them, then the data.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import lcNiah from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");

const PROMPT = "Edges:\nA1 -> B2\nB2 -> C3\nC3 -> A1\nOperation: find the parents of node C3.";
const REASONING = "Let me list the edges: A1 -> B2, B2 -> C3. So the parent is B2.";
const reasoningItem = (...texts: string[]): Item => ({ id: "rs_1", type: "reasoning", summary: texts.map((text) => ({ type: "summary_text", text })) });

let env: InjectedServer;
before(async () => {
  env = await injectServer(lcNiah);
});
after(() => env.close());

const row = (fields: Item = {}): Item => ({ responses_create_params: { input: [{ role: "user", content: PROMPT }] }, expected_answer: '["B2"]', ...fields });
async function verify(answer: string, { reasoning, fields, server = env }: { reasoning?: string[]; fields?: Item; server?: InjectedServer } = {}) {
  const output = [...(reasoning ? [reasoningItem(...reasoning)] : []), assistantMessage(answer)];
  const reply = await server.post("/verify", { ...row(fields), response: responseWith(output) });
  assert.equal(reply.status, 200, reply.text);
  return reply.json<Item>();
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order: the scores (floats written as floats), then every row field", async () => {
    const reply = await env.post("/verify", { ...row({ problem_type: "parents", n_tokens: 40 }), response: responseWith([assistantMessage("Final Answer: [B2]")]) });
    assert.deepEqual(Object.keys(reply.json<Item>()), [
      "responses_create_params",
      "response",
      "reward",
      "answer_score",
      "overlap_seq_match",
      "overlap_ngram16",
      "overlap_lcs",
      "reasoning_overlap",
      "expected_answer",
      "problem_type",
      "n_tokens",
    ]);
    assert.match(reply.text, /"reward":1\.0,"answer_score":1\.0,"overlap_seq_match":0\.0,"overlap_ngram16":0\.0,"overlap_lcs":0\.0,"reasoning_overlap":0\.0,"expected_answer":"\[\\"B2\\"\]","problem_type":"parents","n_tokens":40}$/);
  });

  test("a row field named like a score is a 422 naming it (NeMo Gym's TypeError)", async () => {
    const reply = await env.post("/verify", { ...row({ answer_score: 1 }), response: responseWith([assistantMessage("Final Answer: [B2]")]) });
    assert.equal(reply.status, 422);
    assert.deepEqual(reply.json<Item>().detail[0].loc, ["body", "answer_score"]);
  });

  test("expected_answer is required and a string", async () => {
    const reply = await env.post("/verify", { responses_create_params: { input: PROMPT }, response: responseWith([]) });
    assert.equal(reply.status, 422);
    assert.deepEqual(reply.json<Item>().detail[0].loc, ["body", "expected_answer"]);
    assert.equal((await env.post("/verify", { ...row({ expected_answer: ["B2"] }), response: responseWith([]) })).status, 422);
  });
});

describe("answer_score", () => {
  test("F1 of the last non-empty line's Final Answer list; quotes around items are stripped", async () => {
    assert.equal((await verify(`Final Answer: ["B2", 'A1']`, { fields: { expected_answer: '["A1", "B2"]' } })).answer_score, 1);
    assert.equal((await verify("Final Answer: [B2, A1]")).answer_score, 2 / 3);
    assert.equal((await verify("Final Answer: [B2]\nDone.")).answer_score, 0, "a later line hides it");
    assert.equal((await verify("Final Answer: [B2]\n  \n")).answer_score, 1, "blank lines after it do not");
  });

  test("empty lists: both empty 1.0, one empty 0.0; an expected_answer that is no JSON list is empty", async () => {
    assert.equal((await verify("Final Answer: []", { fields: { expected_answer: "[]" } })).answer_score, 1);
    assert.equal((await verify("Final Answer: []")).answer_score, 0);
    assert.equal((await verify("Final Answer: []", { fields: { expected_answer: "B2" } })).answer_score, 1);
    assert.equal((await verify("no list at all", { fields: { expected_answer: "[]" } })).answer_score, 0);
  });
});

describe("the overlap signals", () => {
  test("without reasoning all three are 0.0 and the reward is the answer score", async () => {
    const body = await verify("Final Answer: [B2]");
    assert.deepEqual([body.overlap_seq_match, body.overlap_ngram16, body.overlap_lcs, body.reward], [0, 0, 0, 1]);
  });

  test("each signal on reasoning that quotes the prompt (NeMo Gym's values)", async () => {
    const body = await verify("Final Answer: [B2]", { reasoning: [REASONING] });
    assert.equal(body.overlap_seq_match, 0.5882352941176471);
    assert.equal(body.overlap_ngram16, 0, "fewer than 16 words: no n-gram");
    assert.equal(body.overlap_lcs, 0.23809523809523808);
    assert.equal(body.reasoning_overlap, body.overlap_lcs, "lcs is the default metric");
    assert.equal(body.reward, 1 - 0.23809523809523808, "multiply is the default rule");
  });

  test("16-word n-grams: the share of the reasoning's distinct n-grams found in the input", async () => {
    const words = Array.from({ length: 20 }, (_, i) => `w${i}`).join(" ");
    const reply = await env.post("/verify", {
      responses_create_params: { input: `prefix ${words}` },
      expected_answer: "[]",
      response: responseWith([reasoningItem(`${words} and then`, " some words of my own here"), assistantMessage("Final Answer: []")]),
    });
    const body = reply.json<Item>();
    assert.deepEqual([body.overlap_ngram16, body.overlap_lcs, body.overlap_seq_match], [0.38461538461538464, 0.6634615384615384, 0.7666666666666667]);
  });

  test("the input is every message's text joined by a newline (content parts' texts too); texts are compared normalised", async () => {
    const reply = await env.post("/verify", {
      responses_create_params: { input: [{ role: "system", content: "alpha" }, { role: "user", content: [{ type: "input_text", text: "BETA" }] }] },
      expected_answer: "[]",
      response: responseWith([reasoningItem("Alpha ", "\tbeta "), assistantMessage("Final Answer: []")]),
    });
    assert.equal(reply.json<Item>().overlap_lcs, 1);
  });
});

describe("the config rules", () => {
  test("overlap_metric_rule picks the signal; overlap_grading_rule combines it (base, minus)", async () => {
    const seqMinus = await injectServer(lcNiah, { overlap_metric_rule: "seq_match", overlap_grading_rule: "minus" });
    const ngramBase = await injectServer(lcNiah, { overlap_metric_rule: "ngram16", overlap_grading_rule: "base" });
    try {
      const minus = await verify("Final Answer: [B2, A1]", { reasoning: [REASONING], server: seqMinus });
      assert.deepEqual([minus.reasoning_overlap, minus.reward], [0.5882352941176471, 2 / 3 - 0.5882352941176471]);
      const base = await verify("Final Answer: [B2, A1]", { reasoning: [REASONING], server: ngramBase });
      assert.deepEqual([base.reasoning_overlap, base.reward], [0, 2 / 3]);
    } finally {
      await Promise.all([seqMinus.close(), ngramBase.close()]);
    }
  });

  test("a rule NeMo Gym's enums do not name stops the start", async () => {
    await assert.rejects(() => injectServer(lcNiah, { overlap_metric_rule: "cosine" }), /overlap_metric_rule/);
    await assert.rejects(() => injectServer(lcNiah, { overlap_grading_rule: "divide" }), /overlap_grading_rule/);
  });
});

describe("the data", () => {
  test("example rows are /run requests whose expected answers are JSON lists", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok(Array.isArray(JSON.parse(r.expected_answer as string)));
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 5 }));
});
