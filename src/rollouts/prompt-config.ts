// NeMo Gym's prompt configs: a YAML `{system?, user}` whose `{field}` placeholders are filled from each row
// at collection time, building `responses_create_params.input` — so a prompt sweep needs no new data files.
// Mutually exclusive with rows that already carry an input.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { InputError, type Row } from "./jsonl.ts";
import { jsonStr } from "../python/json-value.ts";
import { formatZodIssues } from "../config/zod-issues.ts";

export const PromptConfigSchema = z.object({ user: z.string(), system: z.string().nullish() });
export type PromptConfig = z.output<typeof PromptConfigSchema>;

export function loadPromptConfig(path: string): PromptConfig {
  let data: unknown;
  try {
    data = parseYaml(readFileSync(path, "utf8"));
  } catch (error) {
    throw new InputError(`prompt_config ${path}: ${(error as Error).message}`);
  }
  const parsed = PromptConfigSchema.safeParse(data);
  if (!parsed.success) {
    throw new InputError(`prompt_config ${path}: ${formatZodIssues(parsed.error.issues, { wholeValue: "(root)" })} (expected {user: "...", system?: "..."})`);
  }
  return parsed.data;
}

/** Python's `str.format_map(row)` for `{name}` fields: `{{` and `}}` are literal braces. */
export function fillTemplate(template: string, row: Row): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, name: string | undefined) => {
    if (match === "{{") return "{";
    if (match === "}}") return "}";
    if (!(name! in row)) throw new InputError(`Prompt template references field '${name}' but the data row only has fields: ${Object.keys(row).join(", ")}`);
    return jsonStr(row[name!]);
  });
}

/** Every row whose `responses_create_params.input` is set conflicts with a prompt config: all are named at once. */
export function applyPromptConfig(rows: { lineNumber: number; row: Row }[], config: PromptConfig, source: string): void {
  const conflicting = rows.filter(({ row }) => {
    const input = (row.responses_create_params as Row | undefined)?.input;
    return input !== undefined && input !== null && !(Array.isArray(input) && input.length === 0) && input !== "";
  });
  if (conflicting.length > 0) {
    throw new InputError(
      `${source}: lines ${conflicting.map((c) => c.lineNumber).join(", ")} already have responses_create_params.input, but prompt_config is also given; use one or the other`,
    );
  }
  for (const entry of rows) {
    const input = [
      ...(config.system != null ? [{ role: "system", content: fillTemplate(config.system, entry.row) }] : []),
      { role: "user", content: fillTemplate(config.user, entry.row) },
    ];
    const params = entry.row.responses_create_params;
    entry.row.responses_create_params = { ...(params && typeof params === "object" && !Array.isArray(params) ? params : {}), input };
  }
}
