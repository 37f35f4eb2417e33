// Whether the tools a dataset row offers the model are exactly the tools the server serves at GET /tools:
// same names, same definitions (schemas, descriptions, strict). A hand-copied schema that drifted is reported
// at its first difference, as a field path inside the row.
import type { FunctionToolDefinition } from "../../server/index.ts";

export interface ToolDrift {
  /** Dotted path inside the row, e.g. `responses_create_params.tools.0.parameters.properties.count.type`. */
  path: string;
  message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
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

/** Every way a row's `responses_create_params.tools` differs from the served tools (one entry per tool at most). */
export function toolDrift(offeredTools: unknown, served: FunctionToolDefinition[]): ToolDrift[] {
  const base = "responses_create_params.tools";
  if (offeredTools !== undefined && offeredTools !== null && !Array.isArray(offeredTools)) return [{ path: base, message: "should be a list of tools" }];
  const offered = (offeredTools ?? []) as unknown[];
  const servedByName = new Map(served.map((tool) => [tool.name, tool]));
  const drift: ToolDrift[] = [];
  const offeredNames = new Set<string>();
  offered.forEach((tool, i) => {
    // Built-in tools (web_search, …) are the model provider's, not the environment's.
    if (!isObject(tool) || tool.type !== "function") return;
    const name = String(tool.name);
    offeredNames.add(name);
    const match = servedByName.get(name);
    if (!match) {
      drift.push({ path: `${base}.${i}.name`, message: `'${name}' is not served by GET /tools (it serves: ${[...servedByName.keys()].join(", ") || "none"})` });
      return;
    }
    const difference = firstDifference(tool, match, `${base}.${i}`);
    if (difference) drift.push({ path: difference.path, message: `the dataset has ${describe(difference.offered)}, GET /tools serves ${describe(difference.served)} (tool '${name}')` });
  });
  for (const name of servedByName.keys()) {
    if (!offeredNames.has(name)) drift.push({ path: base, message: `GET /tools serves '${name}', which this row does not offer` });
  }
  return drift;
}
