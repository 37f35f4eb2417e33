// The env_config both grl servers carry: NeMo Gym's config holds a dict (a default one when the YAML has none) and a
// row may override some of its keys (`if key in metadata: env_config[key] = metadata[key]`). Here each value is
// checked once it is resolved, and a bad one is a 422 naming where it came from: the row's field, or the config's.
import { z } from "zod";
import { HttpError, RequestValidationError } from "../../protocol/errors.ts";
import { lookupTable } from "./actions.ts";

/** Where a resolved env_config value came from, for the error that names it. */
export type ValueSource = "row" | "config";

/** The merged env_config with each key's source (a row's override wins over the config's dict). */
export function mergeEnvConfig(
  configured: Readonly<Record<string, unknown>>,
  metadata: Readonly<Record<string, unknown>>,
  overridable: readonly string[],
): { values: Record<string, unknown>; sources: Record<string, ValueSource> } {
  const values: Record<string, unknown> = { ...configured };
  const sources: Record<string, ValueSource> = Object.fromEntries(Object.keys(configured).map((key) => [key, "config"]));
  for (const key of overridable) {
    if (key in metadata && metadata[key] !== undefined) {
      values[key] = metadata[key];
      sources[key] = "row";
    }
  }
  return { values, sources };
}

/** A 422 naming the field: `body.<key>` for a row's value, `env_config.<key>` for the config's. */
export function fieldError(key: string, source: ValueSource | undefined, msg: string, input: unknown): RequestValidationError {
  const loc = source === "row" ? ["body", key] : ["env_config", key];
  return new RequestValidationError([{ type: "value_error", loc, msg, input }]);
}

/** A value by schema, or the 422 naming it. */
export function checked<S extends z.ZodType>(
  key: string,
  values: Readonly<Record<string, unknown>>,
  sources: Readonly<Record<string, ValueSource>>,
  schema: S,
): z.output<S> {
  const result = schema.safeParse(values[key]);
  if (!result.success) throw fieldError(key, sources[key], result.error.issues[0]?.message ?? "invalid", values[key]);
  return result.data;
}

/** A lookup table (grid_lookup / action_lookup) by key, or undefined when unset; a bad one is a 422. */
export function checkedLookup(
  key: string,
  values: Readonly<Record<string, unknown>>,
  sources: Readonly<Record<string, ValueSource>>,
): Map<number, string> | undefined {
  if (values[key] === undefined) return undefined;
  const table = lookupTable(values[key]);
  if (typeof table === "string") throw fieldError(key, sources[key], table, values[key]);
  return table;
}

/**
 * render_mode: NeMo renders "text"; "rgb_array" makes its env return an image array, which the server then formats
 * into the prompt as NumPy's repr of it, which this port does not reproduce (501); anything else raises (422).
 */
export function checkRenderMode(values: Readonly<Record<string, unknown>>, sources: Readonly<Record<string, ValueSource>>): void {
  const mode = values.render_mode;
  if (mode === undefined || mode === "text") return;
  if (mode === "rgb_array") {
    throw new HttpError(501, "render_mode 'rgb_array' (an image observation) is not implemented in this port: only 'text' boards are rendered");
  }
  throw fieldError("render_mode", sources.render_mode, `Invalid render mode: ${String(mode)}`, mode);
}

export const intValue = z.number().int();
