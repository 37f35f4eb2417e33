// Python's builtins on parsed values (the PyValue model), as CPython 3 prints them (expected values from python3).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { pythonGetItem, pythonStr } from "../../src/python/values.ts";
import { jsonGetItem, jsonStr } from "../../src/python/json-value.ts";

describe("python values", () => {
  test("str() of parsed values keeps Python's int/float distinction and prints containers with repr", () => {
    assert.equal(pythonStr(pythonJsonLoads('{"a": [1, 2.0, null, true, "x\\ty"]}')), "{'a': [1, 2.0, None, True, 'x\\ty']}");
    // A plain JSON object is the other model's: json-value.ts's jsonStr (tests/python/json-value.test.ts).
    assert.equal(jsonStr({ a: "b" }), "{'a': 'b'}");
  });

  test("d[key] raises KeyError or Python's TypeError for the type", () => {
    assert.equal(pythonGetItem(new Map([["a", 1n]]), "a"), 1n);
    // On a plain JSON object: json-value.ts's jsonGetItem.
    assert.equal(jsonGetItem({ a: 1 }, "a"), 1);
    assert.throws(() => jsonGetItem({}, "a"), /KeyError: 'a'/);
    assert.throws(() => pythonGetItem(null, "a"), /'NoneType' object is not subscriptable/);
    assert.throws(() => pythonGetItem([1n], "a"), /list indices must be integers or slices, not str/);
    assert.throws(() => pythonGetItem("s", "a"), /string indices must be integers, not 'str'/);
    assert.throws(() => pythonGetItem(1n, "a"), /'int' object is not subscriptable/);
  });
});
