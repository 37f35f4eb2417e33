// reasoning-gym's logic scorers: knights_knaves (normalisation, role-word pairing, partial credit), circuit_logic,
// self_reference, zebra_puzzles (expected values checked against the library's code run under python3).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { scoreAnswer, type Entry } from "../../../src/ports/reasoning-gym/index.ts";

const entry = (answer: string | null, metadata: Record<string, unknown> = {}): Entry => ({ question: "q", answer, metadata });
const score = (task: string, answer: string | null, oracle: string | null, metadata: Record<string, unknown> = {}) => scoreAnswer(task, answer, entry(oracle, metadata));

describe("knights_knaves", () => {
  const two = "Ava is a hero, and Noah is a villain.";
  const three = "Ava is a hero, Noah is a villain, and Zoe is a hero.";

  test("the same assignments in any order, case or punctuation score 1.0", () => {
    assert.equal(score("knights_knaves", "noah is a villain, ava is a hero", two), 1);
    assert.equal(score("knights_knaves", "AVA IS A HERO AND NOAH IS A VILLAIN", two), 1);
    assert.equal(score("knights_knaves", "Ava (hero), Noah (villain)", two), 1);
  });

  test("all names with k of n roles right: 0.3 + 0.7·k/n", () => {
    assert.equal(score("knights_knaves", "Ava is a villain, and Noah is a villain.", two), 0.3 + 0.7 * 1 / 2);
    assert.equal(score("knights_knaves", "Ava is a villain, Noah is a villain, and Zoe is a hero.", three), 0.3 + (0.7 * 2) / 3);
  });

  test("every role wrong, or a different number of pairs, is 0.0", () => {
    assert.equal(score("knights_knaves", "Ava is a villain, and Noah is a hero.", two), 0);
    assert.equal(score("knights_knaves", "Ava is a hero.", two), 0);
    assert.equal(score("knights_knaves", three, two), 0);
  });

  test("a role word pairs only with the word right before it (fillers skipped): markdown and plurals break the pairing", () => {
    assert.equal(score("knights_knaves", "**Ava** is a hero, and **Noah** is a villain", two), 0);
    assert.equal(score("knights_knaves", "Ava is a hero, and Noah is a villains", two), 0);
    assert.equal(score("knights_knaves", "Ava: hero; Noah: villain", two), 0);
  });

  test("no answer, an empty one and a null oracle are 0.0", () => {
    assert.equal(score("knights_knaves", null, two), 0);
    assert.equal(score("knights_knaves", "", two), 0);
    assert.equal(score("knights_knaves", two, null), 0);
  });
});

describe("circuit_logic, self_reference, zebra_puzzles", () => {
  test("circuit_logic: exact → 1.0; the oracle with whitespace around → len(oracle)/len(answer)", () => {
    assert.equal(score("circuit_logic", "1", "1"), 1);
    assert.equal(score("circuit_logic", "\n1\n", "1"), 1 / 3);
    assert.equal(score("circuit_logic", "11", "1"), 0);
  });

  test("self_reference compares with str(oracle): a null oracle is matched by 'None'", () => {
    assert.equal(score("self_reference", "3", "3"), 1);
    assert.equal(score("self_reference", " 3", "3"), 0);
    assert.equal(score("self_reference", "None", null), 1);
  });

  test("zebra_puzzles ignores case and newlines only", () => {
    assert.equal(score("zebra_puzzles", "ALI\nCE\n", "Alice"), 1);
    assert.equal(score("zebra_puzzles", " Alice", "Alice"), 0);
    assert.throws(() => score("zebra_puzzles", "Alice", null), "a null oracle raises: NeMo Gym scores 0.0");
  });
});
