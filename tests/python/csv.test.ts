// pythonCsvRows against what CPython 3.11's csv.reader(io.TextIOWrapper(…)) returns for the same text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pythonCsvRows } from "../../src/python/index.ts";

test("csv.reader's default dialect: quotes, doubled quotes, stray quotes, \\r\\n, blank lines, an open quote at the end", () => {
  const text = 'a,b,"c,d"\r\n"multi\nline","q""uote",x"y\n\n"open" tail,"",\n,\n"unterminated';
  assert.deepEqual(pythonCsvRows(text), [["a", "b", "c,d"], ["multi\nline", 'q"uote', 'x"y'], [], ["open tail", "", ""], ["", ""], ["unterminated"]]);
  assert.deepEqual(pythonCsvRows(""), []);
  assert.deepEqual(pythonCsvRows("x\ry\n"), [["x"], ["y"]]);
});
