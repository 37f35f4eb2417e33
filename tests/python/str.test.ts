// Python's str methods on code points with str.isspace()'s whitespace; expected values printed by python3.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  codePoints,
  compareStrings,
  isAlpha,
  isDigit,
  isLower,
  isSpace,
  isUpper,
  pythonCount,
  pythonLen,
  pythonLstrip,
  pythonRstrip,
  pythonSlice,
  pythonStrip,
  removePrefix,
  removeSuffix,
  reversed,
  splitWhitespace,
} from "../../src/python/str.ts";
import { stripMathDelimiters } from "../../src/ports/math/index.ts";

describe("python-str: whitespace", () => {
  test("split() and strip() know \\x1c–\\x1f and \\x85, and not \\ufeff (JS's \\s and trim() differ on all three)", () => {
    assert.deepEqual(splitWhitespace("  a\x1cb\x85 c\ufeffd  "), ["a", "b", "c\ufeffd"]);
    assert.deepEqual(splitWhitespace(" \t "), []);
    assert.equal(pythonStrip("\x1c a \x1f"), "a");
    assert.equal(pythonStrip("\ufeffa\ufeff"), "\ufeffa\ufeff");
    assert.ok(isSpace("\x85") && !isSpace("\ufeff") && !isSpace("\u200b"));
  });

  test("math's _strip_math_delimiters strips as Python does (its copy stripped \\ufeff, which Python keeps)", () => {
    assert.equal(stripMathDelimiters("\x1c $x$ \x85"), "x");
    assert.equal(stripMathDelimiters("\ufeff$x$"), "\ufeff$x$");
  });

  test("strip(chars), lstrip, rstrip, removeprefix, removesuffix", () => {
    assert.equal(pythonStrip("xxaxx", "x"), "a");
    assert.equal(pythonStrip("😀a😀", "😀"), "a");
    assert.equal(pythonLstrip("  a  "), "a  ");
    assert.equal(pythonRstrip("  a  "), "  a");
    assert.equal(pythonRstrip("<<a>>", ">"), "<<a");
    assert.equal(removePrefix("**a**", "**"), "a**");
    assert.equal(removeSuffix("**a**", "**"), "**a");
    assert.equal(removeSuffix("a", ""), "a");
  });
});

describe("python-str: code points", () => {
  test("len(), list(), slicing and [::-1] count code points, not UTF-16 units", () => {
    assert.equal(pythonLen("😀"), 1);
    assert.deepEqual(codePoints("a😀"), ["a", "😀"]);
    assert.equal(pythonSlice("😀ab😀", 1, -1), "ab");
    assert.equal(pythonSlice("abc", -10, 10), "abc");
    assert.equal(pythonSlice("abc", undefined, -1), "ab");
    assert.equal(reversed("😀ab"), "ba😀");
  });

  test("sorted() orders strings by code point, so an astral character sorts after U+FF5E", () => {
    assert.deepEqual(["b", "a😀", "a～", "B"].sort(compareStrings), ["B", "a～", "a😀", "b"]);
    assert.ok(compareStrings("ab", "abc") < 0);
    assert.equal(compareStrings("x", "x"), 0);
  });
});

describe("python-str: character tests", () => {
  test("isupper() / islower() need a cased character and no titlecase; isalpha() letters only", () => {
    assert.equal(isUpper("ǅ"), false);
    assert.equal(isLower("ǅ"), false);
    assert.equal(isUpper("Ⓐ"), true);
    assert.equal(isLower("ß"), true);
    assert.equal(isUpper("A1!"), true);
    assert.equal(isUpper("123"), false);
    assert.equal(isAlpha("ǅ"), true);
    assert.equal(isAlpha("٣"), false);
    assert.equal(isAlpha("ab1"), false);
    assert.equal(isAlpha(""), false);
  });
});

test("isDigit is str.isdigit(): decimal digits of every script and the Numeric_Type=Digit ones, not fractions", () => {
  for (const text of ["123", "١٢٣", "²", "①", "⑴", "🄁"]) assert.equal(isDigit(text), true, text);
  for (const text of ["½", "", "12a", "١."]) assert.equal(isDigit(text), false, text);
});

test("pythonCount is str.count(): non-overlapping from the left, an empty needle counts every code point position", () => {
  assert.equal(pythonCount("aaaa", "aa"), 2);
  assert.equal(pythonCount("abc", ""), 4);
  assert.equal(pythonCount("😀😀", ""), 3);
  assert.equal(pythonCount("ab", "x"), 0);
});
