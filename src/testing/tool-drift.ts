// The one rule for "a dataset row's tools equal GET /tools", used by `gym env test`, `gym dataset validate` and the
// environments' own tests.
//
// What must equal, and why (NeMo Gym's behaviour): the model is shown the row's `responses_create_params.tools`
// verbatim, the agent POSTs each call the model makes to `/<name>` on the resources server, and the server checks the
// arguments against its own request model (a 422 otherwise). The server never reads the row's tools. So:
//   - drift (the row is wrong for this server):
//       * an offered function tool whose name the server does not serve (the call would answer 404);
//       * an offered tool whose `parameters` differ from the served ones in shape — types, properties, `required`
//         (compared as a set), `additionalProperties`, enums, defaults, `$ref`s… (the model would produce arguments
//         the server rejects, or never produce ones it needs);
//       * `tools` that is not a list.
//   - allowed (reported, never failing):
//       * prose: the tool's `description`, and `description` / `title` / `examples` anywhere in its parameters —
//         text for the model, the dataset's to word (NeMo Gym's own example rows offer `"description": ""` for
//         tools whose servers describe them);
//       * `strict`: how the model provider constrains decoding, nothing the server checks;
//       * a served tool the row does not offer: the row gives the model fewer tools, every call it can make still
//         reaches a route.
//   Tools other than `type: "function"` (web_search, …) are the model provider's and are not compared. Object keys
//   compare in any order.
import type { FunctionToolDefinition } from "../server/index.ts";

export type ToolDifferenceKind =
  /** `responses_create_params.tools` is not a list. */
  | "not_a_list"
  /** An offered function tool the server does not serve. */
  | "unknown_tool"
  /** The offered parameters differ in shape from the served ones. */
  | "parameters"
  /** Only prose (descriptions, titles, examples) or `strict` differ. */
  | "prose"
  /** A served tool the row does not offer. */
  | "not_offered";

export interface ToolDifference {
  kind: ToolDifferenceKind;
  /** True when the row is wrong for the server (the first three kinds); false for allowed differences. */
  drift: boolean;
  /** The tool's name ("" for `not_a_list`). */
  tool: string;
  /** Dotted path inside the row of the first difference, e.g. `responses_create_params.tools.0.parameters.properties.count.type`. */
  path: string;
  /** The values at `path`: the row's and the server's (undefined when absent). */
  offered?: unknown;
  served?: unknown;
}

const TOOLS_PATH = "responses_create_params.tools";
const PROSE_KEYS = new Set(["description", "title", "examples"]);
/** Keys whose values map names (field names, definition names) to schemas: their keys are never prose. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** A JSON Schema without the keys that only inform the reader. */
export function withoutProse(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutProse);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (PROSE_KEYS.has(key)) continue;
    out[key] = SCHEMA_MAPS.has(key) && isObject(value) ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutProse(sub)])) : withoutProse(value);
  }
  return out;
}

/** The first place where `offered` and `served` differ; `required` lists compare as sets, object keys in any order. */
export function firstDifference(offered: unknown, served: unknown, path: string): { path: string; offered: unknown; served: unknown } | undefined {
  if (Array.isArray(offered) && Array.isArray(served)) {
    const asSet = path.endsWith(".required") && [...offered, ...served].every((v) => typeof v === "string");
    const a = asSet ? [...offered].sort() : offered;
    const b = asSet ? [...served].sort() : served;
    if (a.length !== b.length) return { path, offered, served };
    for (let i = 0; i < a.length; i++) {
      const difference = firstDifference(a[i], b[i], `${path}.${i}`);
      if (difference) return asSet ? { path, offered, served } : difference;
    }
    return undefined;
  }
  if (isObject(offered) && isObject(served)) {
    for (const key of new Set([...Object.keys(served), ...Object.keys(offered)])) {
      const difference = firstDifference(offered[key], served[key], `${path}.${key}`);
      if (difference) return difference;
    }
    return undefined;
  }
  return offered === served ? undefined : { path, offered, served };
}

/** A value for a message: JSON, clipped; `nothing` when absent. */
export function describeValue(value: unknown, length = 120): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > length ? `${text.slice(0, length - 3)}...` : text;
}

/**
 * Every difference between a row's `responses_create_params.tools` and the served tools, in the row's order, then the
 * served tools it does not offer: at most one per tool (its first). Only those with `drift: true` make the row wrong.
 */
export function compareTools(offeredTools: unknown, served: readonly FunctionToolDefinition[]): ToolDifference[] {
  if (offeredTools !== undefined && offeredTools !== null && !Array.isArray(offeredTools)) return [{ kind: "not_a_list", drift: true, tool: "", path: TOOLS_PATH, offered: offeredTools }];
  const servedByName = new Map(served.map((tool) => [tool.name, tool]));
  const differences: ToolDifference[] = [];
  const offeredNames = new Set<string>();
  ((offeredTools ?? []) as unknown[]).forEach((tool, i) => {
    if (!isObject(tool) || tool.type !== "function") return;
    const name = String(tool.name);
    const path = `${TOOLS_PATH}.${i}`;
    offeredNames.add(name);
    const match = servedByName.get(name);
    if (!match) {
      differences.push({ kind: "unknown_tool", drift: true, tool: name, path: `${path}.name`, offered: tool.name });
      return;
    }
    const shape = firstDifference(withoutProse(tool.parameters), withoutProse(match.parameters), `${path}.parameters`);
    if (shape) {
      differences.push({ kind: "parameters", drift: true, tool: name, ...shape });
      return;
    }
    const prose = firstDifference(tool, match, path);
    if (prose) differences.push({ kind: "prose", drift: false, tool: name, ...prose });
  });
  for (const name of servedByName.keys()) {
    if (!offeredNames.has(name)) differences.push({ kind: "not_offered", drift: false, tool: name, path: TOOLS_PATH, served: name });
  }
  return differences;
}

/** Only the differences that make the row wrong for the server. */
export const toolDrift = (offeredTools: unknown, served: readonly FunctionToolDefinition[]): ToolDifference[] => compareTools(offeredTools, served).filter((d) => d.drift);

/** A difference in words, naming the server as `servedBy` (e.g. "GET /tools"), for `gym env test` and the tests. */
export function describeToolDifference(difference: ToolDifference, served: readonly FunctionToolDefinition[], servedBy = "GET /tools"): string {
  switch (difference.kind) {
    case "not_a_list":
      return "should be a list of tools";
    case "unknown_tool":
      return `'${difference.tool}' is not served by ${servedBy} (it serves: ${served.map((t) => t.name).join(", ") || "none"})`;
    case "not_offered":
      return `${servedBy} serves '${difference.tool}', which this row does not offer`;
    default:
      return `the dataset has ${describeValue(difference.offered)}, ${servedBy} serves ${describeValue(difference.served)} (tool '${difference.tool}')`;
  }
}
