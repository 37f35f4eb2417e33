// Python's float arithmetic, as the calculator's eleven functions meet it: the same results (libm.ts
// rounds like glibc) and the same exceptions, whose str() NeMo Gym sends back as a 500's detail.
import * as libm from "./libm.ts";
import { complexRepr } from "../../src/python/float.ts";
import { PyException } from "../../src/python/exception.ts";

/** A complex result (a negative number to a fractional power); pydantic refuses it as a float. */
export class Complex {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}
  toString(): string {
    return complexRepr(this.re, this.im);
  }
}

const DOMAIN_ERROR = () => new PyException("ValueError", "math domain error");

/** `x / y` on floats. */
export function floatDivide(x: number, y: number): number {
  if (y === 0) throw new PyException("ZeroDivisionError", "float division by zero");
  return x / y;
}

/** `math.sin(x)` / `math.cos(x)`: NaN passes through, an infinity is a domain error. */
export function mathSin(x: number): number {
  if (Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) throw DOMAIN_ERROR();
  return libm.sin(x);
}

export function mathCos(x: number): number {
  if (Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) throw DOMAIN_ERROR();
  return libm.cos(x);
}

/** CPython's natural log of a float: log(0) and log(negative) are domain errors, log(inf) is inf. */
function naturalLog(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (!(x > 0)) throw DOMAIN_ERROR();
  return libm.ln(x);
}

/** `math.log(x, base)` = log(x) / log(base), each a libm log, then a float division. */
export function mathLog(x: number, base: number): number {
  const numerator = naturalLog(x);
  return floatDivide(numerator, naturalLog(base));
}

const isOddInteger = (y: number) => Math.abs(y) % 2 === 1;

/** `x ** y` on floats, CPython's special cases first, then C's pow. */
export function floatPow(x: number, y: number): number | Complex {
  if (y === 0) return 1;
  if (Number.isNaN(x)) return x;
  if (Number.isNaN(y)) return x === 1 ? 1 : y;
  if (!Number.isFinite(y)) {
    const magnitude = Math.abs(x);
    if (magnitude === 1) return 1;
    return y > 0 === magnitude > 1 ? Infinity : 0;
  }
  if (!Number.isFinite(x)) {
    if (y > 0) return isOddInteger(y) ? x : Infinity;
    return isOddInteger(y) && x < 0 ? -0 : 0;
  }
  if (x === 0) {
    if (y < 0) throw new PyException("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    return isOddInteger(y) ? x : 0;
  }
  let base = x;
  let negate = false;
  if (base < 0) {
    if (y !== Math.floor(y)) return complexPow(base, y);
    base = -base;
    negate = isOddInteger(y);
  }
  if (base === 1) return negate ? -1 : 1;
  const result = libm.pow(base, y);
  if (!Number.isFinite(result)) throw new PyException("OverflowError", "(34, 'Numerical result out of range')");
  return negate ? -result : result;
}

/** CPython's complex `x ** y` for a negative real x and a real, non-integral y: |x|^y · e^(iπy). */
function complexPow(x: number, y: number): Complex {
  const length = -x === 1 ? 1 : libm.pow(-x, y);
  const phase = Math.PI * y; // atan2(0, x) is π for x < 0
  const re = length * libm.cos(phase);
  const im = length * libm.sin(phase);
  if (!Number.isFinite(re) || !Number.isFinite(im)) throw new PyException("OverflowError", "complex exponentiation");
  return new Complex(re, im);
}
