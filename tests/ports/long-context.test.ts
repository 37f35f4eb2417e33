// The long-context scores (src/ports/long-context), each value checked against NeMo Gym's Python (3.13): GraphWalks'
// node lists and F1, set(json.loads(...)) with Python's set equality, the word edit distance behind RULER v2's WER,
// and RULER's string matches.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { expectedNodeSet, levenshtein, nodeSetF1, parseFinalAnswerNodes, ruler2Match, rulerMatchAll, rulerMatchPart, softMatch, wordEditDistance, wordErrorRate } from "../../src/ports/long-context/index.ts";

describe("GraphWalks node lists", () => {
  test("only the last non-empty line counts; the list runs to the line's last ]", () => {
    assert.deepEqual(parseFinalAnswerNodes("Final Answer: [a]\nthen\n \n"), { nodes: [], parseFailed: true });
    assert.deepEqual(parseFinalAnswerNodes("work\nFinal Answer: [a, b] [c]\n\t\n"), { nodes: ["a", "b] [c"], parseFailed: false });
    assert.deepEqual(parseFinalAnswerNodes("Final Answer: [ ]"), { nodes: [], parseFailed: false });
    assert.deepEqual(parseFinalAnswerNodes("Final Answer:\u00a0[a,,b, ]\r"), { nodes: ["a", "b"], parseFailed: false });
  });

  test("quotes are part of a node unless stripQuotes (lc_niah)", () => {
    assert.deepEqual(parseFinalAnswerNodes(`Final Answer: ["a", 'b']`).nodes, [`"a"`, `'b'`]);
    assert.deepEqual(parseFinalAnswerNodes(`Final Answer: ["a", 'b', " c "]`, { stripQuotes: true }).nodes, ["a", "b", "c"]);
  });

  test("the expected set is Python's set(json.loads(...)); no JSON or no set is empty", () => {
    assert.equal(expectedNodeSet("[1, 1.0, true]").size, 1);
    assert.equal(expectedNodeSet("[12345678901234567890, 12345678901234567891]").size, 2);
    assert.equal(expectedNodeSet("[NaN, NaN]").size, 1);
    assert.deepEqual([...expectedNodeSet('{"aa": 1, "bb": 2}')], ["s:aa", "s:bb"]);
    assert.deepEqual([...expectedNodeSet('"aab"')], ["s:a", "s:b"]);
    for (const text of ["[[1]]", "null", "5", "not json", "[\"a\",]"]) assert.equal(expectedNodeSet(text).size, 0, text);
  });

  test("F1: parse failure 0, both empty 1, one empty 0, else 2PR/(P+R) over the distinct predicted nodes", () => {
    const expected = expectedNodeSet('["a", "b", "c"]');
    assert.equal(nodeSetF1(["a"], expected, true), 0);
    assert.equal(nodeSetF1([], new Set(), false), 1);
    assert.equal(nodeSetF1([], expected, false), 0);
    assert.equal(nodeSetF1(["a", "a", "d"], expected, false), 0.4);
    assert.equal(nodeSetF1(["1"], expectedNodeSet("[1]"), false), 0, "a number is never a str node");
  });
});

describe("the word edit distance (editdistance.eval over word lists)", () => {
  test("words are elements: an emoji word is one, however many UTF-16 units", () => {
    assert.equal(wordEditDistance(["a", "b", "c", "d"], ["a", "x", "c"]), 2);
    assert.equal(wordEditDistance(["😀", "b"], ["😀", "c"]), 1);
    assert.equal(wordEditDistance([], ["a", "b"]), 2);
  });

  test("more distinct words than UTF-16 has units falls back to the row-by-row distance, with the same result", () => {
    const many = Array.from({ length: 70_000 }, (_, i) => `w${i}`);
    assert.equal(wordEditDistance(many, ["w1", "zz", "w69999"]), 69_998);
    assert.equal(levenshtein([1, 2, 3, 4], [1, 9, 3]), 2);
  });
});

describe("RULER string matches", () => {
  test("v1: case-insensitive substrings; all = share found, part = any found", () => {
    assert.equal(rulerMatchAll("The Keys: ABC and def", ["abc", "DEF", "ghi"]), 2 / 3);
    assert.equal(rulerMatchPart("The Keys: ABC", ["zzz", "keys"]), 1);
  });

  test("v2: max(substring, 1 − WER), lower-cased; a reference of no words only counts as a substring", () => {
    assert.equal(wordErrorRate("a b c d", "a x c"), 0.6666666666666666);
    assert.equal(softMatch("The NUMBER is 42", "number is 42"), 1);
    assert.equal(softMatch("a x c", "a b c"), 1 - 1 / 3);
    assert.equal(softMatch("abc", " "), 0);
  });

  test("v2 match types: part deletes Document N: header blocks first, 2steps reads the last paragraph, no references 0", () => {
    assert.equal(ruler2Match("part", "Document 1: x\ny\n\nanswer 42", ["Document 1", "42 answer"]), 0);
    assert.equal(ruler2Match("2steps", "first 42\n\nthen 7", ["7"]), 1);
    assert.equal(ruler2Match("2steps", "first 42\n\nthen 7", ["42"]), 0);
    assert.equal(ruler2Match("all", "x", []), 0);
  });
});
