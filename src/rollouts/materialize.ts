// Dataset rows → the exact list of /run requests: agent_ref stamped, responses_create_params overrides,
// task indices (identical lines share one), num_repeats expansion in aabbcc order, optional per-rollout seed.
import { pythonJsonDumps } from "../python/json-dumps.ts";
import { agentNameOf, InputError, type InputLine, type Row } from "./jsonl.ts";
import { applyPromptConfig, type PromptConfig } from "./prompt-config.ts";
import { rolloutKey } from "./resume.ts";

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

/**
 * The /run requests of a collection, made one at a time on demand: each input row is kept once with the range of
 * rollout indices it expands to, and `at(i)` builds the i-th request (a fresh copy the caller may change). A run of
 * 65,536 rollouts over 5 rows holds 5 rows, not 65,536 copies.
 */
export class MaterializedRows implements Iterable<Row> {
  /** Rows before `ends[k]` come from `entries[k]`. */
  private readonly ends: number[] = [];

  constructor(
    private readonly entries: readonly { row: Row; firstRolloutIndex: number; repeats: number }[],
    private readonly numRepeatsAddSeed: boolean,
  ) {
    let total = 0;
    for (const entry of entries) this.ends.push((total += entry.repeats));
  }

  get length(): number {
    return this.ends.at(-1) ?? 0;
  }

  at(index: number): Row {
    const { entry, rolloutIndex } = this.locate(index);
    const rollout: Row = structuredClone(entry.row);
    rollout._ng_rollout_index = rolloutIndex;
    if (this.numRepeatsAddSeed) addSeed(rollout, rolloutIndex);
    return rollout;
  }

  /** `rolloutKey(this.at(index))` without building the row. */
  keyAt(index: number): string {
    const { entry, rolloutIndex } = this.locate(index);
    return rolloutKey({ _ng_task_index: entry.row._ng_task_index, _ng_rollout_index: rolloutIndex });
  }

  private locate(index: number): { entry: { row: Row; firstRolloutIndex: number; repeats: number }; rolloutIndex: number } {
    if (!(Number.isInteger(index) && index >= 0 && index < this.length)) throw new RangeError(`no materialized row ${index} (of ${this.length})`);
    let low = 0;
    let high = this.ends.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.ends[mid]! > index) high = mid;
      else low = mid + 1;
    }
    const entry = this.entries[low]!;
    return { entry, rolloutIndex: entry.firstRolloutIndex + index - (this.ends[low]! - entry.repeats) };
  }

  /** The agent row `index` names. */
  agentAt(index: number): string {
    return agentNameOf(this.locate(index).entry.row)!;
  }

  /** The agents the rows name (each input row once). */
  agents(): Set<string> {
    return new Set(this.entries.map((entry) => agentNameOf(entry.row)!));
  }

  *[Symbol.iterator](): Iterator<Row> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }
}

/** Rows in a list, seen as MaterializedRows' interface (callers that built their rows themselves). */
export type RowSource = Pick<MaterializedRows, "length" | "at" | "keyAt" | "agentAt" | "agents"> & Iterable<Row>;

export function rowSourceOf(rows: readonly Row[] | RowSource): RowSource {
  if (!Array.isArray(rows)) return rows as RowSource;
  const list = rows as readonly Row[];
  return {
    length: list.length,
    at: (index) => list[index]!,
    keyAt: (index) => rolloutKey(list[index]!),
    agentAt: (index) => agentNameOf(list[index]!)!,
    agents: () => new Set(list.map((row) => agentNameOf(row)!)),
    [Symbol.iterator]: () => list[Symbol.iterator](),
  };
}

export function materializeRows(lines: InputLine[], options: MaterializeOptions, source = "input"): Row[] {
  return [...materializeLazily(lines, options, source)];
}

export function materializeLazily(lines: InputLine[], options: MaterializeOptions, source = "input"): MaterializedRows {
  const taskIndexByText = new Map<string, number>();
  const nextRolloutIndex = new Map<number, number>();
  const missingAgent: number[] = [];
  const missingRepeats = new Set<string>();
  const entries: { row: Row; firstRolloutIndex: number; repeats: number }[] = [];
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
    const firstRolloutIndex = nextRolloutIndex.get(taskIndex) ?? 0;
    // As many as `for (r = 0; r < repeats; r++)` makes.
    const count = repeats > 0 ? Math.ceil(repeats) : 0;
    nextRolloutIndex.set(taskIndex, firstRolloutIndex + count);
    if (count > 0) entries.push({ row, firstRolloutIndex, repeats: count });
  }
  if (missingAgent.length > 0) {
    throw new InputError(`no agent for ${source} lines ${missingAgent.join(", ")}: pass --agent NAME (+agent_name=NAME) or put agent_ref in the rows`);
  }
  if (missingRepeats.size > 0) throw new InputError(`num_repeats has no entry (and no _default) for agents: ${[...missingRepeats].sort().join(", ")}`);
  return new MaterializedRows(entries, options.numRepeatsAddSeed === true);
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
