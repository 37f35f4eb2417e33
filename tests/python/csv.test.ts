// pythonCsvRows / pythonCsvRowsFromString / pythonCsvDictRows against what CPython 3.11's csv.reader over an
// io.TextIOWrapper, csv.reader over an io.StringIO and csv.DictReader over an io.StringIO return for the same text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pythonCsvRows } from "../../src/python/index.ts";
import { PythonCsvError, pythonCsvDictRows, pythonCsvRowsFromString } from "../../src/python/csv.ts";

test("csv.reader's default dialect: quotes, doubled quotes, stray quotes, \\r\\n, blank lines, an open quote at the end", () => {
  const text = 'a,b,"c,d"\r\n"multi\nline","q""uote",x"y\n\n"open" tail,"",\n,\n"unterminated';
  assert.deepEqual(pythonCsvRows(text), [["a", "b", "c,d"], ["multi\nline", 'q"uote', 'x"y'], [], ["open tail", "", ""], ["", ""], ["unterminated"]]);
  assert.deepEqual(pythonCsvRows(""), []);
  assert.deepEqual(pythonCsvRows("x\ry\n"), [["x"], ["y"]]);
});

test("from an io.StringIO a \\r reaches the parser: kept inside quotes, a line end outside, an error before more text", () => {
  assert.deepEqual(pythonCsvRowsFromString('a,"x\r\ny"\r\nb,c\r\n'), [["a", "x\r\ny"], ["b", "c"]]);
  assert.deepEqual(pythonCsvRowsFromString("a\r\r\n,b\n\r\n"), [["a"], ["", "b"], []]);
  assert.deepEqual(pythonCsvRowsFromString("a\r"), [["a"]]);
  assert.deepEqual(pythonCsvRowsFromString("a\0b\n"), [["a\0b"]]);
  for (const text of ["a\rb\n", '"q"\rb\n']) {
    assert.throws(() => pythonCsvRowsFromString(text), (error: unknown) => error instanceof PythonCsvError && /new-line character seen in unquoted field/.test(error.message), JSON.stringify(text));
  }
});

test("csv.DictReader: the first row names the columns, empty rows are skipped, short rows get None, long rows their surplus", () => {
  const rows = pythonCsvRowsFromString("h1,h2\r\n1,2\r\n\r\n3\r\n4,5,6\r\n");
  assert.deepEqual(pythonCsvDictRows(rows), [{ h1: "1", h2: "2" }, { h1: "3", h2: null }, { h1: "4", h2: "5", null: ["6"] }]);
  assert.deepEqual(pythonCsvDictRows(pythonCsvRowsFromString("\na\n")), [{ null: ["a"] }], "an empty first row is an empty header");
  assert.deepEqual(pythonCsvDictRows([]), []);
});
