// The reasoning-gym scorer registry, ProceduralDataset's default scorer and the answer extraction of NeMo Gym's
// reasoning_gym server (expected values checked against the library's code run under python3).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { extractAnswer } from "../../../src/ports/reasoning-gym/answer-extraction.ts";
import { LIBRARY_TASKS, registerScorer, scoreAnswer, scorerFor, supportedTasks, UnsupportedTaskError, type Entry } from "../../../src/ports/reasoning-gym/index.ts";
import { proceduralScore } from "../../../src/ports/reasoning-gym/procedural-dataset.ts";

const entry = (answer: string | null, metadata: Record<string, unknown> = {}): Entry => ({ question: "q", answer, metadata });

describe("ProceduralDataset.score_answer (the default)", () => {
  test("the oracle exactly is 1.0", () => {
    assert.equal(proceduralScore("30", entry("30")), 1);
  });

  test("the oracle inside a longer answer is len(oracle) / len(answer), in code points", () => {
    assert.equal(proceduralScore("30 legs", entry("30")), 2 / 7);
    assert.equal(proceduralScore("😀😀 30", entry("30")), 2 / 5);
  });

  test("a different answer, an empty one and no answer are 0.0", () => {
    assert.equal(proceduralScore("3", entry("30")), 0);
    assert.equal(proceduralScore("", entry("30")), 0);
    assert.equal(proceduralScore(null, entry("30")), 0);
  });

  test("a null oracle raises for any non-empty answer (NeMo Gym then scores 0.0); an empty oracle is in every answer", () => {
    assert.throws(() => proceduralScore("30", entry(null)), TypeError);
    assert.equal(proceduralScore("", entry(null)), 0);
    assert.equal(proceduralScore("abc", entry("")), 0);
  });
});

describe("the registry", () => {
  test("tasks that keep the default scorer use it", () => {
    for (const task of ["leg_counting", "basic_arithmetic", "letter_counting", "gcd", "syllogism"]) assert.equal(scorerFor(task), proceduralScore, task);
  });

  test("every supported task is a reasoning-gym task", () => {
    const supported = supportedTasks();
    assert.ok(supported.length >= 50, `${supported.length} tasks`);
    for (const task of supported) assert.ok(LIBRARY_TASKS.has(task), task);
  });

  test("a library task not ported yet, and a name the library does not know, are distinct errors naming metadata.source_dataset", () => {
    assert.throws(() => scorerFor("sokoban"), (error: Error) => error instanceof UnsupportedTaskError && /'sokoban' \(metadata\.source_dataset\) has no scorer ported/.test(error.message));
    assert.throws(() => scorerFor("knights_knave"), (error: Error) => error instanceof UnsupportedTaskError && /not a reasoning-gym task \(0\.1\.19 to 0\.1\.25\)/.test(error.message));
  });

  test("registerScorer adds a task in one line", () => {
    registerScorer("my_own_task", (answer) => (answer === "yes" ? 1 : 0));
    assert.equal(scoreAnswer("my_own_task", "yes", entry(null)), 1);
    assert.ok(supportedTasks().includes("my_own_task"));
  });
});

describe("answer extraction", () => {
  test("the last <answer> tag wins, its content stripped (DOTALL)", () => {
    assert.equal(extractAnswer("<answer>1</answer> then <answer>\n 2\n3 \n</answer>"), "2\n3");
  });

  test("an <answer> tag beats an earlier \\boxed{}", () => {
    assert.equal(extractAnswer("\\boxed{7} <answer>8</answer>"), "8");
  });

  test("without tags, the first \\boxed{} (no nesting: it stops at the first })", () => {
    assert.equal(extractAnswer("\\boxed{ 7 } and \\boxed{9}"), "7");
    assert.equal(extractAnswer("\\boxed{\\frac{1}{2}}"), "\\frac{1");
  });

  test("otherwise the whole text stripped (Python whitespace: \\x1c but not \\ufeff)", () => {
    assert.equal(extractAnswer("\n\n Zoey is a fool.\x1c"), "Zoey is a fool.");
    assert.equal(extractAnswer("\ufeff42"), "\ufeff42");
    assert.equal(extractAnswer("   "), "");
  });

  test("an unclosed tag or an empty \\boxed{} is not an answer", () => {
    assert.equal(extractAnswer("<answer>42"), "<answer>42");
    assert.equal(extractAnswer("\\boxed{} 5"), "\\boxed{} 5");
  });
});
