// NeMo Gym's genrm_compare aggregation exactly: the pair plans, the tiebreaker, the averages, the length bonuses and
// style penalty, the metrics (expected values computed with NeMo Gym's utils.py on the same inputs), and the cohort
// that collects one prompt's rollouts arriving one /verify at a time.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { aggregateScores, comparisonPairs, countStyleElements, styleDensity, type Adjustments, type ComparisonSlot } from "../aggregate.ts";
import { CohortTable, type CohortScoring } from "../cohort.ts";
import type { PairScores } from "../genrm-output.ts";

const response = (answer: string, reasoning = "") => ({
  output: [
    ...(reasoning ? [{ type: "reasoning", summary: [{ type: "summary_text", text: reasoning }] }] : []),
    { type: "message", role: "assistant", content: [{ type: "output_text", text: answer }] },
  ],
});
const none: Adjustments = { reasoningBonus: 0, answerBonus: 0, topPercentile: 0.2, reasoningLengthPenaltyCoeff: 0, answerLengthPenaltyCoeff: 0, stylePenaltyCoeff: 0 };
const scores = (score1: number, score2: number, ranking: number): PairScores => ({ score1, score2, ranking });
const slot = (i: number, j: number, judgeIndex = 0): ComparisonSlot => ({ i, j, judgeIndex });

const responses = [response("short", "r"), response("a much longer answer here", "longer reasoning"), response("## Title\n- item\n**bold** 😀 text")];
const judgements = [scores(4, 3, 2), scores(3, 3, 5), scores(2, 5, 6)];
const slots = [slot(0, 1), slot(1, 2), slot(2, 0)];

describe("comparison pairs", () => {
  test("circular: each with the next, the last with the first", () => {
    assert.deepEqual(comparisonPairs("circular", 3), [[0, 1], [1, 2], [2, 0]]);
    assert.deepEqual(comparisonPairs("circular", 2), [[0, 1], [1, 0]]);
  });
  test("all_pairs: every i < j", () => {
    assert.deepEqual(comparisonPairs("all_pairs", 4), [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]);
  });
  test("fewer than two responses cannot be compared", () => {
    assert.throws(() => comparisonPairs("circular", 1), /at least 2 responses/);
  });
});

describe("simple_tiebreaker", () => {
  test("each response's scores averaged over its comparisons; equal scores split by the ranking's distance from 3.5", () => {
    // (3, 3, ranking 5): response 2 better by 1.5 → 1.5 and 4.5.
    const result = aggregateScores(judgements, slots, responses, 3.0, none);
    assert.deepEqual(result.rewards, [4.5, 2.25, 3.25]);
    assert.deepEqual(result.baseScores, [4.5, 2.25, 3.25]);
    assert.deepEqual(result.bonuses, [0, 0, 0]);
    assert.deepEqual(result.metrics, { mean_individual_score: 3.3333333333333335, std_individual_score: 0.9428090415820634, tiebreak_usage_rate: 0.3333333333333333 });
  });

  test("a response with no comparison gets default_score; no judgement → no metrics", () => {
    const result = aggregateScores([], [], [response("a"), response("b")], 2.5, none);
    assert.deepEqual(result.rewards, [2.5, 2.5]);
    assert.deepEqual(result.metrics, {});
  });

  test("several judge passes of one pair are averaged too", () => {
    const result = aggregateScores([scores(5, 1, 1), scores(3, 3, 1)], [slot(0, 1, 0), slot(0, 1, 1)], [response("a"), response("b")], 3.0, none);
    // Second pass ties: 3 + 2.5 and 3 - 2.5.
    assert.deepEqual(result.rewards, [5.25, 0.75]);
  });

  test("length bonuses (shortest reasoning and answer among the top) and group length and style weights", () => {
    const adjust: Adjustments = { reasoningBonus: 0.5, answerBonus: 0.25, topPercentile: 0.5, reasoningLengthPenaltyCoeff: 0.1, answerLengthPenaltyCoeff: 0.2, stylePenaltyCoeff: 0.3 };
    const result = aggregateScores(judgements, slots, responses, 3.0, adjust);
    assert.deepEqual(result.rewards, [5.497115384615384, 2.2495192307692307, 3.0033653846153845]);
    assert.deepEqual(result.baseScores, [4.5, 2.25, 3.25]);
    assert.deepEqual(result.bonuses, [0.9971153846153845, -0.0004807692307692568, -0.2466346153846154]);
  });

  test("a bonus goes only to a top scorer: the shortest answer below the threshold gets none", () => {
    const result = aggregateScores([scores(1, 5, 6)], [slot(0, 1)], [response("x"), response("much longer")], 3.0, { ...none, answerBonus: 1, topPercentile: 0.5 });
    assert.deepEqual(result.rewards, [1, 5]);
  });
});

describe("style elements", () => {
  test("headers, list items, bold and emoji are counted outside code blocks", () => {
    assert.deepEqual(countStyleElements("## Title\n- item\n1. one\n**bold** __b__ 😀😀\n```\n# not\n```"), { header_count: 1, list_count: 2, bold_count: 2, emoji_count: 2 });
  });
  test("density is elements per code point of the stripped text", () => {
    assert.equal(styleDensity("## Title\n- item\n**bold** 😀 text"), 0.12903225806451613);
    assert.equal(styleDensity("```only code```"), 0);
  });
});

describe("the cohort of one prompt", () => {
  /** A judge that scores by the responses' names, and records which pairs it was asked in which order. */
  const judge = (quality: Record<string, number>, asked: string[], fail?: string): CohortScoring => ({
    cohortSize: 3,
    strategy: "circular",
    judgesPerComparison: 1,
    async compare(seen, { i, j }) {
      const a = seen[i] as string;
      const b = seen[j] as string;
      asked.push(`${a}-${b}`);
      if (a === fail || b === fail) throw new Error("judge down");
      return scores(quality[a]!, quality[b]!, quality[a]! > quality[b]! ? 1 : 6);
    },
    aggregate: (js, ss, rs) => aggregateScores(js, ss, rs, 3.0, none).rewards,
  });

  test("each arrival is compared with the earlier ones at once; the rewards come when the cohort is full", async () => {
    const table = new CohortTable();
    const asked: string[] = [];
    const scoring = judge({ a: 5, b: 1, c: 3 }, asked);
    const first = table.join("p", "a", scoring);
    const second = table.join("p", "b", scoring);
    assert.deepEqual(asked, ["a-b"], "the first arrival is compared with nobody, the second with the first");
    const third = table.join("p", "c", scoring);
    assert.equal(table.size, 0, "a full cohort leaves the table");
    // circular over 3: (0,1) by the second arrival; (1,2) and (2,0) by the third.
    assert.deepEqual(await Promise.all([first, second, third]), [5, 1, 3]);
    assert.deepEqual(asked, ["a-b", "b-c", "c-a"]);
  });

  test("different keys are different cohorts", async () => {
    const table = new CohortTable();
    const scoring = judge({ a: 5, b: 1, c: 3 }, []);
    const joined = [table.join("p", "a", scoring), table.join("q", "b", scoring), table.join("p", "b", scoring)];
    assert.equal(table.size, 2);
    const last = [table.join("q", "a", scoring), table.join("p", "c", scoring), table.join("q", "c", scoring)];
    assert.deepEqual(await Promise.all([...joined, ...last]), [5, 1, 1, 5, 3, 3]);
  });

  test("a failed comparison fails every member, once the cohort is complete", async () => {
    const table = new CohortTable();
    const scoring = judge({ a: 5, b: 1, c: 3 }, [], "c");
    const members = ["a", "b", "c"].map((name) => table.join("p", name, scoring));
    const settled = await Promise.allSettled(members);
    assert.deepEqual(settled.map((s) => s.status), ["rejected", "rejected", "rejected"]);
    assert.match(String((settled[0] as PromiseRejectedResult).reason), /judge down/);
  });
});
