// Python's backslash escapes, shared by the str-literal reader (reasoning-gym) and the unicode_escape codec
// (StructEval); expected values printed by python3.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readEscape } from "../../src/python/escapes.ts";
import { evalPythonLiteral } from "../../src/ports/reasoning-gym/python-literal.ts";
import { decodeUnicodeEscape, UnicodeEscapeError } from "../../src/ports/structured/unicode-escape.ts";

const fail = (reason: string): never => {
  throw new Error(reason);
};

describe("python-escapes", () => {
  test("one to three octal digits, hex of fixed width, unknown escapes kept (the literal reader read \\012 as \\0 then '12')", () => {
    // eval(r"'a\012\0\08\101\x41\u00e9\q\<newline>b'") and codecs.decode(r"a\012\0\08\101\x41\u00e9\q", "unicode_escape")
    assert.equal(evalPythonLiteral("'a\\012\\0\\08\\101\\x41\\u00e9\\q\\\nb'"), "a\n\x00\x008AAé\\qb");
    assert.equal(decodeUnicodeEscape("a\\012\\0\\08\\101\\x41\\u00e9\\q"), "a\n\x00\x008AAé\\q");
    assert.deepEqual(readEscape("\\777", 0, fail), { value: "ǿ", length: 4 });
    assert.deepEqual(readEscape("x\\U0001F600", 1, fail), { value: "😀", length: 10 });
  });

  test("malformed escapes fail with Python's reason; the literal reader raises its SyntaxError", () => {
    assert.throws(() => readEscape("\\x4", 0, fail), { message: "truncated \\xXX escape" });
    assert.throws(() => readEscape("\\u12", 0, fail), { message: "truncated \\uXXXX escape" });
    assert.throws(() => readEscape("\\", 0, fail), { message: "\\ at end of string" });
    assert.throws(() => readEscape("\\U00110000", 0, fail), { message: "illegal Unicode character" });
    assert.throws(() => readEscape("\\N{DASH}", 0, fail), { message: "unknown Unicode character name" });
    assert.throws(() => decodeUnicodeEscape("\\U00110000"), UnicodeEscapeError);
    for (const bad of ["'\\x4'", "'\\U00110000'"]) assert.throws(() => evalPythonLiteral(bad), { name: "SyntaxError" }, bad);
  });
});
