// hotpotqa_qa's verify and metrics (fastify inject): the JSON answer extraction, SQuAD EM / F1, the ground-truth
// alternatives with the lenient and strict substring checks, the unreliable-ground-truth filter, the echoed row,
// and the filtered metrics. Values pinned from NeMo Gym's Python scoring and compute_metrics run locally.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import hotpotqa from "../app.ts";
import { gtAlternatives, normalizeAnswer, normalizeGt, parseGeneration } from "../scoring.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const PARAMS = { input: [{ role: "user", content: "Question: Who was born first?" }] };

let env: InjectedServer;
before(async () => {
  env = await injectServer(hotpotqa);
});
after(() => env.close());

const verify = (text: string, expected: string, fields: Item = {}) => env.post("/verify", { responses_create_params: PARAMS, expected_answer: expected, ...fields, response: responseWith([assistantMessage(text)]) });
async function scores(text: string, expected: string) {
  const answer = await verify(text, expected);
  assert.equal(answer.status, 200, answer.text);
  const { reward, extracted_answer, answer_em, answer_f1, is_correct, is_correct_strict } = answer.json<Item>();
  assert.equal(reward, is_correct_strict, "the reward is is_correct_strict");
  return { extracted_answer, answer_em, answer_f1, is_correct, is_correct_strict };
}

describe("the predicted answer", () => {
  test("the last ```json object with an answer, else the last balanced {…} with one, else the whole text", () => {
    assert.equal(parseGeneration('```json\n{"answer": "A"}\n``` and {"answer": "B"}'), "A", "a fenced object wins over a later bare one");
    assert.equal(parseGeneration('{"answer": "wrong"} then {"answer": "right"}'), "right");
    assert.equal(parseGeneration('{"answer": "ok"} then {"other": 1}'), "ok", "an object without answer is skipped");
    assert.equal(parseGeneration("  just text  "), "just text");
    assert.equal(parseGeneration('{unclosed … {"answer": "B"}'), '{unclosed … {"answer": "B"}', "an unclosed brace ends the scan");
  });

  test("the answer is Python's str() of the JSON value", () => {
    assert.equal(parseGeneration('{"answer": 1.0}'), "1.0");
    assert.equal(parseGeneration('{"answer": 12}'), "12");
    assert.equal(parseGeneration('{"answer": true}'), "True");
    assert.equal(parseGeneration('{"answer": null}'), "None");
    assert.equal(parseGeneration('{"answer": ["a", 2]}'), "['a', 2]");
  });

  test("a supporting fact index of Infinity is NeMo Gym's uncaught OverflowError: a 500, not a score", async () => {
    const answer = await verify('{"answer": "x", "supporting_facts": [["t", Infinity]]}', "x");
    assert.equal(answer.status, 500);
    assert.equal((await verify('{"answer": "x", "supporting_facts": [["t", NaN], ["u", "v"]]}', "x")).json<Item>().reward, 1, "other bad facts are skipped");
  });
});

describe("scores", () => {
  test("EM and F1 on SQuAD-normalised text; yes/no must match exactly", async () => {
    assert.deepEqual(await scores('{"answer": "The Beatles!"}', "Beatles"), { extracted_answer: "The Beatles!", answer_em: 1, answer_f1: 1, is_correct: 1, is_correct_strict: 1 });
    assert.deepEqual(await scores('{"answer": "5 lbs"}', "5 to 6 pounds"), { extracted_answer: "5 lbs", answer_em: 0, answer_f1: 0.3333333333333333, is_correct: 0, is_correct_strict: 0 });
    assert.deepEqual(await scores('{"answer": "no, never"}', "no"), { extracted_answer: "no, never", answer_em: 0, answer_f1: 0, is_correct: 1, is_correct_strict: 1 });
    assert.equal((await scores('{"answer": "yes"}', "yes indeed")).answer_f1, 0);
  });

  test("alternatives: numbers as words, '&' for 'and', parentheses, article, abbreviation dots, hyphens", async () => {
    assert.equal((await scores('{"answer": "4"}', "four")).is_correct_strict, 1);
    assert.equal((await scores('{"answer": "Simon and Garfunkel"}', "Simon & Garfunkel")).is_correct_strict, 1);
    assert.equal((await scores('{"answer": "STOCKHOLM (1912)"}', "Stockholm")).is_correct_strict, 1);
    assert.equal((await scores('{"answer": "France"}', "Paris (France)")).is_correct_strict, 1);
    assert.equal((await scores('{"answer": "USA"}', "U.S.A.")).is_correct_strict, 1);
    assert.equal((await scores('{"answer": "well known"}', "well-known")).is_correct_strict, 1);
    assert.deepEqual(gtAlternatives("Tom and Jerry"), [["Tom & Jerry", "Tom and Jerry"], ["and_to_ampersand"]]);
    assert.deepEqual(gtAlternatives("1,000,000"), [["1,000,000", "1000000"], ["strip_number_commas"]]);
  });

  test("strict: a short alternative must stand as a word, and in an answer over 80 characters start by position 40", async () => {
    assert.deepEqual(await scores('{"answer": "nope, I do not know"}', "no"), { extracted_answer: "nope, I do not know", answer_em: 0, answer_f1: 0, is_correct: 1, is_correct_strict: 0 });
    const late = "A long preamble that goes on and on for quite a while before finally, after more than forty characters, saying Paris.";
    assert.deepEqual([(await scores(late, "Paris")).is_correct, (await scores(late, "Paris")).is_correct_strict], [1, 0]);
  });

  test("Unicode spaces, dashes and quotes are normalised for the substring checks; punctuation is ASCII's for EM", async () => {
    assert.equal((await scores('{"answer": "Jean\u2013Claude\u00a0Van Damme"}', "Jean-Claude Van Damme")).is_correct_strict, 1);
    assert.equal(normalizeAnswer("Jean\u2013Claude"), "jean\u2013claude");
  });
});

describe("the ground-truth filter", () => {
  test("longer than 40 code points, or a 3-6 word capitalised name, is flagged with its reason", () => {
    assert.deepEqual([normalizeGt("A very long ground truth answer that exceeds forty characters").remove_reason, normalizeGt("Jean-Claude Van Damme").remove_reason], ["gt_too_long", "multi_word_name"]);
    assert.deepEqual([normalizeGt("Kingdom of the Netherlands").should_remove, normalizeGt("Chief of Protocol").should_remove], [false, false], "a stopword breaks a 3-4 word name");
    assert.equal(normalizeGt("University of California at Los Angeles").remove_reason, "multi_word_name", "5-6 words: 3 capitalised non-stopwords suffice");
  });
});

describe("the verify response", () => {
  test("NeMo Gym's order, floats as floats; the row's other fields echoed after", async () => {
    const answer = await verify('{"answer": "Ed Wood"}', "Ed Wood", { question: "Who?", id: "x1", level: "medium" });
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "expected_answer", "extracted_answer", "answer_em", "answer_f1", "is_correct", "is_correct_strict", "gt_should_remove", "gt_remove_reason", "question", "id", "level"]);
    assert.match(answer.text, /"reward":1\.0,"expected_answer":"Ed Wood","extracted_answer":"Ed Wood","answer_em":1\.0,"answer_f1":1\.0,"is_correct":1\.0,"is_correct_strict":1\.0,"gt_should_remove":false,"gt_remove_reason":"","question":"Who\?","id":"x1","level":"medium"}$/);
  });

  test("an empty generation extracts null; expected_answer must be a string; a row field named like a response field is refused", async () => {
    const empty = await env.post("/verify", { responses_create_params: PARAMS, expected_answer: "x", response: responseWith([]) });
    assert.equal(empty.json<Item>().extracted_answer, null);
    assert.equal((await verify("x", 5 as unknown as string)).status, 422);
    const clash = await verify("x", "x", { answer_f1: 1 });
    assert.equal(clash.status, 422);
    assert.deepEqual(clash.json<any>().detail[0].loc, ["body", "answer_f1"]);
  });
});

const rollout = (taskIndex: number, rolloutIndex: number, strict: number, remove: boolean) => ({
  reward: strict,
  extracted_answer: strict ? "right" : "wrong",
  answer_em: strict,
  answer_f1: strict ? 1 : 0.5,
  is_correct: 1,
  is_correct_strict: strict,
  gt_should_remove: remove,
  gt_remove_reason: remove ? "gt_too_long" : "",
  _ng_task_index: taskIndex,
  _ng_rollout_index: rolloutIndex,
});

describe("/aggregate_metrics (values of NeMo Gym's Python)", () => {
  const responses = [rollout(0, 0, 1, false), rollout(0, 1, 0, false), rollout(1, 0, 0, true), rollout(1, 1, 0, true)];

  test("pass@k of the four scores over all tasks, and filtered_ over the tasks whose ground truth is kept", async () => {
    const { agent_metrics: metrics, key_metrics: key } = (await env.post("/aggregate_metrics", { verify_responses: responses })).json<{ agent_metrics: Item; key_metrics: Item }>();
    assert.equal(metrics["pass@1/is_correct_strict"], 25);
    assert.equal(metrics["pass@2/is_correct_strict"], 50);
    assert.equal(metrics["pass@2/answer_f1"], 75, "a continuous score's pass@k is the best of k");
    assert.equal(metrics["filtered_pass@2/is_correct_strict"], 100);
    assert.equal(metrics["filtered_majority@2/is_correct_strict"], 50);
    assert.ok(!("filtered_per_sample_aggregate" in metrics));
    assert.deepEqual([metrics.filtered_num_tasks, metrics.unfiltered_num_tasks], [1, 2]);
    assert.equal(key["filtered_pass@2/is_correct_strict"], 100);
    assert.ok(!("pass@2/no_answer" in key), "key metrics keep only the four scores");
  });

  test("report_filtered_metrics: false reports no filtered_ keys", async () => {
    const unfiltered = await injectServer(hotpotqa, { report_filtered_metrics: false });
    try {
      const { agent_metrics: metrics } = (await unfiltered.post("/aggregate_metrics", { verify_responses: responses })).json<{ agent_metrics: Item }>();
      assert.deepEqual(Object.keys(metrics).filter((k) => k.includes("filtered")), []);
    } finally {
      await unfiltered.close();
    }
  });
});

describe("the data", () => {
  test("example rows are /run requests with a string expected_answer", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.equal(typeof row.expected_answer, "string");
  });

  test("verifier cases score as NeMo Gym's Python scores them", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 10 }));
});
