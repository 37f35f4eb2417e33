// sequenceRatio against CPython 3.11's difflib.SequenceMatcher(None, a, b).ratio() for the same strings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { sequenceRatio } from "../../src/python/difflib.ts";

test("SequenceMatcher.ratio: matching blocks, an astral character as one element, autojunk on a long b", () => {
  assert.equal(sequenceRatio("abcd", "bcde"), 0.75);
  assert.equal(sequenceRatio("😀ab", "ab😀"), 0.6666666666666666, "4 + 4 UTF-16 units would give another ratio");
  assert.equal(sequenceRatio("", ""), 1);
  assert.equal(sequenceRatio(`${"a".repeat(300)}b`, `${"a".repeat(299)}bb`), 0.9966777408637874);
  assert.equal(sequenceRatio("grep -rn foo src/", "grep -rn bar src/"), 0.8235294117647058);
});
