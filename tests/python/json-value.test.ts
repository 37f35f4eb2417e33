// The JSON-value model (values as JSON.parse gives them): str, repr, bool, iter, ==, < as python3 gives them for
// the same JSON read by json.loads (a whole number is an int, any other number a float).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { jsonEquals, jsonGetItem, jsonIterate, jsonLess, jsonRepr, jsonStr, jsonTruthy, jsonTypeName } from "../../src/python/json-value.ts";

describe("json-value model", () => {
  test("str() and repr(): ints stay ints, floats print as repr(float), containers hold reprs", () => {
    // python3: str([1, 0.5, 1e-07, None, True, "it's", {'k': []}])
    assert.equal(jsonStr([1, 0.5, 1e-7, null, true, "it's", { k: [] }]), `[1, 0.5, 1e-07, None, True, "it's", {'k': []}]`);
    assert.equal(jsonStr("a\nb"), "a\nb");
    assert.equal(jsonRepr("a\nb"), "'a\\nb'");
    assert.equal(jsonStr(Number.NaN), "nan");
    assert.equal(jsonStr(-Infinity), "-inf");
    assert.equal(jsonRepr({ "it's": 1 }), `{"it's": 1}`);
    // workplace_assistant's old repr left the backslash raw inside double quotes, and \n in a list raw.
    assert.equal(jsonRepr("it's a\\b"), `"it's a\\\\b"`);
    assert.equal(jsonStr(["x\n"]), "['x\\n']");
  });

  test("type names: a whole number is an int", () => {
    assert.deepEqual([null, true, 1, 1.5, "s", [], {}].map(jsonTypeName), ["NoneType", "bool", "int", "float", "str", "list", "dict"]);
  });

  test("bool(): empty containers, '', 0 and None are false; NaN is true", () => {
    // python3: [bool(v) for v in [None, False, 0, 0.0, '', [], {}, float('nan'), 'a', [0], {'a': 0}]]
    const values = [null, false, 0, -0, "", [], {}, Number.NaN, "a", [0], { a: 0 }];
    assert.deepEqual(values.map(jsonTruthy), [false, false, false, false, false, false, false, true, true, true, true]);
  });

  test("iter(): a list's items, a str's code points, a dict's keys; else Python's TypeError", () => {
    assert.deepEqual(jsonIterate("h😀"), ["h", "😀"]);
    assert.deepEqual(jsonIterate({ a: 1, b: 2 }), ["a", "b"]);
    assert.throws(() => jsonIterate(5), { name: "TypeError", message: "'int' object is not iterable" });
    assert.throws(() => jsonIterate(null), { name: "TypeError", message: "'NoneType' object is not iterable" });
  });

  test("== and <: 1 == 1.0 == True, deep containers, Python's TypeError for unorderable types", () => {
    assert.ok(jsonEquals(1, true) && jsonEquals([1, { a: 2 }], [1.0, { a: 2 }]));
    assert.ok(!jsonEquals({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(jsonLess("a", "b") && jsonLess([1, 2], [1, 3]) && jsonLess(1, 1.5));
    assert.throws(() => jsonLess(null, 1), { message: "'<' not supported between instances of 'NoneType' and 'int'" });
    assert.throws(() => jsonLess({}, {}), { message: "'<' not supported between instances of 'dict' and 'dict'" });
    assert.throws(() => jsonLess(1, "a"), { message: "'<' not supported between instances of 'int' and 'str'" });
  });

  test("d[key]: a dict's item or KeyError; a list or str raises Python's TypeError", () => {
    assert.equal(jsonGetItem({ a: 1 }, "a"), 1);
    assert.throws(() => jsonGetItem({}, "a"), { name: "KeyError", message: "'a'" });
    assert.throws(() => jsonGetItem([1], "a"), { name: "TypeError", message: "list indices must be integers or slices, not str" });
    assert.throws(() => jsonGetItem(1.5, "a"), { name: "TypeError", message: "'float' object is not subscriptable" });
  });
});
