// frontierscience_judge: the Judgement / rubric-score rules rule by rule, and verify over real HTTP with
// scripted_model as the judge in judge_rules mode — olympiad over /v1/chat/completions (the shipped config) and
// over /v1/responses, research mode's score threshold, the exact chat sampling parameters each mode sends, a
// failed judge call as the judge_failed row — and the metrics.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkInstanceConfig } from "../../../src/server/index.ts";
import { repliesJudge } from "../../../src/testing/judge-replies.ts";
import { assertRowsAreRunRequests, assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers, testConfig } from "../../../src/testing/index.ts";
import frontierscience from "../app.ts";
import { gradeJudgeText, parseJudgement, parseRubricScore } from "../judge.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const chatJudge = repliesJudge();

describe("frontierscience_judge verdict", () => {
  const cases: [string, string, "YES" | "NO" | null][] = [
    ["YES", "Reasoning...\nJudgement: YES", "YES"],
    ["NO", "Judgement: NO", "NO"],
    ["lowercase", "judgement: yes", "YES"],
    ["extra whitespace, a newline included", "Judgement:   \n\t NO ", "NO"],
    ["several verdicts: the last wins", "Judgement: YES\nbut then\nJudgement: NO", "NO"],
    ["in a code block", "```\nJudgement: YES\n```", "YES"],
    ["in bold", "**Judgement: YES**", "YES"],
    ["no verdict", "It matches.", null],
    ["empty", "", null],
    ["the American spelling is no verdict", "Judgment: YES", null],
    ["a bare YES is no verdict", "YES", null],
    ["a word starting with YES still matches, as the regex has no boundary", "Judgement: YESTERDAY", "YES"],
  ];
  for (const [name, text, expected] of cases) test(name, () => assert.equal(parseJudgement(text), expected));
});

describe("frontierscience_judge rubric score", () => {
  const cases: [string, string, number | null][] = [
    ["Score: 7/10", "Score: 7/10", 7],
    ["out of", "Score: 7 out of 10", 7],
    ["bracketed", "FINAL_SCORE[3.5] / MAX_POSSIBLE_SCORE[5]", 7],
    ["a fraction on another scale is scaled to 10", "score: 4/5", 8],
    ["a labelled number is taken unscaled", "Final score = 6.5", 6.5],
    ["the last score line wins", "Score: 9/10\nrevised\nScore: 3/10", 3],
    ["lines without the word score are skipped", "Score: 8/10\n5/10 points for item 2", 8],
    ["a zero denominator is no score, even with an earlier one", "Score: 8/10\nScore: 1/0", null],
    ["no score", "Judgement: YES", null],
    ["Unicode digits read as Python reads them", "Score: ٧/١٠", 7],
  ];
  for (const [name, text, expected] of cases) test(name, () => assert.equal(parseRubricScore(text), expected));

  const rubric = { passThreshold: 7, maxScore: 10 };
  test("research: the score decides against the threshold, the verdict follows it when absent", () => {
    assert.deepEqual(gradeJudgeText("Score: 7/10", "research", rubric), { reward: 1, verdict: "YES", rubricScore: 7, rubricScoreNormalized: 0.7, invalidJudgeResponse: false });
    assert.deepEqual(gradeJudgeText("Score: 6/10\nJudgement: YES", "research", rubric), { reward: 0, verdict: "YES", rubricScore: 6, rubricScoreNormalized: 0.6, invalidJudgeResponse: false });
  });
  test("research: no score is an invalid judge response scored by the verdict; the normalized score is clamped", () => {
    assert.deepEqual(gradeJudgeText("Judgement: YES", "research", rubric), { reward: 1, verdict: "YES", rubricScore: null, rubricScoreNormalized: null, invalidJudgeResponse: true });
    assert.equal(gradeJudgeText("Score: 12", "research", rubric).rubricScoreNormalized, 1);
  });
});

const OLYMPIAD_PROMPT = "resources_servers/frontierscience_judge/prompts/example.yaml";
const RESEARCH_PROMPT = "resources_servers/frontierscience_judge/prompts/example_research.yaml";
const rules = [
  { match: "Attempt: Helium$", answer: "Same element.\nJudgement: YES" },
  { match: "Attempt: Neon$", answer: "Judgement: NO" },
  { match: "Attempt: $", answer: "No attempt. Judgement: NO" },
  { match: "Rubric: names helium \\(7\\), explains 1s \\(3\\)\nAttempt: Helium, tight 1s shell$", answer: "Score: 10/10\nJudgement: YES" },
  { match: "Attempt: Helium, maybe$", answer: "Score: 6/10" },
  { match: "Attempt: Case no score$", answer: "Judgement: YES" },
];

const client = http();
const instance = (overrides: Record<string, unknown>) => ({
  judge_model_server: { type: "responses_api_models", name: "judge_model" },
  judge_responses_create_params: { input: [], max_output_tokens: 512 },
  judge_prompt_path: OLYMPIAD_PROMPT,
  use_chat_completions_for_judge: true,
  ...overrides,
});
const graphs: Record<string, InProcessGraph> = {};
before(async () => {
  const judge = [scriptedModel, { mode: "judge_rules", judge_rules: rules }] as [typeof scriptedModel, Record<string, unknown>];
  graphs.chat = await startServers({ frontierscience_judge: [frontierscience, instance({})], judge_model: judge });
  graphs.responses = await startServers({ frontierscience_judge: [frontierscience, instance({ use_chat_completions_for_judge: false })], judge_model: judge });
  graphs.research = await startServers({ frontierscience_judge: [frontierscience, instance({ judge_mode: "research", judge_prompt_path: RESEARCH_PROMPT })], judge_model: judge });
  graphs.olympiadReplies = await startServers({ frontierscience_judge: [frontierscience, instance({})], judge_model: [chatJudge.definition] });
  graphs.researchReplies = await startServers({ frontierscience_judge: [frontierscience, instance({ judge_mode: "research", judge_prompt_path: RESEARCH_PROMPT })], judge_model: [chatJudge.definition] });
});
after(async () => {
  await Promise.all(Object.values(graphs).map((graph) => graph.close()));
  await client.close();
});

const row = { id: "fs_0", subject: "chemistry", question: "Which noble gas has the highest first ionization energy?", expected_answer: "Helium", responses_create_params: { input: [{ role: "user", content: "q" }] } };
const post = (graph: InProcessGraph, text: string, extra: Record<string, unknown> = {}) =>
  client.request(`${graph.url("frontierscience_judge")}/verify`, { method: "POST", json: { ...row, ...extra, response: responseWith([assistantMessage(text)]) } });
async function verified(graph: InProcessGraph, text: string, extra: Record<string, unknown> = {}) {
  const answer = await post(graph, text, extra);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}

describe("frontierscience_judge verify", () => {
  for (const name of ["chat", "responses"]) {
    test(`${name}: YES is reward 1 with NeMo Gym's fields in its order; NO is reward 0`, async () => {
      const body = await verified(graphs[name]!, "Helium", { agent_ref: { type: "responses_api_agents", name: "a" } });
      assert.deepEqual(Object.keys(body), [
        "responses_create_params", "response", "reward", "extracted_answer", "expected_answer", "verdict", "judge_output",
        "rubric_score", "rubric_score_normalized", "invalid_judge_response", "id", "subject", "question", "rubric", "agent_ref",
      ]);
      assert.deepEqual([body.reward, body.extracted_answer, body.verdict, body.judge_output, body.rubric, body.invalid_judge_response], [1, "Helium", "YES", "Same element.\nJudgement: YES", null, false]);
      assert.deepEqual([(await verified(graphs[name]!, "Neon")).reward, (await verified(graphs[name]!, "Neon")).verdict], [0, "NO"]);
    });
  }

  test("the model's thinking is stripped before the judge sees it; an unclosed trace is no answer (extracted_answer null)", async () => {
    assert.equal((await verified(graphs.chat!, "<think>Neon?</think>Helium")).reward, 1);
    const cut = await verified(graphs.chat!, "<think>Neon, or");
    assert.deepEqual([cut.reward, cut.extracted_answer], [0, null]);
  });

  test("a judge call that fails (no rule → 404) is the judge_failed row, not a verdict", async () => {
    const body = await verified(graphs.chat!, "Argon");
    assert.deepEqual([body.reward, body._ng_failure_class], [0, "judge_failed"]);
  });

  test("research: the rubric reaches the prompt, and the score decides; no score is an invalid judge response", async () => {
    const rubric = "names helium (7), explains 1s (3)";
    const pass = await verified(graphs.research!, "Helium, tight 1s shell", { rubric });
    assert.deepEqual([pass.reward, pass.rubric_score, pass.rubric_score_normalized, pass.verdict], [1, 10, 1, "YES"]);
    const low = await verified(graphs.research!, "Helium, maybe", { rubric });
    assert.deepEqual([low.reward, low.rubric_score, low.verdict, low.invalid_judge_response], [0, 6, "NO", false]);
    const none = await verified(graphs.research!, "Case no score", { rubric });
    assert.deepEqual([none.reward, none.rubric_score, none.invalid_judge_response], [1, null, true]);
  });

  test("chat sampling: max_tokens from max_output_tokens; olympiad sends temperature 0.0 / top_p 1.0 when unset, research neither", async () => {
    chatJudge.load(["Judgement: YES", "Score: 8/10"]);
    assert.equal((await verified(graphs.olympiadReplies!, "Helium")).reward, 1);
    assert.equal((await verified(graphs.researchReplies!, "Helium")).reward, 1);
    const [olympiad, research] = chatJudge.asked;
    assert.deepEqual([olympiad!.max_output_tokens, olympiad!.temperature, olympiad!.top_p], [512, 0, 1]);
    assert.deepEqual([research!.max_output_tokens, research!.temperature, research!.top_p], [512, null, null]);
  });

  test("a bad field is a 422 naming it", async () => {
    const answer = await post(graphs.chat!, "Helium", { subject: 3 });
    assert.equal(answer.status, 422);
    assert.match(answer.text, /subject/);
  });
});

test("config: NeMo Gym's defaults; its own prompts (fetched on first use) pass the start, a path neither here nor NeMo Gym's fails it", () => {
  const judge = { judge_model_server: { type: "responses_api_models", name: "j" }, judge_responses_create_params: { input: [] } };
  const check = (fields: Record<string, unknown>) => {
    const { config } = testConfig({ env: [frontierscience, { ...judge, ...fields }] });
    return checkInstanceConfig(frontierscience, "env", (config.env as any).resources_servers.test, config).config as Record<string, unknown>;
  };
  const defaults = check({});
  assert.deepEqual(
    [defaults.judge_mode, defaults.rubric_pass_score_threshold, defaults.rubric_max_score, defaults.judge_prompt_path, defaults.use_chat_completions_for_judge],
    ["olympiad", 7, 10, "resources_servers/frontierscience_judge/prompts/judge.yaml", false],
  );
  assert.equal(check({ judge_prompt_path: "resources_servers/frontierscience_judge/prompts/research_judge.yaml" }).judge_prompt_path, "resources_servers/frontierscience_judge/prompts/research_judge.yaml");
  assert.equal(check({ judge_prompt_path: "prompts/example.yaml" }).judge_prompt_path, "prompts/example.yaml", "relative to this folder, as NeMo Gym also tries");
  assert.throws(() => check({ judge_prompt_path: "prompts/not-here.yaml" }), /judge_prompt_path[\s\S]*no such file/);
  assert.throws(() => check({ judge_mode: "rubric" }), /judge_mode/);
});

describe("frontierscience_judge metrics and data", () => {
  test("aggregate_metrics: accuracy pass@k, rubric_score when present, and a per-subject breakdown", async () => {
    const rollouts = [
      { ...(await verified(graphs.research!, "Helium, tight 1s shell", { rubric: "names helium (7), explains 1s (3)" })), _ng_task_index: 0, _ng_rollout_index: 0 },
      { ...(await verified(graphs.chat!, "Neon", { subject: "physics" })), _ng_task_index: 1, _ng_rollout_index: 0 },
    ];
    const answer = await client.request(`${graphs.chat!.url("frontierscience_judge")}/aggregate_metrics`, { method: "POST", json: { verify_responses: rollouts } });
    assert.equal(answer.status, 200, answer.text);
    const { agent_metrics: metrics, key_metrics: key } = answer.json<{ agent_metrics: Record<string, unknown>; key_metrics: Record<string, unknown> }>();
    assert.equal(metrics["pass@1/accuracy"], 50);
    assert.equal(metrics["pass@1/rubric_score"], 100);
    assert.equal(metrics["chemistry/pass@1/accuracy"], 100);
    assert.equal(metrics["physics/pass@1/accuracy"], 0);
    assert.equal(key["pass@1/accuracy"], 50);
  });

  test("data/example.jsonl: five run requests with id, subject, question and expected_answer", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.deepEqual(Object.keys(r), ["id", "subject", "question", "expected_answer", "agent_ref", "responses_create_params"]);
  });
});
