// SymPy's `unwrap_fcs(relation).as_set()`, which math-verify applies to a gold inequality when the prediction is
// a set: `1 < x < 2` is (1, 2), `0 < f(x) < 1` is (0, 1) (f(x) taken as one unknown), `1 ≤ |z| ≤ 3/2` is
// [-3/2, -1] ∪ [1, 3/2]. Only one-variable relations are turned into sets, as SymPy's as_set requires.
import { constant, freeSymbols, neg, type Expr } from "./expr.ts";
import { sympyStr } from "./print.ts";
import { REALS, complement, exactBound, intersection, piece, point, realSetExpr, union, type RealSet } from "./real-sets.ts";

type Relation = Extract<Expr, { kind: "relation" }>;
const NEG_OO: Expr = neg(constant("oo"));
const FLIP: Record<string, Relation["op"]> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "!=": "!=" };

/** The set a one-variable relation (or chain of them) describes; null when SymPy could not say either. */
export function relationAsSet(relation: Expr): Expr | null {
  const e = unwrapFunctions(relation);
  const names = freeSymbols(e);
  if (names.length !== 1) return null;
  return writtenInterval(e) ?? solvedSet(e, names[0]!);
}

/**
 * math-verify's unwrap_fcs: an undefined function applied to arguments, f(x), becomes the symbol f_x. With a
 * prefix, the symbol cannot clash with a written one (for sampling f(x) as an unknown of its own).
 */
export function unwrapFunctions(e: Expr, prefix = ""): Expr {
  const unwrap = (x: Expr) => unwrapFunctions(x, prefix);
  switch (e.kind) {
    case "function": {
      const args = e.args.map(unwrap);
      // Our parser gives single-letter names only to undefined functions (SymPy's are sin, Abs, …).
      return /^[a-zA-Z]$/.test(e.name) ? { kind: "symbol", name: `${prefix}${e.name}_${args.map(sympyStr).join("_")}` } : { ...e, args };
    }
    case "relation":
      return { ...e, lhs: unwrap(e.lhs), rhs: unwrap(e.rhs) };
    case "and":
    case "add":
    case "mul":
      return { ...e, args: e.args.map(unwrap) };
    case "pow":
      return { ...e, base: unwrap(e.base), exp: unwrap(e.exp) };
    default:
      return e;
  }
}

/** `x < b`, `b ≤ x`, `a < x < b` with bounds as written (kept symbolic, so `x < √2` still compares). */
function writtenInterval(e: Expr): Expr | null {
  const single = (r: Expr): Expr | null => {
    if (r.kind !== "relation") return null;
    const varOnLeft = r.lhs.kind === "symbol" && freeSymbols(r.rhs).length === 0;
    const varOnRight = r.rhs.kind === "symbol" && freeSymbols(r.lhs).length === 0;
    if (!varOnLeft && !varOnRight) return null;
    const bound = varOnLeft ? r.rhs : r.lhs;
    if (r.op === "=") return { kind: "set", items: [bound] };
    const op = varOnLeft ? r.op : FLIP[r.op];
    if (op === "<" || op === "<=") return { kind: "interval", start: NEG_OO, end: bound, leftOpen: true, rightOpen: op === "<" };
    if (op === ">" || op === ">=") return { kind: "interval", start: bound, end: constant("oo"), leftOpen: op === ">", rightOpen: true };
    return null;
  };
  if (e.kind === "relation") return single(e);
  if (e.kind !== "and" || e.args.length !== 2) return null;
  const [a, b] = e.args.map(single);
  if (a?.kind !== "interval" || b?.kind !== "interval") return null;
  const lower = a.start === NEG_OO ? b : a;
  const upper = a.start === NEG_OO ? a : b;
  if (lower.start === NEG_OO || upper.start !== NEG_OO) return null;
  return { kind: "interval", start: lower.start, end: upper.end, leftOpen: lower.leftOpen, rightOpen: upper.rightOpen };
}

/**
 * Relations between `x` or `|x|` and exact rational bounds, intersected (SymPy's solve_univariate_inequality
 * on each, then And): anything else (other expressions of x, irrational or float bounds) gives null.
 */
function solvedSet(e: Expr, name: string): Expr | null {
  const relations = e.kind === "and" ? e.args : [e];
  let set: RealSet = REALS;
  for (const r of relations) {
    const solved = r.kind === "relation" ? solveRelation(r, name) : null;
    if (!solved) return null;
    set = intersection(set, solved);
  }
  return realSetExpr(set);
}

function solveRelation(r: Relation, name: string): RealSet | null {
  const isVariable = (x: Expr) => x.kind === "symbol" && x.name === name;
  const isAbs = (x: Expr) => x.kind === "function" && x.name === "Abs" && x.args.length === 1 && isVariable(x.args[0]!);
  const onLeft = isVariable(r.lhs) || isAbs(r.lhs);
  const [side, other, op] = onLeft ? [r.lhs, r.rhs, r.op] : [r.rhs, r.lhs, FLIP[r.op]!];
  if (!onLeft && !isVariable(side) && !isAbs(side)) return null;
  const bound = exactBound(other);
  if (!bound) return null;
  const values = solveForVariable(op, bound);
  if (!values || !isAbs(side)) return values;
  // |x| op c: the non-negative t with t op c, and their negatives.
  const magnitudes = intersection(values, piece({ n: 0n, d: 1n }, { n: 1n, d: 0n }, false, true));
  const mirrored = magnitudes.flatMap((p) => piece({ n: -p.hi.n, d: p.hi.d }, { n: -p.lo.n, d: p.lo.d }, p.hiOpen, p.loOpen));
  return union(magnitudes, mirrored);
}

/** x op c. */
function solveForVariable(op: Relation["op"], c: { n: bigint; d: bigint }): RealSet | null {
  const [negInf, posInf] = [{ n: -1n, d: 0n }, { n: 1n, d: 0n }];
  switch (op) {
    case "<":
      return piece(negInf, c, true, true);
    case "<=":
      return piece(negInf, c, true, false);
    case ">":
      return piece(c, posInf, true, true);
    case ">=":
      return piece(c, posInf, false, true);
    case "=":
      return c.d === 0n ? null : point(c);
    case "!=":
      return c.d === 0n ? null : complement(point(c));
  }
}
