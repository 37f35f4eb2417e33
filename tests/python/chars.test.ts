// Python's character classes on str, checked code point by code point against python3's own answers.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PYTHON_DIGIT_CHARS, PYTHON_NUMBER_SPACE_CHARS, PYTHON_SPACE_CHARS, PYTHON_WORD_BOUNDARY } from "../../src/python/chars.ts";

const matching = (chars: string): number[] => {
  const pattern = new RegExp(`^[${chars}]$`, "u");
  const found: number[] = [];
  for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) if (pattern.test(String.fromCodePoint(codePoint))) found.push(codePoint);
  return found;
};

describe("python-chars: PYTHON_SPACE_CHARS", () => {
  test("is exactly the code points of str.isspace()", () => {
    // [c for c in range(0x110000) if chr(c).isspace()]
    const python = [0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000];
    assert.deepEqual(matching(PYTHON_SPACE_CHARS), python);
  });
});

describe("python-chars: the other classes", () => {
  test("int() and float() strip str.isspace() less \\x1c–\\x1f", () => {
    // [c for c in range(0x110000) if chr(c).isspace() and int(chr(c) + "5" + chr(c)) == 5] (the rest raise)
    const python = [0x9, 0xa, 0xb, 0xc, 0xd, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000];
    assert.deepEqual(matching(PYTHON_NUMBER_SPACE_CHARS), python);
  });

  test("\\d is every Unicode decimal digit; \\b sits between \\w and non-\\w", () => {
    const digit = new RegExp(`^[${PYTHON_DIGIT_CHARS}]+$`, "u");
    assert.ok(digit.test("0٣𝟙"));
    assert.ok(!digit.test("½"));
    const boundary = new RegExp(`${PYTHON_WORD_BOUNDARY}caf${PYTHON_WORD_BOUNDARY}`, "u");
    assert.ok(!boundary.test("café"), "é is a word character (re.search(r'\\bcaf\\b', 'café') is None)");
    assert.ok(boundary.test("caf-é"));
  });
});
