/**
 * zod's parses made while laxValidate walks a body, kept for the zod parse that ends the same call.
 *
 * The walk asks zod about the nodes it cannot look into — a Responses item member (`withTraining`, a transform) is
 * zod-parsed for every member its smart union tries — and passes the very input object through. laxValidate then
 * has zod parse the whole coerced body, whose smart unions parse the same members on the same objects again. Within
 * one call nothing changes those objects in between, so the second parse of a (schema, object) has the first one's
 * result: a success's data is taken from here once (so no two places of the output share an object), a failure
 * (a member that does not fit, the costly case: zod builds an error) is known without parsing again.
 */
import type { z } from "zod";

/** Whether a zod parse fitted, and its data when it did (a failure's issues are not kept: a union that fits no member parses again, for its report). */
export type QuietParse = { success: true; data: unknown } | { success: false };

let current: Map<z.ZodType, WeakMap<object, QuietParse>> | undefined;

/** Run one laxValidate call with its own table (a nested call gets its own; the outer one's is restored). */
export function withWalkParses<T>(validate: () => T): T {
  const outer = current;
  current = new Map();
  try {
    return validate();
  } finally {
    current = outer;
  }
}

/** The walk parsed an object input with `schema`. */
export function rememberWalkParse(schema: z.ZodType, input: unknown, outcome: QuietParse): void {
  if (current === undefined || typeof input !== "object" || input === null) return;
  let bySchema = current.get(schema);
  if (!bySchema) current.set(schema, (bySchema = new WeakMap()));
  bySchema.set(input, outcome);
}

/** The walk's outcome of (schema, input) — a success is removed from the table — or undefined when it has none. */
export function takeWalkParse(schema: z.ZodType, input: unknown): QuietParse | undefined {
  if (current === undefined || typeof input !== "object" || input === null) return undefined;
  const bySchema = current.get(schema);
  const outcome = bySchema?.get(input);
  if (outcome?.success) bySchema!.delete(input);
  return outcome;
}
