// math-verify's verify(gold, target, float_rounding=6): the first comparison that succeeds decides. Relations
// (x = 5 against 5 takes the right side), sets and intervals (order-free, open/closed bounds), tuples (ordered),
// symbols (text answers), then numbers: with a decimal on either side both are rounded to 6 places, otherwise
// exact rational equality, then numeric equality (also at random points when variables remain — SymPy's
// simplify(a - b) == 0 here).
import { noteGap, spend } from "./budget.ts";
import { add, children, freeSymbols, isNumber, mul, neg, onlySymbols, structurallyEqual, type Expr } from "./expr.ts";
import { approxEqual, approxValue, exactValue, roundedExact, toNumber } from "./numeric.ts";
import { relationAsSet, unwrapFunctions } from "./as-set.ts";
import { realSetOf, sameSet } from "./real-sets.ts";
import type { Candidate } from "./extract.ts";
import { pythonStrip } from "../../python/str.ts";

export const FLOAT_ROUNDING = 6;

/** True if any gold candidate matches any predicted candidate (strings compare as trimmed strings). */
export function verifyCandidates(gold: Candidate[], predicted: Candidate[]): boolean {
  for (const g of gold) {
    for (const p of predicted) {
      if (typeof g === "string" || typeof p === "string") {
        if (typeof g === "string" && typeof p === "string" && pythonStrip(g) !== "" && pythonStrip(g) === pythonStrip(p)) return true;
        continue;
      }
      try {
        if (expressionsEqual(g, p)) return true;
      } catch (error) {
        if ((error as Error).name === "MathWorkLimitError") throw error;
      }
    }
  }
  return false;
}

const isRelation = (e: Expr) => e.kind === "relation" || (e.kind === "and" && e.args.length > 0 && e.args.every((a) => a.kind === "relation"));
const isEquation = (e: Expr) =>
  (e.kind === "relation" && e.op === "=") || (e.kind === "and" && e.args.length > 0 && e.args.every((a) => a.kind === "relation" && a.op === "="));
const firstRelation = (e: Expr) => (e.kind === "and" ? e.args[0]! : e) as Extract<Expr, { kind: "relation" }>;
const lastRelation = (e: Expr): Extract<Expr, { kind: "relation" }> => (e.kind === "and" ? lastRelation(e.args.at(-1)!) : (e as Extract<Expr, { kind: "relation" }>));
/** `x = 1`, or a chain of equations starting with a bare variable. */
const isAssignment = (e: Expr) => (e.kind === "relation" && e.op === "=" && onlySymbols(e.lhs)) || (isEquation(e) && e.kind === "and" && onlySymbols(firstRelation(e).lhs));

export function expressionsEqual(goldIn: Expr, predIn: Expr): boolean {
  spend();
  let gold = goldIn;
  let pred = predIn;
  const goldAssignment = isAssignment(gold);
  const predAssignment = isAssignment(pred);
  const goldEquation = isEquation(gold);
  const predEquation = isEquation(pred);
  if (goldAssignment) gold = { kind: "relation", op: "=", lhs: firstRelation(gold).lhs, rhs: lastRelation(gold).rhs };
  if (predAssignment) pred = { kind: "relation", op: "=", lhs: firstRelation(pred).lhs, rhs: lastRelation(pred).rhs };
  // The gold's form decides: "x = 1" against "1" compares 1 with 1, but "2x + z = 1" stays an equation.
  if (predEquation && !goldEquation) pred = lastRelation(pred).rhs;
  else if (goldAssignment && !predEquation) gold = lastRelation(gold).rhs;

  // "1 < x < 2" against "(1, 2)": the relation as the set it describes.
  if (isRelation(gold) && isSetOrTuple(pred) && pred.kind !== "tuple") gold = relationAsSet(gold) ?? gold;

  if (structurallyEqual(gold, pred)) return true;
  if (isRelation(gold) && isRelation(pred)) return relationsEqual(gold, pred);
  if (isSetOrTuple(gold) || isSetOrTuple(pred)) return setsEqual(gold, pred);
  if (gold.kind === "symbol" || pred.kind === "symbol") return symbolsEqual(gold, pred);
  if (containsMatrix(gold) || containsMatrix(pred)) return matricesEqual(gold, pred);
  return numericallyEqual(gold, pred) || symbolicallyEqual(gold, pred);
}

const isSetOperation = (e: Expr) => e.kind === "function" && ["Union", "Intersection", "Complement"].includes(e.name);
const isSetOrTuple = (e: Expr) => e.kind === "set" || e.kind === "interval" || e.kind === "tuple" || isSetOperation(e);

function relationsEqual(gold: Expr, pred: Expr): boolean {
  if (gold.kind === "and" && pred.kind === "and") return gold.args.length === pred.args.length && gold.args.every((g, i) => relationsEqual(g, pred.args[i]!));
  if (gold.kind !== "relation" || pred.kind !== "relation") return false;
  const difference = (r: typeof gold) => add(r.lhs, neg(r.rhs));
  if (gold.op === pred.op && expressionsEqual(difference(gold), difference(pred))) return true;
  const flipped: Record<string, string> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=" };
  if (flipped[gold.op] === pred.op && expressionsEqual(difference(gold), add(pred.rhs, neg(pred.lhs)))) return true;
  // Equations with the same solution set (SymPy's solve): for one variable, linear in it, solve exactly.
  if (gold.op === "=" && pred.op === "=") return sameSolutions(gold, pred);
  return false;
}

/**
 * SymPy's solve on both sides, approximated: the equations have the same solutions when lhs − rhs of one is a
 * constant non-zero multiple of the other's (sampled at fixed points).
 */
function sameSolutions(gold: Extract<Expr, { kind: "relation" }>, pred: Extract<Expr, { kind: "relation" }>): boolean {
  const names = freeSymbols(gold);
  if (names.length === 0 || freeSymbols(pred).join() !== names.join()) return false;
  const [f, g] = [add(gold.lhs, neg(gold.rhs)), add(pred.lhs, neg(pred.rhs))];
  let ratio: number | null = null;
  let agreed = 0;
  for (let trial = 0; trial < SAMPLE_POINTS.length; trial++) {
    const values = samplePoint(names, trial);
    const [a, b] = [approxValue(f, values), approxValue(g, values)];
    if (!a || !b || b.m === 0 || a.m === 0) continue;
    const r = toNumber(a) / toNumber(b);
    if (!Number.isFinite(r) || r === 0) return false;
    if (ratio === null) ratio = r;
    else if (Math.abs(r - ratio) > 1e-9 * Math.abs(ratio)) return false;
    agreed++;
  }
  return agreed >= 3;
}

type Interval = Extract<Expr, { kind: "interval" }>;

/** SymPy always makes an infinite end open. */
const isInfinite = (e: Expr) => (e.kind === "constant" && e.name === "oo") || (e.kind === "mul" && e.args.length === 2 && e.args[1]!.kind === "constant" && e.args[1]!.name === "oo");
const leftOpen = (i: Interval) => i.leftOpen || isInfinite(i.start);
const rightOpen = (i: Interval) => i.rightOpen || isInfinite(i.end);

function setsEqual(gold: Expr, pred: Expr): boolean {
  const asSet = (e: Expr): Expr => (isSetOrTuple(e) ? e : { kind: "set", items: [e] });
  const a = asSet(gold);
  const b = asSet(pred);
  if (a.kind === "interval" && b.kind === "interval") {
    return leftOpen(a) === leftOpen(b) && rightOpen(a) === rightOpen(b) && expressionsEqual(a.start, b.start) && expressionsEqual(a.end, b.end);
  }
  if (structurallyEqual(a, b)) return true;
  // SymPy's symmetric_difference(...).is_empty: unions of intervals equal as sets (exact endpoints only).
  if (isSetOperation(a) || isSetOperation(b)) {
    const [x, y] = [realSetOf(a), realSetOf(b)];
    if (x && y && sameSet(x, y)) return true;
    if (!x || !y) noteGap("a union or intersection of intervals with an endpoint that is not rational (SymPy compares such sets; this port does not)");
  }
  const elements = (e: Expr) => (e.kind === "set" ? dedupe(e.items) : e.kind === "tuple" ? e.items : null);
  const [aItems, bItems] = [elements(a), elements(b)];
  if (aItems && bItems) {
    if (aItems.length !== bItems.length) return false;
    // A set against a set compares order-free; anything with a tuple compares in order (as written).
    if (a.kind === "set" && b.kind === "set") return matchesAsSets(aItems, bItems);
    return aItems.every((item, i) => expressionsEqual(item, bItems[i]!));
  }
  // "(1, 2)" reads as an open interval; "1, 2" as a set of two: accepted as the same pair.
  if (a.kind === "interval" && bItems && a.leftOpen && a.rightOpen && bItems.length === 2) return expressionsEqual(a.start, bItems[0]!) && expressionsEqual(a.end, bItems[1]!);
  if (b.kind === "interval" && aItems && b.leftOpen && b.rightOpen && aItems.length === 2) return expressionsEqual(aItems[0]!, b.start) && expressionsEqual(aItems[1]!, b.end);
  return false;
}

/** FiniteSet drops repeated elements. */
function dedupe(items: Expr[]): Expr[] {
  const out: Expr[] = [];
  for (const item of items) if (!out.some((o) => structurallyEqual(o, item))) out.push(item);
  return out;
}

/** Each gold element pairs with a distinct equal predicted element (small sets: exact matching by search). */
function matchesAsSets(gold: Expr[], pred: Expr[]): boolean {
  const used = new Array<boolean>(pred.length).fill(false);
  const assign = (i: number): boolean => {
    if (i === gold.length) return true;
    for (let j = 0; j < pred.length; j++) {
      spend();
      if (used[j] || !expressionsEqual(gold[i]!, pred[j]!)) continue;
      used[j] = true;
      if (assign(i + 1)) return true;
      used[j] = false;
    }
    return false;
  };
  return assign(0);
}

function symbolsEqual(gold: Expr, pred: Expr): boolean {
  const isE = (e: Expr) => e.kind === "constant" && e.name === "E";
  if ((gold.kind === "symbol" && gold.name.toLowerCase() === "e" && isE(pred)) || (pred.kind === "symbol" && pred.name.toLowerCase() === "e" && isE(gold))) return true;
  // "\text{abc}" against "abc" (read as a·b·c).
  const concatenated = (e: Expr) => (e.kind === "mul" && e.args.every((a) => a.kind === "symbol" || isE(a)) ? e.args.map((a) => (a.kind === "symbol" ? a.name : "e")).join("") : null);
  if (gold.kind === "symbol" && concatenated(pred) !== null) return gold.name.toLowerCase() === concatenated(pred)!.toLowerCase();
  if (pred.kind === "symbol" && concatenated(gold) !== null) return pred.name.toLowerCase() === concatenated(gold)!.toLowerCase();
  if (gold.kind === "symbol" && pred.kind === "symbol") {
    const name = (s: string) => (s.length > 1 ? s.toLowerCase() : s);
    return name(gold.name) === name(pred.name);
  }
  return false;
}

function matricesEqual(gold: Expr, pred: Expr): boolean {
  const [a, b] = [asMatrix(gold), asMatrix(pred)];
  if (!a || !b || a.length !== b.length || a[0]?.length !== b[0]?.length) return false;
  return a.every((row, i) => row.every((cell, j) => expressionsEqual(cell, b[i]![j]!)));
}

/** A matrix expression (sums, scalar and matrix products of matrices) as its entries; null if not one. */
function asMatrix(e: Expr): Expr[][] | null {
  spend();
  if (e.kind === "matrix") return e.rows;
  if (e.kind === "add") {
    const terms = e.args.map(asMatrix);
    if (terms.some((t) => !t || t.length !== terms[0]!.length || t[0]!.length !== terms[0]![0]!.length)) return null;
    return terms[0]!.map((row, i) => row.map((_, j) => add(...terms.map((t) => t![i]![j]!))));
  }
  if (e.kind === "mul") {
    let product: Expr[][] | null = null;
    let scalars: Expr[] = [];
    for (const factor of e.args) {
      const m = factor.kind === "matrix" || factor.kind === "add" || factor.kind === "mul" ? asMatrix(factor) : null;
      if (!m) {
        if (factor.kind === "matrix") return null;
        scalars.push(factor);
        continue;
      }
      if (!product) product = m;
      else {
        if (product[0]!.length !== m.length) return null;
        const left: Expr[][] = product;
        product = left.map((row) => m[0]!.map((_, j) => add(...row.map((cell, k) => mul(cell, m[k]![j]!)))));
      }
    }
    if (!product) return null;
    if (scalars.length > 0) product = product.map((row) => row.map((cell) => mul(...scalars, cell)));
    scalars = [];
    return product;
  }
  return null;
}

const containsMatrix = (e: Expr): boolean => e.kind === "matrix" || ((e.kind === "add" || e.kind === "mul") && e.args.some(containsMatrix));

/** A number, or a number written as a percentage (latex2sympy's `x * 1/100`). */
function atomicOrPercent(e: Expr, float: boolean): boolean {
  const atomic = (x: Expr) => (float ? x.kind === "float" : isNumber(x));
  return atomic(e) || (e.kind === "mul" && e.args.length === 2 && e.args[1]!.kind === "rational" && e.args[1]!.num === 1n && e.args[1]!.den === 100n && atomic(e.args[0]!));
}

function numericallyEqual(gold: Expr, pred: Expr): boolean {
  if (atomicOrPercent(gold, false) || atomicOrPercent(pred, false)) {
    if (atomicOrPercent(gold, true) || atomicOrPercent(pred, true)) return roundedEqual(gold, pred);
    const [a, b] = [exactValue(gold), exactValue(pred)];
    return a !== null && b !== null && a.n === b.n && a.d === b.d;
  }
  if (freeSymbols(gold).length > 0 || freeSymbols(pred).length > 0) return false;
  const [a, b] = [approxValue(gold), approxValue(pred)];
  return a !== null && b !== null && approxEqual(a, b);
}

/** Both sides rounded to 6 decimals (SymPy's `round(6)`), exactly when both are rational. */
function roundedEqual(gold: Expr, pred: Expr): boolean {
  const [a, b] = [exactValue(gold), exactValue(pred)];
  if (a && b) return roundedExact(a, FLOAT_ROUNDING) === roundedExact(b, FLOAT_ROUNDING);
  const [x, y] = [approxValue(gold), approxValue(pred)];
  if (!x || !y) return false;
  const [u, v] = [toNumber(x), toNumber(y)];
  if (Number.isFinite(u) && Number.isFinite(v) && Math.abs(u) < 1e15 && Math.abs(v) < 1e15) return Math.round(u * 1e6) === Math.round(v * 1e6);
  return approxEqual(x, y);
}

/** Prefix of the sampled stand-in for f(x): no parsed symbol starts with it. */
const OPAQUE = "\u0000";

const SAMPLE_POINTS = [0.5772156649, 1.3247179572, 2.7182818, 0.9159655942, 1.6180339887, 2.2360679775];

const samplePoint = (names: string[], trial: number) => new Map(names.map((name, i) => [name, SAMPLE_POINTS[(trial + i * 3) % SAMPLE_POINTS.length]! + i * 0.1]));

/** simplify(gold - pred) == 0, decided by evaluating both at fixed pseudo-random points. */
function symbolicallyEqual(goldIn: Expr, predIn: Expr): boolean {
  // An undefined function's value, f(x), is an unknown of its own for simplify.
  const [gold, pred] = [unwrapFunctions(goldIn, OPAQUE), unwrapFunctions(predIn, OPAQUE)];
  const names = [...new Set([...freeSymbols(gold), ...freeSymbols(pred)])];
  if (names.length === 0) {
    // Constants only (8^{1/3} against 2): simplify settles it; exact values when both have one, else
    // their approximate values decide here.
    const [x, y] = [exactValue(gold), exactValue(pred)];
    if (x && y) return x.n === y.n && x.d === y.d;
    const [a, b] = [approxValue(gold), approxValue(pred)];
    return a !== null && b !== null && approxEqual(a, b);
  }
  let agreed = 0;
  for (let trial = 0; trial < SAMPLE_POINTS.length; trial++) {
    const values = samplePoint(names, trial);
    const [a, b] = [approxValue(gold, values), approxValue(pred, values)];
    if (!a || !b) continue;
    if (!approxEqual(a, b)) return false;
    agreed++;
  }
  return agreed >= 3;
}

