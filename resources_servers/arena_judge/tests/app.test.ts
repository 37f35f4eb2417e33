// arena_judge over real HTTP, with scripted_model as the judge in judge_rules mode answering /v1/chat/completions
// (the model server's chat path converted to responses()): both orders asked with the category's prompt, the
// reward from the gen-base verdict, NeMo Gym's response fields in order, an unparseable answer scored (verdict null),
// a failed judge call in either order as the judge_failed row, the metrics, and the config checks.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { assistantMessage, http, type InProcessGraph, responseWith, serverDefinition, startServers } from "../../../src/testing/index.ts";
import { PROJECT_ROOT } from "../../../src/config/index.ts";
import arenaJudge from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

const EXAMPLE_PROMPT = "resources_servers/arena_judge/prompts/example.yaml";
const SYSTEM = "You compare two answers to one prompt. End with exactly one label: [[A>>B]], [[A>B]], [[A=B]], [[B>A]] or [[B>>A]].";
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The judge's whole prompt text (system, then user) as our example template renders it. */
const judgePrompt = (question: string, a: string, b: string) => `${SYSTEM}\n\nPROMPT: ${question}\nANSWER A: ${a}\nANSWER B: ${b}\nWhich is better? Keep {braces} as written.`;
const rule = (question: string, a: string, b: string, answer: string) => ({ match: `^${escape(judgePrompt(question, a, b))}$`, answer });

const rules = [
  rule("q-win", "cand", "base", "A is clearly better. [[A>>B]]"),
  rule("q-win", "base", "cand", "B wins: [[B>>A]]"),
  rule("q-slight", "cand", "base", "[[A>B]]"),
  rule("q-slight", "base", "cand", "[[A>B]]"),
  rule("q-tie", "cand", "base", "My final verdict is tie: [[A=B]]"),
  rule("q-tie", "base", "cand", "[[A=B]]"),
  rule("q-invalid", "cand", "base", "I cannot decide."),
  rule("q-invalid", "base", "cand", "[[A>B]] then [[B>A]]"),
  rule("q-half-fails", "cand", "base", "[[A>B]]"),
  rule("", "cand", "", "[[A>B]]"),
  rule("", "", "cand", "[[B>A]]"),
];

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    arena_judge: [
      arenaJudge,
      {
        judge_model_server: { type: "responses_api_models", name: "judge_model" },
        judge_chat_completions_create_params: { messages: [], max_tokens: 4096, temperature: 0.0 },
        judge_prompt_paths: { hard_prompt: EXAMPLE_PROMPT, creative_writing: EXAMPLE_PROMPT, unfetchable: "resources_servers/arena_judge/prompts/not-here.yaml" },
        default_category: "hard_prompt",
      },
    ],
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const params = { input: [{ role: "user", content: "question" }] };
async function verify(fields: Record<string, unknown>, text = "cand") {
  const answer = await client.request(`${graph.url("arena_judge")}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage(text)]), ...fields } });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}

describe("arena_judge verify", () => {
  test("a strict candidate win: reward 1, both judgements and verdicts kept, NeMo Gym's field order", async () => {
    const body = await verify({ uid: "u1", category: "hard_prompt", question: "q-win", baseline_answer: "base", agent_ref: { name: "x" } });
    assert.deepEqual(Object.keys(body), [
      "responses_create_params", "response", "reward", "judgement_gen_base", "judgement_base_gen", "verdict_gen_base", "verdict_base_gen",
      "category", "invalid_gen_base", "invalid_base_gen", "question", "baseline_answer", "uid", "agent_ref",
    ]);
    assert.deepEqual(
      [body.reward, body.judgement_gen_base, body.judgement_base_gen, body.verdict_gen_base, body.verdict_base_gen, body.category, body.invalid_gen_base, body.invalid_base_gen],
      [1, "A is clearly better. [[A>>B]]", "B wins: [[B>>A]]", "A>>B", "B>>A", "hard_prompt", false, false],
    );
  });

  test("a slight win is a win; a tie is not", async () => {
    assert.equal((await verify({ question: "q-slight", baseline_answer: "base" })).reward, 1);
    const tie = await verify({ question: "q-tie", baseline_answer: "base" });
    assert.deepEqual([tie.reward, tie.verdict_gen_base, tie.verdict_base_gen], [0, "A=B", "A=B"]);
  });

  test("an answer without a verdict (or with disagreeing ones) is scored: verdict null, invalid flags set, reward 0", async () => {
    const body = await verify({ question: "q-invalid", baseline_answer: "base", category: "creative_writing" });
    assert.deepEqual([body.reward, body.verdict_gen_base, body.verdict_base_gen, body.invalid_gen_base, body.invalid_base_gen], [0, null, null, true, true]);
    assert.equal(body.judgement_gen_base, "I cannot decide.");
  });

  test("no category (and an unknown one) falls back to default_category; missing fields are '' in the prompt and null back", async () => {
    const body = await verify({});
    assert.deepEqual([body.reward, body.category, body.question, body.baseline_answer, body.uid], [1, "hard_prompt", null, null, null]);
    assert.equal((await verify({ category: "no_such_category" })).category, "hard_prompt");
  });

  test("a judge call that fails in either order is NeMo Gym's judge_failed row, not a reward", async () => {
    const answer = await client.request(`${graph.url("arena_judge")}/verify`, {
      method: "POST",
      json: { responses_create_params: params, response: responseWith([assistantMessage("cand")]), question: "q-half-fails", baseline_answer: "base" },
    });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.deepEqual([body.reward, body._ng_failure_class], [0, "judge_failed"]);
    assert.match(body._ng_failure_judge_error, /404.*no judge rule matches/);
    assert.equal(body.verdict_gen_base, undefined);
  });

  test("a prompt file that is neither here nor one of NeMo Gym's fetchable files is a 501 naming it", async () => {
    const answer = await client.request(`${graph.url("arena_judge")}/verify`, {
      method: "POST",
      json: { responses_create_params: params, response: responseWith([assistantMessage("cand")]), category: "unfetchable" },
    });
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /not-here\.yaml/);
  });

  test("aggregate_metrics: pass@k over the verdict scores, per category, Arena-Elo; key metrics lead with it", async () => {
    const rows = [
      { question: "q-win", baseline_answer: "base", category: "hard_prompt" },
      { question: "q-tie", baseline_answer: "base", category: "hard_prompt" },
      { question: "q-invalid", baseline_answer: "base", category: "creative_writing" },
    ];
    const verified = await Promise.all(rows.map((row) => verify(row)));
    const answer = await client.request(`${graph.url("arena_judge")}/aggregate_metrics`, {
      method: "POST",
      json: { verify_responses: verified.map((r, i) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0 })) },
    });
    assert.equal(answer.status, 200, answer.text);
    const { agent_metrics: metrics, key_metrics: key } = answer.json<{ agent_metrics: Record<string, any>; key_metrics: Record<string, any> }>();
    // Battles: q-win 3 candidate + 3 candidate, q-tie 2 ties, q-invalid 2 invalid: one-sided but with ties → a fit.
    assert.equal(metrics["pass@1/wins"], (100 * 1) / 3);
    assert.equal(metrics["pass@1/invalid_gen_base"], (100 * 1) / 3);
    assert.equal(metrics["hard_prompt/pass@1/ties"], 50);
    assert.equal(metrics["arena_elo/invalid_scores"], 2);
    assert.equal(metrics["arena_elo/n"], 3);
    assert.equal(metrics["arena_elo/score"], 87.5);
    assert.equal(metrics["arena_elo/creative_writing/n"], 1);
    assert.deepEqual(Object.keys(key).slice(0, 4), ["arena_elo/score", "arena_elo/ci_lower", "arena_elo/ci_upper", "arena_elo/invalid_scores"]);
  });
});

describe("arena_judge config", () => {
  test("a default_category that no judge_prompt_paths key names fails the start, naming the key", async () => {
    await assert.rejects(
      startServers({ arena_judge: [arenaJudge, { judge_model_server: { name: "j" }, judge_chat_completions_create_params: {}, judge_prompt_paths: { a: EXAMPLE_PROMPT }, default_category: "b" }] }),
      /default_category/,
    );
  });

  const shippedPrompt = "resources_servers/arena_judge/prompts/arena.yaml";
  test(
    "NeMo Gym's own prompt is fetched on first use and refused when its sha256 is not the pinned one",
    { skip: existsSync(join(PROJECT_ROOT, shippedPrompt)) ? `${shippedPrompt} is here already (fetched before): nothing to fetch` : false },
    async () => {
      const mirror = createServer((_request, response) => response.end("user: not NeMo Gym's prompt\n"));
      await new Promise<void>((resolve) => mirror.listen(0, "127.0.0.1", resolve));
      const previous = process.env.NEMO_GYM_RAW_BASE_URL;
      process.env.NEMO_GYM_RAW_BASE_URL = `http://127.0.0.1:${(mirror.address() as { port: number }).port}`;
      try {
        const shipped = await startServers({
          arena_judge: [arenaJudge, { judge_model_server: { name: "judge_model" }, judge_chat_completions_create_params: {} }],
        });
        try {
          const refused = await client.request(`${shipped.url("arena_judge")}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage("cand")]) } });
          assert.equal(refused.status, 501, refused.text);
          assert.match(refused.text, /arena\.yaml.*sha256/);
          assert.equal(existsSync(join(PROJECT_ROOT, shippedPrompt)), false, "a wrong download is not kept");
        } finally {
          await shipped.close();
        }
      } finally {
        if (previous === undefined) delete process.env.NEMO_GYM_RAW_BASE_URL;
        else process.env.NEMO_GYM_RAW_BASE_URL = previous;
        await new Promise((resolve) => mirror.close(resolve));
      }
    },
  );
});
