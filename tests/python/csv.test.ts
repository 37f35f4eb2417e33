// pythonCsvRows and pythonCsvReader against what CPython 3.11's csv.reader returns for the same text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CsvError, pythonCsvReader, pythonCsvRows, stringIoLines } from "../../src/python/index.ts";

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
