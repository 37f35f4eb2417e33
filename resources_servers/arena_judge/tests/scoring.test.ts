// arena_judge's scoring without a judge: the verdict rule (arena-hard-auto's label regex, all labels agreeing, one
// of five), NeMo Gym's sanitize_generation, the best-of-rollouts collapse, the battles and the Arena-Elo aggregate.
// The Elo literals come from NeMo Gym's _aggregate_arena_elo run with NumPy's global generator (np.random.seed,
// np.random.choice as DataFrame.sample(replace=True) draws) and the two-player closed form of its logistic fit.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseVerdict, sanitizeGeneration } from "../verdict.ts";
import { aggregateArenaElo, arenaEloMetrics, battlesFromJudgment, bestOfRollouts } from "../elo.ts";

describe("arena_judge verdict parsing", () => {
  const cases: [string, string, string | null][] = [
    ["one label", "Both are fine but A is tighter. My final verdict is: [[A>B]]", "A>B"],
    ["each of the five labels", "[[B>>A]]", "B>>A"],
    ["no label at all", "I think A is better.", null],
    ["an empty answer", "", null],
    ["the same label twice", "[[A=B]] ... so again: [[A=B]]", "A=B"],
    ["two labels that disagree", "At first [[A>B]], on reflection [[B>A]]", null],
    ["a label inside a code block", "```\n[[A>>B]]\n```", "A>>B"],
    ["a lowercase label (the regex is case-sensitive)", "[[a>b]]", null],
    ["whitespace inside the brackets", "[[ A>B ]]", null],
    ["surrounding whitespace and newlines", "\n\n   [[B>A]]   \n", "B>A"],
    ["a well-formed label that is not one of the five", "[[A>>>B]]", null],
    ["an invalid label next to a valid one", "[[A>B]] or [[AB]]", null],
    ["single brackets", "[A>B]", null],
    ["a label with bold markup around it", "**[[A=B]]**", "A=B"],
    ["a label broken by a newline", "[[A>\nB]]", null],
  ];
  for (const [name, text, expected] of cases) test(name, () => assert.equal(parseVerdict(text), expected));
});

describe("arena_judge sanitize_generations", () => {
  test("a lone surrogate half becomes three U+FFFD; pairs, NUL and plain text stay", () => {
    assert.equal(sanitizeGeneration("a\ud800b\u0000c\udc00\ud83d\ude00 x"), "a\ufffd\ufffd\ufffdb\u0000c\ufffd\ufffd\ufffd\ud83d\ude00 x");
    assert.equal(sanitizeGeneration("plain"), "plain");
  });
});

describe("arena_judge aggregation", () => {
  test("best of rollouts: the most candidate-favouring label, reversed for the swapped call; null when none parsed", () => {
    assert.equal(bestOfRollouts(["B>A", "A=B", null], false), "A=B");
    assert.equal(bestOfRollouts(["B>A", "A>>B"], false), "A>>B");
    assert.equal(bestOfRollouts(["A>B", "B>A"], true), "B>A");
    assert.equal(bestOfRollouts([null, null], true), null);
  });

  test("battles: strict verdicts weigh 3, the swapped call's winner is mirrored, unparsed ones are counted", () => {
    const { battles, invalid } = battlesFromJudgment([
      ["A>>B", "A>B"],
      ["A=B", null],
    ]);
    assert.deepEqual(battles, ["candidate", "candidate", "candidate", "baseline", "tie"]);
    assert.equal(invalid, 1);
  });

  test("Arena-Elo with its bootstrap interval, as NeMo Gym computes it", () => {
    const scores: [string | null, string | null][] = [
      ["A>B", "B>A"],
      ["A=B", "A=B"],
      ["B>>A", "A>>B"],
      ["A>>B", null],
    ];
    assert.deepEqual(aggregateArenaElo(scores, { rounds: 100, seed: 42 }), { score: 46.15, ci_lower: -25.16, ci_upper: 21.28, invalid_scores: 1, n: 4 });
    // Draws with one outcome class only are skipped (8 of 100 here).
    assert.deepEqual(aggregateArenaElo([["A>B", "B>A"], ["B>A", "A>B"]], { rounds: 100, seed: 7 }), { score: 50, ci_lower: -25, ci_upper: 25, invalid_scores: 0, n: 2 });
    const five: [string, string][] = [["A>>B", "B>A"], ["A=B", "B>>A"], ["A>B", "A=B"], ["B>A", "A>B"], ["A>>B", "B>>A"]];
    assert.deepEqual(aggregateArenaElo(five, { rounds: 50, seed: 42 }), { score: 83.33, ci_lower: -13.89, ci_upper: 11.11, invalid_scores: 0, n: 5 });
  });

  test("one-sided battles are a degenerate 100 or 0 with no interval; no battles or no tasks is NaN", () => {
    assert.deepEqual(aggregateArenaElo([["A>B", "B>>A"]], { rounds: 100, seed: 42 }), { score: 100, ci_lower: 0, ci_upper: 0, invalid_scores: 0, n: 1 });
    assert.deepEqual(aggregateArenaElo([["B>A", null]], { rounds: 100, seed: 42 }), { score: 0, ci_lower: 0, ci_upper: 0, invalid_scores: 1, n: 1 });
    const none = aggregateArenaElo([[null, null]], { rounds: 100, seed: 42 });
    assert.ok(Number.isNaN(none.score) && Number.isNaN(none.ci_lower) && Number.isNaN(none.ci_upper));
    assert.deepEqual([none.invalid_scores, none.n], [2, 1]);
    assert.equal(aggregateArenaElo([], { rounds: 100, seed: 42 }).n, 0);
  });

  test("metrics: overall then per category (each reseeded), tasks collapsed across rollouts first", () => {
    const metrics = arenaEloMetrics(
      [
        [{ verdict_gen_base: "B>A", verdict_base_gen: "B>A", category: "hard_prompt" }, { verdict_gen_base: "A>B", verdict_base_gen: "A>B", category: "hard_prompt" }],
        [{ verdict_gen_base: "A=B", verdict_base_gen: "A=B", category: "hard_prompt" }],
        [{ verdict_gen_base: "B>>A", verdict_base_gen: "A>>B", category: "creative_writing" }],
        [{ verdict_gen_base: "A>>B", verdict_base_gen: null, category: "creative_writing" }],
      ],
      { rounds: 100, seed: 42 },
    );
    // Task 0 collapses to [A>B, B>A]: the same four pairs as the overall case above.
    assert.deepEqual(
      Object.entries(metrics).filter(([key]) => key.split("/").length === 2),
      Object.entries({ "arena_elo/score": 46.15, "arena_elo/ci_lower": -25.16, "arena_elo/ci_upper": 21.28, "arena_elo/invalid_scores": 1, "arena_elo/n": 4 }),
    );
    assert.deepEqual(Object.keys(metrics).slice(5), [
      ...["score", "ci_lower", "ci_upper", "invalid_scores", "n"].map((k) => `arena_elo/hard_prompt/${k}`),
      ...["score", "ci_lower", "ci_upper", "invalid_scores", "n"].map((k) => `arena_elo/creative_writing/${k}`),
    ]);
    assert.equal(metrics["arena_elo/hard_prompt/n"], 2);
  });
});
