// difflib.SequenceMatcher as CPython computes it (values from Python 3.13): code points are the elements, autojunk's
// popular elements never start a match but a match runs through them, and find_longest_match extends even an empty
// best match over equal neighbours.
import { test } from "node:test";
import assert from "node:assert/strict";
import { getCloseMatches, longestCommonSubstringSize, SequenceMatcher, sequenceRatio } from "../../src/python/difflib.ts";

test("ratio counts code points: an emoji is one element", () => {
  assert.equal(sequenceRatio("😀ab", "😀ac"), 0.6666666666666666);
  assert.equal(sequenceRatio("", ""), 1);
  assert.equal(sequenceRatio("a", ""), 0);
});

test("autojunk: in a b of 200+ elements, one occurring in more than 1% + 1 of it starts no match (autojunk off, it does)", () => {
  const b = "ab".repeat(150);
  const a = "x" + "ab".repeat(3);
  assert.equal(sequenceRatio(a, b), 0);
  assert.equal(sequenceRatio(a, b, { autojunk: false }), 0.03908794788273615);
});

test("find_longest_match: the earliest longest block, and an empty best match extended over equal neighbours", () => {
  assert.deepEqual(new SequenceMatcher("qq abcd pp xabcdw", "zz abcdw", { autojunk: false }).findLongestMatch(), { a: 2, b: 2, size: 5 });
  const b = "eeeabcdefghij".repeat(20);
  assert.deepEqual(new SequenceMatcher("eeeabc", b).findLongestMatch(), { a: 0, b: 0, size: 6 });
  assert.equal(sequenceRatio("abcdefghij e", b), 0);
  assert.equal(sequenceRatio("abcdefghij e", b, { autojunk: false }), 0.08088235294117647);
});

test("get_close_matches keeps its order: best ratio first, ties to the greater string", () => {
  assert.deepEqual(getCloseMatches("appel", ["ape", "apple", "peach", "puppy"]), ["apple", "ape"]);
});

test("the linear longest common substring is find_longest_match's size with autojunk off, on random texts", () => {
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const text = (alphabet: string[], n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
  for (let i = 0; i < 300; i++) {
    const alphabet = [["a", "b"], ["a", "b", "c", " "], ["x", "😀", "é", "y"]][i % 3]!;
    const a = text(alphabet, Math.floor(random() * 60));
    const b = text(alphabet, Math.floor(random() * 400));
    assert.equal(longestCommonSubstringSize(a, b), new SequenceMatcher(a, b, { autojunk: false }).findLongestMatch().size, `${a} | ${b}`);
  }
  assert.equal(longestCommonSubstringSize("abcdwxyz", "qq abcd pp"), 4);
  assert.equal(longestCommonSubstringSize("", "abc"), 0);
});

test("SequenceMatcher.ratio: matching blocks, an astral character as one element, autojunk on a long b", () => {
  assert.equal(sequenceRatio("abcd", "bcde"), 0.75);
  assert.equal(sequenceRatio("😀ab", "ab😀"), 0.6666666666666666, "4 + 4 UTF-16 units would give another ratio");
  assert.equal(sequenceRatio("", ""), 1);
  assert.equal(sequenceRatio(`${"a".repeat(300)}b`, `${"a".repeat(299)}bb`), 0.9966777408637874);
  assert.equal(sequenceRatio("grep -rn foo src/", "grep -rn bar src/"), 0.8235294117647058);
});
