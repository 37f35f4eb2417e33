// What a checker is: the keyword arguments its `build_description` accepts, and a build step that reads them
// (as the library does, drawing a random value where it draws one) and returns `check_following`.
//
// Python semantics the checkers keep: a kwarg the method does not declare is a TypeError; a value of a type
// the library cannot use fails where Python raises (TypeError, AttributeError, …). NeMo Gym catches every
// exception of an instruction and counts it as not followed, so all of these end as `false` with a reason.
import { codePoints } from "../../python/str.ts";
import { jsonTruthy as truthy } from "../../python/json-value.ts";

/** The non-null kwargs of one instruction, as JSON values. */
export type Kwargs = Readonly<Record<string, unknown>>;

export type Check = (response: string) => boolean;

export interface Instruction {
  /** The keyword parameters of the library's `build_description`. */
  readonly args: readonly string[];
  build(kwargs: Kwargs): Check;
}

/** Declares a checker; `build` receives only the declared kwargs (unknown ones were refused before). */
export const instruction = (args: readonly string[], build: (kwargs: Kwargs) => Check): Instruction => ({ args, build });

/** An exception the Python checker would raise (any type): the instruction counts as not followed. */
export class InstructionError extends Error {
  override name = "InstructionError";
}

/** The library would draw a random word from its WORD_LIST (or phrase list), which is not ported. */
export class RandomWordError extends InstructionError {
  constructor(argument: string) {
    super(`no ${argument} given: the library would draw a random word from its word list, which this port does not ship`);
  }
}

// Python's truthiness of a JSON value lives in src/python/json-value.ts.
export { truthy };

/** A value compared or computed with as a number: Python raises TypeError for anything but int/float/bool. */
export function num(value: unknown, name: string): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  throw new InstructionError(`${name} must be a number, got ${JSON.stringify(value)}`);
}

/** A value the library calls a `str` method on: anything else is an AttributeError. */
export function str(value: unknown, name: string): string {
  if (typeof value === "string") return value;
  throw new InstructionError(`${name} must be a string, got ${JSON.stringify(value)}`);
}

/** A value Python iterates: a list's items, a string's characters. */
export function iterate(value: unknown, name: string): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return codePoints(value);
  if (value !== null && typeof value === "object") return Object.keys(value);
  throw new InstructionError(`${name} is not iterable: ${JSON.stringify(value)}`);
}

/** `random.randint(low, high)`, both ends included. */
export const randint = (low: number, high: number): number => {
  if (high < low) throw new InstructionError(`empty range for randint(${low}, ${high})`);
  return low + Math.floor(Math.random() * (high - low + 1));
};

/** `random.choice(items)`. */
export const choice = <T>(items: readonly T[]): T => {
  if (items.length === 0) throw new InstructionError("cannot choose from an empty sequence");
  return items[Math.floor(Math.random() * items.length)]!;
};

export const RELATIONS = ["less than", "at least"] as const;
export type Relation = (typeof RELATIONS)[number];

/** The library's relation argument: random when absent, a ValueError when not one of the two. */
export function relation(value: unknown): Relation {
  if (value === undefined) return choice(RELATIONS);
  if (value === RELATIONS[0] || value === RELATIONS[1]) return value;
  throw new InstructionError(`The supported relation for comparison must be in ${"('less than', 'at least')"}, but ${String(value)} is given.`);
}

/** `count < threshold` ("less than") or `count >= threshold` ("at least"). */
export const compare = (count: number, relation: Relation, threshold: number): boolean => (relation === "less than" ? count < threshold : count >= threshold);

/** A threshold the library replaces with `random.randint(low, high)` when it is None or negative. */
export function threshold(value: unknown, name: string, low: number, high: number): number {
  if (value === undefined) return randint(low, high);
  const n = num(value, name);
  return n < 0 ? randint(low, high) : n;
}

/** A count the library replaces with `random.randint(low, high)` when it is falsy (`if not N:`). */
export const countOrRandom = (value: unknown, name: string, low: number, high: number): number => (truthy(value) ? num(value, name) : randint(low, high));

/** `items[index]` with Python's negative indices; an IndexError outside. */
export function pyIndex<T>(items: readonly T[], index: number): T {
  if (!Number.isInteger(index)) throw new InstructionError(`list indices must be integers, not ${index}`);
  const at = index < 0 ? items.length + index : index;
  if (at < 0 || at >= items.length) throw new InstructionError("list index out of range");
  return items[at]!;
}
