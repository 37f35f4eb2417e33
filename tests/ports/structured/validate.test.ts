// openapi_schema_validator.validate (OAS 3.1 = JSON Schema 2020-12) and the error text Python's jsonschema
// gives (`str(best_match(errors))`, first 200 characters); expectations produced by jsonschema 4.26.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pythonJsonLoads } from "../../../src/python/json.ts";
import { pformat } from "../../../src/ports/structured/pformat.ts";
import { validateAgainstSchema } from "../../../src/ports/structured/validate.ts";
import { PyOpaque } from "../../../src/python/values.ts";
import { pythonErrorMessage } from "../../../src/ports/structured/value.ts";

const PERSON = '{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"], "additionalProperties": false}';

function failure(schemaText: string, instanceText: string | unknown): string | null {
  const instance = typeof instanceText === "string" ? pythonJsonLoads(instanceText) : (instanceText as never);
  try {
    validateAgainstSchema(instance, pythonJsonLoads(schemaText), schemaText);
    return null;
  } catch (error) {
    return pythonErrorMessage(error as Error);
  }
}

describe("schema validation", () => {
  test("`pattern` is Python's re.search: Unicode \\d, `$` before a final newline, \\Z", () => {
    assert.equal(failure('{"type": "string", "pattern": "^\\\\d+\\\\Z"}', '"\\u0661\\u0662"'), null);
    assert.equal(failure('{"type": "string", "pattern": "^[a-z]+$"}', '"abc\\n"'), null);
    assert.match(failure('{"type": "string", "pattern": "^[a-z]+\\\\Z"}', '"abc\\n"')!, /^ValidationError: 'abc\\n' does not match/);
    assert.equal(failure('{"type": "object", "patternProperties": {"^\\\\w+$": {"type": "integer"}}}', '{"h\\u00e9": 1}'), null);
    assert.match(failure('{"type": "object", "patternProperties": {"^\\\\w+$": {"type": "integer"}}}', '{"h\\u00e9": "x"}')!, /^ValidationError: 'x' is not of type 'integer'/);
  });

  test("a valid instance passes; integral floats are integers, as in jsonschema", () => {
    assert.equal(failure(PERSON, '{"name": "Ann", "age": 3}'), null);
    assert.equal(failure(PERSON, '{"name": "Ann", "age": 3.0}'), null);
  });

  test("a missing property: the message and the pretty-printed schema, cut at 200 characters", () => {
    assert.equal(
      failure(PERSON, '{"name": "Ann"}'),
      "ValidationError: 'age' is a required property\n\nFailed validating 'required' in schema:\n    {'type': 'object',\n     'properties': {'name': {'type': 'string'}, 'age': {'type': 'integer'}},\n     'required': ['name', 'age",
    );
  });

  test("extra properties are one error, listed sorted", () => {
    assert.match(failure(PERSON, '{"name": "Ann", "age": 3, "b": 1, "a": 2}')!, /^ValidationError: Additional properties are not allowed \('a', 'b' were unexpected\)\n\nFailed validating 'additionalProperties' in schema:/);
  });

  test("the shallowest error wins; among siblings the one jsonschema's best_match picks, with its paths", () => {
    assert.equal(failure(PERSON, '{"name": 5, "age": "x"}'), "ValidationError: 5 is not of type 'string'\n\nFailed validating 'type' in schema['properties']['name']:\n    {'type': 'string'}\n\nOn instance['name']:\n    5");
    assert.equal(failure('{"type": "array", "items": {"type": "integer"}}', '[1, "two", 3.5]'), "ValidationError: 3.5 is not of type 'integer'\n\nFailed validating 'type' in schema['items']:\n    {'type': 'integer'}\n\nOn instance[2]:\n    3.5");
  });

  test("anyOf: the anyOf error itself when branches tie, else the best branch error with relative paths", () => {
    assert.equal(failure('{"anyOf": [{"type": "string"}, {"type": "integer"}]}', "null"), "ValidationError: None is not valid under any of the given schemas\n\nFailed validating 'anyOf' in schema:\n    {'anyOf': [{'type': 'string'}, {'type': 'integer'}]}\n\nOn instance:\n    None");
    assert.equal(
      failure('{"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["a"]}]}}}', '{"v": {}}'),
      "ValidationError: 'a' is a required property\n\nFailed validating 'required' in schema[1]:\n    {'type': 'object', 'required': ['a']}\n\nOn instance:\n    {}",
    );
  });

  test("enum lists the allowed values", () => {
    assert.equal(failure('{"enum": ["a", "b"]}', '"c"'), "ValidationError: 'c' is not one of ['a', 'b']\n\nFailed validating 'enum' in schema:\n    {'enum': ['a', 'b']}\n\nOn instance:\n    'c'");
  });

  test("a date (PyYAML / tomllib) is no JSON type", () => {
    const date = new PyOpaque("date", "datetime.date(2024, 1, 15)");
    assert.match(failure('{"type": "string"}', date)!, /^ValidationError: datetime\.date\(2024, 1, 15\) is not of type 'string'/);
    assert.equal(failure("{}", date), null);
  });

  test("format is an annotation, nullable is not a keyword, a root $schema does not change the dialect", () => {
    assert.equal(failure('{"type": "string", "format": "email"}', '"nope"'), null);
    assert.match(failure('{"type": "string", "nullable": true}', "null")!, /^ValidationError: None is not of type 'string'/);
    assert.equal(failure('{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}', '"x"'), null);
  });

  test("a schema the 2020-12 meta-schema rejects is a SchemaError", () => {
    assert.match(failure('{"type": "strng"}', '"x"')!, /^SchemaError: /);
  });
});

describe("pprint.pformat(width=72, sort_dicts=False)", () => {
  test("long strings wrap at spaces into implicit concatenation", () => {
    const value = pythonJsonLoads('{"description": "The quick brown fox jumps over the lazy dog and keeps running far away from here", "n": null}');
    assert.equal(pformat(value), "{'description': 'The quick brown fox jumps over the lazy dog and keeps '\n                'running far away from here',\n 'n': None}");
    assert.equal(pformat("The quick brown fox jumps over the lazy dog and keeps running far away from here, again and again"), "('The quick brown fox jumps over the lazy dog and keeps running far '\n 'away from here, again and again')");
  });

  test("long strings wrap at Python's whitespace: \\ufeff is not a break (JS's \\s says it is)", () => {
    // pprint.pformat("word\ufeffword " * 8, width=72)
    assert.equal(pformat("word\ufeffword ".repeat(8)), "('word\\ufeffword word\\ufeffword word\\ufeffword word\\ufeffword '\n 'word\\ufeffword word\\ufeffword word\\ufeffword word\\ufeffword ')");
  });

  test("a list too long for a line puts one item per line", () => {
    const value = pythonJsonLoads('["short", {"a": "The quick brown fox jumps over the lazy dog and keeps running far"}]');
    assert.equal(pformat(value), "['short',\n {'a': 'The quick brown fox jumps over the lazy dog and keeps running '\n       'far'}]");
  });
});
