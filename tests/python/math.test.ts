// Python's number semantics that JS does not give bit for bit: math.exp as glibc computes it, math.fsum, int/int
// true division, format(x, ".10g") (expected values from CPython 3.11 on glibc 2.36).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatG } from "../../src/python/float.ts";
import { pythonExp, pythonFsum, trueDivide } from "../../src/python/math.ts";

describe("pythonExp (glibc's exp)", () => {
  test("bit for bit where V8's Math.exp is not", () => {
    assert.equal(pythonExp(-5 / 3), 0.18887560283756183);
    assert.equal(pythonExp(-5 * (2 / 42)), 0.788127627745311);
    assert.equal(pythonExp(700), 1.0142320547350045e304);
  });
  test("underflow to subnormals and zero; overflow raises", () => {
    assert.equal(pythonExp(-745.1), 5e-324);
    assert.equal(pythonExp(-800), 0);
    assert.throws(() => pythonExp(710), /math range error/);
  });
});

describe("trueDivide and formatG", () => {
  test("int / int is the exact ratio rounded once, at any size", () => {
    assert.equal(trueDivide(10n ** 30n + 1n, 3n * 10n ** 29n), 3.3333333333333335);
    assert.equal(trueDivide(2n ** 70n, 3n), 3.935305402391371e20);
    assert.ok(Object.is(trueDivide(-1n, 10n ** 400n), -0));
    assert.throws(() => trueDivide(10n ** 400n, 1n), /too large/);
  });
  test("format(x, '.10g'): half-even on the exact binary value, Python's exponent form", () => {
    assert.equal(formatG(0.000030517578125, 10), "3.051757812e-05");
    assert.equal(formatG(12345678905, 10), "1.23456789e+10");
    assert.equal(formatG(1 / 3, 10), "0.3333333333");
    assert.equal(formatG(100, 10), "100");
    assert.equal(formatG(1e-5, 10), "1e-05");
    assert.equal(formatG(0.0001, 10), "0.0001");
    assert.equal(formatG(-0, 10), "-0");
  });
});

describe("pythonFsum (math.fsum)", () => {
  test("the exactly rounded sum, where left-to-right addition is not", () => {
    assert.equal(pythonFsum(Array(10).fill(0.1)), 1.0);
    assert.equal(pythonFsum([1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50]), 1e-100);
    assert.equal(pythonFsum([1.0, 1e-16, 1e-16]), 1.0000000000000002);
    // The half-even correction of the last partial, both ways.
    assert.equal(pythonFsum([2 ** 53, -0.5, -(2 ** -54)]), 9007199254740991.0);
    assert.equal(pythonFsum([2 ** 53, 1.0, 2 ** -100]), 9007199254740994.0);
    assert.equal(pythonFsum([0.5 * Math.log(0.75), 0.5 * Math.log(2 / 3)]), -0.3465735902799727);
  });

  test("empty and -0.0 give 0.0; infinities and nan as CPython; overflow and inf - inf raise", () => {
    assert.ok(Object.is(pythonFsum([]), 0) && Object.is(pythonFsum([-0]), 0));
    assert.equal(pythonFsum([Infinity, 1.0]), Infinity);
    assert.ok(Number.isNaN(pythonFsum([1.0, NaN])));
    assert.throws(() => pythonFsum([1e308, 1e308]), /intermediate overflow in fsum/);
    assert.throws(() => pythonFsum([Infinity, -Infinity]), /-inf \+ inf in fsum/);
  });
});
