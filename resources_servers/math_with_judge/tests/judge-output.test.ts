// What math_with_judge makes of a judge answer it indexes into: NeMo Gym reads `output[-1]` and then its
// `content[-1]`, so an answer with nothing there fails verify (IndexError, a 500), while a last item or part of
// another type is a "different" verdict. A fake judge model on loopback answers each question as scripted.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { responsesApiModel } from "../../../src/server/index.ts";
import { responseEnvelope, usageOf } from "../../../src/models/response-envelope.ts";
import type { NeMoGymResponse } from "../../../src/protocol/index.ts";
import { assistantMessage, http, responseWith, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import mathWithJudge from "../app.ts";

const message = (content: unknown[]) => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content });
const verdict = (text: string) => ({ type: "output_text", text, annotations: [] });

/** The judge's output for each scenario, keyed by the question the judge prompt carries. */
const JUDGE_OUTPUTS: Record<string, unknown[]> = {
  "empty-output": [],
  "empty-content": [message([])],
  "reasoning-last": [message([verdict("[[A=B]]")]), { id: "rs_1", type: "reasoning", summary: [] }],
  "refusal-last": [message([verdict("[[A=B]]"), { type: "refusal", refusal: "no" }])],
  "equal-then-empty": [message([verdict("[[A=B]]")])],
};
const judgeCalls: string[] = [];

const FakeJudge = responsesApiModel({
  name: "FakeJudge",
  config: z.looseObject({}),
  async responses({ params }) {
    const prompt = JSON.stringify(params.input);
    const question = Object.keys(JUDGE_OUTPUTS).find((name) => prompt.includes(`<|Problem|>\\n${name}\\n`))!;
    judgeCalls.push(question);
    // The second order of "equal-then-empty" answers nothing: the IndexError comes from the second call.
    const second = question === "equal-then-empty" && judgeCalls.filter((q) => q === question).length === 2;
    const output = (second ? [] : JUDGE_OUTPUTS[question]!) as NeMoGymResponse["output"];
    return responseEnvelope({ params, model: "fake-judge", output, usage: usageOf(1, 1), id: "resp_judge", createdAt: 1_753_983_920 });
  },
});

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    math_with_judge: [mathWithJudge, { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [] }, should_use_judge: true }],
    judge_model: [FakeJudge],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

// "seven" is no number math-verify reads, so the library says 0 and the judge is asked.
const verify = (question: string) =>
  client.request(`${graph.url("math_with_judge")}/verify`, {
    method: "POST",
    json: { responses_create_params: { input: [{ role: "user", content: question }] }, response: responseWith([assistantMessage("\\boxed{\\text{seven}}")]), question, expected_answer: "7" },
  });

describe("math_with_judge verify on judge answers it indexes into", () => {
  for (const question of ["empty-output", "empty-content", "equal-then-empty"]) {
    test(`${question}: verify fails with IndexError('list index out of range'), a 500 and not a judge failure`, async () => {
      const answer = await verify(question);
      assert.equal(answer.status, 500, answer.text);
      assert.equal(answer.json(), "IndexError('list index out of range')");
    });
  }

  for (const question of ["reasoning-last", "refusal-last"]) {
    test(`${question}: a last item or part that is not output_text is "different" — reward 0, one evaluation`, async () => {
      const answer = await verify(question);
      assert.equal(answer.status, 200, answer.text);
      const body = answer.json<Record<string, any>>();
      assert.deepEqual([body.reward, body.library_reward, body.judge_evaluations.length], [0, 0, 1]);
    });
  }
});
