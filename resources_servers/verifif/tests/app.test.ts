// verifif's verify over real HTTP, with scripted_model as the judge (judge_rules over chat completions, or the
// Responses API for a reasoning-model name): rule-based English instructions, llm_judge questions with their
// verdict reading, pass criteria and misalignment inversion, the schema and language checks, every aggregation mode,
// the 501s for what is not ported, and a failing judge giving the judge_failed row.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers } from "../../../src/testing/index.ts";
import verifif from "../app.ts";
import { readJudgeVerdict } from "../judge.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const rule = (question: string, answer: string) => ({ match: `QUESTION TO EVALUATE AGAINST:\\n${question}\\n`, answer });
const JUDGE_RULES = [
  rule("Q-yes", "It does.\n[[YES]]"),
  rule("Q-no", "It does not.\n[[NO]]"),
  rule("Q-plain-yes", "Reasoning\n  yes "),
  rule("Q-unclear", "Hard to say."),
  rule("Q-think", "<think>[[YES]]</think>[[NO]]"),
  // The shipped example rows.
  { match: "QUESTION TO EVALUATE AGAINST:", answer: "[[YES]]" },
];

// An answer that follows every instruction of each example row (by row id).
const EXAMPLE_ANSWERS: Record<number, string> = {
  1: "SPRING FESTIVAL THIS SATURDAY. BRING YOUR FAMILY AND FRIENDS.",
  2: "Dear team,\n\nThe meeting moves to Thursday. Please update your calendars.\n\nP.S. Lunch is provided.",
  3: "1. Apples\n2. Pears\n3. Plums",
  4: "<<Quiet Harbor>>\n\nBoats rest in the harbor while gulls circle overhead",
  5: "\"Keep it short, keep it kind\"",
};

const judged = (fields: Record<string, unknown> = {}) => ({ judge_server_name: "judge_model", judge_model: "judge-chat", ...fields });
const MODES = ["all", "any", "mean", "min", "max"] as const;

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    verifif: [verifif, judged()],
    verifif_reasoning: [verifif, judged({ judge_model: "gpt-5-mini" })],
    verifif_no_judge: [verifif, { judge_base_url: "https://example.invalid/v1" }],
    ...Object.fromEntries(MODES.map((mode) => [`verifif_${mode}`, [verifif, judged({ aggregation_mode: mode })]])),
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: JUDGE_RULES }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const params = { input: [{ role: "user", content: "Write." }] };
const inst = (instruction_id: string, uid: number, extra: Record<string, unknown> = {}) => ({ instruction_id, uid, source: "system", is_misalignment_check: false, ...extra });
const question = (uid: number, content: string, extra: Record<string, unknown> = {}) => ({ uid, content, source: "system", is_misalignment_check: false, ...extra });

async function verify(fields: Record<string, unknown>, text = "Hello world.", instance = "verifif") {
  return client.request(`${graph.url(instance)}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage(text)]), ...fields } });
}
async function verified(fields: Record<string, unknown>, text?: string, instance?: string) {
  const answer = await verify(fields, text, instance);
  assert.equal(answer.status, 200, answer.text);
  return { body: answer.json<Record<string, any>>(), text: answer.text };
}

describe("readJudgeVerdict", () => {
  test("last label wins; an exact YES/NO last line; otherwise NO with the answer quoted", () => {
    assert.deepEqual(readJudgeVerdict("[[NO]] then [[YES]]"), [true, "[[NO]] then [[YES]]"]);
    assert.deepEqual(readJudgeVerdict("[[YES]] ```[[NO]]```"), [false, "[[YES]] ```[[NO]]```"]);
    assert.deepEqual(readJudgeVerdict("Thinking\n  no  "), [false, "Thinking\n  no"]);
    assert.deepEqual(readJudgeVerdict("Thinking\nyes, clearly"), [false, "No [[YES]]/[[NO]] marker found in judge response: Thinking\nyes, clearly"], "the last line must be exactly YES or NO");
    assert.deepEqual(readJudgeVerdict("[[yes]]"), [false, "No [[YES]]/[[NO]] marker found in judge response: [[yes]]"], "labels are case-sensitive");
    assert.deepEqual(readJudgeVerdict(""), [false, "No [[YES]]/[[NO]] marker found in judge response: "]);
    assert.equal(readJudgeVerdict("x".repeat(600))[1].length, "No [[YES]]/[[NO]] marker found in judge response: ".length + 500);
    assert.deepEqual(readJudgeVerdict("<think>[[NO]]</think>\n[[YES]]"), [true, "[[YES]]"]);
  });
});

describe("verifif verify", () => {
  test("rule-based instructions and judge questions: NeMo Gym's response fields and messages", async () => {
    const { body, text } = await verified({
      id: 7,
      instructions: [inst("punctuation:no_comma", 1), inst("length_constraints:number_words", 2, { relation: "equal to", num_words: 3 })],
      llm_judge: [question(3, "Q-yes"), question(4, "Q-no", { pass_criteria: "NO" })],
    });
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "follow_all_instructions", "follow_instruction_list", "validation_results"]);
    assert.deepEqual(body.follow_instruction_list, [true, false, true, true]);
    assert.deepEqual(body.validation_results, [
      { instruction: "punctuation:no_comma", status: "Passed", message: "No error" },
      { instruction: "length_constraints:number_words", status: "Failed", message: "Expected equal to 3 words, found 2." },
      { instruction: "llm_judge_3", status: "Passed", message: "It does.\n[[YES]]" },
      { instruction: "llm_judge_4", status: "Passed", message: "It does not.\n[[NO]]" },
    ]);
    assert.deepEqual([body.reward, body.follow_all_instructions], [0, false]);
    assert.match(text, /"reward":0\.0/);
  });

  test("judge answers read rule by rule; thinking stripped from the judge's answer and the response", async () => {
    const { body } = await verified({ llm_judge: [question(1, "Q-plain-yes"), question(2, "Q-unclear"), question(3, "Q-think")] }, "<think>draft</think>Final text");
    assert.deepEqual(body.follow_instruction_list, [true, false, false]);
    assert.equal(body.validation_results[1].message, "No [[YES]]/[[NO]] marker found in judge response: Hard to say.");
  });

  test("a misalignment check (source user) inverts the verdict and its message", async () => {
    const { body } = await verified({ instructions: [inst("punctuation:no_comma", 1, { source: "user", is_misalignment_check: true })], llm_judge: [question(2, "Q-no", { source: "user", is_misalignment_check: true })] });
    assert.deepEqual(body.validation_results, [
      { instruction: "punctuation:no_comma", status: "Failed", message: "Response misaligns with system instruction." },
      { instruction: "llm_judge_2", status: "Passed", message: "No Error" },
    ]);
  });

  test("a reasoning-model judge is asked through the Responses API", async () => {
    const { body } = await verified({ llm_judge: [question(1, "Q-yes")] }, undefined, "verifif_reasoning");
    assert.deepEqual(body.follow_instruction_list, [true]);
  });

  test("every aggregation mode; nothing to check is reward 1.0", async () => {
    const row = { instructions: [inst("punctuation:no_comma", 1), inst("punctuation:no_period", 2)] };
    const expected = { all: 0, any: 1, mean: 0.5, min: 0, max: 1 };
    for (const mode of MODES) assert.equal((await verified(row, "Hello world.", `verifif_${mode}`)).body.reward, expected[mode], mode);
    const empty = await verified({});
    assert.deepEqual([empty.body.reward, empty.body.follow_all_instructions], [1, true]);
    assert.match(empty.text, /"reward":1\.0/);
  });

  test("schema problems: every message, reward 0, nothing validated", async () => {
    const { body } = await verified({
      instructions: [{ uid: 1 }, inst("no:such", 2), inst("keywords:frequency", 3, { keyword: "x" }), { instruction_id: "punctuation:no_comma", uid: 2, source: "bot", is_misalignment_check: "no" }],
      llm_judge: [question(3, "Q-yes")],
    });
    assert.equal(body.reward, 0);
    assert.deepEqual(body.validation_results.map((r: any) => r.message), [
      "Instruction at index 0: must have an 'instruction_id' field",
      "Instruction 'no:such' at index 1: unknown instruction_id",
      "Instruction 'keywords:frequency' at index 2: missing required argument(s): ['frequency', 'relation']",
      "Instruction 'punctuation:no_comma' at index 3: duplicate 'uid' value '2' (first seen at instruction 'no:such' at index 1)",
      "Instruction 'punctuation:no_comma': invalid 'source' value 'bot'. Must be 'user' or 'system'.",
      "Instruction 'punctuation:no_comma': 'is_misalignment_check' must be a boolean, got 'no'.",
      "llm_judge at index 0: duplicate 'uid' value '3' (first seen at instruction 'keywords:frequency' at index 2)",
    ]);
    assert.ok(body.validation_results.every((r: any) => r.instruction === "schema_validation" && r.status === "Failed"));
  });

  test("an instruction the language has no rules for: reward 0 with NeMo Gym's message", async () => {
    const { body } = await verified({ language: "ja", instructions: [inst("change_case:all_caps", 1)] });
    assert.deepEqual(body.validation_results, [{ instruction: "language_compatibility", status: "Failed", message: "Instructions not supported for language 'ja': ['change_case:all_caps']" }]);
    assert.equal(body.reward, 0);
  });

  test("Chinese rows are scored by the zh validator; an id it hands to the unported generic validator is a 501 naming it", async () => {
    const { body } = await verified({ language: "zh", instructions: [inst("punctuation:no_comma", 1), inst("punctuation:no_period", 2)] }, "春天、夏天");
    assert.deepEqual(body.follow_instruction_list, [false, true]);
    assert.deepEqual(body.validation_results[0], { instruction: "punctuation:no_comma", status: "Failed", message: "Commas found in response." });
    const generic = await verify({ language: "zh", instructions: [inst("punctuation:no_comma", 1), inst("detectable_format:json_format", 2)] });
    assert.equal(generic.status, 501, generic.text);
    assert.match(generic.text, /\['detectable_format:json_format'\].*validate_instruction_generic/);
  });

  test("what is not ported is a 501 naming it: other languages' validators, LLM-scored instructions, a judge by URL", async () => {
    const french = await verify({ language: "fre", instructions: [inst("punctuation:no_comma", 1)] });
    assert.equal(french.status, 501, french.text);
    assert.match(french.text, /language 'fre'/);
    const stylistic = await verify({ instructions: [inst("stylistic:tone_formality", 1, { tone_level: "formal" })] });
    assert.equal(stylistic.status, 501, stylistic.text);
    assert.match(stylistic.text, /stylistic:tone_formality/);
    const byUrl = await verify({ llm_judge: [question(1, "Q-yes")] }, undefined, "verifif_no_judge");
    assert.equal(byUrl.status, 501, byUrl.text);
    assert.match(byUrl.text, /judge_server_name/);
    // A row without judge questions needs no judge.
    assert.equal((await verify({ instructions: [inst("punctuation:no_comma", 1)] }, undefined, "verifif_no_judge")).status, 200);
  });

  test("a malformed llm_judge item is a 422 naming the field", async () => {
    const answer = await verify({ llm_judge: [{ uid: 1, content: "Q-yes", source: "robot", is_misalignment_check: false }] });
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.text, /source/);
  });

  test("a judge call that fails (no rule answers: the judge's 404) is the judge_failed row", async () => {
    // Its own judge, without the catch-all rule the shared one has for the example rows.
    const failing = await startServers({ verifif: [verifif, judged()], judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: [rule("Q-yes", "[[YES]]")] }] });
    try {
      const failed = await client.request(`${failing.url("verifif")}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage("x")]), llm_judge: [question(1, "Q-yes"), question(2, "Q-nobody")] } });
      assert.equal(failed.status, 200, failed.text);
      const body = failed.json<Record<string, any>>();
      assert.deepEqual([body._ng_failure_class, body.reward], ["judge_failed", 0]);
      assert.match(body._ng_failure_judge_error, /404/);
    } finally {
      await failing.close();
    }
  });

  test("the example rows score end to end", async () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    for (const row of rows) {
      const answer = await client.request(`${graph.url("verifif")}/verify`, { method: "POST", json: { ...row, response: responseWith([assistantMessage(EXAMPLE_ANSWERS[row.id as number]!)]) } });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json<Record<string, any>>().reward, 1, JSON.stringify(answer.json<Record<string, any>>().validation_results));
    }
  });
});
