// equivalence_rule's verify, rule by rule (fastify inject): the normalisation, the three grading rules (values
// pinned from NeMo Gym's Python verifier run locally), the echoed row, the config, the data; then parity with NeMo
// Gym's parity reference set (../shared/nemo-gym-data, skipped when absent).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, functionCallItem, injectServer, readRows, referenceLines, responseWith, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import equivalenceRule, { grade, normalize } from "../app.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const ROW = { responses_create_params: { input: [{ role: "user", content: "Return the 2nd note." }] }, expected_answer: "Qx7Lm2Meet me at the harbour at noon." };

const servers: Record<string, InjectedServer> = {};
before(async () => {
  servers.exact = await injectServer(equivalenceRule);
  servers.seq_match = await injectServer(equivalenceRule, { grading_rule: "seq_match" });
  servers.weighted_seq_match = await injectServer(equivalenceRule, { grading_rule: "weighted_seq_match" });
});
after(() => Promise.all(Object.values(servers).map((server) => server.close())));

const verify = (rule: string, output: Item[], fields: Item = {}) => servers[rule]!.post("/verify", { ...ROW, ...fields, response: responseWith(output) });
async function rewardOf(rule: string, text: string, fields: Item = {}) {
  const answer = await verify(rule, [assistantMessage(text)], fields);
  assert.equal(answer.status, 200, answer.text);
  const body = answer.json<Item>();
  assert.equal(body.equivalence_score, body.reward);
  return body.reward;
}

describe("normalisation", () => {
  test("strips, lower-cases and makes every whitespace run (Python's \\s, Unicode included) one space", () => {
    assert.equal(normalize("  Hello \t\n  World\u3000!\u2028 "), "hello world !");
    assert.equal(normalize("a\x1cb"), "a b", "Python's \\s has the separators \\x1c-\\x1f");
    assert.equal(normalize("a\ufeffb"), "a\ufeffb", "a BOM is no whitespace to Python");
  });
});

describe("exact (the default and lc.yaml's rule)", () => {
  test("1.0 iff the normalised texts are equal", async () => {
    assert.equal(await rewardOf("exact", "qx7lm2meet  me at the\tharbour at noon.  "), 1);
    assert.equal(await rewardOf("exact", "Qx7Lm2Meet me at the harbour at noon"), 0, "the full stop counts");
    assert.equal(await rewardOf("exact", "The answer: Qx7Lm2Meet me at the harbour at noon."), 0);
  });

  test("the text is every output_text part of every message, joined with nothing; calls and reasoning are not text", async () => {
    const answer = await verify("exact", [assistantMessage("Qx7Lm2Meet me ", "at the harbour"), functionCallItem("f", { a: 1 }), assistantMessage(" at noon.")]);
    assert.equal(answer.json<Item>().reward, 1);
    const reasoning = { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "thinking" }] };
    assert.equal((await verify("exact", [reasoning, assistantMessage("Qx7Lm2Meet me at the harbour at noon.")])).json<Item>().reward, 1);
  });

  test("no output at all against a blank answer is equal (both normalise to '')", async () => {
    assert.equal((await verify("exact", [], { expected_answer: " \n" })).json<Item>().reward, 1);
  });
});

describe("seq_match and weighted_seq_match (values from NeMo Gym's Python)", () => {
  test("seq_match is difflib's ratio of the normalised texts", async () => {
    assert.equal(await rewardOf("seq_match", "Zr4Pw9Meet me at the harbour at noon."), 0.8378378378378378);
    assert.equal(await rewardOf("seq_match", "QX7LM2 meet me at the harbour at noon."), 0.9866666666666667);
    assert.equal(await rewardOf("seq_match", ""), 0);
  });

  test("weighted_seq_match adds a 15% bonus for the answer's first 10 code points", async () => {
    assert.equal(await rewardOf("weighted_seq_match", "Zr4Pw9Meet me at the harbour at noon."), 0.7721621621621622);
    assert.equal(await rewardOf("weighted_seq_match", "Qx7Lm2Meet"), 0.5117021276595745);
  });

  test("the ratio counts code points (an astral character is one)", () => {
    assert.equal(grade("😀 smile 😀", "😀 smile", "seq_match"), 0.875);
    assert.equal(grade("𝔘𝔫𝔦𝔠𝔬𝔡𝔢 text", "𝔘𝔫𝔦 text", "weighted_seq_match"), 0.755);
  });

  test("difflib's autojunk: in an answer of 200+ code points, characters filling over 1% of it start no match", () => {
    const long = "to the sea and the tide and the river ".repeat(8);
    assert.equal(grade(`prefix ${long}`, long, "seq_match"), 0, "every character of this answer is that common");
    assert.equal(grade(`prefix ${long}`, long, "weighted_seq_match"), 0.045);
  });
});

describe("the verify response", () => {
  test("NeMo Gym's order: reward, equivalence_score (floats), then expected_answer and the row's other fields", async () => {
    const answer = await verify("exact", [assistantMessage("Qx7Lm2Meet me at the harbour at noon.")], { hashid: "h1", context_length: "1562" });
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "equivalence_score", "expected_answer", "hashid", "context_length"]);
    assert.match(answer.text, /"reward":1\.0,"equivalence_score":1\.0,"expected_answer":"Qx7Lm2Meet me at the harbour at noon\.","hashid":"h1","context_length":"1562"}$/);
  });

  test("expected_answer must be a string (422); a row field named like a response field is refused by name", async () => {
    assert.equal((await verify("exact", [], { expected_answer: 6 })).status, 422);
    const missing = await servers.exact!.post("/verify", { responses_create_params: ROW.responses_create_params, response: responseWith([]) });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.json<any>().detail[0].loc, ["body", "expected_answer"]);
    const clash = await verify("exact", [], { equivalence_score: 0.5 });
    assert.equal(clash.status, 422);
    assert.deepEqual(clash.json<any>().detail[0].loc, ["body", "equivalence_score"]);
  });
});

describe("the config", () => {
  test("grading_rule must be one of the three rules", async () => {
    await assert.rejects(injectServer(equivalenceRule, { grading_rule: "fuzzy" }), /grading_rule/);
  });
});

describe("the data", () => {
  test("example rows are /run requests with a string expected_answer", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.equal(typeof row.expected_answer, "string");
  });

  test("verifier cases score as written (exact)", () => assertVerifierCasesScore(servers.exact!, join(dataDir, "verifier_cases.jsonl"), { minCases: 5 }));
});

const reference = sharedDataFile("equivalence_rule/parity/reference_verify.jsonl");

test("parity: NeMo Gym's reference set (lc_equivalence_rule, exact) gives every reward and equivalence_score (5/5)", { skip: reference.skip }, async () => {
  const lines = referenceLines(reference.path!);
  assert.equal(lines.length, 5);
  const table: string[] = [];
  for (const line of lines) {
    const answer = await servers.exact!.post("/verify", line.request);
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Item>();
    table.push(`line ${line.lineNumber}: expected ${line.expectedReward} → ours ${String(body.reward)}`);
    assert.equal(body.reward, line.expectedReward, table.join("\n"));
    assert.deepEqual(Object.keys(line.expectedExtra), ["equivalence_score"]);
    assert.equal(body.equivalence_score, line.expectedExtra.equivalence_score);
    // The row's fields come back as NeMo Gym echoes them (its request keeps extra fields).
    for (const key of ["expected_answer", "agent_ref", "question", "dataset", "source", "hashid", "context_length"]) assert.deepEqual(body[key], line.request[key], key);
  }
});
