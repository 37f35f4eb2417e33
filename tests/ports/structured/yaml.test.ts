// yaml.safe_load(text): YAML 1.1 typing of PyYAML's resolver; expectations produced by PyYAML 6.0.3.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseYaml } from "../../../src/ports/structured/yaml.ts";
import { evaluateText } from "../../../src/ports/structured/structured-outputs.ts";
import { plain } from "./helpers.ts";

const value = (text: string) => {
  const parsed = parseYaml(`v: ${text}`) as Map<string, never>;
  return plain(parsed.get("v")!);
};

describe("yaml.safe_load", () => {
  test("yes/no/on/off in any of their three spellings are booleans; y and n stay strings", () => {
    for (const text of ["yes", "Yes", "YES", "on", "On", "true", "True", "TRUE"]) assert.equal(value(text), true, text);
    for (const text of ["no", "No", "NO", "off", "OFF", "false"]) assert.equal(value(text), false, text);
    for (const text of ["y", "n", "N", "oFF", "yEs"]) assert.equal(value(text), text, text);
  });

  test("ints: decimal with underscores, 0-prefixed octal, 0b, 0x, sexagesimal; 08 stays a string", () => {
    assert.deepEqual(value("1_000"), { int: "1000" });
    assert.deepEqual(value("0755"), { int: "493" });
    assert.deepEqual(value("0b101"), { int: "5" });
    assert.deepEqual(value("0x1F"), { int: "31" });
    assert.deepEqual(value("1:30"), { int: "90" });
    assert.deepEqual(value("-0"), { int: "0" });
    assert.equal(value("08"), "08");
    assert.equal(value("0o17"), "0o17");
    assert.equal(value("1,000"), "1,000");
  });

  test("floats need a dot; an exponent needs its sign", () => {
    assert.deepEqual(value("1.0e+5"), { float: "100000.0" });
    assert.deepEqual(value(".5"), { float: "0.5" });
    assert.deepEqual(value("1."), { float: "1.0" });
    assert.deepEqual(value("-.inf"), { float: "-inf" });
    assert.deepEqual(value(".NaN"), { float: "nan" });
    assert.equal(value("1e5"), "1e5");
    assert.equal(value("1.5e3"), "1.5e3");
  });

  test("null spellings and an empty value are None", () => {
    for (const text of ["~", "null", "Null", "NULL", ""]) assert.equal(value(text), null, text);
    assert.equal(value("nuL"), "nuL");
  });

  test("dates and timestamps are datetime values, and an impossible date fails", () => {
    assert.deepEqual(value("2024-01-15"), { opaque: "date" });
    assert.deepEqual(value("2024-01-15 10:00:00"), { opaque: "datetime" });
    assert.deepEqual(value("2024-01-05T10:20:30Z"), { opaque: "datetime" });
    assert.equal(value("'2024-01-15'"), "2024-01-15");
    assert.throws(() => parseYaml("x: 2024-13-01"), { name: "ValueError" });
  });

  test("quoted and block scalars are strings", () => {
    assert.equal(value("'yes'"), "yes");
    assert.equal(value('"a\\tb"'), "a\tb");
    assert.deepEqual(plain(parseYaml("k: |\n  l1\n  l2\n")), [["k", "l1\nl2\n"]]);
  });

  test("keys are typed too; 1 and true are the same dict key", () => {
    assert.deepEqual(plain(parseYaml("1: a\ntrue: b\nnull: c")), [[{ int: "1" }, "b"], [null, "c"]]);
    assert.deepEqual(plain(parseYaml("on: push")), [[true, "push"]]);
  });

  test("merge keys merge, own keys win; a repeated key keeps its first position and last value", () => {
    assert.deepEqual(plain(parseYaml("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n")), [["base", [["x", { int: "1" }], ["y", { int: "2" }]]], ["d", [["x", { int: "1" }], ["y", { int: "3" }]]]]);
    assert.deepEqual(plain(parseYaml("x: 1\ny: 3\nx: 2")), [["x", { int: "2" }], ["y", { int: "3" }]]);
  });

  test("an empty document is None; plain text is a string", () => {
    assert.equal(parseYaml(""), null);
    assert.equal(parseYaml("# only a comment\n"), null);
    assert.equal(parseYaml("just a plain string"), "just a plain string");
  });

  test("unknown tags, several documents, the `=` value tag and bad syntax fail", () => {
    assert.throws(() => parseYaml("c: !foo x"), { name: "ConstructorError" });
    assert.throws(() => parseYaml("a: 1\n---\nb: 2"), { name: "ComposerError", message: "expected a single document in the stream" });
    assert.throws(() => parseYaml("- =\n"), { name: "ConstructorError" });
    assert.throws(() => parseYaml("a: b: c"));
    assert.throws(() => parseYaml("```yaml\na: 1\n```"));
    assert.throws(() => parseYaml("a: [1, 2"));
  });

  test("explicit standard tags construct their type", () => {
    assert.deepEqual(plain(parseYaml("a: !!str 3\nb: !!int '7'")), [["a", "3"], ["b", { int: "7" }]]);
  });

  test("PyYAML's scanner messages for a reserved indicator and a second ': ' in a plain value", () => {
    const cases: [string, string][] = [
      ["```yaml\na: 1\n```", "while scanning for the next token\nfound character '`' that cannot start any token\n  in \"<unicode string>\", line 1, column 1:\n    ```yaml\n    ^"],
      ["Here is YAML:\n```yaml\na: 1", "while scanning for the next token\nfound character '`' that cannot start any token\n  in \"<unicode string>\", line 2, column 1:\n    ```yaml\n    ^"],
      ["  name: a: b", "mapping values are not allowed here\n  in \"<unicode string>\", line 1, column 10:\n      name: a: b\n             ^"],
      ["a: 1\n  b: 2", "mapping values are not allowed here\n  in \"<unicode string>\", line 2, column 4:\n      b: 2\n       ^"],
      ["x: " + "a".repeat(60) + ": b", "mapping values are not allowed here\n  in \"<unicode string>\", line 1, column 64:\n     ... aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: b\n                                         ^"],
    ];
    for (const [text, message] of cases) assert.throws(() => parseYaml(text), { name: "ScannerError", message }, text);
  });

  test("PyYAML's reader refuses a non-printable character anywhere, naming its code point and position in code points", () => {
    const reason = (hex: string, position: number) => `unacceptable character #x${hex}: special characters are not allowed\n  in "<unicode string>", position ${position}`;
    const cases: [string, string][] = [
      ["a: \x80", reason("0080", 3)],
      ['name: "caf\x80"\n', reason("0080", 10)],
      ["# note \x85\x01\nx: 1", reason("0001", 8)],
      ["k: \u{1F600} \x7f", reason("007f", 5)],
      ["a: \ufffe", reason("fffe", 3)],
      ["a: \ud800", reason("d800", 3)],
      ["a: \x00", reason("0000", 3)],
      // The reader runs before the scanner: a control character wins over a syntax error earlier in the text.
      ["```yaml\na: \x1b", reason("001b", 11)],
    ];
    for (const [text, message] of cases) assert.throws(() => parseYaml(text), { name: "ReaderError", message }, JSON.stringify(text));
  });

  test("tab, CR/LF, U+00A0 up to U+D7FF, U+E000 to U+FFFD and astral code points are printable", () => {
    assert.deepEqual(plain(parseYaml('ok: "caf\xe9 \u{1F600} \ue000\ufffd\xa0\ud7ff!"\r\n')), [["ok", "caf\xe9 \u{1F600} \ue000\ufffd\xa0\ud7ff!"]]);
    assert.deepEqual(plain(parseYaml("a: '\t1'\r\nb: 2")), [["a", "\t1"], ["b", { int: "2" }]]);
  });

  test("structured_outputs' YAML text mode reports the ReaderError as a parse_error", () => {
    const schema = JSON.stringify({ type: "object", properties: { a: { type: "string" } } });
    assert.deepEqual(evaluateText("yaml", schema, "a: caf\x80", { xmlCoerceTypes: false }), {
      reward: 0,
      error_type: "parse_error",
      error_message: 'ReaderError: unacceptable character #x0080: special characters are not allowed\n  in "<unicode string>", position 6',
    });
  });
});
