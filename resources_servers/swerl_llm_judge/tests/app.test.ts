// swerl_llm_judge: the <solution> pick rule by rule (lenient and strict), the option and gold letters, and verify
// over real HTTP — NeMo Gym's three response fields, the list-valued expected_answer, a bad grading_mode as a 422,
// and data/verifier_cases.jsonl scored as `gym env test` scores it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, http, type InProcessGraph, overHttp, readRows, responseWith, startServers } from "../../../src/testing/index.ts";
import swerl from "../app.ts";
import { allowedLetters, lenientChoice, normalizeExpectedAnswers, strictChoice } from "../choice.ts";

const ABC = new Set(["A", "B", "C"]);

describe("swerl_llm_judge lenient pick", () => {
  const cases: [string, string, string | null][] = [
    ["a bare letter", "<solution>B</solution>", "B"],
    ["a bracketed letter", "<solution>[C]</solution>", "C"],
    ["lowercase letter and tag", "<SOLUTION> a </Solution>", "A"],
    ["the first standalone letter of a sentence", "<solution>The answer is B.</solution>", "B"],
    ["a standalone letter that is not an option ends the search", "<solution>I think B</solution>", null],
    ["the last block counts", "<solution>A</solution> on reflection <solution>C</solution>", "C"],
    ["a block spanning lines, with whitespace", "<solution>\n\n   B  \n</solution>", "B"],
    ["an empty block", "<solution>  </solution>", null],
    ["no block", "The answer is B.", null],
    ["an unclosed block", "<solution>B", null],
    ["a block inside a code fence", "```\n<solution>A</solution>\n```", "A"],
    ["letters only inside words", "<solution>none fit</solution>", null],
    ["a letter next to a digit stands alone", "<solution>2B</solution>", "B"],
  ];
  for (const [name, text, expected] of cases) test(name, () => assert.equal(lenientChoice(text, ABC), expected));
  test("with no option letters nothing is ever picked", () => assert.equal(lenientChoice("<solution>A</solution>", new Set()), null));
});

describe("swerl_llm_judge strict pick", () => {
  const cases: [string, string, string | null][] = [
    ["a bare letter", "<solution>B</solution>", "B"],
    ["a bracketed letter with whitespace", "<solution>\n [c] \n</solution>", "C"],
    ["words in the block", "<solution>The answer is B</solution>", null],
    ["the tag is case-sensitive", "<SOLUTION>B</SOLUTION>", null],
    ["the first such block counts", "<solution>A</solution> <solution>B</solution>", "A"],
    ["a letter that is not an option", "<solution>D</solution>", null],
    ["two letters", "<solution>AB</solution>", null],
    ["no block", "B", null],
  ];
  for (const [name, text, expected] of cases) test(name, () => assert.equal(strictChoice(text, ABC), expected));
});

describe("swerl_llm_judge letters", () => {
  test("expected answers: strings only, stripped, upper-cased, single letters, de-duplicated in order", () => {
    assert.deepEqual(normalizeExpectedAnswers([" b", "A", "b", "AB", "1", 3 as unknown as string]), ["B", "A"]);
    assert.deepEqual(normalizeExpectedAnswers("c"), ["C"]);
    assert.deepEqual(normalizeExpectedAnswers(null), []);
  });
  test("option letters: each entry's first key, when it is one letter", () => {
    assert.deepEqual([...allowedLetters([{ a: "x" }, { B: "y", C: "z" }, { DD: "w" }, { "1": "v" }])], ["A", "B"]);
    assert.deepEqual([...allowedLetters(null)], []);
  });
});

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({ swerl_llm_judge: [swerl, { dataset_name: "SWE-RL-llm-judge" }] });
});
after(async () => {
  await graph.close();
  await client.close();
});

const OPTIONS = [{ A: "diff a" }, { B: "diff b" }, { C: "diff c" }];
const params = { input: [{ role: "user", content: "pick" }] };
const post = (fields: Record<string, unknown>, text: string) =>
  client.request(`${graph.url("swerl_llm_judge")}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage(text)]), ...fields } });

describe("swerl_llm_judge verify", () => {
  test("a right pick: reward 1, and only NeMo Gym's fields come back", async () => {
    const answer = await post({ options: OPTIONS, expected_answer: "b", grading_mode: "strict", instance_id: "x-1", metadata: { k: 1 } }, "<solution>B</solution>");
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "expected_answer", "extracted_answer"]);
    assert.deepEqual([body.reward, body.expected_answer, body.extracted_answer], [1, "B", "B"]);
    assert.match(answer.text, /"reward":1\.0/);
  });

  test("several gold letters come back as a list; golds that are no option are dropped; lenient is the default", async () => {
    const body = (await post({ options: OPTIONS, expected_answer: ["A", "C", "D"] }, "<solution>I pick C</solution>")).json<Record<string, unknown>>();
    // "I" is the first standalone letter and not an option: no pick.
    assert.deepEqual([body.reward, body.expected_answer, body.extracted_answer], [0, ["A", "C"], null]);
    const picked = (await post({ options: OPTIONS, expected_answer: ["A", "C"] }, "<solution>C, clearly</solution>")).json<Record<string, unknown>>();
    assert.deepEqual([picked.reward, picked.extracted_answer], [1, "C"]);
  });

  test("text of every assistant message is joined by newlines before the block is looked for", async () => {
    const answer = await client.request(`${graph.url("swerl_llm_judge")}/verify`, {
      method: "POST",
      json: { responses_create_params: params, response: responseWith([assistantMessage("<solution>"), assistantMessage("A</solution>")]), options: OPTIONS, expected_answer: "A", grading_mode: "strict" },
    });
    assert.equal(answer.json<Record<string, unknown>>().reward, 1);
  });

  test("a grading_mode other than lenient or strict is a 422 naming it", async () => {
    const answer = await post({ options: OPTIONS, expected_answer: "A", grading_mode: "fuzzy" }, "<solution>A</solution>");
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.text, /grading_mode/);
  });

  test("data/verifier_cases.jsonl scores as expected", async () => {
    await assertVerifierCasesScore(overHttp(graph.url("swerl_llm_judge"), client), join(import.meta.dirname, "../data/verifier_cases.jsonl"), { kinds: ["full_reward", "zero_reward", "malformed"] });
  });

  test("data/example.jsonl: five run requests with options, expected_answer and grading_mode", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.ok(Array.isArray(row.options) && row.expected_answer && ["lenient", "strict"].includes(row.grading_mode as string));
  });
});
