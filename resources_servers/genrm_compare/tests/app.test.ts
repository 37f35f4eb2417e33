// genrm_compare over real HTTP with scripted_model (judge_rules) as the GenRM judge: a cohort's rollouts each POST
// /verify and get their reward when the cohort is complete, keyed by task; the pair reaches the judge as NeMo Gym's
// genrm_model shows it (the conversation, then response_1 and response_2); unparseable answers are asked again and
// then scored with the defaults; a failed judge call is the judge_failed row for every member; POST /compare.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, readRows, responseWith, serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import type { ServerDefinition } from "../../../src/server/index.ts";
import genrmCompare from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

// The judge sees "<conversation>\n\n[principle\n\n]<response_1>\n\n<response_2>"; answers are named by quality.
const verdict = (json: string) => `Let me compare.\n\`\`\`json\n${json}\n\`\`\``;
const rules = [
  { match: "\\n\\nbe brief\\n\\n\\w+-good\\n\\n\\w+-bad$", answer: verdict('{"score_1": 5, "score_2": 2, "ranking": 1}') },
  { match: "\\n\\nbe brief\\n\\n\\w+-bad\\n\\n\\w+-good$", answer: verdict('{"score_1": 2, "score_2": 5, "ranking": 6}') },
  { match: "\\n\\n\\w+-good\\n\\n\\w+-good$", answer: verdict('{"score_1": 4, "score_2": 4, "ranking": 3}') },
  { match: "\\n\\n\\w+-good\\n\\n\\w+-bad$", answer: '{"score_1": 5, "score_2": 1, "ranking": 1}' },
  { match: "\\n\\n\\w+-bad\\n\\n\\w+-good$", answer: 'I think {"score_1": 1, "score_2": 5, "ranking": 6}' },
  { match: "\\n\\n\\w+-bad\\n\\n\\w+-bad$", answer: '{"score_1": 2, "score_2": 2, "ranking": 3.5}' },
  { match: "\\n\\n\\w+-ugly\\n\\n\\w+-ugly$", answer: "Both are fine, I cannot decide." },
  { match: "\\n\\nNone\\n\\n\\w+-good$", answer: '{"score_1": 1, "score_2": 4, "ranking": 6}' },
  { match: "\\n\\n\\w+-good\\n\\nNone$", answer: '{"score_1": 4, "score_2": 1, "ranking": 1}' },
];

const genrm = (fields: Record<string, unknown>): [ServerDefinition, Record<string, unknown>] => [genrmCompare, { genrm_model_server: { type: "responses_api_models", name: "genrm_model" }, genrm_responses_create_params: { input: [], temperature: 0.6 }, ...fields }];

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    circular3: genrm({ num_rollouts_per_prompt: 3 }),
    pairs2: genrm({ num_rollouts_per_prompt: 2, comparison_strategy: "all_pairs", num_judges_per_comparison: 2, genrm_parse_retries: 1, genrm_parse_retry_sleep_s: 0 }),
    single: genrm({ num_rollouts_per_prompt: 1 }),
    principled: genrm({ num_rollouts_per_prompt: 2, comparison_strategy: "all_pairs", use_principle: true }),
    genrm_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const prompt = (text: string) => ({ input: [{ role: "user", content: text }] });
const row = (instance: string, question: string, answer: string, fields: Record<string, unknown> = {}) =>
  client.request(`${graph.url(instance)}/verify`, { method: "POST", json: { responses_create_params: prompt(question), response: responseWith([assistantMessage(answer)]), ...fields } });

async function cohort(instance: string, question: string, answers: string[], fields: (k: number) => Record<string, unknown> = () => ({})) {
  const answered = await Promise.all(answers.map((answer, k) => row(instance, question, answer, fields(k))));
  for (const answer of answered) assert.equal(answer.status, 200, answer.text);
  return answered;
}
const rewards = (answered: Array<{ json<T>(): T }>) => answered.map((a) => a.json<{ reward: number }>().reward);

describe("genrm_compare verify (a cohort per prompt)", () => {
  test("each rollout's reward is its average score over its circular comparisons, whatever the arrival order", async () => {
    const answered = await cohort("circular3", "Name a bakery.", ["one-good", "two-good", "three-bad"]);
    // good/good: 4 and 4 (a tie at ranking 3 moves them by ±0.5); good/bad: 5 and 1.
    const byAnswer = Object.fromEntries(answered.map((a, k) => [["one-good", "two-good", "three-bad"][k], a.json<{ reward: number }>().reward]));
    assert.equal(byAnswer["three-bad"], 1);
    assert.equal(byAnswer["one-good"]! + byAnswer["two-good"]!, 9, "the two good answers share 4.5 + 4.5 however the tie was split");
  });

  test("the response is NeMo Gym's BaseVerifyResponse: the request's params and response, and a float reward", async () => {
    const answered = await cohort("pairs2", "Ugly pair", ["a-ugly", "b-ugly"]);
    const body = answered[0]!.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward"]);
    // No scores in the answer, asked again (genrm_parse_retries 1), then the defaults: 3.0 each.
    assert.deepEqual(rewards(answered), [3, 3]);
    assert.match(answered[0]!.text, /"reward":3\.0/);
  });

  test("all_pairs with two judge passes; the rollouts of two tasks with one prompt are different cohorts", async () => {
    const [taskA, taskB] = await Promise.all([
      cohort("pairs2", "Same prompt", ["x-good", "y-bad"], (k) => ({ _ng_task_index: 0, _ng_rollout_index: k })),
      cohort("pairs2", "Same prompt", ["x-good", "z-good"], (k) => ({ _ng_task_index: 1, _ng_rollout_index: k })),
    ]);
    assert.deepEqual(rewards(taskA!), [5, 1]);
    // A tie at ranking 3 favours response 1 by 0.5 in both passes: the first arrival's answer is response 1.
    assert.deepEqual(rewards(taskB!).sort(), [3.5, 4.5]);
  });

  test("an empty answer is shown to the judge as None", async () => {
    assert.deepEqual(rewards(await cohort("pairs2", "Empty one", ["", "w-good"])).sort(), [1, 4]);
  });

  test("num_rollouts_per_prompt 1: default_score without asking the judge", async () => {
    const answer = await row("single", "No rule matches this", "anything");
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json<{ reward: number }>().reward, 3);
  });

  test("use_principle: the row's principle is shown to the judge before the pair", async () => {
    const answered = await cohort("principled", "Principled", ["p-good", "q-bad"], () => ({ principle: "be brief" }));
    assert.deepEqual(rewards(answered).sort(), [2, 5]);
  });

  test("use_principle without a principle in the row or a default_principle is a 501 naming what is missing", async () => {
    const answer = await row("principled", "No principle", "r-good");
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /default_principle/);
  });

  test("a string input is a 422 naming responses_create_params.input", async () => {
    const answer = await client.request(`${graph.url("circular3")}/verify`, { method: "POST", json: { responses_create_params: { input: "hi" }, response: responseWith([assistantMessage("x")]) } });
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.text, /responses_create_params\.input/);
  });

  test("a failed judge call (no rule matches → 404) is the judge_failed row for every member of the cohort", async () => {
    const answered = await cohort("pairs2", "Doomed", ["m-doomed", "n-doomed"], (k) => ({ _ng_task_index: 7, _ng_rollout_index: k }));
    for (const [k, answer] of answered.entries()) {
      const body = answer.json<Record<string, unknown>>();
      assert.equal(body._ng_failure_class, "judge_failed");
      assert.equal(body.reward, 0);
      assert.match(String(body._ng_failure_judge_error), /answered 404/);
      assert.equal(body._ng_rollout_index, k, "the verify request is carried");
    }
  });
});

describe("genrm_compare POST /compare (the batch API)", () => {
  const compare = (responses: string[], instance = "circular3") =>
    client.request(`${graph.url(instance)}/compare`, { method: "POST", json: { conversation_history: [{ role: "user", content: "Batch" }], response_objs: responses.map((text) => responseWith([assistantMessage(text)])) } });

  test("rewards in input order, each comparison, and the metrics, floats as Python writes them", async () => {
    const answer = await compare(["a-good", "b-bad", "c-bad"]);
    assert.equal(answer.status, 200, answer.text);
    // circular: (0,1) 5/1, (1,2) 2/2 tie at 3.5, (2,0) 1/5.
    assert.equal(
      answer.text,
      '{"rewards":[5.0,1.5,1.5],"comparison_results":[{"response_i":0,"response_j":1,"judge_idx":0,"score_1":5.0,"score_2":1.0,"ranking":1.0},{"response_i":1,"response_j":2,"judge_idx":0,"score_1":2.0,"score_2":2.0,"ranking":3.5},{"response_i":2,"response_j":0,"judge_idx":0,"score_1":1.0,"score_2":5.0,"ranking":6.0}],"metrics":{"mean_individual_score":2.6666666666666665,"std_individual_score":1.699673171197595,"tiebreak_usage_rate":0.3333333333333333}}',
    );
  });

  test("fewer than two responses: [default_score] and nothing else", async () => {
    const answer = await compare(["only-good"]);
    assert.equal(answer.text, '{"rewards":[3.0],"comparison_results":null,"metrics":null}');
  });

  test("a failed judge call is a 502, never scores", async () => {
    const answer = await compare(["a-doomed", "b-doomed"]);
    assert.equal(answer.status, 502, answer.text);
    assert.match(answer.text, /genrm judge call failed/);
  });

  test("a body without response_objs is a 422", async () => {
    const answer = await client.request(`${graph.url("circular3")}/compare`, { method: "POST", json: { conversation_history: [] } });
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.text, /response_objs/);
  });
});

describe("authored data", () => {
  test("data/example.jsonl: five run requests for genrm_simple_agent", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
  });
});
