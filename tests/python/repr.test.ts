// repr() of str and bytes, pinned against python3's output.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pythonBytesRepr, pythonStringRepr } from "../../src/python/repr.ts";

test("str repr: the quote Python picks, and escapes only where Python escapes", () => {
  // python3: for s in [...]: print(repr(s))
  const cases: [string, string][] = [
    ["a'b", `"a'b"`],
    ['a"b', `'a"b'`],
    [`a'b"c`, `'a\\'b"c'`],
    ["x\\y", "'x\\\\y'"],
    ["tab\there", "'tab\\there'"],
    ["\x00\x7f\x85\xa0", "'\\x00\\x7f\\x85\\xa0'"],
    ["é\u200b\u2028", "'é\\u200b\\u2028'"],
    ["\ud800", "'\\ud800'"],
    ["😀\u{e0001}", "'😀\\U000e0001'"],
    [" ", "' '"],
  ];
  for (const [text, repr] of cases) assert.equal(pythonStringRepr(text), repr, JSON.stringify(text));
});

test("bytes repr: a JS string is its UTF-8, printable ASCII kept, every other byte \\xhh", () => {
  // python3: repr(b'\x00\x7f\xc3\xa9\'"'), repr("é'\"".encode()), repr(b"it's")
  assert.equal(pythonBytesRepr(new Uint8Array([0, 0x7f, 0xc3, 0xa9, 0x27, 0x22])), `b'\\x00\\x7f\\xc3\\xa9\\'"'`);
  assert.equal(pythonBytesRepr(`é'"`), `b'\\xc3\\xa9\\'"'`);
  assert.equal(pythonBytesRepr("it's"), `b"it's"`);
  assert.equal(pythonBytesRepr('{"a": "b\\n"}\n'), `b'{"a": "b\\\\n"}\\n'`);
});

test("repr(str) escapes \\t, \\r and every unprintable character (the calendar's copy missed \\x00, the calculator's \\t and \\r)", () => {
  assert.equal(pythonStringRepr('a\x00\t\r\x7f\u200b\xa0😀"'), "'a\\x00\\t\\r\\x7f\\u200b\\xa0😀\"'");
  assert.equal(pythonStringRepr("it's"), `"it's"`);
  assert.equal(pythonStringRepr("\u2028 \x85"), "'\\u2028 \\x85'");
});
