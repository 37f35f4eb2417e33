// tomllib.loads(text); expectations produced by python3's tomllib.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseToml } from "../../../src/ports/structured/toml.ts";
import { PyOpaque } from "../../../src/python/values.ts";
import { plain } from "./helpers.ts";

describe("tomllib.loads", () => {
  test("tables, arrays of tables, ints and floats kept apart", () => {
    assert.deepEqual(plain(parseToml('a = 1\nb = 2.0\nc = "x"\nd = true\nh = [1, 2]\n[t]\nk = "v"\n[[arr]]\nn = 1\n[[arr]]\nn = 2\n')), [
      ["a", { int: "1" }], ["b", { float: "2.0" }], ["c", "x"], ["d", true], ["h", [{ int: "1" }, { int: "2" }]], ["t", [["k", "v"]]], ["arr", [[["n", { int: "1" }]], [["n", { int: "2" }]]]],
    ]);
    assert.deepEqual(plain(parseToml("a = 9223372036854775807\nb = inf\nc = 0x1F\nd = 1_000")), [["a", { int: "9223372036854775807" }], ["b", { float: "inf" }], ["c", { int: "31" }], ["d", { int: "1000" }]]);
  });

  test("dates, times and datetimes are datetime values with Python's repr", () => {
    const parsed = parseToml("e = 1979-05-27\nf = 1979-05-27T07:32:00Z\nf2 = 1979-05-27T07:32:00.5-05:00\nl = 1979-05-27T07:32:00\ng = 07:32:00");
    const repr = (key: string) => (parsed.get(key) as PyOpaque).repr;
    assert.equal(repr("e"), "datetime.date(1979, 5, 27)");
    assert.equal(repr("f"), "datetime.datetime(1979, 5, 27, 7, 32, tzinfo=datetime.timezone.utc)");
    assert.equal(repr("f2"), "datetime.datetime(1979, 5, 27, 7, 32, 0, 500000, tzinfo=datetime.timezone(datetime.timedelta(days=-1, seconds=68400)))");
    assert.equal(repr("l"), "datetime.datetime(1979, 5, 27, 7, 32)");
    assert.equal(repr("g"), "datetime.time(7, 32)");
  });

  test("invalid TOML is a TOMLDecodeError with tomllib's message and position", () => {
    const cases: [string, string][] = [
      ["```toml\na = 1\n```", "Invalid statement (at line 1, column 1)"],
      ["a = 1\na = 2", "Cannot overwrite a value (at end of document)"],
      ["key = ", "Invalid value (at end of document)"],
      ["name = Ann", "Invalid value (at line 1, column 8)"],
      ["[a]\n[a]", "Cannot declare ('a',) twice (at line 2, column 3)"],
      ["a = {b = 1}\na.c = 2", "Cannot mutate immutable namespace ('a',) (at end of document)"],
      ["a = \"x\" y", "Expected newline or end of document after a statement (at line 1, column 9)"],
      ["a = [1 2]", "Unclosed array (at line 1, column 8)"],
    ];
    for (const [text, message] of cases) assert.throws(() => parseToml(text), { name: "TOMLDecodeError", message }, text);
  });

  test("TOML 1.0 only: seconds are required, inline tables stay on one line without a trailing comma, dates must exist", () => {
    for (const text of ["x = 1979-05-27T07:32", "x = 07:32", "a = {x = 1,}", "a = {x = 1\n}", "x = 1979-02-30", "\uFEFFa = 1"]) assert.throws(() => parseToml(text), { name: "TOMLDecodeError" }, text);
  });
});
