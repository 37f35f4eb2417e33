// copyJsonData stands in for JSON.parse(JSON.stringify(value)) on in-process calls: its copy must be that value
// exactly (key order included), its byte bound must hold, and anything it cannot copy so must be handed back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyJsonData, stringifyWire } from "../../src/protocol/wire-json.ts";

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value));

/** The copy as JSON.parse gives it: the same text when written again, and no object shared with the input. */
function assertSameAsRoundTrip(value: unknown): void {
  const copied = copyJsonData(value, 1000);
  assert.ok(copied, `copied: ${JSON.stringify(value)}`);
  assert.deepStrictEqual(copied.copy, roundTrip(value));
  assert.equal(JSON.stringify(copied.copy), JSON.stringify(value));
  assert.ok(copied.maxBytes >= Buffer.byteLength(JSON.stringify(value)), `bound ${copied.maxBytes} holds`);
  const shared = (a: unknown, b: unknown): boolean =>
    typeof a === "object" && a !== null && (a === b || Object.keys(a).some((key) => shared((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])));
  assert.equal(shared(copied.copy, value), false);
}

test("plain JSON data is copied to exactly what a JSON round trip gives, key order included", () => {
  assertSameAsRoundTrip({ b: 1, a: [1, "x", null, true, { z: 2, "10": 3, "2": 4 }], "": { nested: { deeper: [[], {}] } } });
  assertSameAsRoundTrip({ reward: 1, created_at: 1700000000, temperature: 0.5, text: "é\u0000\ud800\n\"quoted\"" });
  assertSameAsRoundTrip([]);
  assertSameAsRoundTrip({ tokens: Array.from({ length: 5000 }, (_, i) => i * 0.5) });
  assertSameAsRoundTrip(Object.assign(Object.create(null), { a: 1 }));
});

test("what JSON drops or rewrites, the copy drops or rewrites alike", () => {
  const value = { gone: undefined, fn: () => 1, sym: Symbol("s"), nan: NaN, inf: -Infinity, negativeZero: -0, list: [undefined, () => 1, Symbol("t"), NaN, -0] };
  assertSameAsRoundTrip(value);
  const copied = copyJsonData(value, 1000)!.copy as { negativeZero: number; list: unknown[] };
  assert.ok(Object.is(copied.negativeZero, 0));
  assert.deepStrictEqual(copied.list, [null, null, null, null, 0]);
  // A hole in an array is null, as JSON writes it.
  assertSameAsRoundTrip({ sparse: [1, , 3] });
});

test("a float field's text is the same written from the copy as from the value", () => {
  const value = { reward: 1, created_at: -0, nested: [{ temperature: 2 }], top_p: NaN };
  assert.equal(stringifyWire(copyJsonData(value, 1000)!.copy), stringifyWire(value));
});

test("anything JSON.stringify treats specially, or that nests past the limit, is handed back to the text path", () => {
  for (const value of [
    undefined,
    () => 1,
    10n,
    { at: new Date(0) },
    { buffer: Buffer.from("x") },
    { map: new Map() },
    { custom: { toJSON: () => "x" } },
    { boxed: new String("x") },
    { big: [1n] },
    JSON.parse('{"__proto__": {"polluted": true}}'),
  ]) {
    assert.equal(copyJsonData(value, 1000), undefined, String(typeof value === "object" ? JSON.stringify(Object.keys(value as object)) : typeof value));
  }
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  assert.equal(copyJsonData(cyclic, 1000), undefined);
  let deep: unknown = 1;
  for (let i = 0; i < 5; i++) deep = [deep];
  assert.ok(copyJsonData(deep, 5));
  assert.equal(copyJsonData(deep, 4), undefined);
});

test("the byte bound covers the worst escapes and multi-byte characters", () => {
  for (const text of ["\u0001\u0002\u001f", "\ud83d\ude00\ud83d", "日本語", "\\\"/"]) {
    const value = { [text]: [text, { k: text }] };
    assert.ok(copyJsonData(value, 10)!.maxBytes >= Buffer.byteLength(JSON.stringify(value)), text);
  }
});
