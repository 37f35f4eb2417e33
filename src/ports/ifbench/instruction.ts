// What an IFBench checker is: the keyword arguments its `build_description` takes — a list, or "any" for the
// custom:* checkers declared `build_description(self, **kwargs)` — and a build step that returns
// `check_following`. The argument helpers (Python's TypeErrors, random defaults, indexing) are IFEval's.
import type { Check, Kwargs } from "../instructions/instruction.ts";
import { InstructionError } from "../instructions/instruction.ts";

export type { Check, Kwargs };

export interface IfbenchInstruction {
  readonly args: readonly string[] | "any";
  build(kwargs: Kwargs): Check;
}

/** A checker whose `build_description` takes exactly these keyword arguments (another one is a TypeError). */
export const instruction = (args: readonly string[], build: (kwargs: Kwargs) => Check): IfbenchInstruction => ({ args, build });

/** A checker whose `build_description(**kwargs)` takes any keyword arguments and reads none. */
export const anyKwargs = (check: Check): IfbenchInstruction => ({ args: "any", build: () => check });

/** A checker without arguments: `build_description(self)`. */
export const noArgs = (check: Check): IfbenchInstruction => ({ args: [], build: () => check });

/** `items[start:end]` with Python's slice rules (negative and out-of-range bounds); a TypeError for a non-integer. */
export function pySlice<T>(items: readonly T[], start: number, end: number): T[] {
  if (!Number.isInteger(start) || !Number.isInteger(end)) throw new InstructionError("slice indices must be integers or None or have an __index__ method");
  const clamp = (index: number) => (index < 0 ? Math.max(0, items.length + index) : Math.min(index, items.length));
  return items.slice(clamp(start), Math.max(clamp(start), clamp(end)));
}
