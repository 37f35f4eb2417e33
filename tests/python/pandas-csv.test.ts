// pandas.read_csv(…, index_col=0) + row.to_dict(), cell by cell. Every expectation below is what pandas 2.3.3
// printed for the same CSV text (its default na_values, per-column type inference, Python-boxed values).
import { test } from "node:test";
import assert from "node:assert/strict";
import { NA_VALUES, pandasCsvRecords } from "../../src/python/pandas-csv.ts";

const column = (...cells: string[]) => pandasCsvRecords(`,x\n${cells.map((cell, i) => `${i},"${cell}"\n`).join("")}`, { indexCol: 0 }).map((row) => row.x);

test("pandas' default na_values, exactly (quoted or not; no trimming; case matters)", () => {
  assert.deepEqual([...NA_VALUES].sort(), ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]);
  const rows = pandasCsvRecords(',Question,A,B,C,D,Answer,Subject\n0,"Q ""one""",None,"NA",n/a,  NA,A,anatomy\n1,Q2,x,2.5,#N/A,"",b ,\n2,NULL,3,1e3,x,nan,C,virology\n', { indexCol: 0 });
  assert.deepEqual(rows, [
    { Question: 'Q "one"', A: Number.NaN, B: Number.NaN, C: Number.NaN, D: "  NA", Answer: "A", Subject: "anatomy" },
    { Question: "Q2", A: "x", B: 2.5, C: Number.NaN, D: Number.NaN, Answer: "b ", Subject: Number.NaN },
    { Question: Number.NaN, A: "3", B: 1000, C: "x", D: Number.NaN, Answer: "C", Subject: "virology" },
  ]);
  for (const text of ["NAN", "Nan", "+nan", "NA ", "none", " ", "nan "]) assert.deepEqual(column(text), [text], text);
});

test("a column's type comes from all its cells: ints, floats (ints with NaN too), bools, else text", () => {
  assert.deepEqual(column(" 1", "+1", "007", "-0"), [1n, 1n, 7n, 0n]);
  assert.deepEqual(column("1", "NA"), [1, Number.NaN]);
  assert.deepEqual(column("1.", ".5", "1E-2", "inf", "-Infinity", "INF", "-NaN"), [1, 0.5, 0.01, Infinity, -Infinity, Infinity, Number.NaN]);
  assert.deepEqual(column("True", "false", "TRUE"), [true, false, true]);
  assert.deepEqual(column("True", "NA"), [true, Number.NaN], "a bool column with a NaN keeps its bools");
  assert.deepEqual(column("True", "1"), ["True", "1"]);
  assert.deepEqual(column("1", "x"), ["1", "x"]);
  assert.deepEqual(column("1.5", "x"), ["1.5", "x"]);
  for (const text of ["1_000", "0x10", "1e", "١", "1,5", "yes", "1e400", "-9223372036854775809"]) assert.deepEqual(column(text), [text], text);
  assert.deepEqual(column("18446744073709551615"), [18446744073709551615n]);
  assert.deepEqual(column("multi\nline", "NA"), ["multi\nline", Number.NaN]);
});
