// Dataset rows → the exact list of /run requests: agent_ref stamped, responses_create_params overrides,
// task indices (identical lines share one), num_repeats expansion in aabbcc order, optional per-rollout seed.
import { pythonJsonDumps } from "../python/json-dumps.ts";
import { agentNameOf, InputError, type InputLine, type Row } from "./jsonl.ts";
import { applyPromptConfig, type PromptConfig } from "./prompt-config.ts";

export { InputError, readJsonl, type InputLine, type Row } from "./jsonl.ts";

export interface MaterializeOptions {
  /** For rows without their own agent_ref. */
  agentName?: string | null;
  limit?: number | null;
  /** An int, or `{ <agent name>: n, _default: n }`. */
  numRepeats?: number | Record<string, number> | null;
  numRepeatsAddSeed?: boolean;
  /** Shallow-merged into every row's responses_create_params (top-level keys replaced whole). */
  responsesCreateParams?: Record<string, unknown> | null;
  /** Builds each row's input from a `{system?, user}` template (rows must not carry an input). */
  promptConfig?: PromptConfig | null;
}

export function materializeRows(lines: InputLine[], options: MaterializeOptions, source = "input"): Row[] {
  const taskIndexByText = new Map<string, number>();
  const nextRolloutIndex = new Map<number, number>();
  const missingAgent: number[] = [];
  const missingRepeats = new Set<string>();
  const rows: Row[] = [];
  const prepared = lines.map(({ lineNumber, text, row }) => ({ lineNumber, text, row: structuredClone(row) }));
  if (options.promptConfig) applyPromptConfig(prepared, options.promptConfig, source);

  for (const { lineNumber, text, row } of prepared) {
    if (options.agentName && row.agent_ref === undefined) row.agent_ref = { name: options.agentName };
    const agentName = agentNameOf(row);
    if (!agentName) {
      missingAgent.push(lineNumber);
      continue;
    }
    const params = row.responses_create_params;
    if (params === null || typeof params !== "object" || Array.isArray(params)) {
      throw new InputError(`${source}:${lineNumber}: responses_create_params is missing or not an object`);
    }
    if (options.responsesCreateParams) row.responses_create_params = { ...params, ...options.responsesCreateParams };
    if (!Number.isInteger(row._ng_task_index)) {
      if (!taskIndexByText.has(text)) taskIndexByText.set(text, taskIndexByText.size);
      row._ng_task_index = taskIndexByText.get(text);
    }
    const repeats = repeatsFor(agentName, options.numRepeats);
    if (repeats === undefined) {
      missingRepeats.add(agentName);
      continue;
    }
    const taskIndex = row._ng_task_index as number;
    for (let r = 0; r < repeats; r++) {
      const rollout: Row = structuredClone(row);
      const rolloutIndex = nextRolloutIndex.get(taskIndex) ?? 0;
      nextRolloutIndex.set(taskIndex, rolloutIndex + 1);
      rollout._ng_rollout_index = rolloutIndex;
      if (options.numRepeatsAddSeed) addSeed(rollout, rolloutIndex);
      rows.push(rollout);
    }
  }
  if (missingAgent.length > 0) {
    throw new InputError(`no agent for ${source} lines ${missingAgent.join(", ")}: pass --agent NAME (+agent_name=NAME) or put agent_ref in the rows`);
  }
  if (missingRepeats.size > 0) throw new InputError(`num_repeats has no entry (and no _default) for agents: ${[...missingRepeats].sort().join(", ")}`);
  return rows;
}

function repeatsFor(agentName: string, numRepeats: MaterializeOptions["numRepeats"]): number | undefined {
  if (numRepeats == null) return 1;
  if (typeof numRepeats === "number") return numRepeats;
  return numRepeats[agentName] ?? numRepeats._default;
}

/** The seed travels as a JSON string in metadata.extra_body, written the way Python's json.dumps writes it. */
function addSeed(row: Row, seed: number): void {
  const params = row.responses_create_params as Row;
  const metadata = ((params.metadata as Record<string, string> | null | undefined) ?? {}) as Record<string, string>;
  const extraBody = JSON.parse(metadata.extra_body ?? "{}") as Row;
  extraBody.seed = seed;
  params.metadata = { ...metadata, extra_body: pythonJsonDumps(extraBody) };
}
