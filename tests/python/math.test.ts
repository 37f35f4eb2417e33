// Python's number semantics that JS does not give bit for bit: math.exp as glibc computes it, int/int true
// division, format(x, ".10g") (expected values from CPython 3.11 on glibc 2.36).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatG } from "../../src/python/float.ts";
import { pythonExp, trueDivide } from "../../src/python/math.ts";

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
