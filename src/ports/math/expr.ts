// The expression tree answers are parsed into: the part of SymPy that math-verify's answers use. Nodes stay as
// written (no automatic simplification), as latex2sympy builds them with `evaluate=False`; comparison evaluates.
import { gcd } from "../../python/math.ts";

export type Expr =
  | { kind: "integer"; value: bigint }
  /** A reduced fraction with denominator > 1, as SymPy's Rational. */
  | { kind: "rational"; num: bigint; den: bigint }
  /** A decimal as written: exact value `mantissa / 10^scale`. */
  | { kind: "float"; mantissa: bigint; scale: number }
  | { kind: "symbol"; name: string }
  | { kind: "constant"; name: "pi" | "E" | "oo" | "I" }
  | { kind: "add"; args: Expr[] }
  | { kind: "mul"; args: Expr[] }
  | { kind: "pow"; base: Expr; exp: Expr }
  | { kind: "function"; name: string; args: Expr[] }
  | { kind: "set"; items: Expr[] }
  | { kind: "tuple"; items: Expr[] }
  | { kind: "interval"; start: Expr; end: Expr; leftOpen: boolean; rightOpen: boolean }
  | { kind: "relation"; op: RelationOp; lhs: Expr; rhs: Expr }
  /** A chain such as `1 < x < 2` or `x = y = 3`, kept in written order. */
  | { kind: "and"; args: Expr[] }
  | { kind: "matrix"; rows: Expr[][] };

export type RelationOp = "=" | "!=" | "<" | "<=" | ">" | ">=";

export const integer = (value: bigint | number): Expr => ({ kind: "integer", value: BigInt(value) });
export const symbol = (name: string): Expr => ({ kind: "symbol", name });
export const constant = (name: "pi" | "E" | "oo" | "I"): Expr => ({ kind: "constant", name });
export const add = (...args: Expr[]): Expr => ({ kind: "add", args: args.flatMap((a) => (a.kind === "add" ? a.args : [a])) });
export const mul = (...args: Expr[]): Expr => ({ kind: "mul", args: args.flatMap((a) => (a.kind === "mul" ? a.args : [a])) });
export const pow = (base: Expr, exp: Expr): Expr => ({ kind: "pow", base, exp });
export const fn = (name: string, ...args: Expr[]): Expr => ({ kind: "function", name, args });
export const relation = (op: RelationOp, lhs: Expr, rhs: Expr): Expr => ({ kind: "relation", op, lhs, rhs });
export const neg = (x: Expr): Expr => (x.kind === "integer" ? integer(-x.value) : x.kind === "rational" ? rational(-x.num, x.den) : x.kind === "float" ? { ...x, mantissa: -x.mantissa } : mul(integer(-1), x));
export const divide = (a: Expr, b: Expr): Expr => mul(a, pow(b, integer(-1)));
/** `x %` as latex2sympy writes it: `Mul(x, 1/100)`, unevaluated. */
export const percentOf = (x: Expr): Expr => ({ kind: "mul", args: [x, rational(1n, 100n)] });
export const HALF: Expr = { kind: "rational", num: 1n, den: 2n };

export { gcd };

/** A reduced Rational, or an Integer when the denominator divides. */
export function rational(num: bigint, den: bigint): Expr {
  if (den === 0n) return num === 0n ? symbol("nan") : { kind: "constant", name: "oo" };
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num, den) || 1n;
  num /= g;
  den /= g;
  return den === 1n ? integer(num) : { kind: "rational", num, den };
}

/** A decimal literal (`"3.14"`, `"1e-3"`) as SymPy's Float; an integer literal as Integer. */
export function numberFromString(text: string): Expr {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new Error(`not a number: ${text}`);
  const [, sign, whole = "", fraction, exponent] = match;
  if (fraction === undefined && exponent === undefined) return integer(BigInt(sign + (whole || "0")));
  let mantissa = BigInt(sign + (whole + (fraction ?? "") || "0"));
  let scale = (fraction ?? "").length - Number(exponent ?? 0);
  if (scale < 0) {
    mantissa *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { kind: "float", mantissa, scale };
}

/** A structural key: equal keys ⇔ structurally equal trees (up to argument order of sets). */
export const exprKey = (e: Expr): string => JSON.stringify(e, (_key, value) => (typeof value === "bigint" ? value.toString() : value));

/** SymPy's FiniteSet: repeated elements kept once, first occurrence first. */
export function finiteSet(items: Expr[]): Expr {
  const seen = new Set<string>();
  return { kind: "set", items: items.filter((item) => !seen.has(exprKey(item)) && (seen.add(exprKey(item)), true)) };
}

export const isNumber = (e: Expr) => e.kind === "integer" || e.kind === "rational" || e.kind === "float";

/** Every node below `e` (and `e`), depth first. */
export function* walk(e: Expr): Generator<Expr> {
  yield e;
  for (const child of children(e)) yield* walk(child);
}

export function children(e: Expr): Expr[] {
  switch (e.kind) {
    case "add":
    case "mul":
    case "and":
      return e.args;
    case "function":
      return e.args;
    case "pow":
      return [e.base, e.exp];
    case "set":
    case "tuple":
      return e.items;
    case "interval":
      return [e.start, e.end];
    case "relation":
      return [e.lhs, e.rhs];
    case "matrix":
      return e.rows.flat();
    default:
      return [];
  }
}

export function freeSymbols(e: Expr): string[] {
  const names = new Set<string>();
  for (const node of walk(e)) if (node.kind === "symbol") names.add(node.name);
  return [...names].sort();
}

/** Structural equality, SymPy's `==` on unevaluated trees (argument order of + and × ignored). */
export function structurallyEqual(a: Expr, b: Expr): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "integer":
      return a.value === (b as typeof a).value;
    case "rational":
      return a.num === (b as typeof a).num && a.den === (b as typeof a).den;
    case "float": {
      const y = b as typeof a;
      return a.mantissa * 10n ** BigInt(y.scale) === y.mantissa * 10n ** BigInt(a.scale);
    }
    case "symbol":
      return a.name === (b as typeof a).name;
    case "constant":
      return a.name === (b as typeof a).name;
    case "add":
    case "mul":
    case "set":
      return sameMultiset(children(a), children(b));
    case "function":
      return a.name === (b as typeof a).name && sameList(a.args, (b as typeof a).args);
    case "interval": {
      const y = b as typeof a;
      return a.leftOpen === y.leftOpen && a.rightOpen === y.rightOpen && structurallyEqual(a.start, y.start) && structurallyEqual(a.end, y.end);
    }
    case "relation": {
      const y = b as typeof a;
      return a.op === y.op && structurallyEqual(a.lhs, y.lhs) && structurallyEqual(a.rhs, y.rhs);
    }
    case "matrix": {
      const y = b as typeof a;
      return a.rows.length === y.rows.length && a.rows.every((row, i) => sameList(row, y.rows[i]!));
    }
    default:
      return sameList(children(a), children(b));
  }
}

const sameList = (a: Expr[], b: Expr[]) => a.length === b.length && a.every((x, i) => structurallyEqual(x, b[i]!));

function sameMultiset(a: Expr[], b: Expr[]): boolean {
  if (a.length !== b.length) return false;
  const used = new Set<number>();
  return a.every((x) => {
    const i = b.findIndex((y, j) => !used.has(j) && structurallyEqual(x, y));
    if (i < 0) return false;
    used.add(i);
    return true;
  });
}

/** latex2sympy's is_expr_of_only_symbols: symbols combined by anything (also 1/x), no numbers. */
export function onlySymbols(e: Expr): boolean {
  if (e.kind === "symbol") return true;
  if (e.kind === "pow" && e.exp.kind === "integer" && e.exp.value === -1n && onlySymbols(e.base)) return true;
  const parts = children(e);
  return e.kind !== "interval" && parts.length > 0 && parts.every(onlySymbols);
}
