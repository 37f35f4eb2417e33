// JSON read and compared as Python's json.loads and == do: what verifiers need for parity with NeMo Gym.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { fromJsonValue, pythonEquals, pythonTypeName, toJsonValue } from "../../src/python/values.ts";
import { PyJsonDecodeError } from "../../src/python/exception.ts";

describe("pythonJsonLoads", () => {
  test("ints stay ints (any size) and numbers with a fraction or exponent are floats", () => {
    assert.equal(pythonJsonLoads("5"), 5n);
    assert.equal(pythonJsonLoads("-0"), 0n);
    assert.equal(pythonJsonLoads("5.0"), 5);
    assert.equal(pythonJsonLoads("5e0"), 5);
    assert.equal(pythonJsonLoads("12345678901234567890123"), 12345678901234567890123n);
    assert.equal(pythonTypeName(pythonJsonLoads("1E400")), "float");
    assert.equal(pythonJsonLoads("1E400"), Number.POSITIVE_INFINITY);
  });

  test("NaN, Infinity and -Infinity are accepted, as Python does", () => {
    assert.ok(Number.isNaN(pythonJsonLoads("NaN")));
    assert.deepEqual(pythonJsonLoads("[Infinity, -Infinity]"), [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
  });

  test("objects become Maps in key order; a repeated key keeps its first place and its last value", () => {
    const dict = pythonJsonLoads('{"b": 1, "a": [true, null, "x"], "b": 2, "__proto__": {}}');
    assert.ok(dict instanceof Map);
    assert.deepEqual([...dict.keys()], ["b", "a", "__proto__"]);
    assert.equal(dict.get("b"), 2n);
    assert.deepEqual(dict.get("a"), [true, null, "x"]);
  });

  test("strings decode every escape, surrogate pairs included", () => {
    assert.equal(pythonJsonLoads('"a\\n\\t\\"\\\\\\/\\u00e9\\ud83d\\ude00"'), 'a\n\t"\\/é😀');
  });

  test("invalid documents raise JSONDecodeError with Python's message", () => {
    const cases: [string, string][] = [
      ["", "Expecting value: line 1 column 1 (char 0)"],
      ["first=one", "Expecting value: line 1 column 1 (char 0)"],
      ['{"a": 1', "Expecting ',' delimiter: line 1 column 8 (char 7)"],
      ["{'a': 1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"],
      ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
      ['{"a": 1} x', "Extra data: line 1 column 10 (char 9)"],
      ["[1,\n 2,]", "Expecting value: line 2 column 4 (char 7)"],
      ['"abc', "Unterminated string starting at: line 1 column 1 (char 0)"],
      ['"a\u0001"', "Invalid control character at: line 1 column 3 (char 2)"],
      ['"\\x"', "Invalid \\escape: line 1 column 2 (char 1)"],
      ["01", "Extra data: line 1 column 2 (char 1)"],
      ["\ufeff{}", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"],
      ['"ab\\u12g4"', "Invalid \\uXXXX escape: line 1 column 5 (char 4)"],
      ["[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"],
      ["-x", "Expecting value: line 1 column 1 (char 0)"],
      ["1.", "Extra data: line 1 column 2 (char 1)"],
      ["1e", "Extra data: line 1 column 2 (char 1)"],
      ["[", "Expecting value: line 1 column 2 (char 1)"],
      ['{"a":', "Expecting value: line 1 column 6 (char 5)"],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => pythonJsonLoads(text), (error: unknown) => error instanceof PyJsonDecodeError && error.message === message, JSON.stringify(text));
    }
  });

  test("whitespace around values is JSON's four characters only", () => {
    assert.equal(pythonJsonLoads(" \t\r\n 1 \n"), 1n);
    assert.throws(() => pythonJsonLoads("\u00a01"), PyJsonDecodeError);
  });
});

describe("pythonEquals (Python ==)", () => {
  const loads = pythonJsonLoads;
  test("ints, floats and bools compare by value", () => {
    assert.ok(pythonEquals(loads("1"), loads("1.0")));
    assert.ok(pythonEquals(loads("1"), loads("true")));
    assert.ok(pythonEquals(loads("0.0"), loads("false")));
    assert.ok(!pythonEquals(loads("9007199254740993"), loads("9007199254740992.0")), "an int is compared exactly with a float");
    assert.ok(!pythonEquals(loads('"1"'), loads("1")));
    assert.ok(!pythonEquals(loads("null"), loads("0")));
  });

  test("lists are ordered, dicts are not; NaN differs from itself except inside a container", () => {
    assert.ok(pythonEquals(loads('{"a": [1, {"b": 2}], "c": null}'), loads('{"c": null, "a": [1.0, {"b": 2.0}]}')));
    assert.ok(!pythonEquals(loads("[1, 2]"), loads("[2, 1]")));
    assert.ok(!pythonEquals(loads('{"a": 1}'), loads('{"a": 1, "b": 2}')));
    assert.ok(!pythonEquals(loads("NaN"), loads("NaN")));
    assert.ok(pythonEquals(loads("[NaN]"), loads("[NaN]")), "json.loads' NaNs are one object; containers compare identity first");
  });
});

describe("converting to and from plain JSON values", () => {
  test("a request body value becomes a Python value and back", () => {
    const value = fromJsonValue({ a: 1, b: 2.5, c: [true, null, "x"], d: { e: {} } });
    assert.ok(value instanceof Map);
    assert.equal(value.get("a"), 1n);
    assert.equal(value.get("b"), 2.5);
    assert.deepEqual(toJsonValue(value), { a: 1, b: 2.5, c: [true, null, "x"], d: { e: {} } });
  });

  test("a __proto__ key survives as an own property", () => {
    const out = toJsonValue(pythonJsonLoads('{"__proto__": {"x": 1}}')) as Record<string, unknown>;
    assert.equal(JSON.stringify(out), '{"__proto__":{"x":1}}');
  });

  test("NaN and infinities cannot be written as JSON (Starlette's allow_nan=False)", () => {
    assert.throws(() => toJsonValue(pythonJsonLoads('{"a": NaN}')), /Out of range float values are not JSON compliant/);
  });
});
