// PythonRandom, uuid5 and pythonJsonDumpsTyped against values printed by CPython 3.11 (random.Random(seed),
// uuid.uuid5(NAMESPACE_URL, …), json.dumps(…, sort_keys=True, ensure_ascii=False)): what the benchmark prepare
// modules rely on for NeMo Gym's option order, uuids and bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { NAMESPACE_URL, PythonRandom, pythonJsonDumpsTyped, pythonStrHashUnrandomised, uuid5 } from "../../src/python/index.ts";

test("random.Random(seed).shuffle and getrandbits: CPython's sequence for small, negative and 128-bit seeds", () => {
  const shuffled = (seed: bigint | number, n: number) => {
    const rng = new PythonRandom(seed);
    const items = Array.from({ length: n }, (_, i) => i);
    rng.shuffle(items);
    return { items, rng };
  };
  assert.deepEqual(shuffled(42, 5).items, [3, 1, 2, 4, 0]);
  assert.deepEqual(shuffled(42, 10).items, [7, 3, 2, 8, 5, 6, 9, 4, 0, 1]);
  assert.deepEqual(shuffled(0, 10).items, [7, 8, 1, 5, 3, 4, 2, 0, 9, 6]);
  const big = shuffled(2n ** 100n + 12345n, 20);
  assert.deepEqual(big.items, [3, 13, 1, 18, 17, 5, 19, 6, 8, 12, 10, 15, 16, 11, 7, 4, 0, 9, 2, 14]);
  assert.equal(big.rng.getrandbits(40), 379345906730n);
  assert.equal(big.rng.getrandbits(3), 0n);
  const negative = new PythonRandom(-7);
  assert.deepEqual([negative.getrandbits(32), negative.getrandbits(32), negative.getrandbits(32)], [1390851128n, 4071050724n, 647892279n]);
  const afterShuffle = shuffled(42, 10).rng.getrandbits(64);
  assert.equal(afterShuffle, 7783083932390163561n);
});

test("uuid5 under NAMESPACE_URL of a json.dumps seed, as NeMo Gym's prepare scripts make row uuids", () => {
  assert.equal(uuid5(NAMESPACE_URL, "héllo"), "102d6fae-a0b0-5a7a-b980-5e8cfb1690db");
  const seed = pythonJsonDumpsTyped({ b: "ü", a: [1n, 2.0, null, true] }, { sortKeys: true, ensureAscii: false });
  assert.equal(seed, '{"a": [1, 2.0, null, true], "b": "ü"}');
  assert.equal(uuid5(NAMESPACE_URL, seed), "cfd1ad22-251a-5af4-b6c1-b20f8257e173");
});

test("pythonJsonDumpsTyped: bigint is an int, a number a float; ensure_ascii and sort_keys as Python has them", () => {
  const value = { b: "ü\u007f\n", a: [1n, 2, 1e-7, null, true, 1e16, Number.NaN], "😀": "x" };
  assert.equal(pythonJsonDumpsTyped(value, { sortKeys: true, ensureAscii: false }), '{"a": [1, 2.0, 1e-07, null, true, 1e+16, NaN], "b": "ü\u007f\\n", "😀": "x"}');
  assert.equal(pythonJsonDumpsTyped({ b: "ü\u007f\n😀", a: [1n, 2] }), '{"b": "\\u00fc\\u007f\\n\\ud83d\\ude00", "a": [1, 2.0]}');
  assert.equal(pythonJsonDumpsTyped(new Map<string, unknown>([["k", 3n], ["skip", undefined]])), '{"k": 3}');
});

test("random.Random(seed).random, randint, choice and sample: CPython's values, drawn in order from one generator", () => {
  const rng = new PythonRandom(2026);
  assert.deepEqual([rng.random(), rng.random(), rng.random()], [0.11911988496396309, 0.5025157552312506, 0.511822712773071]);
  assert.deepEqual(Array.from({ length: 8 }, () => rng.randint(1, 6)), [1, 2, 5, 5, 5, 4, 5, 5]);
  assert.deepEqual(Array.from({ length: 6 }, () => rng.choice([..."abcde"])), ["d", "e", "d", "b", "a", "e"]);
  const range10 = Array.from({ length: 10 }, (_, i) => i);
  assert.deepEqual([rng.sample(range10, 3), rng.sample(range10, 3)], [[1, 9, 4], [1, 7, 0]]);
});

test("a clone draws what its original would, and leaves the original where it was", () => {
  const original = new PythonRandom(9);
  original.random();
  const copy = original.clone();
  assert.deepEqual([copy.random(), copy.randint(0, 100)], [original.random(), original.randint(0, 100)]);
});

test("hash(str) as CPython 3.11 computes it under PYTHONHASHSEED=0 (SipHash-1-3, zero key)", () => {
  assert.equal(pythonStrHashUnrandomised("2026"), 5061362451999047408n);
  assert.equal(pythonStrHashUnrandomised("4294967295"), -7395580164763800411n);
  assert.equal(pythonStrHashUnrandomised("123456789012345678"), -4010888940098880848n);
  assert.equal(pythonStrHashUnrandomised(""), 0n);
});
