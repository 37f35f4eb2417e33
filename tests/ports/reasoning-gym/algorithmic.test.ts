// reasoning-gym's algorithmic and graph scorers (expected values checked against the library's code run under
// python3): number_sorting, word_sorting, spell_backward, sentence_reordering, palindrome_generation, ab,
// family_relationships.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { scoreAnswer, type Entry } from "../../../src/ports/reasoning-gym/index.ts";
import { evalPythonLiteral } from "../../../src/ports/reasoning-gym/python-literal.ts";

const entry = (answer: string | null, metadata: Record<string, unknown> = {}): Entry => ({ question: "q", answer, metadata });
const score = (task: string, answer: string | null, oracle: string | null, metadata: Record<string, unknown> = {}) => scoreAnswer(task, answer, entry(oracle, metadata));

describe("number_sorting", () => {
  const ascending = { direction: "ascending" };
  const descending = { direction: "descending" };

  test("a sorted JSON list (quotes of either kind) within 1 of the oracle number by number → 1.0", () => {
    assert.equal(score("number_sorting", "['1', '2', '3']", "['1', '2', '3']", ascending), 1);
    assert.equal(score("number_sorting", "[1.5, 2, 3.9]", "['1', '2', '3']", ascending), 1);
    assert.equal(score("number_sorting", '["3", "2", "1"]', "['3', '2', '1']", descending), 1);
  });

  test("unsorted for the direction, off by more than 1, another length → 0.0", () => {
    assert.equal(score("number_sorting", "[1, 3, 2]", "['1', '2', '3']", ascending), 0);
    assert.equal(score("number_sorting", "[1, 2, 3]", "['3', '2', '1']", descending), 0);
    assert.equal(score("number_sorting", "[1, 2, 4.1]", "['1', '2', '3']", ascending), 0);
    assert.equal(score("number_sorting", "[1, 2]", "['1', '2', '3']", ascending), 0);
  });

  test("malformed: not JSON, not a list, an element that is no number, no direction → 0.0", () => {
    for (const answer of ["1, 2, 3", '{"a": 1}', '["a", 2, 3]', "[null, 2, 3]", "[[1], 2, 3]", ""]) assert.equal(score("number_sorting", answer, "['1', '2', '3']", ascending), 0, answer);
    assert.equal(score("number_sorting", "[1, 2, 3]", "['1', '2', '3']"), 0);
  });

  test("a NaN compares false both ways, so it passes wherever CPython's sort leaves it", () => {
    assert.equal(score("number_sorting", "[NaN, 2, 3]", "['1', '2', '3']", ascending), 1);
    assert.equal(score("number_sorting", '["nan", "nan", "nan"]', "['1', '2', '3']", ascending), 1);
    assert.equal(score("number_sorting", "[3, NaN, 1]", "['1', '2', '3']", ascending), 0);
  });

  test("the oracle is read as JSON or as the Python literal str(list) writes", () => {
    assert.deepEqual(evalPythonLiteral("['-1.5', \"2\", 3, 4.0, True, None, (1,)]"), ["-1.5", "2", 3n, 4, true, null, [1n]]);
    assert.throws(() => evalPythonLiteral("[1 + 2]"));
  });
});

describe("word_sorting", () => {
  const sorted = { sorted_words: ["Apple", "apple", "banana", "cherry"] };

  test("the words in order, however spaced after the commas → 1.0", () => {
    assert.equal(score("word_sorting", "Apple,apple,  banana, cherry", "x", sorted), 1);
  });

  test("partly right: the share of positions right, at least 0.2 when the words are right", () => {
    assert.equal(score("word_sorting", "Apple, banana, apple, cherry", "x", sorted), 0.5);
    assert.equal(score("word_sorting", "cherry, banana, apple, Apple", "x", sorted), 0.2);
    assert.equal(score("word_sorting", "Apple, apple, banana", "x", sorted), 0.75);
  });

  test("sorting is by code point, not UTF-16 unit", () => {
    assert.equal(score("word_sorting", "é, ｚ, 𝒜", "x", { sorted_words: ["é", "ｚ", "𝒜"] }), 1);
    assert.equal(score("word_sorting", "𝒜, é, ｚ", "x", { sorted_words: ["é", "ｚ", "𝒜"] }), 0.2);
  });

  test("no answer → 0.0; newlines are not separators; no sorted_words or none of them raises", () => {
    assert.equal(score("word_sorting", "", "x", sorted), 0);
    assert.equal(score("word_sorting", "Apple\napple\nbanana\ncherry", "x", sorted), 0);
    assert.throws(() => score("word_sorting", "a", "x"));
    assert.throws(() => score("word_sorting", "a", "x", { sorted_words: [] }));
  });
});

describe("spell_backward", () => {
  test("equal ignoring case → 1.0", () => {
    assert.equal(score("spell_backward", "OLLEH", "olleh"), 1);
  });

  test("otherwise 1/len(oracle) per position that matches; a full prefix match that adds up to 1.0 loses 0.2", () => {
    assert.equal(score("spell_backward", "ollex", "olleh"), 0.2 + 0.2 + 0.2 + 0.2);
    assert.equal(score("spell_backward", "ollehh", "olleh"), 1 / 5 + 1 / 5 + 1 / 5 + 1 / 5 + 1 / 5 - 0.2);
    assert.equal(score("spell_backward", "xlleh", "olleh"), 1 / 5 + 1 / 5 + 1 / 5 + 1 / 5);
  });

  test("no answer and a null oracle → 0.0", () => {
    assert.equal(score("spell_backward", null, "olleh"), 0);
    assert.equal(score("spell_backward", "olleh", null), 0);
  });
});

describe("sentence_reordering", () => {
  test("the oracle exactly → 1.0; as many words → share of positions equal ignoring case; another count → 0.05", () => {
    assert.equal(score("sentence_reordering", "the cat sat", "the cat sat"), 1);
    assert.equal(score("sentence_reordering", "The Cat Sat", "the cat sat"), 1);
    assert.equal(score("sentence_reordering", "cat the sat", "the cat sat"), 1 / 3);
    assert.equal(score("sentence_reordering", "the cat", "the cat sat"), 0.05);
  });

  test("no words on either side, a null oracle, no answer → 0.0", () => {
    assert.equal(score("sentence_reordering", "", "  "), 0);
    assert.equal(score("sentence_reordering", "x", null), 0);
    assert.equal(score("sentence_reordering", null, "the cat sat"), 0);
  });
});

describe("palindrome_generation", () => {
  const letters = { letters: ["r", "a", "c", "e", "c", "a", "r"] };

  test("a palindrome of exactly the letters (stripped, lower-cased) → 1.0", () => {
    assert.equal(score("palindrome_generation", " RaceCar ", "x", letters), 1);
    assert.equal(score("palindrome_generation", "racecar", "x", { letters: "racecar" }), 1);
  });

  test("letters that are ints sort as Python sorts them (no TypeError), so the answer is of other letters → 0.05", () => {
    assert.equal(score("palindrome_generation", "aa", "x", { letters: [2, 1] }), 0.05);
    assert.throws(() => score("palindrome_generation", "aa", "x", { letters: ["a", 1] }), TypeError);
  });

  test("a palindrome of other letters → 0.05; not a palindrome → 0.02; empty → 0.0", () => {
    assert.equal(score("palindrome_generation", "abba", "x", letters), 0.05);
    assert.equal(score("palindrome_generation", "abc", "x", letters), 0.02);
    assert.equal(score("palindrome_generation", "", "x", letters), 0);
  });
});

test("ab: the oracle exactly", () => {
  assert.equal(score("ab", "#A B#", "#A B#"), 1);
  assert.equal(score("ab", "#A B# ", "#A B#"), 0);
});

test("family_relationships: equal after strip and lower-casing", () => {
  assert.equal(score("family_relationships", " Mother ", "mother"), 1);
  assert.equal(score("family_relationships", "mother-in-law", "mother"), 0);
  assert.equal(score("family_relationships", "mother", null), 0);
});

describe("letter_jumble", () => {
  test("equal after strip and lower-casing → 1.0; else 1/len(words) per word right at its position", () => {
    assert.equal(score("letter_jumble", " THE quick brown fox ", "the quick brown fox"), 1);
    assert.equal(score("letter_jumble", "quick the brown fox", "the quick brown fox"), 0.5);
    assert.equal(score("letter_jumble", "the quick", "the quick brown fox"), 0.5);
  });

  test("the per-word shares are summed as CPython ≥ 3.12 does (compensated): ten tenths make 1.0, not 0.9999999999999999", () => {
    const words = "a b c d e f g h i j";
    assert.equal(score("letter_jumble", `${words} k`, words), 1);
  });

  test("no answer → 0.0; a null oracle raises", () => {
    assert.equal(score("letter_jumble", null, "abc"), 0);
    assert.throws(() => score("letter_jumble", "abc", null));
  });
});

describe("group_anagrams", () => {
  const solution = { solution: [["eat", "tea"], ["tan"]] };

  test("the same groups in any order, words in any order → 1.0", () => {
    assert.equal(score("group_anagrams", '[["tan"], ["tea", "eat"]]', "x", solution), 1);
  });

  test("other groups that are JSON → 0.01; not JSON, not a list, mixed types → 0.0", () => {
    assert.equal(score("group_anagrams", '[["eat"], ["tea"], ["tan"]]', "x", solution), 0.01);
    assert.equal(score("group_anagrams", "eat, tea / tan", "x", solution), 0);
    assert.equal(score("group_anagrams", "5", "x", solution), 0);
    assert.equal(score("group_anagrams", '[[1, "a"]]', "x", solution), 0);
  });

  test("json.dumps tells 1 from 1.0", () => {
    assert.equal(score("group_anagrams", "[[1.0], [1.5]]", "x", { solution: [[1], [1.5]] }), 0.01);
    assert.equal(score("group_anagrams", "[[1.5], [1]]", "x", { solution: [[1], [1.5]] }), 1);
  });
});
