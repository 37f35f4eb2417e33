// abstention's verify over real HTTP, with scripted_model as the judge (judge_rules: a verdict per predicted answer
// in the prompt): the three tiers, the abstention token spotted without a judge, NOT_ATTEMPTED as abstaining, the
// fields NeMo Gym's response carries, and the failed judge call (no rule matches → 404; an empty answer) as
// NeMo Gym's judge_failed row.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, readRows, responseWith, serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import abstention from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const EXAMPLE_TEMPLATE = join(import.meta.dirname, "../prompt_templates/example.txt");
const judge = { type: "responses_api_models", name: "judge_model" };
const params = { input: [], max_output_tokens: 64, temperature: 0.0, top_p: 1.0 };

const rules = [
  { match: "Predicted answer: Danube\\n", answer: "A" },
  { match: "Predicted answer: Rhine\\n", answer: "B" },
  { match: "Predicted answer: I am not sure, maybe Venice\\n", answer: "C" },
  { match: "Predicted answer: thinking judge\\n", answer: "<think>It could be A.</think>\nB" },
  { match: "Predicted answer: silent judge\\n", answer: "" },
  { match: "Predicted answer: inline\\b", answer: "A" },
];

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    abstention: [abstention, { judge_model_server: judge, judge_responses_create_params: params, judge_prompt_template_fpath: EXAMPLE_TEMPLATE }],
    generous: [abstention, { judge_model_server: judge, judge_responses_create_params: params, judge_prompt_template_fpath: EXAMPLE_TEMPLATE, abstention_reward: 0.25, correct_reward: 2.0, incorrect_reward: -1.0, abstention_token: "pass" }],
    inline: [abstention, { judge_model_server: judge, judge_responses_create_params: params, judge_prompt_template: "Q={question} T={target} Predicted answer: {predicted_answer}" }],
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const row = { id: "example_0", question: "Which river flows through both Vienna and Budapest?", answer: "Danube" };
async function verify(text: string, { server = "abstention", fields = row }: { server?: string; fields?: Record<string, unknown> } = {}) {
  const answer = await client.request(`${graph.url(server)}/verify`, {
    method: "POST",
    json: { responses_create_params: { input: [{ role: "user", content: "q" }] }, response: responseWith([assistantMessage(text)]), ...fields },
  });
  return answer;
}
async function verified(text: string, options?: Parameters<typeof verify>[1]) {
  const answer = await verify(text, options);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}
const tiers = (body: Record<string, any>) => [body.reward, body.verdict, body.is_correct, body.is_abstain, body.is_incorrect, body.omniscience_index];

describe("abstention verify", () => {
  test("correct (A): reward 1.0, omniscience_index 1.0, the judge's text kept; NeMo Gym's fields, floats as floats", async () => {
    const answer = await verify("\\boxed{Danube}");
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.deepEqual(tiers(body), [1, "correct", 1, 0, 0, 1]);
    assert.deepEqual([body.extracted_answer, body.ground_truth, body.judge_output], ["Danube", "Danube", "A"]);
    assert.deepEqual(Object.keys(body), [
      "responses_create_params", "response", "reward", "id", "question", "answer",
      "extracted_answer", "ground_truth", "verdict", "judge_output", "is_correct", "is_abstain", "is_incorrect", "omniscience_index",
    ]);
    assert.match(answer.text, /"reward":1\.0,.*"is_correct":1\.0,"is_abstain":0\.0,"is_incorrect":0\.0,"omniscience_index":1\.0/);
  });

  test("incorrect (B): reward 0.0, omniscience_index -1.0", async () => {
    assert.deepEqual(tiers(await verified("It is \\boxed{Rhine}")), [0, "incorrect", 0, 0, 1, -1]);
  });

  test("not attempted (C) counts as abstaining: reward λ", async () => {
    const body = await verified("I am not sure, maybe Venice");
    assert.deepEqual(tiers(body), [0.5, "abstain", 0, 1, 0, 0]);
    assert.equal(body.extracted_answer, "I am not sure, maybe Venice", "without a box the whole text is the answer");
  });

  test("\\boxed{[IDK]} abstains without asking the judge (no rule would match it)", async () => {
    const body = await verified("<think>no clue</think>\\boxed{[IDK]}");
    assert.deepEqual(tiers(body), [0.5, "abstain", 0, 1, 0, 0]);
    assert.deepEqual([body.extracted_answer, body.judge_output], ["[IDK]", null]);
  });

  test("the token is compared normalised: \\boxed{idk.} abstains too", async () => {
    assert.deepEqual(tiers(await verified("\\boxed{idk.}")), [0.5, "abstain", 0, 1, 0, 0]);
  });

  test("the judge's own thinking is stripped before its grade is read", async () => {
    const body = await verified("\\boxed{thinking judge}");
    assert.deepEqual([body.verdict, body.judge_output], ["incorrect", "B"]);
  });

  test("the configured rewards and token are used", async () => {
    assert.equal((await verified("\\boxed{Danube}", { server: "generous" })).reward, 2);
    assert.equal((await verified("\\boxed{Rhine}", { server: "generous" })).reward, -1);
    assert.equal((await verified("\\boxed{Pass}", { server: "generous" })).reward, 0.25);
  });

  test("judge_prompt_template set inline is formatted with question, target and predicted_answer", async () => {
    const body = await verified("\\boxed{inline}", { server: "inline" });
    assert.equal(body.verdict, "correct");
  });

  test("a missing answer grades against an empty target; a missing question is an empty one", async () => {
    const body = await verified("\\boxed{Danube}", { fields: { id: 7 } });
    assert.deepEqual([body.ground_truth, body.id, body.question, body.answer], ["", 7, undefined, undefined]);
  });

  test("extra row fields are echoed, as NeMo Gym's extra=allow request does", async () => {
    const body = await verified("\\boxed{[IDK]}", { fields: { ...row, source: "mine" } });
    assert.equal(body.source, "mine");
  });

  test("a question that is not a string is a 422 naming it", async () => {
    const answer = await verify("\\boxed{x}", { fields: { question: 5 } });
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.text, /question/);
  });
});

describe("abstention: a failed judge call is NeMo Gym's judge_failed row, never a reward", () => {
  test("no judge rule matches (the judge answers 404)", async () => {
    const body = await verified("\\boxed{Seine}");
    assert.deepEqual([body._ng_failure_class, body.reward], ["judge_failed", 0]);
    assert.match(String(body._ng_failure_judge_error), /answered 404/);
    assert.equal(body.question, row.question, "the verify request is carried");
    assert.equal(body.verdict, undefined);
  });

  test("an empty judge answer (NeMo Gym raises JudgeError on it)", async () => {
    const body = await verified("\\boxed{silent judge}");
    assert.deepEqual([body._ng_failure_class, body._ng_failure_judge_error], ["judge_failed", "empty judge response"]);
  });
});

describe("authored data", () => {
  test("data/example.jsonl: 5 run requests with id, question and answer", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.deepEqual(Object.keys(r), ["id", "question", "answer", "agent_ref", "responses_create_params"]);
  });

  test("the example template has the grader's three placeholders", () => {
    const template = readFileSync(EXAMPLE_TEMPLATE, "utf8");
    for (const field of ["{question}", "{target}", "{predicted_answer}"]) assert.ok(template.includes(field), field);
  });
});
