// citation_if's server (through fastify inject): the verify response, how the answer text and the tool calls are
// read from the output, the catch-all tool route, the gates on representative answers, bad verifier values, and
// the authored data. The gates themselves were checked against NeMo Gym's scorer.py on ~1,900 generated answers.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, type InjectedServer, injectServer, readRows, responseWith } from "../../../src/testing/index.ts";
import citationIf, { responseShape } from "../app.ts";
import { scoreCitationIf, TERMINAL_TOOL_RESPONSE } from "../scorer.ts";

const dataDir = join(import.meta.dirname, "../data");

let env: InjectedServer;
before(async () => (env = await injectServer(citationIf, {}, { instanceName: "citation_if" })));
after(() => env.close());

const params = { input: [{ role: "user", content: "When was it built?" }] };
const verifier = (extra: Record<string, unknown> = {}) => ({
  type: "citation_if",
  mode: "cite",
  grammar: "ascii_brackets",
  id_kind: "full_source",
  id_regex: "citation_[a-z0-9]{4}",
  valid_id_set: ["citation_ab12", "citation_cd34"],
  expected_ids: ["citation_ab12"],
  expected_slack: 1,
  min_valid_citations: 1,
  ...extra,
});
const post = (output: Parameters<typeof responseWith>[0], fields: Record<string, unknown> = { verifier: verifier() }) => env.post("/verify", { responses_create_params: params, response: responseWith(output), ...fields });
const gate = (text: string, extra: Record<string, unknown> = {}) => scoreCitationIf(text, 0, verifier(extra)).details.gate_failed;

describe("the verify response", () => {
  test("has NeMo Gym's fields in order: the reward, the verifier echoed, match_details with its keys in order", async () => {
    const answer = await post([assistantMessage("Built in 1889 [citation_ab12].")]);
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "verifier", "match_details"]);
    assert.deepEqual(body.verifier, verifier());
    assert.match(answer.text, /"reward":1\.0,/);
    assert.deepEqual(Object.keys(body.match_details), [
      "gate_failed", "mode", "grammar", "id_kind", "id_regex", "structural_ok", "function_call_count", "attempt_hits", "bare_id_hits", "parsed_ids",
      "cited_ids", "valid_cited", "invalid_cited", "num_valid_cited", "expected_ids", "missed_ids", "over_cap",
    ]);
    assert.deepEqual([body.match_details.gate_failed, body.match_details.cited_ids, body.match_details.expected_ids], [null, ["citation_ab12"], ["citation_ab12"]]);
  });

  test("verifier is required and must be an object: a 422", async () => {
    assert.equal((await post([assistantMessage("x")], {})).status, 422);
    assert.equal((await post([assistantMessage("x")], { verifier: ["cite"] })).status, 422);
  });

  test("a verifier value Python cannot use is its exception, a 500 (int(None) for min_valid_citations)", async () => {
    assert.equal((await post([assistantMessage("x")], { verifier: verifier({ min_valid_citations: null }) })).status, 500);
    assert.equal((await post([assistantMessage("x")], { verifier: verifier({ id_regex: "citation_(" }) })).status, 500);
  });

  test("an id_regex the Python-regex translator cannot carry over is a 501 naming it, not a verdict", async () => {
    const answer = await post([assistantMessage("x")], { verifier: verifier({ id_regex: "citation_(x)?(?(1)y|z)" }) });
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /verifier\.id_regex .*conditional group/);
  });
});

describe("the answer text and tool calls", () => {
  test("assistant messages' output_text parts, joined by newlines and stripped; function calls counted", () => {
    const call = { type: "function_call", name: "web_search", call_id: "c1", arguments: "{}" };
    const reasoning = { type: "reasoning", id: "r1", summary: [], content: [{ type: "reasoning_text", text: "cite [citation_ab12]" }] };
    const user = { type: "message", role: "user", content: [{ type: "output_text", text: "ignored" }] };
    const shape = responseShape(responseWith([call, reasoning, user, assistantMessage("  One."), { ...assistantMessage(""), id: "m2" }, { ...assistantMessage("Two.  "), id: "m3" }]) as never);
    assert.deepEqual(shape, { text: "One.\nTwo.", functionCalls: 1 });
  });

  test("a tool call fails gate 0 even with a good answer", async () => {
    const call = { type: "function_call", name: "web_search", call_id: "c1", arguments: "{}" };
    const body = (await post([call, assistantMessage("Built in 1889 [citation_ab12].")])).json<Record<string, any>>();
    assert.deepEqual([body.reward, body.match_details.gate_failed, body.match_details.function_call_count], [0, "structural", 1]);
  });

  test("any tool name answers the terminal text, as text/plain", async () => {
    const answer = await env.post("/web_search", { query: "anything" });
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers["content-type"]), /^text\/plain/);
    assert.equal(answer.text, TERMINAL_TOOL_RESPONSE);
  });
});

describe("the gates", () => {
  test("an answer with its gold citation passes; the citation alone (no answer) does not", () => {
    assert.equal(gate("Built in 1889 [citation_ab12]."), null);
    assert.equal(gate("[citation_ab12]"), "no_answer");
  });

  test("any ID-shaped token outside a well-formed span is a malformed attempt", () => {
    assert.equal(gate("Built in 1889 [citation_ab12]. Sources: citation_ab12"), "malformed_attempt");
    assert.equal(gate("Built in 1889 [citation_ab12, citation_cd34]."), "malformed_attempt");
    assert.equal(gate("Built in 1889 [citation_ab12](http://example.com)."), "malformed_attempt");
    assert.equal(gate("Built in 1889 [CITATION_AB12]."), "malformed_attempt");
  });

  test("must cite, no invented ids, every gold id, at most expected_slack extra", () => {
    assert.equal(gate("Built in 1889."), "must_cite");
    assert.equal(gate("Built in 1889 [citation_ab12] [citation_zz99]."), "no_hallucination");
    assert.equal(gate("Built in 1889 [citation_cd34]."), "correctness_missed_gold");
    assert.equal(gate("Built [citation_ab12] [citation_cd34].", { expected_slack: 0 }), "correctness_over_cap");
    assert.equal(gate("Built [citation_cd34].", { expected_ids: null }), null);
  });

  test("tag grammars: a multi-id <cite> span, and claim-wrapped answers whose claim is the answer", () => {
    assert.equal(gate("Built <cite>citation_ab12,citation_cd34</cite>.", { grammar: "cite_xml" }), null);
    assert.equal(gate("Built <cite>citation_ab12</cite> <cite>.", { grammar: "cite_xml" }), "malformed_attempt");
    assert.equal(gate('<cite index="citation_ab12">Built in 1889</cite>', { grammar: "claim_wrap_xml" }), null);
    assert.equal(gate('Built <cite index="citation_ab12">  </cite>', { grammar: "claim_wrap_xml" }), "malformed_attempt");
  });

  test("no_cite rows: any ID-shaped token or citation markup scores 0", () => {
    assert.equal(gate("A plain answer.", { mode: "no_cite" }), null);
    assert.equal(gate("A plain answer [citation_ab12].", { mode: "no_cite" }), "no_cite");
    assert.equal(gate("A plain <cite> answer.", { mode: "no_cite", grammar: "cite_xml" }), "no_cite");
  });

  test("rows without id_regex use the numeric scheme of their id_kind; an unknown grammar scores 0", () => {
    assert.equal(gate("Built [citation_7:snippet_2].", { id_regex: undefined, id_kind: "snippet", valid_id_set: ["citation_7:snippet_2"], expected_ids: null }), null);
    assert.deepEqual(scoreCitationIf("x", 0, { grammar: "smoke_signals" }), { reward: 0, details: { gate_failed: "unknown_grammar", grammar: "smoke_signals" } });
  });
});

describe("authored data", () => {
  test("example.jsonl rows are valid run requests with a verifier", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.equal(row.verifier.type, "citation_if");
  });

  test("every verifier case gets its expected reward", async () => {
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 12 });
  });
});
