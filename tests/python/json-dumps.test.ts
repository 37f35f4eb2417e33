// json.dumps in its two forms: Python's defaults, pinned against python3, and NeMo Gym's compact wire form.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pythonJsonDumps, toPythonJson } from "../../src/python/json-dumps.ts";

test("json.dumps(value): ', ' and ': ', ensure_ascii (DEL too), floats as repr(float), NaN and Infinity", () => {
  // python3: json.dumps({'a': [1, 0.5, 1e-07, float('nan'), float('inf'), -float('inf'), 'é😀\x7f\x1f', None, True]})
  const value = { a: [1, 0.5, 1e-7, Number.NaN, Infinity, -Infinity, "é😀\x7f\x1f", null, true] };
  assert.equal(pythonJsonDumps(value), `{"a": [1, 0.5, 1e-07, NaN, Infinity, -Infinity, "\\u00e9\\ud83d\\ude00\\u007f\\u001f", null, true]}`);
});

test("the wire form is compact, raw UTF-8, and keeps the .0 of float fields", () => {
  assert.equal(toPythonJson({ reward: 1, text: "é", n: 2 }), `{"reward":1.0,"text":"é","n":2}`);
});

test("orjsonDumps: orjson.dumps's text (compact, raw UTF-8, \\u00XX controls); floats orjson writes unlike repr refused", async () => {
  const { orjsonDumps } = await import("../../src/python/json-dumps.ts");
  // b'{"a":[1,1.0,0.5,null],"b":"\xc3\xa9\x7f\\u001f\\n/\xe2\x80\xa8","c":true}' from orjson 3.8.3.
  assert.equal(orjsonDumps({ a: [1n, 1, 0.5, null], b: "é\u007f\u001f\n/\u2028", c: true }), '{"a":[1,1.0,0.5,null],"b":"é\u007f\\u001f\\n/\u2028","c":true}');
  assert.throws(() => orjsonDumps({ x: 1e-7 }), /not reproduced/);
  assert.throws(() => orjsonDumps(2n ** 64n), /64-bit/);
});
