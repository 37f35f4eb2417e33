// omniscience's reading rules, one by one: the four-tier grade (INCORRECT when nothing fits), the model's answer with
// its thinking traces stripped (each expected value is what NeMo Gym's Python regexes give), and the metrics'
// omniscience index and hallucination rate.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assistantMessage, responseWith } from "../../../src/testing/index.ts";
import type { NeMoGymResponse } from "../../../src/protocol/index.ts";
import type { VerifyRecord } from "../../../src/metrics/index.ts";
import { answerAfterThinking, stripThinkingTraces } from "../../../src/ports/assistant-answer-text.ts";
import { parseJudgeGrade } from "../grade.ts";
import { omniscienceMetrics } from "../metrics.ts";

describe("the grade in the judge's answer", () => {
  const cases: [string, string, string][] = [
    ["a bare letter", "C", "C"],
    ["D", "D", "D"],
    ["surrounding whitespace", "  \nA\n ", "A"],
    ["else a last line that is exactly one letter", "The prediction adds a wrong year.\nB", "B"],
    ["a last line with more than the letter does not count by itself…", "Reasoning.\nGrade: D", "D"],
    ["…the first of A–D anywhere then decides (A before D)", "A careful look.\nGrade: D", "A"],
    ["several verdicts: the first letter in A, B, C, D order found anywhere", "D or C", "C"],
    ["a verdict in a code block", "```\nD\n```", "D"],
    ["lowercase is no grade: INCORRECT", "grade: d", "B"],
    ["missing verdict: INCORRECT (not NOT_ATTEMPTED)", "unsure", "B"],
  ];
  for (const [name, text, grade] of cases) test(name, () => assert.equal(parseJudgeGrade(text), grade));
});

describe("the model's answer without thinking traces", () => {
  const cases: [string, string][] = [
    ["<think>a</think> 6", "6"],
    ["reasoning</think>\n6", "6"],
    ["<thinking>x</thinking><think>y</think>ans", "ans"],
    ["a</think>b</think>c", "b</think>c"],
    ["x <think>1</think> y <think>2</think> z", "x  y  z"],
    ["</thinking>ans</think>", ""],
  ];
  for (const [text, expected] of cases) test(JSON.stringify(text), () => assert.equal(stripThinkingTraces(text), expected));

  const said = (text: string) => responseWith([assistantMessage(text)]) as unknown as NeMoGymResponse;
  test("a trace opened and never closed leaves no answer (cut off mid-reasoning); no trace keeps the answer", () => {
    assert.equal(answerAfterThinking(said("<think>still thinking about 6")), "");
    assert.equal(answerAfterThinking(said("<think>done</think>6")), "6");
    assert.equal(answerAfterThinking(said("  6  ")), "6");
  });
});

describe("metrics", () => {
  const rollout = (verdict: string | undefined, task: number, index = 0): VerifyRecord => ({ reward: verdict === "correct" ? 1 : 0, verdict, extracted_answer: `a${task}`, _ng_task_index: task, _ng_rollout_index: index }) as VerifyRecord;

  test("omni index = correct − incorrect; hallucination = incorrect / not-correct (one rollout per task)", () => {
    const metrics = omniscienceMetrics([[rollout("correct", 0)], [rollout("incorrect", 1)], [rollout("partial", 2)], [rollout("not_attempted", 3)], [rollout(undefined, 4)]]);
    assert.deepEqual([metrics["pass@1/judge_correct"], metrics["pass@1/judge_incorrect"], metrics["pass@1/judge_partially_correct"], metrics["pass@1/judge_abstained"]], [20, -40, 20, 20]);
    assert.equal(metrics["pass@1/judge_omni_index"], 20 - 40);
    assert.ok(Math.abs((metrics["pass@1/judge_omni_hallucination"] as number) - (100 * 40) / 80) < 1e-9);
  });

  test("all correct: nothing is not-correct, so the hallucination rate is 0", () => {
    const metrics = omniscienceMetrics([[rollout("correct", 0, 0), rollout("correct", 0, 1)]]);
    assert.equal(metrics["pass@1[avg-of-2]/judge_omni_hallucination"], 0);
    assert.equal(metrics["pass@1[avg-of-2]/judge_omni_index"], 100);
  });
});
