// SymPy's str() of a parsed answer, which NeMo Gym reports as `extracted_answer` (e.g. "83/499", "sqrt(2)",
// "(1 + sqrt(3))**4033"). Covers the printer's rules for the nodes answers produce: term order in sums
// (SymPy's as_ordered_terms), factor order and division in products, powers, sets and intervals.
import { approxValue, toNumber } from "./numeric.ts";
import type { Expr } from "./expr.ts";

const PREC = { add: 40, mul: 50, pow: 60, atom: 1000 } as const;

function precedence(e: Expr): number {
  switch (e.kind) {
    case "integer":
      return e.value < 0n ? PREC.add : PREC.atom;
    case "rational":
      return e.num < 0n ? PREC.add : PREC.mul;
    case "float":
      return e.mantissa < 0n ? PREC.add : PREC.atom;
    case "add":
      return PREC.add;
    case "mul":
      return isNegativeNumber(e.args[0]) ? PREC.add : PREC.mul;
    case "pow":
      return PREC.pow;
    case "relation":
      return 35;
    default:
      return PREC.atom;
  }
}

const isNegativeNumber = (e: Expr | undefined) =>
  e !== undefined && ((e.kind === "integer" && e.value < 0n) || (e.kind === "rational" && e.num < 0n) || (e.kind === "float" && e.mantissa < 0n));

/** Printed in parentheses when it binds no tighter than the context (the printer's strict=False). */
const parenthesize = (e: Expr, level: number) => (precedence(e) <= level ? `(${sympyStr(e)})` : sympyStr(e));

export function sympyStr(e: Expr): string {
  switch (e.kind) {
    case "integer":
      return e.value.toString();
    case "rational":
      return `${e.num}/${e.den}`;
    case "float":
      return floatStr(e.mantissa, e.scale);
    case "symbol":
      return e.name;
    case "constant":
      return e.name === "oo" ? "oo" : e.name;
    case "add":
      return addStr(e.args);
    case "mul":
      return mulStr(e.args);
    case "pow":
      return powStr(e.base, e.exp);
    case "function":
      return `${e.name}(${e.args.map(sympyStr).join(", ")})`;
    case "set":
      return e.items.length === 0 ? "EmptySet" : `{${orderedElements(e.items).map(sympyStr).join(", ")}}`;
    case "tuple":
      return e.items.length === 1 ? `(${sympyStr(e.items[0]!)},)` : `(${e.items.map(sympyStr).join(", ")})`;
    case "interval": {
      const name = e.leftOpen && e.rightOpen ? "Interval.open" : e.leftOpen ? "Interval.Lopen" : e.rightOpen ? "Interval.Ropen" : "Interval";
      return `${name}(${sympyStr(e.start)}, ${sympyStr(e.end)})`;
    }
    case "relation": {
      if (e.op === "=") return `Eq(${sympyStr(e.lhs)}, ${sympyStr(e.rhs)})`;
      if (e.op === "!=") return `Ne(${sympyStr(e.lhs)}, ${sympyStr(e.rhs)})`;
      return `${sympyStr(e.lhs)} ${e.op} ${sympyStr(e.rhs)}`;
    }
    case "and":
      return e.args.map((a) => `(${sympyStr(a)})`).join(" & ");
    case "matrix":
      return `Matrix([${e.rows.map((row) => `[${row.map(sympyStr).join(", ")}]`).join(", ")}])`;
  }
}

/** mpmath's 15-significant-digit rendering of a Float, trailing zeros kept ("0.500000000000000"). */
function floatStr(mantissa: bigint, scale: number): string {
  if (mantissa === 0n) return "0.0";
  const negative = mantissa < 0n;
  const digits = (negative ? -mantissa : mantissa).toString();
  const exponent = digits.length - 1 - scale; // decimal exponent of the leading digit
  let significant = digits.slice(0, 16).padEnd(16, "0");
  // Round to 15 digits, half up.
  let rounded = BigInt(significant.slice(0, 15)) + (Number(significant[15]) >= 5 ? 1n : 0n);
  let leadExponent = exponent;
  if (rounded.toString().length > 15) {
    rounded /= 10n;
    leadExponent++;
  }
  significant = rounded.toString();
  let body: string;
  if (leadExponent >= 15 || leadExponent < -5) {
    body = `${significant[0]}.${significant.slice(1)}e${leadExponent >= 0 ? "+" : "-"}${Math.abs(leadExponent)}`;
  } else if (leadExponent >= 0) {
    body = `${significant.slice(0, leadExponent + 1)}.${significant.slice(leadExponent + 1)}`;
  } else {
    body = `0.${"0".repeat(-leadExponent - 1)}${significant}`;
  }
  return (negative ? "-" : "") + body;
}

/** SymPy's factor order: the numeric coefficient, powers of numbers, E/pi, symbols by name, products, sums, functions. */
function factorKey(e: Expr): [number, number | string] {
  if (e.kind === "integer" || e.kind === "rational" || e.kind === "float") return [0, approxOrZero(e)];
  if (e.kind === "pow") {
    const [rank, key] = factorKey(e.base);
    return [rank === 0 ? 0.5 : rank, key];
  }
  if (e.kind === "constant") return [1, e.name === "E" ? 0 : 1];
  if (e.kind === "symbol") return [2, e.name];
  if (e.kind === "mul") return [3, 0];
  if (e.kind === "add") return [4, 0];
  return [5, e.kind === "function" ? e.name : ""];
}

function approxOrZero(e: Expr): number {
  const v = approxValue(e);
  return v ? toNumber(v) : 0;
}

const compareKeys = (a: [number, number | string], b: [number, number | string]) =>
  a[0] - b[0] || (typeof a[1] === "number" && typeof b[1] === "number" ? a[1] - b[1] : String(a[1]) < String(b[1]) ? -1 : String(a[1]) > String(b[1]) ? 1 : 0);

function mulStr(args: Expr[]): string {
  const factors = [...args].sort((a, b) => compareKeys(factorKey(a), factorKey(b)));
  let sign = "";
  const first = factors[0];
  if (first && isNegativeNumber(first)) {
    sign = "-";
    const positive = negateNumber(first);
    if (positive.kind === "integer" && positive.value === 1n && factors.length > 1) factors.shift();
    else factors[0] = positive;
  }
  const numerator: Expr[] = [];
  const denominator: { factor: Expr; extraParens: boolean }[] = [];
  for (const factor of factors) {
    if (factor.kind === "pow" && isNegativeNumber(factor.exp)) {
      const exponent = negateNumber(factor.exp);
      const isOne = exponent.kind === "integer" && exponent.value === 1n;
      denominator.push({ factor: isOne ? factor.base : { kind: "pow", base: factor.base, exp: exponent }, extraParens: isOne && factor.base.kind === "mul" });
    } else if (factor.kind === "rational") {
      if (factor.num !== 1n) numerator.push({ kind: "integer", value: factor.num });
      denominator.push({ factor: { kind: "integer", value: factor.den }, extraParens: false });
    } else numerator.push(factor);
  }
  if (numerator.length === 0) numerator.push({ kind: "integer", value: 1n });
  const top = numerator.map((f) => parenthesize(f, PREC.mul)).join("*");
  if (denominator.length === 0) return sign + top;
  const bottom = denominator.map(({ factor, extraParens }) => (extraParens ? `(${parenthesize(factor, PREC.mul)})` : parenthesize(factor, PREC.mul)));
  return denominator.length === 1 ? `${sign}${top}/${bottom[0]}` : `${sign}${top}/(${bottom.join("*")})`;
}

function negateNumber(e: Expr): Expr {
  if (e.kind === "integer") return { kind: "integer", value: -e.value };
  if (e.kind === "rational") return { ...e, num: -e.num };
  if (e.kind === "float") return { ...e, mantissa: -e.mantissa };
  return e;
}

function powStr(base: Expr, exp: Expr): string {
  if (exp.kind === "rational" && exp.den === 2n && exp.num === 1n) return `sqrt(${sympyStr(base)})`;
  if (exp.kind === "rational" && exp.den === 2n && exp.num === -1n) return `1/sqrt(${sympyStr(base)})`;
  if (exp.kind === "integer" && exp.value === -1n) return `1/${parenthesize(base, PREC.pow)}`;
  return `${parenthesize(base, PREC.pow)}**${parenthesize(exp, PREC.pow)}`;
}

/** SymPy's as_ordered_terms: terms with variables first (lex by exponents), then numeric terms by value. */
function addStr(args: Expr[]): string {
  const [first, second] = args;
  const keepOrder =
    args.length === 2 &&
    first !== undefined && second !== undefined &&
    (first.kind === "integer" || first.kind === "rational" || first.kind === "float" || first.kind === "constant") &&
    approxOrZero(first) > 0 &&
    second.kind === "mul" && second.args.length === 2 && isNegativeNumber(second.args[0]);
  const terms = keepOrder ? args : orderTerms(args);
  let out = "";
  terms.forEach((term, i) => {
    const text = sympyStr(term);
    if (i === 0) out = text;
    else out += text.startsWith("-") ? ` - ${text.slice(1)}` : ` + ${text}`;
  });
  return out;
}

function orderTerms(args: Expr[]): Expr[] {
  const keyed = args.map((term) => ({ term, monomial: monomial(term), coefficient: numericPart(term) }));
  const symbols = [...new Set(keyed.flatMap((k) => [...k.monomial.keys()]))].sort();
  const vector = (m: Map<string, number>) => symbols.map((s) => m.get(s) ?? 0);
  return keyed
    .sort((a, b) => {
      const [va, vb] = [vector(a.monomial), vector(b.monomial)];
      for (let i = 0; i < symbols.length; i++) if (va[i] !== vb[i]) return vb[i]! - va[i]!;
      return a.coefficient - b.coefficient;
    })
    .map((k) => k.term);
}

const hasVariables = (e: Expr): boolean => e.kind === "symbol" || (e.kind !== "constant" && childrenOf(e).some(hasVariables));
const childrenOf = (e: Expr): Expr[] => (e.kind === "add" || e.kind === "mul" ? e.args : e.kind === "pow" ? [e.base, e.exp] : e.kind === "function" ? e.args : []);

/** The variable part of a term: generator (a symbol, or the printed non-numeric factor) → exponent. */
function monomial(term: Expr): Map<string, number> {
  const result = new Map<string, number>();
  for (const factor of term.kind === "mul" ? term.args : [term]) {
    if (!hasVariables(factor)) continue;
    if (factor.kind === "pow" && factor.exp.kind === "integer" && factor.base.kind === "symbol") result.set(factor.base.name, (result.get(factor.base.name) ?? 0) + Number(factor.exp.value));
    else {
      const name = factor.kind === "symbol" ? factor.name : sympyStr(factor);
      result.set(name, (result.get(name) ?? 0) + 1);
    }
  }
  return result;
}

/** The numeric factors' value (as a float, ±inf when huge), SymPy's complex(coefficient). */
function numericPart(term: Expr): number {
  let value = 1;
  for (const factor of term.kind === "mul" ? term.args : [term]) {
    if (hasVariables(factor)) continue;
    const v = approxValue(factor);
    value *= v ? toNumber(v) : 0;
  }
  return value;
}

/** FiniteSet's canonical order: numbers ascending, others after, as written. */
function orderedElements(items: Expr[]): Expr[] {
  const numeric = items.filter((i) => !hasVariables(i) && approxValue(i) !== null);
  const other = items.filter((i) => !numeric.includes(i));
  return [...numeric.sort((a, b) => approxOrZero(a) - approxOrZero(b)), ...other];
}
