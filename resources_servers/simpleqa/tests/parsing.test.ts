// simpleqa's reading rules, one by one: the grade letter in the judge's answer (NeMo Gym's lenient rules, odd ones
// included: a judge that starts "After…" grades A), the answer text, and the metrics' F1 / accuracy_given_attempted.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assistantMessage, responseWith } from "../../../src/testing/index.ts";
import type { NeMoGymResponse } from "../../../src/protocol/index.ts";
import type { VerifyRecord } from "../../../src/metrics/index.ts";
import { lastAssistantText, parseJudgeGrade } from "../grade.ts";
import { simpleqaKeyMetrics, simpleqaMetrics } from "../metrics.ts";

describe("the grade in the judge's answer", () => {
  const cases: [string, string, string][] = [
    ["a bare letter", "A", "A"],
    ["B", "B", "B"],
    ["C", "C", "C"],
    ["surrounding whitespace", "\n\n   B  \n", "B"],
    ["the first character counts, whatever follows", "B: INCORRECT, though arguably A", "B"],
    ["several verdicts: the first character decides", "C ... on reflection A", "C"],
    ["a sentence starting with A reads as A (NeMo Gym's rule)", "After reviewing the answer, the grade is B.", "A"],
    ["else the last line's first character", "The answer contradicts the gold target.\nB", "B"],
    ["the last line is stripped", "Reasoning here.\n   C   ", "C"],
    ["else the first of A, B, C found anywhere (A before B before C)", "my grade: C, not B", "B"],
    ["a verdict in a code block is found anywhere", "```\nB\n```", "B"],
    ["the word CORRECT holds a C", "the prediction is CORRECT", "C"],
    ["lowercase letters are no grade", "grade: b", "C"],
    ["missing verdict: NOT_ATTEMPTED", "unsure", "C"],
  ];
  for (const [name, text, grade] of cases) test(name, () => assert.equal(parseJudgeGrade(text), grade));
});

describe("the answer text", () => {
  const response = (output: unknown[]) => responseWith(output as never) as unknown as NeMoGymResponse;
  test("the last assistant message: its text parts joined by newlines, stripped", () => {
    assert.equal(lastAssistantText(response([assistantMessage("old"), assistantMessage("  Mercury", "is closest ")])), "Mercury\nis closest");
  });
  test("a message without any text part is passed over; one with blank text is not", () => {
    const refusal = { ...assistantMessage(), content: [{ type: "refusal", refusal: "no" }] };
    assert.equal(lastAssistantText(response([assistantMessage("earlier"), refusal])), "earlier");
    assert.equal(lastAssistantText(response([assistantMessage("earlier"), assistantMessage("   ")])), "");
    assert.equal(lastAssistantText(response([])), "");
  });
});

describe("metrics", () => {
  const rollout = (verdict: string | undefined, task: number, index = 0): VerifyRecord => ({ reward: verdict === "correct" ? 1 : 0, verdict, extracted_answer: `a${task}`, _ng_task_index: task, _ng_rollout_index: index }) as VerifyRecord;

  test("pass@1 per tier, then F1 and accuracy_given_attempted from correct and incorrect (one rollout per task)", () => {
    const metrics = simpleqaMetrics([[rollout("correct", 0)], [rollout("incorrect", 1)], [rollout("not_attempted", 2)], [rollout("correct", 3)]]);
    assert.equal(metrics["pass@1/correct"], 50);
    assert.equal(metrics["pass@1/incorrect"], 25);
    assert.equal(metrics["pass@1/not_attempted"], 25);
    const p = 0.5 / 0.75;
    assert.ok(Math.abs((metrics["pass@1/accuracy_given_attempted"] as number) - 100 * p) < 1e-9);
    assert.ok(Math.abs((metrics["pass@1/f1"] as number) - (100 * 2 * p * 0.5) / (p + 0.5)) < 1e-9);
  });

  test("every aggregation level gets its F1; nothing attempted gives 0, and a rollout without a verdict is not attempted", () => {
    const metrics = simpleqaMetrics([
      [rollout("not_attempted", 0, 0), rollout(undefined, 0, 1)],
      [rollout("not_attempted", 1, 0), rollout("not_attempted", 1, 1)],
    ]);
    const f1Keys = Object.keys(metrics).filter((key) => key.endsWith("/f1"));
    assert.ok(f1Keys.includes("pass@1[avg-of-2]/f1") && f1Keys.includes("pass@2/f1"), f1Keys.join(", "));
    for (const key of f1Keys) assert.equal(metrics[key], 0, key);
    assert.equal(metrics["pass@1[avg-of-2]/not_attempted"], 100);
  });

  test("key metrics: the highest-k pass@1[avg-of-k] and pass@k", () => {
    const metrics = simpleqaMetrics([[rollout("correct", 0, 0), rollout("incorrect", 0, 1)]]);
    const key = simpleqaKeyMetrics({ ...metrics, "mean/input_tokens": 3 });
    assert.equal(key["mean/input_tokens"], 3);
    assert.equal(key["pass@1[avg-of-2]/correct"], 50);
    assert.equal(key["pass@2/correct"], 100);
    assert.ok("pass@2/f1" in key);
  });
});
