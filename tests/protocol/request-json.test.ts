// parseRequestJson reads what Python's json.loads reads and fails where it fails, with its message and position
// (the expected pairs below are CPython 3.11's), and bounds nesting without recursing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { JsonDepthError, JsonSyntaxError, parseRequestJson } from "../../src/protocol/wire-json.ts";

const PYTHON_ERRORS: [string, number, string][] = [
  ['{"a":1,}', 7, "Expecting property name enclosed in double quotes"],
  ['{"a":1 "b"}', 7, "Expecting ',' delimiter"],
  ["[1 2]", 3, "Expecting ',' delimiter"],
  ['"abc', 0, "Unterminated string starting at"],
  ['"a\u0001"', 2, "Invalid control character at"],
  ['"\\x"', 1, "Invalid \\escape"],
  ['"\\u12"', 2, "Invalid \\uXXXX escape"],
  ["01", 1, "Extra data"],
  ["1.", 1, "Extra data"],
  ["1e", 1, "Extra data"],
  ["-", 0, "Expecting value"],
  ["[-]", 1, "Expecting value"],
  ['{"a":1}  x', 9, "Extra data"],
  ["  ", 2, "Expecting value"],
  ['{"a":[1,{"b":tru}]}', 13, "Expecting value"],
  ["[1,,2]", 3, "Expecting value"],
  ["{,}", 1, "Expecting property name enclosed in double quotes"],
  ["-NaN", 0, "Expecting value"],
  ["+1", 0, "Expecting value"],
  ["", 0, "Expecting value"],
];

test("not JSON: Python's JSONDecodeError message and position", () => {
  for (const [text, position, message] of PYTHON_ERRORS) {
    assert.throws(() => parseRequestJson(text), (error: unknown) => error instanceof JsonSyntaxError && error.position === position && error.pythonMessage === message, JSON.stringify(text));
  }
});

test("Python's literals NaN, Infinity, -Infinity are numbers; the same words inside strings stay text", () => {
  assert.deepEqual(parseRequestJson('[NaN, Infinity, -Infinity, {"x": "NaN \\" Infinity", "y": -Infinity}]'), [NaN, Infinity, -Infinity, { x: 'NaN " Infinity', y: -Infinity }]);
  assert.deepEqual(parseRequestJson('{"a":1,"a":2, "\\ud800": "\\\\"}'), { a: 2, "\ud800": "\\" });
  assert.deepEqual(parseRequestJson("[0, -0.5, 1e3, 2E-2, 10]"), [0, -0.5, 1000, 0.02, 10]);
});

test("nesting: 1,000 levels parse, 1,001 is a JsonDepthError with the path; 100,000 levels do not overflow the scan", () => {
  assert.ok(Array.isArray(parseRequestJson("[".repeat(1000) + "]".repeat(1000))));
  assert.throws(
    () => parseRequestJson('{"m": [' + '{"k":'.repeat(1000) + "1" + "}".repeat(1000) + "]}"),
    (error: unknown) => error instanceof JsonDepthError && error.path.length === 1000 && error.path[0] === "m" && error.path[1] === 0 && error.path[2] === "k",
  );
  assert.throws(() => parseRequestJson("[".repeat(100_000)), JsonDepthError);
  assert.throws(() => parseRequestJson("[".repeat(10), "json", 5), /nests deeper than 5 levels at body\.0\.0\.0\.0\.0 \(5 levels\)/);
});
