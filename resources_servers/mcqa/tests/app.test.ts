// mcqa's verify (through fastify inject): the response NeMo Gym returns (fields, order, upper-cased gold), each grading
// mode end to end, the template regex first, the instance's grading_mode overriding the row's, validation,
// metrics, and the authored data and verifier cases. The extraction rules themselves are unit-tested in
// tests/ports/choice-answer.test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, type InjectedGraph, injectServers, readRows, responseWith } from "../../../src/testing/index.ts";
import mcqa from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");
const OPTIONS = [{ A: "Karyotyping" }, { B: "Polymerase Chain Reaction (PCR)" }, { C: "Whole-genome sequencing" }, { D: "Chromosome painting" }];

let graph: InjectedGraph;
before(async () => {
  graph = await injectServers({ mcqa: [mcqa], mcqa_md: [mcqa, { grading_mode: "lenient_answer_colon_md" }], mcqa_strict: [mcqa, { grading_mode: "strict_single_letter_boxed" }] });
});
after(() => graph.close());

const response = (text: string) => responseWith([assistantMessage(text)]);
const params = { input: [{ role: "user", content: "Which test identifies a specific mutation?" }] };

const verify = (text: string, row: Record<string, unknown> = {}, server = "mcqa") =>
  graph.server(server).post("/verify", { responses_create_params: params, options: OPTIONS, expected_answer: "B", ...row, response: response(text) });
async function score(text: string, row: Record<string, unknown> = {}, server = "mcqa") {
  const answer = await verify(text, row, server);
  assert.equal(answer.status, 200, answer.text);
  const { reward, extracted_answer } = answer.json<Record<string, unknown>>();
  return { reward, extracted_answer };
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order; row fields are not echoed; reward is written 1.0", async () => {
    const answer = await verify(String.raw`\boxed{B}`, { uuid: "u-1", metadata: { source: "x" }, expected_answer: " b " });
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "expected_answer", "extracted_answer"]);
    assert.equal(body.expected_answer, "B", "the gold letter is stripped and upper-cased");
    assert.match(answer.text, /"reward":1\.0,"expected_answer":"B","extracted_answer":"B"}$/);
  });

  test("no letter found: extracted_answer is null and the reward 0.0", async () => {
    const answer = await verify("I am not sure.");
    assert.match(answer.text, /"reward":0\.0,"expected_answer":"B","extracted_answer":null}$/);
  });

  test("empty or whitespace-only text scores 0 before any extraction, even with a template", async () => {
    assert.deepEqual(await score(" \n ", { template_metadata: { output_regex: "()" } }), { reward: 0, extracted_answer: null });
  });

  test("a right letter scores 0 when the row has no expected_answer", async () => {
    assert.deepEqual(await score(String.raw`\boxed{B}`, { expected_answer: null }), { reward: 0, extracted_answer: "B" });
  });
});

describe("grading modes", () => {
  test("strict_single_letter_boxed is the row default: an upper-case option letter in the last box", async () => {
    assert.deepEqual(await score(String.raw`First \boxed{A}, finally \boxed{\text{B}}`), { reward: 1, extracted_answer: "B" });
    assert.deepEqual(await score(String.raw`\boxed{b}`), { reward: 0, extracted_answer: null });
    assert.deepEqual(await score("\\boxed{\nB: Polymerase Chain Reaction (PCR)\n}"), { reward: 1, extracted_answer: "B" });
  });

  test("lenient_boxed also accepts the text of exactly one option in the box", async () => {
    assert.deepEqual(await score(String.raw`\boxed{polymerase chain reaction (PCR)}`, { grading_mode: "lenient_boxed" }), { reward: 1, extracted_answer: "B" });
    assert.deepEqual(await score(String.raw`\boxed{polymerase chain reaction (PCR)}`), { reward: 0, extracted_answer: null });
  });

  test("lenient_answer_colon reads the first `Answer:` line", async () => {
    assert.deepEqual(await score("Answer: b\nAnswer: C", { grading_mode: "lenient_answer_colon" }), { reward: 1, extracted_answer: "B" });
    assert.deepEqual(await score("Answer: Karyotyping", { grading_mode: "lenient_answer_colon", expected_answer: "A" }), { reward: 1, extracted_answer: "A" });
  });

  test("the instance's grading_mode overrides the row's; lenient_answer_colon_md is reachable only that way", async () => {
    assert.deepEqual(await score("**Answer:** B", { grading_mode: "lenient_answer_colon" }, "mcqa_md"), { reward: 1, extracted_answer: "B" });
    assert.deepEqual(await score("**Answer:** A or B", {}, "mcqa_md"), { reward: 0, extracted_answer: null });
    assert.deepEqual(await score("Answer: B", { grading_mode: "lenient_answer_colon" }, "mcqa_strict"), { reward: 0, extracted_answer: null });
    const answer = await verify("Answer: B", { grading_mode: "lenient_answer_colon_md" });
    assert.equal(answer.status, 422, "a row cannot ask for lenient_answer_colon_md");
  });
});

describe("template_metadata.output_regex", () => {
  test("is tried before the grading mode; its last match wins and a lone letter is trusted", async () => {
    const template = { output_regex: String.raw`Final Choice:\s*([A-Za-z])` };
    assert.deepEqual(await score(String.raw`Final Choice: A then Final Choice: b \boxed{C}`, { template_metadata: template }), { reward: 1, extracted_answer: "B" });
    assert.deepEqual(await score("Final Choice: Q", { template_metadata: template }), { reward: 0, extracted_answer: "Q" });
    assert.deepEqual(await score(String.raw`\boxed{B}`, { template_metadata: template }), { reward: 1, extracted_answer: "B" }, "no match: the grading mode decides");
  });

  test("a list of patterns, one of which is invalid Python", async () => {
    const template = { output_regex: ["(", String.raw`Chosen:\s*(.+)`] };
    assert.deepEqual(await score("Chosen: polymerase chain reaction (pcr)", { template_metadata: template }), { reward: 1, extracted_answer: "B" });
  });

  test("a pattern with two groups is NeMo Gym's 500 (a tuple has no strip())", async () => {
    const answer = await verify("Final: B c", { template_metadata: { output_regex: String.raw`Final: (\w) (\w)` } });
    assert.equal(answer.status, 500);
    assert.match(answer.text, /AttributeError.*'tuple' object has no attribute 'strip'/);
  });
});

describe("validation", () => {
  test("ill-typed options and an unknown row grading_mode are 422s naming the field", async () => {
    const badOptions = await verify(String.raw`\boxed{B}`, { options: [{ A: 1 }] });
    assert.equal(badOptions.status, 422);
    assert.match(badOptions.text, /options/);
    const badMode = await verify(String.raw`\boxed{B}`, { grading_mode: "loose" });
    assert.equal(badMode.status, 422);
    assert.match(badMode.text, /grading_mode/);
  });
});

describe("aggregate metrics", () => {
  test("pass@k, majority@k over extracted_answer, and NeMo Gym's key metrics", async () => {
    const record = (task: number, rollout: number, reward: number, extracted: string | null) => ({ _ng_task_index: task, _ng_rollout_index: rollout, reward, extracted_answer: extracted });
    const answer = await graph.server("mcqa").post("/aggregate_metrics", { verify_responses: [record(0, 0, 1, "B"), record(0, 1, 0, "C"), record(1, 0, 0, null), record(1, 1, 0, "A")] });
    assert.equal(answer.status, 200, answer.text);
    const { agent_metrics, key_metrics } = answer.json<Record<string, Record<string, unknown>>>();
    assert.equal(agent_metrics["pass@2/accuracy"], 50);
    assert.equal(agent_metrics["pass@1[avg-of-2]/accuracy"], 25);
    assert.equal(agent_metrics["pass@1[avg-of-2]/no_answer"], 25);
    assert.ok("majority@2/accuracy" in agent_metrics);
    assert.deepEqual(Object.keys(key_metrics), ["mean/reward", "pass@1[avg-of-2]/accuracy", "pass@1[avg-of-2]/no_answer", "pass@2/no_answer", "majority@2/accuracy", "pass@1/accuracy"]);
  });
});

describe("reverify mode", () => {
  test("mcqa is stateless (NeMo Gym's verify-only reverify may re-score it)", async () => {
    assert.equal((await graph.server("mcqa").get("/reverify_mode")).json(), "stateless");
  });
});

describe("data", () => {
  test("the example rows are valid run requests with options and a gold letter among them", () => {
    for (const file of ["example.jsonl", "example_with_template_metadata.jsonl"]) {
      const rows = readRows(join(dataDir, file));
      assert.equal(rows.length, 5);
      assertRowsAreRunRequests(rows);
      for (const row of rows) assert.ok(row.options.some((option: Record<string, string>) => row.expected_answer in option), `${file}: ${row.uuid}`);
    }
  });

  test("every verifier case scores its expected reward", async () => {
    await assertVerifierCasesScore(graph.server("mcqa"), join(dataDir, "verifier_cases.jsonl"), { minCases: 6 });
  });
});
