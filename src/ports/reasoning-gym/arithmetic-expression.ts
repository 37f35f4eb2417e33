// A safe evaluator for the arithmetic answers of countdown and puzzle24, which the library reads with SymPy's
// `parse_expr` (an `eval`). Nothing is evaluated as code: the grammar is Python's for numbers, `+ - * / **`,
// unary signs and parentheses, computed in exact rationals as SymPy does for integers (decimal literals are
// read exactly too), with SymPy's `zoo` (x/0) and `nan` (0/0, zoo − zoo, …). Anything else — names, function
// calls, `!`, `%`, `//`, `^`, comparisons — is refused with an ExpressionError (SymPy would read some of them:
// see the README).

import { gcd, trueDivide } from "../../python/math.ts";

export class ExpressionError extends Error {
  override name = "ExpressionError";
}

/** A SymPy number: an exact rational (d > 0, lowest terms), a float (from a non-integer power), zoo or nan. */
export type Value = { kind: "rational"; n: bigint; d: bigint } | { kind: "float"; x: number } | { kind: "zoo" } | { kind: "nan" };

const ZOO: Value = { kind: "zoo" };
const NAN: Value = { kind: "nan" };


function rational(n: bigint, d: bigint): Value {
  if (d === 0n) return n === 0n ? NAN : ZOO;
  if (d < 0n) (n = -n), (d = -d);
  const g = gcd(n, d);
  return { kind: "rational", n: n / g, d: d / g };
}

const toFloat = (v: Value & { kind: "rational" }): number => trueDivide(v.n, v.d);
const isZero = (v: Value): boolean => (v.kind === "rational" && v.n === 0n) || (v.kind === "float" && v.x === 0);

function floatValue(x: number): Value {
  if (Number.isNaN(x)) return NAN;
  return Number.isFinite(x) ? { kind: "float", x } : ZOO;
}

function add(a: Value, b: Value): Value {
  if (a.kind === "nan" || b.kind === "nan") return NAN;
  if (a.kind === "zoo" || b.kind === "zoo") return a.kind === "zoo" && b.kind === "zoo" ? NAN : ZOO;
  if (a.kind === "rational" && b.kind === "rational") return rational(a.n * b.d + b.n * a.d, a.d * b.d);
  return floatValue((a.kind === "float" ? a.x : toFloat(a)) + (b.kind === "float" ? b.x : toFloat(b)));
}

const negate = (a: Value): Value => (a.kind === "rational" ? { ...a, n: -a.n } : a.kind === "float" ? { kind: "float", x: -a.x } : a);

function multiply(a: Value, b: Value): Value {
  if (a.kind === "nan" || b.kind === "nan") return NAN;
  if (a.kind === "zoo" || b.kind === "zoo") return isZero(a) || isZero(b) ? NAN : ZOO;
  if (a.kind === "rational" && b.kind === "rational") return rational(a.n * b.n, a.d * b.d);
  return floatValue((a.kind === "float" ? a.x : toFloat(a)) * (b.kind === "float" ? b.x : toFloat(b)));
}

function divide(a: Value, b: Value): Value {
  if (a.kind === "nan" || b.kind === "nan") return NAN;
  if (b.kind === "zoo") return a.kind === "zoo" ? NAN : rational(0n, 1n);
  if (isZero(b)) return isZero(a) ? NAN : ZOO;
  if (a.kind === "zoo") return ZOO;
  if (a.kind === "rational" && b.kind === "rational") return rational(a.n * b.d, a.d * b.n);
  return floatValue((a.kind === "float" ? a.x : toFloat(a)) / (b.kind === "float" ? b.x : toFloat(b)));
}

// Powers beyond this many result bits are refused (SymPy would grind through them; no answer needs them).
const MAX_POWER_BITS = 1_000_000;

const bitLength = (n: bigint): number => (n === 0n ? 0 : (n < 0n ? -n : n).toString(2).length);

/** The exact k-th root of n ≥ 0 when there is one. */
function exactRoot(n: bigint, k: bigint): bigint | undefined {
  if (n < 2n) return n;
  let root = BigInt(Math.round(Number(n) ** (1 / Number(k))));
  for (const candidate of [root - 1n, root, root + 1n]) if (candidate >= 0n && candidate ** k === n) return candidate;
  return undefined;
}

function power(base: Value, exponent: Value): Value {
  if (exponent.kind === "rational" && exponent.n === 0n) return rational(1n, 1n);
  if (base.kind === "nan" || exponent.kind === "nan" || exponent.kind === "zoo") return NAN;
  if (base.kind === "zoo") return exponent.kind === "rational" ? (exponent.n > 0n ? ZOO : rational(0n, 1n)) : NAN;
  if (base.kind === "rational" && exponent.kind === "rational" && exponent.d === 1n) {
    const e = exponent.n < 0n ? -exponent.n : exponent.n;
    const bits = Math.max(bitLength(base.n), bitLength(base.d)) * Number(e);
    if (bits > MAX_POWER_BITS) throw new ExpressionError("power too large to evaluate");
    if (exponent.n < 0n && base.n === 0n) return ZOO;
    return exponent.n > 0n ? rational(base.n ** e, base.d ** e) : rational(base.d ** e, base.n ** e);
  }
  if (base.kind === "rational" && exponent.kind === "rational" && base.n >= 0n && exponent.d < 1000n) {
    // A perfect power stays exact (4**(1/2) is 2 in SymPy); any other root is irrational, a float here.
    const num = exactRoot(base.n, exponent.d);
    const den = exactRoot(base.d, exponent.d);
    if (num !== undefined && den !== undefined) return power(rational(num, den), rational(exponent.n, 1n));
  }
  const x = base.kind === "float" ? base.x : toFloat(base);
  const y = exponent.kind === "float" ? exponent.x : toFloat(exponent as Value & { kind: "rational" });
  if (x < 0) throw new ExpressionError("a negative base to a non-integer power is complex");
  if (x === 0 && y < 0) return ZOO;
  return floatValue(x ** y);
}

// ---- parsing ----

type Token = { type: "number"; text: string } | { type: "op"; text: string };

// Python's number tokens: a decimal integer (no leading zeros unless all zeros), or a float with a point
// and/or an exponent; `_` only between digits.
const DIGITS = "[0-9](?:_?[0-9])*";
const NUMBER = new RegExp(`^(?:(?:${DIGITS})?\\.${DIGITS}(?:[eE][+-]?${DIGITS})?|${DIGITS}\\.(?:[eE][+-]?${DIGITS})?|${DIGITS}[eE][+-]?${DIGITS}|0(?:_?0)*|[1-9](?:_?[0-9])*)`);

function tokenize(text: string): Token[] {
  // Blank lines around the expression are ignored (eval's rules); inside, a line break needs open brackets.
  const source = text.replace(/^[ \t\f\r\n]+|[ \t\f\r\n]+$/g, "");
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === " " || ch === "\t" || ch === "\f" || ((ch === "\n" || ch === "\r") && depth > 0)) {
      i++;
      continue;
    }
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (source.startsWith("**", i)) {
      tokens.push({ type: "op", text: "**" });
      i += 2;
      continue;
    }
    if ("+-*/()".includes(ch)) {
      if (ch === "/" && source[i + 1] === "/") throw new ExpressionError("'//' is not supported");
      tokens.push({ type: "op", text: ch });
      i++;
      continue;
    }
    const number = NUMBER.exec(source.slice(i));
    if (number) {
      const next = source[i + number[0].length] ?? "";
      // "2x", "1j", "03" and "1_" are not one Python number followed by an operator.
      if (/[\p{L}\p{N}_.]/u.test(next)) throw new ExpressionError(`unsupported token after ${number[0]}`);
      tokens.push({ type: "number", text: number[0] });
      i += number[0].length;
      continue;
    }
    throw new ExpressionError(`unsupported character ${JSON.stringify(ch)}`);
  }
  return tokens;
}

/** A number token's exact value. */
function literal(text: string): Value {
  const clean = text.replace(/_/g, "");
  const match = /^([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(clean)!;
  const whole = match[1] ?? "";
  const fraction = match[2] ?? "";
  let n = BigInt(whole + fraction || "0");
  let d = 10n ** BigInt(fraction.length);
  if (match[3] !== undefined) {
    const e = BigInt(match[3]);
    if (e > 100_000n || e < -100_000n) throw new ExpressionError("exponent too large");
    if (e >= 0n) n *= 10n ** e;
    else d *= 10n ** -e;
  }
  return rational(n, d);
}

/** Python's expression grammar restricted to arithmetic: sum → term (('+'|'-') term)*, etc. */
export function evaluateArithmetic(source: string): Value {
  const tokens = tokenize(source);
  let position = 0;
  const peek = (): string | undefined => (tokens[position]?.type === "op" ? tokens[position]!.text : undefined);

  const sum = (): Value => {
    let value = term();
    for (let op = peek(); op === "+" || op === "-"; op = peek()) {
      position++;
      const right = term();
      value = op === "+" ? add(value, right) : add(value, negate(right));
    }
    return value;
  };
  const term = (): Value => {
    let value = factor();
    for (let op = peek(); op === "*" || op === "/"; op = peek()) {
      position++;
      const right = factor();
      value = op === "*" ? multiply(value, right) : divide(value, right);
    }
    return value;
  };
  const factor = (): Value => {
    const op = peek();
    if (op === "+" || op === "-") {
      position++;
      const value = factor();
      return op === "-" ? negate(value) : value;
    }
    return powerExpression();
  };
  const powerExpression = (): Value => {
    const base = atom();
    if (peek() === "**") {
      position++;
      return power(base, factor()); // right-associative, and `2**-1` is allowed
    }
    return base;
  };
  const atom = (): Value => {
    const token = tokens[position];
    if (!token) throw new ExpressionError("unexpected end of expression");
    position++;
    if (token.type === "number") return literal(token.text);
    if (token.text === "(") {
      const value = sum();
      if (peek() !== ")") throw new ExpressionError("expected ')'");
      position++;
      return value;
    }
    throw new ExpressionError(`unexpected ${token.text}`);
  };

  const value = sum();
  if (position !== tokens.length) throw new ExpressionError("unexpected trailing tokens");
  return value;
}

/** SymPy's `float(value)`: zoo raises (a complex infinity), nan is NaN. */
export function valueToFloat(value: Value): number {
  if (value.kind === "rational") return toFloat(value);
  if (value.kind === "float") return value.x;
  if (value.kind === "nan") return NaN;
  throw new TypeError("Cannot convert complex to float");
}

/** SymPy's `int(value)`: truncated toward zero; zoo and nan raise. */
export function valueToInt(value: Value): bigint {
  if (value.kind === "rational") return value.n / value.d;
  if (value.kind === "float") return BigInt(Math.trunc(value.x));
  throw new TypeError(`Cannot convert ${value.kind} to int`);
}
