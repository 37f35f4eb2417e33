// gpqa_diamond's verify (through fastify inject): mcqa's response shape, gpqa's own extraction (the last box, else the last
// `Answer: X`), the option-letter check, the row's grading_mode being ignored, the single template regex, and the
// authored data and verifier cases. The extraction rules are unit-tested in tests/ports/choice-answer.test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, type InjectedServer, injectServer, readRows, responseWith } from "../../../src/testing/index.ts";
import gpqa from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");
const OPTIONS = [{ A: "10^-9 eV" }, { B: "10^-8 eV" }, { C: "10^-4 eV" }, { D: "10^-11 eV" }];

let env: InjectedServer;
before(async () => (env = await injectServer(gpqa, { grading_mode: "lenient_answer_colon_md" }, { instanceName: "gpqa_diamond" })));
after(() => env.close());

const response = (text: string) => responseWith([assistantMessage(text)]);
const params = { input: [{ role: "user", content: "Which energy difference can be resolved?" }] };
const verify = (text: string, row: Record<string, unknown> = {}) =>
  env.post("/verify", { responses_create_params: params, options: OPTIONS, expected_answer: "C", ...row, response: response(text) });
async function score(text: string, row: Record<string, unknown> = {}) {
  const answer = await verify(text, row);
  assert.equal(answer.status, 200, answer.text);
  const { reward, extracted_answer } = answer.json<Record<string, unknown>>();
  return { reward, extracted_answer };
}

describe("the verify response", () => {
  test("has mcqa's fields in order, gold upper-cased, reward written 1.0", async () => {
    const answer = await verify("Answer: C", { expected_answer: "c ", uuid: "u", metadata: { difficulty: "hard" } });
    assert.deepEqual(Object.keys(answer.json<Record<string, unknown>>()), ["responses_create_params", "response", "reward", "expected_answer", "extracted_answer"]);
    assert.match(answer.text, /"reward":1\.0,"expected_answer":"C","extracted_answer":"C"}$/);
  });
});

describe("extraction", () => {
  test("`Answer: X` on the last line, with or without markdown, any case", async () => {
    assert.deepEqual(await score("Reasoning…\nAnswer: C"), { reward: 1, extracted_answer: "C" });
    assert.deepEqual(await score("**Answer:** c"), { reward: 1, extracted_answer: "C" });
    assert.deepEqual(await score("Answer: A\nOn reflection, Answer: C"), { reward: 1, extracted_answer: "C" });
  });

  test("a boxed letter comes before any `Answer:` line", async () => {
    assert.deepEqual(await score(String.raw`\boxed{C} Answer: A`), { reward: 1, extracted_answer: "C" });
    assert.deepEqual(await score(String.raw`\boxed{\text{C}}`), { reward: 1, extracted_answer: "C" });
  });

  test("a letter that is not an option is dropped; a word after `Answer:` is no letter", async () => {
    assert.deepEqual(await score("Answer: E"), { reward: 0, extracted_answer: null });
    assert.deepEqual(await score("Answer: Clearly the third"), { reward: 0, extracted_answer: null });
  });

  test("the row's grading_mode and the instance's are ignored", async () => {
    assert.deepEqual(await score(String.raw`\boxed{c}`, { grading_mode: "lenient_boxed" }), { reward: 0, extracted_answer: null });
    assert.deepEqual(await score("Answer: A or C"), { reward: 0, extracted_answer: "A" }, "no ambiguity check: the `Answer:` regex takes A");
  });

  test("a template regex is tried first, and a list of them is NeMo Gym's 500", async () => {
    assert.deepEqual(await score("Choice: c. Answer: A", { template_metadata: { output_regex: String.raw`Choice:\s*([A-Za-z])` } }), { reward: 1, extracted_answer: "C" });
    const answer = await verify("Choice: c", { template_metadata: { output_regex: [String.raw`Choice:\s*([A-Za-z])`] } });
    assert.equal(answer.status, 500);
    assert.match(answer.text, /unhashable type: 'list'/);
  });
});

describe("data", () => {
  test("the example rows are valid run requests with four options and a gold letter among them", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) {
      assert.deepEqual(row.options.map((option: Record<string, string>) => Object.keys(option)[0]), ["A", "B", "C", "D"]);
      assert.ok(row.options.some((option: Record<string, string>) => row.expected_answer in option));
    }
  });

  test("every verifier case scores its expected reward", async () => {
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 6 });
  });
});
