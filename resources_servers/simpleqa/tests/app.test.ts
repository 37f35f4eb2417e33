// simpleqa over real HTTP: scripted_model in judge_rules mode as the judge over /v1/responses, and a judge that
// records its requests over /v1/chat/completions (use_chat_completions_for_judge, NeMo Gym's shipped setting: only
// max_tokens / temperature / top_p are sent, with NeMo Gym's fallbacks). The three tiers, NeMo Gym's response
// fields, an empty judge answer and a failed call both giving the judge_failed row, and /aggregate_metrics.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkInstanceConfig } from "../../../src/server/index.ts";
import { assertRowsAreRunRequests, assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers, testConfig } from "../../../src/testing/index.ts";
import { repliesJudge } from "../../../src/testing/judge-replies.ts";
import simpleqa from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const PROMPT = join(import.meta.dirname, "../prompts/example.yaml");
const rule = (prediction: string, answer: string) => ({ match: `Predicted answer: ${prediction.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`, answer });
const judgeRules = [rule("Mercury", "A"), rule("Venus", "B"), rule("I do not know.", "C"), rule("Mars, maybe", "I am not sure how to grade this."), rule("(blank judge)", "   ")];

const chatJudge = repliesJudge();
let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    simpleqa: [simpleqa, { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [], temperature: 0.0 }, judge_prompt_path: PROMPT }],
    simpleqa_chat: [
      simpleqa,
      { judge_model_server: { type: "responses_api_models", name: "chat_judge" }, judge_responses_create_params: { input: [], max_output_tokens: 2048, temperature: 0.0, top_p: 1.0, reasoning: { effort: "low" } }, judge_prompt_path: PROMPT, use_chat_completions_for_judge: true },
    ],
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: judgeRules }],
    chat_judge: [chatJudge.definition],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const row = { id: "q1", question: "Which planet has the shortest year?", expected_answer: "Mercury", responses_create_params: { input: [{ role: "user", content: "Which planet has the shortest year?" }] }, agent_ref: { type: "responses_api_agents", name: "simpleqa_simple_agent" } };
const post = (server: string, text: string, fields: Record<string, unknown> = {}) =>
  client.request(`${graph.url(server)}/verify`, { method: "POST", json: { ...row, ...fields, response: responseWith([assistantMessage(text)]) } });
async function verify(text: string, fields: Record<string, unknown> = {}) {
  const answer = await post("simpleqa", text, fields);
  assert.equal(answer.status, 200, answer.text);
  return { body: answer.json<Record<string, any>>(), text: answer.text };
}

describe("the three tiers", () => {
  test("A: correct, reward 1.0; NeMo Gym's fields in order, the request's own fields echoed after them", async () => {
    const { body, text } = await verify("Mercury");
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "extracted_answer", "expected_answer", "verdict", "judge_output", "is_correct", "is_incorrect", "is_not_attempted", "id", "question", "agent_ref"]);
    assert.deepEqual([body.reward, body.verdict, body.judge_output, body.extracted_answer, body.expected_answer], [1, "correct", "A", "Mercury", "Mercury"]);
    assert.deepEqual([body.is_correct, body.is_incorrect, body.is_not_attempted], [1, 0, 0]);
    assert.match(text, /"is_correct":1\.0,"is_incorrect":0\.0,"is_not_attempted":0\.0/);
    assert.deepEqual(body.agent_ref, row.agent_ref);
  });

  test("B: incorrect; C: not attempted; an unparseable judgement: not attempted (the parser's score)", async () => {
    assert.deepEqual(((await verify("Venus")).body as any).verdict, "incorrect");
    const notAttempted = (await verify("I do not know.")).body;
    assert.deepEqual([notAttempted.verdict, notAttempted.reward, notAttempted.is_not_attempted], ["not_attempted", 0, 1]);
    const unparseable = (await verify("Mars, maybe")).body;
    assert.deepEqual([unparseable.verdict, unparseable.judge_output, unparseable._ng_failure_class], ["not_attempted", "I am not sure how to grade this.", undefined]);
  });

  test("a missing question or expected answer is sent as empty; id and question echo as null", async () => {
    const answer = await client.request(`${graph.url("simpleqa")}/verify`, { method: "POST", json: { responses_create_params: row.responses_create_params, response: responseWith([assistantMessage("Mercury")]) } });
    const body = answer.json<Record<string, any>>();
    assert.deepEqual([body.expected_answer, body.id, body.question], ["", null, null]);
  });
});

describe("judge failures", () => {
  test("an empty (blank) judge answer is NeMo Gym's JudgeError: the judge_failed row", async () => {
    const { body } = await verify("(blank judge)");
    assert.deepEqual([body._ng_failure_class, body.reward, body._ng_failure_judge_error], ["judge_failed", 0, "empty judge response"]);
  });

  test("a failed judge call (no rule: a 404) is the judge_failed row", async () => {
    const { body } = await verify("Jupiter");
    assert.equal(body._ng_failure_class, "judge_failed");
    assert.match(body._ng_failure_judge_error, /answered 404/);
  });
});

describe("use_chat_completions_for_judge", () => {
  test("one user message and only max_tokens, temperature, top_p (from the responses params); the answer stripped", async () => {
    chatJudge.load(["  B\n"]);
    const answer = await post("simpleqa_chat", "Venus");
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.deepEqual([body.verdict, body.judge_output], ["incorrect", "B"]);
    const [asked] = chatJudge.asked;
    assert.deepEqual([asked!.max_output_tokens, asked!.temperature, asked!.top_p], [2048, 0, 1], "max_tokens arrives as the model server's max_output_tokens");
    assert.equal(asked!.reasoning, null, "the responses-only params are not sent over chat");
    const input = asked!.input as { role: string; content: unknown }[];
    assert.deepEqual(input.map((m) => m.role), ["user"]);
    assert.match(JSON.stringify(input[0]!.content), /Predicted answer: Venus/);
  });

  test("an empty chat answer is the judge_failed row", async () => {
    chatJudge.load([""]);
    const body = (await post("simpleqa_chat", "Venus")).json<Record<string, any>>();
    assert.equal(body._ng_failure_class, "judge_failed");
  });
});

test("/aggregate_metrics: per-tier pass@k, F1 and accuracy_given_attempted", async () => {
  const rollouts = [];
  for (const [index, text] of ["Mercury", "Venus", "I do not know.", "Mercury"].entries()) rollouts.push({ ...(await verify(text)).body, _ng_task_index: index, _ng_rollout_index: 0 });
  const answer = await client.request(`${graph.url("simpleqa")}/aggregate_metrics`, { method: "POST", json: { verify_responses: rollouts } });
  assert.equal(answer.status, 200, answer.text);
  const { agent_metrics: metrics, key_metrics: key } = answer.json<{ agent_metrics: Record<string, number>; key_metrics: Record<string, number> }>();
  assert.deepEqual([metrics["pass@1/correct"], metrics["pass@1/incorrect"], metrics["pass@1/not_attempted"]], [50, 25, 25]);
  assert.ok(Math.abs(metrics["pass@1/f1"]! - 57.142857142857146) < 1e-9);
  assert.ok("pass@1/f1" in key);
});

test("config: NeMo Gym's defaults; a prompt file neither there nor NeMo Gym's fails the start", () => {
  const judge = { judge_model_server: { type: "responses_api_models", name: "j" }, judge_responses_create_params: { input: [] } };
  const check = (fields: Record<string, unknown>) => {
    const { config } = testConfig({ env: [simpleqa, { ...judge, ...fields }] });
    return checkInstanceConfig(simpleqa, "env", (config.env as any).resources_servers.test, config);
  };
  assert.deepEqual([check({}).config.judge_prompt_path, check({}).config.use_chat_completions_for_judge], ["prompts/judge.yaml", false]);
  assert.throws(() => check({ judge_prompt_path: "prompts/nope.yaml" }), /judge_prompt_path[\s\S]*no such file/);
});

test("data/example.jsonl: 5 run requests with id, question and expected_answer", () => {
  const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  for (const r of rows) for (const field of ["id", "question", "expected_answer"]) assert.equal(typeof r[field], "string");
});
