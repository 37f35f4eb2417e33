// ugphysics_judge: NeMo Gym's parse_judgement rule by rule (Python regex semantics), and verify over real HTTP
// with scripted_model as the judge in judge_rules mode, through /v1/chat/completions and /v1/responses: the
// math-verify short cut (TRUE), the judge off (FALSE), the reference solution in the prompt, an unparseable answer
// (verdict null, reward 0), a failed call as the judge_failed row, and the per-subject metrics.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers } from "../../../src/testing/index.ts";
import ugphysicsJudge from "../app.ts";
import { parseJudgement, responseVerdictText } from "../judge.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

describe("ugphysics_judge parse_judgement", () => {
  const cases: [string, string, boolean | null][] = [
    ["the header with TRUE", "Reasoning...\n## Equivalence Judgement\nTRUE", true],
    ["the header with FALSE", "## Equivalence Judgement\nFALSE", false],
    ["the header in lowercase", "## equivalence judgement\nfalse", false],
    ["extra whitespace in and after the header", "##   Equivalence   Judgement   \n\n   true", true],
    ["the header wins over a later word", "## Equivalence Judgement\nFALSE\nThough one might say TRUE.", false],
    ["the header on one line is no header: the last word decides", "## Equivalence Judgement TRUE, not FALSE", false],
    ["no header: the last standalone word", "It is TRUE that ... so FALSE", false],
    ["no header, mixed case", "Verdict: True", true],
    ["several headers: the first", "## Equivalence Judgement\nTRUE\n## Equivalence Judgement\nFALSE", true],
    ["a header in a code block", "```\n## Equivalence Judgement\nTRUE\n```", true],
    ["words inside words are not verdicts", "UNTRUE and FALSEHOOD", null],
    ["a letter before the word is no word boundary (Unicode \\w, as Python)", "éTRUE", null],
    ["no verdict", "The answers look equivalent.", null],
    ["an empty answer", "", null],
  ];
  for (const [name, text, expected] of cases) test(name, () => assert.equal(parseJudgement(text), expected));

  const text = (t: string) => ({ type: "output_text", text: t, annotations: [] });
  const message = (parts: unknown[]) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: parts });
  test("a Responses answer is read from its last item's last part only; anything else is no verdict (no IndexError here)", () => {
    const of = (output: unknown[]) => responseVerdictText(responseWith(output as any) as any);
    assert.equal(of([message([text("a"), text("## Equivalence Judgement\nTRUE")])]), "## Equivalence Judgement\nTRUE");
    assert.equal(of([]), undefined);
    assert.equal(of([message([])]), undefined);
    assert.equal(of([message([text("TRUE")]), { id: "r", type: "reasoning", summary: [] }]), undefined);
  });
});

const EXAMPLE_PROMPT = "resources_servers/ugphysics_judge/prompts/example.yaml";
const SYSTEM = 'You grade undergraduate physics answers. End with "## Equivalence Judgement" and TRUE or FALSE on the next line.';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const judgeText = (problem: string, solution: string, expected: string, generation: string) =>
  `${SYSTEM}\n\nProblem: ${problem}\nReference solution: ${solution}\nReference answer: ${expected}\nStudent answer: ${generation}`;
const rules = [
  { match: `^${escape(judgeText("kinetic", "E = mv^2/2", "9", "nine joules"))}$`, answer: "Nine is 9.\n## Equivalence Judgement\nTRUE" },
  { match: "Student answer: ten joules$", answer: "## Equivalence Judgement\nFALSE" },
  { match: "Student answer: hmm$", answer: "I cannot tell." },
  { match: "Reference solution: \\nReference answer: 9\\nStudent answer: nine$", answer: "TRUE" },
];

let chat: InProcessGraph;
let responses: InProcessGraph;
let judgeOff: InProcessGraph;
const client = http();
const instance = (useChat: boolean, shouldUseJudge = true) => ({
  judge_model_server: { type: "responses_api_models", name: "judge_model" },
  judge_responses_create_params: { input: [], max_output_tokens: 2048, temperature: 0.0, top_p: 1.0 },
  should_use_judge: shouldUseJudge,
  use_chat_completions_for_judge: useChat,
  judge_prompt_path: EXAMPLE_PROMPT,
});
before(async () => {
  const judge = [scriptedModel, { mode: "judge_rules", judge_rules: rules }] as [typeof scriptedModel, Record<string, unknown>];
  chat = await startServers({ ugphysics_judge: [ugphysicsJudge, instance(true)], judge_model: judge });
  responses = await startServers({ ugphysics_judge: [ugphysicsJudge, instance(false)], judge_model: judge });
  judgeOff = await startServers({ ugphysics_judge: [ugphysicsJudge, instance(true, false)] });
});
after(async () => {
  await Promise.all([chat.close(), responses.close(), judgeOff.close()]);
  await client.close();
});

const params = { input: [{ role: "user", content: "question" }] };
const post = (graph: InProcessGraph, fields: Record<string, unknown>, text: string) =>
  client.request(`${graph.url("ugphysics_judge")}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage(text)]), ...fields } });
async function verified(graph: InProcessGraph, fields: Record<string, unknown>, text: string) {
  const answer = await post(graph, fields, text);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}
const KINETIC = { question: "kinetic", expected_answer: "9", solution: "E = mv^2/2", subject: "ClassicalMechanics" };

describe("ugphysics_judge verify", () => {
  for (const [name, graph] of [["chat", () => chat], ["responses", () => responses]] as const) {
    test(`${name}: a symbolic miss judged TRUE → reward 1, verdict TRUE, NeMo Gym's fields in order`, async () => {
      const body = await verified(graph(), { ...KINETIC, source: "row extra" }, "nine joules");
      assert.deepEqual(Object.keys(body), [
        "responses_create_params", "response", "reward", "expected_answer", "extracted_answer", "library_reward", "judge_evaluations",
        "extracted_verdict", "subject", "question", "solution", "source",
      ]);
      assert.deepEqual([body.reward, body.library_reward, body.extracted_verdict, body.subject, body.judge_evaluations.length], [1, 0, "TRUE", "ClassicalMechanics", 1]);
      assert.deepEqual(body.judge_evaluations[0].responses_create_params.input.map((m: any) => m.role), ["system", "user"]);
    });

    test(`${name}: FALSE → reward 0 verdict FALSE; no verdict → reward 0 verdict null`, async () => {
      const wrong = await verified(graph(), KINETIC, "ten joules");
      assert.deepEqual([wrong.reward, wrong.extracted_verdict], [0, "FALSE"]);
      const unsure = await verified(graph(), KINETIC, "hmm");
      assert.deepEqual([unsure.reward, unsure.extracted_verdict, unsure.judge_evaluations.length], [0, null, 1]);
    });

    test(`${name}: a failed judge call is the judge_failed row`, async () => {
      const answer = await post(graph(), KINETIC, "no rule for this");
      assert.equal(answer.status, 200, answer.text);
      const body = answer.json<Record<string, any>>();
      assert.deepEqual([body.reward, body._ng_failure_class, body.extracted_verdict], [0, "judge_failed", undefined]);
    });
  }

  test("a missing solution is '' in the prompt and back; a missing subject is null", async () => {
    const body = await verified(chat, { question: "kinetic", expected_answer: "9" }, "nine");
    assert.deepEqual([body.reward, body.solution, body.subject], [1, "", null]);
  });

  test("math-verify agreeing is TRUE without a judge; a miss with the judge off is FALSE", async () => {
    const hit = await verified(chat, KINETIC, "So the final answer is \\boxed{9}(J).");
    assert.deepEqual([hit.reward, hit.extracted_verdict, hit.judge_evaluations], [1, "TRUE", null]);
    const off = await verified(judgeOff, KINETIC, "nine joules");
    assert.deepEqual([off.reward, off.extracted_verdict, off.judge_evaluations], [0, "FALSE", null]);
  });

  test("a missing question is a 422 naming it", async () => {
    const answer = await post(chat, { expected_answer: "9" }, "x");
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.text, /question/);
  });

  test("aggregate_metrics: judge and symbolic accuracy with majority over the verdict, per subject", async () => {
    const rollouts = [
      await verified(chat, KINETIC, "nine joules"),
      await verified(chat, KINETIC, "ten joules"),
      await verified(chat, { ...KINETIC, subject: "Thermodynamics" }, "\\boxed{9}"),
    ].map((r, i) => ({ ...r, _ng_task_index: i < 2 ? 0 : 1, _ng_rollout_index: i < 2 ? i : 0 }));
    const answer = await client.request(`${chat.url("ugphysics_judge")}/aggregate_metrics`, { method: "POST", json: { verify_responses: rollouts } });
    assert.equal(answer.status, 200, answer.text);
    const metrics = answer.json<{ agent_metrics: Record<string, unknown> }>().agent_metrics;
    assert.equal(metrics["pass@1[avg-of-2]/judge_accuracy"], 75);
    assert.equal(metrics["pass@2/judge_accuracy"], 100);
    assert.equal(metrics["ClassicalMechanics/pass@1[avg-of-2]/judge_accuracy"], 50);
    assert.equal(metrics["Thermodynamics/pass@1/symbolic_accuracy"], 100);
  });
});

describe("ugphysics_judge data", () => {
  test("data/example.jsonl: five run requests with question, expected_answer, solution and subject", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.deepEqual(Object.keys(row), ["responses_create_params", "question", "expected_answer", "solution", "subject"]);
  });
});
