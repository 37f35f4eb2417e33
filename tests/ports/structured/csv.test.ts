// csv.DictReader(io.StringIO(text)) with the excel dialect; every expectation was produced by python3's csv.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readCsvDicts } from "../../../src/ports/structured/csv.ts";
import { plain } from "./helpers.ts";

const rows = (text: string) => readCsvDicts(text).rows.map(plain);

describe("csv.DictReader", () => {
  test("the first record names the fields; each later record is a dict", () => {
    assert.deepEqual(readCsvDicts("name,age\nAnn,30\nBob,41\n").fieldnames, ["name", "age"]);
    assert.deepEqual(rows("name,age\nAnn,30\nBob,41\n"), [[["name", "Ann"], ["age", "30"]], [["name", "Bob"], ["age", "41"]]]);
  });

  test("quoted fields keep commas and newlines, and a doubled quote is one quote", () => {
    assert.deepEqual(rows('a,b\n"x, y","line1\nline2"\n'), [[["a", "x, y"], ["b", "line1\nline2"]]]);
    assert.deepEqual(rows('a,b\n"he said ""hi""",2\n'), [[["a", 'he said "hi"'], ["b", "2"]]]);
  });

  test("a short row fills the missing fields with None; a long row puts the surplus in a list under None", () => {
    assert.deepEqual(rows("a,b,c\n1\n"), [[["a", "1"], ["b", null], ["c", null]]]);
    assert.deepEqual(rows("a,b\n1,2,3,4\n"), [[["a", "1"], ["b", "2"], [null, ["3", "4"]]]]);
  });

  test("blank rows are skipped, but a blank first line is the (empty) header", () => {
    assert.deepEqual(rows("a,b\n\n1,2\n\n"), [[["a", "1"], ["b", "2"]]]);
    assert.deepEqual(readCsvDicts("\na,b\n1,2\n").fieldnames, []);
    assert.deepEqual(rows("\na,b\n1,2\n"), [[[null, ["a", "b"]]], [[null, ["1", "2"]]]]);
  });

  test("an empty text has no fieldnames and no rows", () => {
    assert.deepEqual(readCsvDicts(""), { fieldnames: null, rows: [] });
  });

  test("CRLF line ends are accepted; a lone CR inside a line fails as Python's csv.Error", () => {
    assert.deepEqual(rows("a,b\r\n1,2\r\n"), [[["a", "1"], ["b", "2"]]]);
    assert.throws(() => readCsvDicts("a,b\n1,2\rx\n"), { name: "Error", message: /new-line character seen in unquoted field/ });
  });

  test("non-strict quirks: an unterminated quote ends the data, text after a closing quote joins the field", () => {
    assert.deepEqual(rows('a,b\n"unterminated,2\n'), [[["a", "unterminated,2\n"], ["b", null]]]);
    assert.deepEqual(rows('a,b\n"x"y,2\n'), [[["a", "xy"], ["b", "2"]]]);
  });

  test("repeated field names keep the first position and the last value (None when the row is short)", () => {
    assert.deepEqual(rows("a,a\n1,2\n"), [[["a", "2"]]]);
    assert.deepEqual(rows("a,a,b\n1\n"), [[["a", null], ["b", null]]]);
  });

  test("whitespace is data, and a code fence is just another row", () => {
    assert.deepEqual(rows(" a , b \n 1 , 2 \n"), [[[" a ", " 1 "], [" b ", " 2 "]]]);
    assert.deepEqual(rows("```csv\na,b\n1,2\n```"), [[["```csv", "a"], [null, ["b"]]], [["```csv", "1"], [null, ["2"]]], [["```csv", "```"]]]);
  });
});
