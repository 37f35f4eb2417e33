// structured_outputs' schema strictification and XML/CSV coercion; expectations produced by running NeMo
// Gym's Python helpers in python3.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pythonJsonLoads } from "../../../src/python/json.ts";
import { toJsonValue } from "../../../src/python/values.ts";
import { coerceCsvTypes, coerceXmlTypes, strictifySchema } from "../../../src/ports/structured/schema.ts";
import type { StructuredDict } from "../../../src/ports/structured/value.ts";
import { plain } from "./helpers.ts";

const schema = (text: string) => pythonJsonLoads(text);
const dict = (entries: [string | null, unknown][]) => new Map(entries) as StructuredDict;

describe("strictify_schema", () => {
  test("every dict with properties requires them all and allows no others; lists are not walked", () => {
    const s = schema('{"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}}, "b": {"anyOf": [{"properties": {"y": {}}}]}}, "required": ["a"]}');
    strictifySchema(s);
    assert.deepEqual(toJsonValue(s), {
      type: "object",
      properties: { a: { type: "array", items: { type: "object", properties: { x: { type: "integer" } }, required: ["x"], additionalProperties: false } }, b: { anyOf: [{ properties: { y: {} } }] } },
      required: ["a", "b"],
      additionalProperties: false,
    });
  });

  test("an existing required keeps its position in the dict; new keys are appended", () => {
    const s = schema('{"required": [], "properties": {"a": {}}}');
    strictifySchema(s);
    assert.deepEqual([...(s as Map<string, unknown>).keys()], ["required", "properties", "additionalProperties"]);
  });
});

describe("strictify_schema: Python's errors", () => {
  test("properties that are not iterable raise Python's TypeError, with Python's type name (the old copy said 'bigint')", () => {
    assert.throws(() => strictifySchema(schema('{"properties": 5}')), { name: "TypeError", message: "'int' object is not iterable" });
  });
});

describe("coerce_xml_types", () => {
  const xmlSchema = schema('{"type": "object", "properties": {"n": {"type": "integer"}, "f": {"type": "number"}, "b": {"type": "boolean"}, "s": {"type": "string"}, "l": {"type": "array", "items": {"type": "integer"}}, "e": {"type": "array", "items": {"type": "string"}}, "u": {"type": ["integer", "null"]}, "o": {"type": "object", "properties": {"k": {"type": "boolean"}}}}}');

  test("strings become the declared scalar types; what does not convert stays a string", () => {
    const data = dict([["n", " 42 "], ["f", "1e3"], ["b", "Yes"], ["s", null], ["l", dict([["i", ["1", "x"]]])], ["e", null], ["u", "5"], ["o", dict([["k", "0"]])], ["z", "7"]]);
    assert.deepEqual(plain(coerceXmlTypes(dict([["root", data]]), schema('{"type": "object", "properties": {"root": ' + JSON.stringify(toJsonValue(xmlSchema)) + "}}"))), [
      ["root", [["n", { int: "42" }], ["f", { float: "1000.0" }], ["b", "Yes"], ["s", ""], ["l", [{ int: "1" }, "x"]], ["e", []], ["u", "5"], ["o", [["k", false]]], ["z", "7"]]],
    ]);
  });

  test("a single array element is wrapped in a list; booleans accept true/1/false/0 in any case", () => {
    assert.deepEqual(plain(coerceXmlTypes(dict([["l", "3"]]), xmlSchema)), [["l", [{ int: "3" }]]]);
    assert.deepEqual(plain(coerceXmlTypes(dict([["n", "4_2"], ["b", "TRUE"], ["f", "nan"]]), xmlSchema)), [["n", { int: "42" }], ["b", true], ["f", { float: "nan" }]]);
  });
});

describe("coerce: int() as Python reads it", () => {
  test("\\x1c and \\ufeff around a number are not whitespace to int(), so the string stays (the old copy converted it)", () => {
    const intSchema = schema('{"type": "object", "properties": {"n": {"type": "integer"}, "m": {"type": "integer"}, "k": {"type": "integer"}}}');
    assert.deepEqual(plain(coerceXmlTypes(dict([["n", "\x1c5"], ["m", "\ufeff5"], ["k", "\x855\u3000"]]), intSchema)), [["n", "\x1c5"], ["m", "\ufeff5"], ["k", { int: "5" }]]);
  });
});

describe("coerce_csv_types", () => {
  const csvSchema = schema('{"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}, "x": {"type": ["number", "null"]}, "b": {"type": ["boolean", "string"]}, "s": {"type": ["integer", "string"]}}}}');

  test("per column type; '' is None where null is allowed; union types take the first that converts", () => {
    const rows = [dict([["n", "1"], ["x", ""], ["b", "maybe"], ["s", "abc"], [null, ["q"]]]), dict([["n", ""], ["x", "2"], ["b", "0"], ["s", "7"]])];
    assert.deepEqual(coerceCsvTypes(rows, csvSchema).map(plain), [
      [["n", { int: "1" }], ["x", null], ["b", "maybe"], ["s", "abc"], [null, ["q"]]],
      [["n", ""], ["x", { float: "2.0" }], ["b", false], ["s", { int: "7" }]],
    ]);
  });

  test("a schema without items is its own row schema; a schema that is not a dict fails as Python's .get does", () => {
    assert.deepEqual(coerceCsvTypes([dict([["n", "1"]])], schema('{"properties": {"n": {"type": "integer"}}}')).map(plain), [[["n", { int: "1" }]]]);
    assert.throws(() => coerceCsvTypes([], schema("true")), { name: "AttributeError", message: "'bool' object has no attribute 'get'" });
  });
});
