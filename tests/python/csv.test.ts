// pythonCsvRows, pythonCsvReader, pythonCsvRowsFromString and pythonCsvDictRows against what CPython 3.11's
// csv.reader (over an io.TextIOWrapper or an io.StringIO) and csv.DictReader return for the same text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CsvError, pythonCsvDictRows, pythonCsvReader, pythonCsvRows, pythonCsvRowsFromString, stringIoLines } from "../../src/python/index.ts";

test("csv.reader's default dialect: quotes, doubled quotes, stray quotes, \\r\\n, blank lines, an open quote at the end", () => {
  const text = 'a,b,"c,d"\r\n"multi\nline","q""uote",x"y\n\n"open" tail,"",\n,\n"unterminated';
  assert.deepEqual(pythonCsvRows(text), [["a", "b", "c,d"], ["multi\nline", 'q"uote', 'x"y'], [], ["open tail", "", ""], ["", ""], ["unterminated"]]);
  assert.deepEqual(pythonCsvRows(""), []);
  assert.deepEqual(pythonCsvRows("x\ry\n"), [["x"], ["y"]]);
});

// What CPython 3.11's list(csv.reader(io.StringIO(text), delimiter=…)) returns: StringIO keeps "\r", so a carriage
// return ending an unquoted field must end its line too.
test("csv.reader over io.StringIO lines: \\r\\n ends a record, a lone \\r inside a line is csv.Error, quoted newlines join lines", () => {
  const read = (text: string, delimiter = ",") => pythonCsvReader(stringIoLines(text), { delimiter });
  assert.deepEqual(read("a,b\r\nc,d\r\n"), [["a", "b"], ["c", "d"]]);
  assert.deepEqual(read('x,"y\nz",w\n1'), [["x", "y\nz", "w"], ["1"]]);
  assert.deepEqual(read("\n\na,b\n\n"), [[], [], ["a", "b"], []]);
  assert.deepEqual(read('"a""b",c'), [['a"b', "c"]]);
  assert.deepEqual(read('"a"b,c'), [["ab", "c"]]);
  assert.deepEqual(read('a,"open'), [["a", "open"]]);
  assert.deepEqual(read('"""ID""",x\n'), [['"ID"', "x"]]);
  assert.deepEqual(read("a,b,\n"), [["a", "b", ""]]);
  assert.deepEqual(read('"q"\r'), [["q"]]);
  assert.deepEqual(read("a\r\n\r\nb"), [["a"], [], ["b"]]);
  assert.deepEqual(read('a\tb\t"c\td"', "\t"), [["a", "b", "c\td"]]);
  assert.deepEqual(read('a\tb\t"c\td"'), [["a\tb\t\"c\td\""]]);
  assert.deepEqual(read(""), []);
  assert.deepEqual(read('""'), [[""]]);
  assert.throws(() => read("a\rb\n"), CsvError);
  assert.throws(() => read('a,"b"\rc\n'), CsvError);
  assert.throws(() => read("x".repeat(128 * 1024 + 1)), /field larger than field limit \(131072\)/);
});

test("from an io.StringIO a \\r reaches the parser: kept inside quotes, a line end outside, an error before more text", () => {
  assert.deepEqual(pythonCsvRowsFromString('a,"x\r\ny"\r\nb,c\r\n'), [["a", "x\r\ny"], ["b", "c"]]);
  assert.deepEqual(pythonCsvRowsFromString("a\r\r\n,b\n\r\n"), [["a"], ["", "b"], []]);
  assert.deepEqual(pythonCsvRowsFromString("a\r"), [["a"]]);
  assert.deepEqual(pythonCsvRowsFromString("a\0b\n"), [["a\0b"]]);
  for (const text of ["a\rb\n", '"q"\rb\n']) {
    assert.throws(() => pythonCsvRowsFromString(text), (error: unknown) => error instanceof CsvError && /new-line character seen in unquoted field/.test(error.message), JSON.stringify(text));
  }
});

test("csv.DictReader: the first row names the columns, empty rows are skipped, short rows get None, long rows their surplus", () => {
  const rows = pythonCsvRowsFromString("h1,h2\r\n1,2\r\n\r\n3\r\n4,5,6\r\n");
  assert.deepEqual(pythonCsvDictRows(rows), [{ h1: "1", h2: "2" }, { h1: "3", h2: null }, { h1: "4", h2: "5", null: ["6"] }]);
  assert.deepEqual(pythonCsvDictRows(pythonCsvRowsFromString("\na\n")), [{ null: ["a"] }], "an empty first row is an empty header");
  assert.deepEqual(pythonCsvDictRows([]), []);
});
