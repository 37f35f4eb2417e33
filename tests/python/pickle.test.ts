// pickle.loads of a str, the one thing NeMo Gym's benchmarks unpickle (LiveCodeBench's private test cases); the
// bytes below are what CPython 3.11's pickle.dumps wrote. Anything but a str is refused, never run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { unpickleStr } from "../../src/python/pickle.ts";

const hex = (text: string) => Buffer.from(text, "hex");

test("a str pickled with protocol 4 (framed, memoized) and protocol 0 (raw-unicode-escape) reads back", () => {
  assert.equal(unpickleStr(hex("8004950a000000000000008c06c3a9f09f9880942e")), "é😀");
  assert.equal(unpickleStr(hex("56e95c5530303031663630300a70300a2e")), "é😀");
});

test("a pickled list is refused by its opcode; truncated data is named as such", () => {
  assert.throws(() => unpickleStr(hex("80049508000000000000005d948c016194612e")), /not a pickled str \(opcode 0x5d\)/);
  assert.throws(() => unpickleStr(hex("8004950a000000000000008c06c3a9")), /truncated/);
});
