// omniscience over real HTTP: scripted_model in judge_rules mode as the judge over /v1/responses (its answers'
// thinking traces stripped too), and a recording judge over /v1/chat/completions (NeMo Gym's shipped setting). The
// four tiers with NeMo Gym's response fields, the thinking rules as the judge sees them, an empty judge answer and a
// failed call giving the judge_failed row, /aggregate_metrics, config.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkInstanceConfig } from "../../../src/server/index.ts";
import { assertRowsAreRunRequests, assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers, testConfig } from "../../../src/testing/index.ts";
import { repliesJudge } from "../../../src/testing/judge-replies.ts";
import omniscience from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const PROMPT = join(import.meta.dirname, "../prompts/example.yaml");
const rule = (prediction: string, answer: string) => ({ match: `Predicted answer: ${prediction.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, answer });
const judgeRules = [
  rule("6", "<think>The gold is 6 and so is the answer.</think>A"),
  rule("7", "B"),
  rule("six, or maybe seven", "C"),
  rule("I don't know.", "D"),
  rule("", "D"),
  rule("blank judge", "<think>only thinking</think>"),
];

const chatJudge = repliesJudge();
let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    omniscience: [omniscience, { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [] }, judge_prompt_path: PROMPT }],
    omniscience_chat: [omniscience, { judge_model_server: { type: "responses_api_models", name: "chat_judge" }, judge_responses_create_params: { input: [], temperature: 0.3 }, judge_prompt_path: PROMPT, use_chat_completions_for_judge: true }],
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: judgeRules }],
    chat_judge: [chatJudge.definition],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const row = { id: 3, domain: "Science", topic: "Chemistry", question: "What is the atomic number of carbon?", expected_answer: "6", responses_create_params: { input: [{ role: "user", content: "What is the atomic number of carbon?" }] }, subset: "x" };
const post = (server: string, text: string) => client.request(`${graph.url(server)}/verify`, { method: "POST", json: { ...row, response: responseWith([assistantMessage(text)]) } });
async function verify(text: string, server = "omniscience") {
  const answer = await post(server, text);
  assert.equal(answer.status, 200, answer.text);
  return { body: answer.json<Record<string, any>>(), text: answer.text };
}

describe("the four tiers", () => {
  test("A: correct, index +1; the judge's thinking stripped from judge_output; NeMo Gym's fields in order, request fields echoed", async () => {
    const { body, text } = await verify("<think>carbon has six protons</think>6");
    assert.deepEqual(Object.keys(body), [
      "responses_create_params", "response", "reward", "extracted_answer", "expected_answer", "verdict", "judge_output", "is_correct", "is_incorrect",
      "is_partial", "is_not_attempted", "omniscience_index", "is_hallucination", "id", "domain", "topic", "question", "subset",
    ]);
    assert.deepEqual([body.reward, body.verdict, body.judge_output, body.extracted_answer, body.omniscience_index, body.is_hallucination], [1, "correct", "A", "6", 1, 0]);
    assert.match(text, /"omniscience_index":1\.0,"is_hallucination":0\.0,"id":3,/);
  });

  test("B: incorrect, index −1, a hallucination; C: partial; D: not attempted", async () => {
    const wrong = (await verify("7")).body;
    assert.deepEqual([wrong.verdict, wrong.reward, wrong.omniscience_index, wrong.is_hallucination, wrong.is_incorrect], ["incorrect", 0, -1, 1, 1]);
    assert.deepEqual([(await verify("six, or maybe seven")).body.verdict, (await verify("I don't know.")).body.verdict], ["partial", "not_attempted"]);
  });

  test("an answer cut off mid-thinking reaches the judge as empty", async () => {
    const { body } = await verify("<think>carbon is element six, so");
    assert.deepEqual([body.extracted_answer, body.verdict], ["", "not_attempted"]);
  });
});

describe("judge failures", () => {
  test("a judge answer that is only thinking is empty once stripped: the judge_failed row", async () => {
    const { body } = await verify("blank judge");
    assert.deepEqual([body._ng_failure_class, body._ng_failure_judge_error, body.reward], ["judge_failed", "empty judge response", 0]);
  });
  test("a failed call (no rule: a 404) is the judge_failed row", async () => {
    assert.match((await verify("carbon")).body._ng_failure_judge_error, /answered 404/);
  });
});

describe("use_chat_completions_for_judge", () => {
  test("only max_tokens (64 when unset), temperature and top_p (1.0 when unset); an unparseable answer is INCORRECT", async () => {
    chatJudge.load(["I cannot decide."]);
    const { body } = await verify("6", "omniscience_chat");
    assert.deepEqual([body.verdict, body.judge_output], ["incorrect", "I cannot decide."]);
    const [asked] = chatJudge.asked;
    assert.deepEqual([asked!.max_output_tokens, asked!.temperature, asked!.top_p], [64, 0.3, 1]);
  });
});

test("/aggregate_metrics: pass@k of the judge scores, omni index and hallucination rate", async () => {
  const rollouts = [];
  for (const [index, text] of ["6", "7", "six, or maybe seven", "I don't know."].entries()) rollouts.push({ ...(await verify(text)).body, _ng_task_index: index, _ng_rollout_index: 0 });
  const answer = await client.request(`${graph.url("omniscience")}/aggregate_metrics`, { method: "POST", json: { verify_responses: rollouts } });
  const metrics = answer.json<{ agent_metrics: Record<string, number> }>().agent_metrics;
  assert.deepEqual([metrics["pass@1/judge_correct"], metrics["pass@1/judge_omni_index"], metrics["pass@1/judge_omni_hallucination"]], [25, 0, (100 * 25) / 75]);
});

test("config: NeMo Gym's defaults; a prompt file neither there nor NeMo Gym's fails the start", () => {
  const judge = { judge_model_server: { type: "responses_api_models", name: "j" }, judge_responses_create_params: { input: [] } };
  const check = (fields: Record<string, unknown>) => {
    const { config } = testConfig({ env: [omniscience, { ...judge, ...fields }] });
    return checkInstanceConfig(omniscience, "env", (config.env as any).resources_servers.test, config);
  };
  assert.deepEqual([check({}).config.judge_prompt_path, check({}).config.use_chat_completions_for_judge], ["prompts/judge.yaml", false]);
  assert.throws(() => check({ judge_prompt_path: "nope.yaml" }), /judge_prompt_path[\s\S]*no such file/);
});

test("data/example.jsonl: 5 run requests with id, domain, topic, question, expected_answer", () => {
  const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  for (const r of rows) for (const field of ["id", "domain", "topic", "question", "expected_answer"]) assert.equal(typeof r[field], "string");
});
