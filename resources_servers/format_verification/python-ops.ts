// The few Python operations format_verification applies to `verifier` values, which are free-form JSON: what
// `set(v)` and `n >= v` do (or the TypeError they raise, NeMo Gym's 500) when a row
// holds something other than the usual lists of strings and an int.
import { jsonTypeName } from "../../src/python/json-value.ts";

/** `set(values)`, which fails on lists and dicts. */
export function pythonSet(values: unknown[]): Set<unknown> {
  const unhashable = values.find((value) => value !== null && typeof value === "object");
  if (unhashable !== undefined) throw new TypeError(`unhashable type: '${jsonTypeName(unhashable)}'`);
  return new Set(values);
}

/** `count >= bound` for an int count. */
export function pythonGe(count: number, bound: unknown): boolean {
  if (typeof bound === "number") return count >= bound;
  if (typeof bound === "boolean") return count >= Number(bound);
  throw new TypeError(`'>=' not supported between instances of 'int' and '${jsonTypeName(bound)}'`);
}
