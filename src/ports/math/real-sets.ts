// Subsets of the real line with exact rational endpoints, as sorted disjoint intervals. SymPy decides that two
// unions of intervals are the same set (`symmetric_difference(...).is_empty`) and solves `1 ≤ |z| ≤ 3/2` into
// `[-3/2, -1] ∪ [1, 3/2]`; this does the same, exactly, for rational endpoints. A float or irrational endpoint
// gives null (undecided) rather than a guess: SymPy compares a Float endpoint by its binary value.
import { spend } from "./budget.ts";
import { rational, walk, type Expr } from "./expr.ts";
import { exactValue, type Fraction } from "./numeric.ts";

/** A rational, or ±∞ as d = 0 with n = ±1. */
type Bound = Fraction;
interface Piece {
  lo: Bound;
  hi: Bound;
  loOpen: boolean;
  hiOpen: boolean;
}
/** Sorted, disjoint, non-touching, non-empty pieces. */
export type RealSet = Piece[];

const NEG_INF: Bound = { n: -1n, d: 0n };
const POS_INF: Bound = { n: 1n, d: 0n };
export const REALS: RealSet = [{ lo: NEG_INF, hi: POS_INF, loOpen: true, hiOpen: true }];

function compare(a: Bound, b: Bound): number {
  if (a.d === 0n || b.d === 0n) {
    const rank = (x: Bound) => (x.d === 0n ? Number(x.n) : 0);
    if (rank(a) !== rank(b)) return rank(a) - rank(b);
    if (a.d === 0n && b.d === 0n) return 0;
  }
  const difference = a.n * b.d - b.n * a.d;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

/** A piece, or nothing when its bounds describe an empty set; infinite ends are always open (as SymPy's). */
export function piece(lo: Bound, hi: Bound, loOpen: boolean, hiOpen: boolean): RealSet {
  const c = compare(lo, hi);
  if (c > 0 || (c === 0 && (loOpen || hiOpen || lo.d === 0n))) return [];
  return [{ lo, hi, loOpen: loOpen || lo.d === 0n, hiOpen: hiOpen || hi.d === 0n }];
}

export const point = (value: Fraction): RealSet => piece(value, value, false, false);

export function union(...sets: RealSet[]): RealSet {
  const pieces = sets.flat().sort((a, b) => compare(a.lo, b.lo) || Number(a.loOpen) - Number(b.loOpen));
  const out: Piece[] = [];
  for (const p of pieces) {
    spend();
    const last = out.at(-1);
    const c = last ? compare(p.lo, last.hi) : 1;
    if (!last || c > 0 || (c === 0 && p.loOpen && last.hiOpen)) {
      out.push({ ...p });
      continue;
    }
    const h = compare(p.hi, last.hi);
    if (h > 0 || (h === 0 && !p.hiOpen)) [last.hi, last.hiOpen] = [p.hi, p.hiOpen];
  }
  return out;
}

export function intersection(a: RealSet, b: RealSet): RealSet {
  const out: RealSet[] = [];
  for (const x of a) {
    for (const y of b) {
      spend();
      const lo = compare(x.lo, y.lo);
      const hi = compare(x.hi, y.hi);
      out.push(
        piece(
          lo >= 0 ? x.lo : y.lo,
          hi <= 0 ? x.hi : y.hi,
          lo > 0 ? x.loOpen : lo < 0 ? y.loOpen : x.loOpen || y.loOpen,
          hi < 0 ? x.hiOpen : hi > 0 ? y.hiOpen : x.hiOpen || y.hiOpen,
        ),
      );
    }
  }
  return union(...out);
}

export function complement(a: RealSet): RealSet {
  const out: RealSet[] = [];
  let lo = NEG_INF;
  let loOpen = true;
  for (const p of a) {
    out.push(piece(lo, p.lo, loOpen, !p.loOpen));
    [lo, loOpen] = [p.hi, !p.hiOpen];
  }
  out.push(piece(lo, POS_INF, loOpen, true));
  return union(...out);
}

export function sameSet(a: RealSet, b: RealSet): boolean {
  const [x, y] = [union(a), union(b)];
  return x.length === y.length && x.every((p, i) => compare(p.lo, y[i]!.lo) === 0 && compare(p.hi, y[i]!.hi) === 0 && p.loOpen === y[i]!.loOpen && p.hiOpen === y[i]!.hiOpen);
}

/** An exact rational (no floats anywhere in it) or ±∞; null for anything else. */
export function exactBound(e: Expr): Bound | null {
  if (e.kind === "constant" && e.name === "oo") return POS_INF;
  if (e.kind === "mul" && e.args.length === 2 && e.args[0]!.kind === "integer" && e.args[0]!.value === -1n && e.args[1]!.kind === "constant" && e.args[1]!.name === "oo") return NEG_INF;
  for (const node of walk(e)) if (node.kind === "float" || node.kind === "constant" || node.kind === "symbol") return null;
  return exactValue(e);
}

/** An interval, a finite set of numbers, or a union/intersection/complement of them; null if not all exact. */
export function realSetOf(e: Expr): RealSet | null {
  spend();
  switch (e.kind) {
    case "interval": {
      const [lo, hi] = [exactBound(e.start), exactBound(e.end)];
      return lo && hi ? piece(lo, hi, e.leftOpen, e.rightOpen) : null;
    }
    case "set":
    case "tuple": {
      // latex2sympy turns a tuple inside a union into the set of its elements.
      const points = e.items.map(exactBound);
      return points.every((p) => p !== null && p.d !== 0n) ? union(...(points as Fraction[]).map(point)) : null;
    }
    case "function": {
      const parts = e.args.map(realSetOf);
      if (parts.length === 0 || parts.some((p) => p === null)) return null;
      const sets = parts as RealSet[];
      if (e.name === "Union") return union(...sets);
      if (e.name === "Intersection") return sets.reduce(intersection);
      if (e.name === "Complement" && sets.length === 2) return intersection(sets[0]!, complement(sets[1]!));
      return null;
    }
    default:
      return null;
  }
}

const boundExpr = (b: Bound): Expr => (b.d === 0n ? (b.n < 0n ? { kind: "mul", args: [{ kind: "integer", value: -1n }, { kind: "constant", name: "oo" }] } : { kind: "constant", name: "oo" }) : rational(b.n, b.d));

/** The set as SymPy would write it: EmptySet, {points}, an Interval, or a Union of those. */
export function realSetExpr(set: RealSet): Expr {
  const points = set.filter((p) => compare(p.lo, p.hi) === 0).map((p) => boundExpr(p.lo));
  const intervals = set.filter((p) => compare(p.lo, p.hi) !== 0).map((p): Expr => ({ kind: "interval", start: boundExpr(p.lo), end: boundExpr(p.hi), leftOpen: p.loOpen, rightOpen: p.hiOpen }));
  const parts = points.length > 0 ? [{ kind: "set", items: points } as Expr, ...intervals] : intervals;
  if (parts.length === 0) return { kind: "set", items: [] };
  return parts.length === 1 ? parts[0]! : { kind: "function", name: "Union", args: parts };
}
