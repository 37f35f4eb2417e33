// physics_judge: the [Correct] rule rule by rule, and verify over real HTTP with scripted_model as the judge in
// judge_rules mode — through /v1/chat/completions (the shipped config's use_chat_completions_for_judge, answered by
// the model server's chat-to-responses conversion) and through /v1/responses — the math-verify short cut, the
// recorded evaluation, a failed judge call as the judge_failed row, and the metrics.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers } from "../../../src/testing/index.ts";
import physicsJudge from "../app.ts";
import { judgeSaysCorrect, responseSaysCorrect } from "../judge.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

describe("physics_judge verdict", () => {
  const cases: [string, string, boolean][] = [
    ["[Correct]", "The output matches. [Correct]", true],
    ["[Incorrect]", "[Incorrect]", false],
    ["no label", "It is right.", false],
    ["an empty answer", "", false],
    ["lowercase", "[correct]", true],
    ["uppercase", "[CORRECT]", true],
    ["both labels: [Correct] anywhere wins", "[Incorrect] ... on reflection [Correct]", true],
    ["both labels, [Incorrect] last", "[Correct]? No: [Incorrect]", true],
    ["in a code block", "```\n[Correct]\n```", true],
    ["whitespace inside the brackets", "[ Correct ]", false],
    ["extra whitespace around", "  \n [Correct]\n\n", true],
    ["the bare word", "Correct", false],
    ["double brackets", "[[Correct]]", true],
  ];
  for (const [name, text, expected] of cases) test(name, () => assert.equal(judgeSaysCorrect(text), expected));

  const message = (parts: unknown[]) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: parts });
  const response = (output: unknown[]) => responseWith(output as any) as any;
  test("a Responses answer: only the last item's last part counts, when it is a message's output_text", () => {
    assert.equal(responseSaysCorrect(response([message([{ type: "output_text", text: "[Correct]", annotations: [] }])])), true);
    assert.equal(responseSaysCorrect(response([message([{ type: "output_text", text: "[Correct]", annotations: [] }]), { id: "r", type: "reasoning", summary: [] }])), false);
    assert.equal(responseSaysCorrect(response([message([{ type: "output_text", text: "[Correct]", annotations: [] }, { type: "refusal", refusal: "no" }])])), false);
  });
  test("nothing at output[-1] or content[-1] is NeMo Gym's IndexError (a 500), not a verdict", () => {
    assert.throws(() => responseSaysCorrect(response([])), { name: "IndexError" });
    assert.throws(() => responseSaysCorrect(response([message([])])), { name: "IndexError" });
  });
});

const EXAMPLE_PROMPT = "resources_servers/physics_judge/prompts/example.yaml";
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const judgeText = (problem: string, generation: string, expected: string) =>
  `Grade the output against the correct answer. Reply [Correct] or [Incorrect].\nQuestion: ${problem}\nOutput: ${generation}\nCorrect answer: ${expected}`;
const rules = [
  { match: `^${escape(judgeText("fall distance", "It falls half gee tee squared.", "\\boxed{\\frac{1}{2} g t^2}"))}$`, answer: "Same thing in words. [Correct]" },
  { match: "Output: It falls gee tee\\.", answer: "Off by a factor. [Incorrect]" },
  { match: "Output: I am unsure\\.", answer: "" },
  { match: "Output: mumble", answer: "no verdict here" },
];

let chat: InProcessGraph;
let responses: InProcessGraph;
const client = http();
const instance = (useChat: boolean) => ({
  judge_model_server: { type: "responses_api_models", name: "judge_model" },
  judge_responses_create_params: { input: [], max_output_tokens: 2048, temperature: 0.0, top_p: 1.0 },
  should_use_judge: true,
  use_chat_completions_for_judge: useChat,
  judge_prompt_path: EXAMPLE_PROMPT,
});
before(async () => {
  chat = await startServers({ physics_judge: [physicsJudge, instance(true)], judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }] });
  responses = await startServers({ physics_judge: [physicsJudge, instance(false)], judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }] });
});
after(async () => {
  await chat.close();
  await responses.close();
  await client.close();
});

const params = { input: [{ role: "user", content: "question" }] };
const post = (graph: InProcessGraph, question: string, expected: string, text: string) =>
  client.request(`${graph.url("physics_judge")}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage(text)]), question, expected_answer: expected, domain: "mechanics" } });
async function verified(graph: InProcessGraph, question: string, expected: string, text: string) {
  const answer = await post(graph, question, expected, text);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}
const FALL = "\\boxed{\\frac{1}{2} g t^2}";

describe("physics_judge verify", () => {
  for (const [name, graph] of [["chat", () => chat], ["responses", () => responses]] as const) {
    test(`${name}: a symbolic miss the judge calls [Correct] → reward 1, library_reward 0, one evaluation recorded`, async () => {
      const body = await verified(graph(), "fall distance", FALL, "It falls half gee tee squared.");
      assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "expected_answer", "extracted_answer", "library_reward", "judge_evaluations"]);
      assert.deepEqual([body.reward, body.library_reward, body.judge_evaluations.length], [1, 0, 1]);
      const [evaluation] = body.judge_evaluations;
      assert.deepEqual(evaluation.responses_create_params.input, [{ role: "user", content: judgeText("fall distance", "It falls half gee tee squared.", FALL), type: "message" }]);
      assert.equal(evaluation.responses_create_params.max_output_tokens, 2048);
      assert.equal(evaluation.response.output.at(-1).content.at(-1).text, "Same thing in words. [Correct]");
      if (name === "chat") assert.deepEqual([evaluation.response.output[0].id, evaluation.response.tool_choice, evaluation.response.parallel_tool_calls], ["msg_chat", "none", false]);
    });

    test(`${name}: [Incorrect], an empty answer and an answer with no label are all reward 0 (scored, not failed)`, async () => {
      for (const text of ["It falls gee tee.", "I am unsure.", "mumble"]) {
        const body = await verified(graph(), "fall distance", FALL, text);
        assert.deepEqual([body.reward, body._ng_failure_class, body.judge_evaluations.length], [0, undefined, 1], text);
      }
    });

    test(`${name}: a judge call that fails (no rule → 404) is the judge_failed row`, async () => {
      const answer = await post(graph(), "fall distance", FALL, "Something no rule knows.");
      assert.equal(answer.status, 200, answer.text);
      const body = answer.json<Record<string, any>>();
      assert.deepEqual([body.reward, body._ng_failure_class], [0, "judge_failed"]);
      assert.match(body._ng_failure_judge_error, /answered 404/);
    });
  }

  test("math-verify agreeing skips the judge: reward 1, judge_evaluations null", async () => {
    const answer = await post(chat, "unjudged", "\\boxed{h\\nu}", "So $E = \\boxed{h\\nu}$.");
    const body = answer.json<Record<string, any>>();
    assert.deepEqual([body.reward, body.library_reward, body.judge_evaluations], [1, 1, null]);
    assert.match(answer.text, /"reward":1\.0,.*"library_reward":1\.0,"judge_evaluations":null/);
  });

  test("the judge sees the whole generation, not the extracted answer", async () => {
    // "\\boxed{gt}" is extracted, but the rule matches the full text only.
    const body = await verified(chat, "fall distance", FALL, "It falls gee tee. \\boxed{gt}");
    assert.equal(body.extracted_answer, "g*t");
    assert.equal(body.judge_evaluations[0].response.output[0].content[0].text, "Off by a factor. [Incorrect]");
  });

  test("aggregate_metrics: symbolic and judge accuracy, and a per-domain breakdown when rows carry domain", async () => {
    const rollouts = [
      { ...(await verified(chat, "fall distance", FALL, "It falls half gee tee squared.")), domain: "mechanics" },
      { ...(await verified(chat, "unjudged", "\\boxed{h\\nu}", "\\boxed{h\\nu}")), domain: "modern_physics" },
    ].map((r, i) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0 }));
    const answer = await client.request(`${chat.url("physics_judge")}/aggregate_metrics`, { method: "POST", json: { verify_responses: rollouts } });
    assert.equal(answer.status, 200, answer.text);
    const metrics = answer.json<{ agent_metrics: Record<string, unknown> }>().agent_metrics;
    assert.equal(metrics["pass@1/symbolic_accuracy"], 50);
    assert.equal(metrics["pass@1/judge_accuracy"], 100);
    assert.equal(metrics["mechanics/pass@1/judge_accuracy"], 100);
    assert.equal(metrics["modern_physics/pass@1/symbolic_accuracy"], 100);
  });
});

describe("physics_judge data", () => {
  test("data/example.jsonl: five run requests with question, expected_answer and domain", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.deepEqual(Object.keys(row), ["responses_create_params", "question", "expected_answer", "domain"]);
  });
});
