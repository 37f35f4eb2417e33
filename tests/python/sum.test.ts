// Python's builtin sum() over floats: CPython 3.12's Neumaier-compensated total.
import { test, describe as suite } from "node:test";
import assert from "node:assert/strict";
import { PythonSum, pythonSum } from "../../src/python/sum.ts";

suite("pythonSum", () => {
  test("compensated like CPython 3.12's sum()", () => {
    assert.equal(pythonSum(Array<number>(10).fill(0.1)), 1);
    assert.equal(pythonSum([1e100, 1.0, -1e100]), 1);
    assert.equal(pythonSum([]), 0);
  });

  test("an infinite total stays infinite", () => {
    assert.equal(pythonSum([Number.MAX_VALUE, Number.MAX_VALUE]), Infinity);
  });
});

test("PythonSum's running value is sum() of the prefix so far", () => {
  const running = new PythonSum();
  const prefixes: number[] = [];
  for (const x of [0.1, 0.2, 0.3, 1e100, -1e100]) {
    running.add(x);
    prefixes.push(running.value());
  }
  // CPython 3.12's [sum(xs[:i + 1]) for i in range(5)]; 3.11's plain left-to-right sum gives 0.6000000000000001
  // for the third and 0.0 for the last (the compensation keeps the 0.6 that 1e100 swallowed).
  assert.deepEqual(prefixes, [0.1, 0.30000000000000004, 0.6, 1e100, 0.6]);
});
