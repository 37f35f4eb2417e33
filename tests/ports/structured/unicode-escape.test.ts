// codecs unicode_escape; expectations produced by python3.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decodeUnicodeEscape, UnicodeEscapeError } from "../../../src/ports/structured/unicode-escape.ts";

describe("codecs.decode(text, 'unicode_escape')", () => {
  test("escapes decode; other backslashes stay; UTF-8 bytes read back as Latin-1", () => {
    assert.equal(decodeUnicodeEscape("a\\nb"), "a\nb");
    assert.equal(decodeUnicodeEscape('x\\"y'), 'x"y');
    assert.equal(decodeUnicodeEscape("\\101\\x41\\u00e9\\q"), "AAé\\q");
    assert.equal(decodeUnicodeEscape("\\777"), "ǿ");
    assert.equal(decodeUnicodeEscape("\\\n"), "");
    assert.equal(decodeUnicodeEscape("ok\\U0001F600"), "ok😀");
    assert.equal(decodeUnicodeEscape("é"), "Ã©");
  });

  test("a trailing backslash or a short \\x escape raises", () => {
    assert.throws(() => decodeUnicodeEscape("a\\"), UnicodeEscapeError);
    assert.throws(() => decodeUnicodeEscape("\\x4"), UnicodeEscapeError);
  });
});
