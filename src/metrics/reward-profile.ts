// NeMo Gym's RewardProfiler: per-task ("group level") and per-agent statistics of every numeric field of
// the rollouts, computed as its pandas code does (column order of first appearance, stats mean → max → min →
// median → std, sample std, the single-rollout std rule, undefined statistics dropped). Used by
// /aggregate_metrics and by the offline reward profile.
import { columnStats } from "./stats.ts";
import { jsonRepr } from "../python/json-value.ts";

/** One verify response as posted to /aggregate_metrics. */
export type VerifyRecord = Record<string, unknown>;

export const TASK_INDEX_KEY = "_ng_task_index";
export const ROLLOUT_INDEX_KEY = "_ng_rollout_index";
export const AGENT_REF_KEY = "agent_ref";

type Row = Record<string, unknown>;

export interface RewardProfile {
  /** One entry per task, sorted by task index. */
  groupLevelMetrics: Record<string, unknown>[];
  /** One entry per agent name, sorted by name; each ends with `agent_ref: {name}`. */
  agentLevelMetrics: Record<string, unknown>[];
}

export interface CompletionSummary {
  expected_rollout_rows: number;
  completed_rollout_rows: number;
  missing_rollout_rows: number;
  extra_rollout_rows: number;
  reward_profile_completion_pct: number;
  total_input_rows: number;
  complete_input_rows: number;
  partial_input_rows: number;
  missing_input_rows: number;
}

const STATISTICS = ["mean", "max", "min", "median", "std"] as const;

interface NumericRecord {
  agentName: unknown;
  taskIndex: unknown;
  values: Map<string, number>;
}

/**
 * Group-level and agent-level statistics of rollout results against their materialized input rows,
 * matched by (_ng_task_index, _ng_rollout_index). Every input row needs a result unless
 * `allowPartialRollouts`; a result without an input row is always an error.
 */
export function profileFromData(rows: Row[], results: Row[], options: { allowPartialRollouts?: boolean } = {}): RewardProfile {
  const aligned = alignRowsAndResults(rows, results, options.allowPartialRollouts ?? false);

  const records: NumericRecord[] = [];
  const columns: string[] = [];
  const seenColumns = new Set<string>();
  const firstRowOfTask = new Map<unknown, Row>();
  const rolloutInfosOfTask = new Map<unknown, Record<string, unknown>[]>();
  const expectedRolloutsOfTask = new Map<unknown, number>();
  for (const row of rows) expectedRolloutsOfTask.set(row[TASK_INDEX_KEY], (expectedRolloutsOfTask.get(row[TASK_INDEX_KEY]) ?? 0) + 1);

  for (const [row, result] of aligned) {
    const taskIndex = row[TASK_INDEX_KEY];
    if (!rolloutInfosOfTask.has(taskIndex)) rolloutInfosOfTask.set(taskIndex, []);
    rolloutInfosOfTask.get(taskIndex)!.push(rolloutInfoFromResult(result));
    if (!firstRowOfTask.has(taskIndex)) firstRowOfTask.set(taskIndex, row);

    const values = numericFields(result);
    for (const column of values.keys()) {
      if (!seenColumns.has(column)) {
        seenColumns.add(column);
        columns.push(column);
      }
    }
    records.push({ agentName: agentNameOf(row), taskIndex, values });
  }
  if (records.length === 0) return { groupLevelMetrics: [], agentLevelMetrics: [] };

  // `aligned` is sorted by (task, rollout), so tasks come out in order.
  const groupLevelMetrics: Record<string, unknown>[] = [];
  for (const [taskIndex, taskRecords] of groupBy(records, (r) => r.taskIndex)) {
    const { [TASK_INDEX_KEY]: _task, [ROLLOUT_INDEX_KEY]: _rollout, ...sample } = firstRowOfTask.get(taskIndex)!;
    const rolloutInfos = rolloutInfosOfTask.get(taskIndex)!;
    const numRollouts = rolloutInfos.length;
    const expected = expectedRolloutsOfTask.get(taskIndex) ?? 0;
    groupLevelMetrics.push({
      [TASK_INDEX_KEY]: taskIndex,
      ...describeColumns(taskRecords, columns),
      sample,
      num_rollouts: numRollouts,
      expected_num_rollouts: expected,
      missing_num_rollouts: expected - numRollouts,
      reward_profile_completion_pct: expected === 0 ? 100.0 : (100.0 * numRollouts) / expected,
      rollout_infos: [...rolloutInfos].sort((a, b) => compareIndex(a[ROLLOUT_INDEX_KEY], b[ROLLOUT_INDEX_KEY])),
    });
  }

  const byAgent = [...groupBy(records, (r) => r.agentName)].sort(([a], [b]) => compareIndex(a, b));
  const agentLevelMetrics = byAgent.map(([agentName, agentRecords]) => ({
    ...describeColumns(agentRecords, columns),
    [AGENT_REF_KEY]: { name: agentName },
  }));

  return { groupLevelMetrics, agentLevelMetrics };
}

/**
 * The five statistics of every column over some records, keyed `{stat}/{column}` (all means, then all
 * maxima, …). When no column has a standard deviation (a single rollout), columns without a missing value
 * get 0; whatever stays undefined is left out.
 */
function describeColumns(records: NumericRecord[], columns: string[]): Record<string, number> {
  const stats = columns.map((column) => columnStats(records.map((record) => record.values.get(column))));
  if (stats.every((s) => Number.isNaN(s.std))) {
    for (const s of stats) if (s.count === records.length) s.std = 0;
  }
  const described: Record<string, number> = {};
  for (const statistic of STATISTICS) {
    columns.forEach((column, i) => {
      const value = stats[i][statistic];
      if (!Number.isNaN(value)) described[`${statistic}/${column}`] = value;
    });
  }
  return described;
}

/**
 * The numeric fields of a result that become statistics columns: top-level numbers and booleans (as 0/1),
 * then those of `response.usage` (a usage field overrides a top-level one of the same name); the task and
 * rollout indices are not columns.
 */
function numericFields(result: Row): Map<string, number> {
  const merged = new Map<string, unknown>(Object.entries(result));
  for (const [key, value] of Object.entries(usageOf(result))) merged.set(key, value);
  const values = new Map<string, number>();
  for (const [key, value] of merged) {
    if (key === TASK_INDEX_KEY || key === ROLLOUT_INDEX_KEY || key === "agent_name") continue;
    const numeric = asNumber(value);
    if (numeric !== undefined) values.set(key, numeric);
  }
  return values;
}

/**
 * One rollout's entry in `rollout_infos`: `rollout_id` "<task>:<rollout>", the indices, `reward` (when the
 * result has one), then the numeric usage fields and the other numeric top-level fields.
 */
export function rolloutInfoFromResult(result: Row): Record<string, unknown> {
  const taskIndex = result[TASK_INDEX_KEY];
  const rolloutIndex = result[ROLLOUT_INDEX_KEY];
  const info: Record<string, unknown> = {
    rollout_id: `${String(taskIndex)}:${String(rolloutIndex)}`,
    [TASK_INDEX_KEY]: taskIndex,
    [ROLLOUT_INDEX_KEY]: rolloutIndex,
  };
  if ("reward" in result) info.reward = result.reward ?? null;
  for (const [key, value] of Object.entries(usageOf(result))) {
    const numeric = asNumber(value);
    if (numeric !== undefined) info[key] = numeric;
  }
  for (const [key, value] of Object.entries(result)) {
    if (key === TASK_INDEX_KEY || key === ROLLOUT_INDEX_KEY || key === "reward" || key === "response") continue;
    const numeric = asNumber(value);
    if (numeric !== undefined) info[key] = numeric;
  }
  return info;
}

/** Input rows paired with their results, sorted by (task, rollout). Throws on duplicates and unmatched results. */
export function alignRowsAndResults(rows: Row[], results: Row[], allowPartialRollouts = false): [Row, Row][] {
  const rowsByKey = indexByRolloutKey(rows, "materialized input");
  const resultsByKey = indexByRolloutKey(results, "result");

  const missingResults = sortedKeys([...rowsByKey.keys()].filter((key) => !resultsByKey.has(key)), rowsByKey);
  const extraResults = sortedKeys([...resultsByKey.keys()].filter((key) => !rowsByKey.has(key)), resultsByKey);
  if (extraResults.length > 0) {
    throw new Error(
      "Rollout results contain rows with no matching materialized input rows. " +
        `Found ${extraResults.length} extra rollout rows. Extra rollout keys: ${pythonKeyList(extraResults.slice(0, 10))}`,
    );
  }
  if (missingResults.length > 0 && !allowPartialRollouts) {
    throw new Error(
      "Materialized input rows and rollout results do not have matching rollout keys. " +
        `Missing rollout results for ${missingResults.length} materialized input rows. ` +
        `Missing rollout keys: ${pythonKeyList(missingResults.slice(0, 10))}.\n\n` +
        "Use ++allow_partial_rollouts=True to profile completed rollouts from a partial collection.",
    );
  }
  const matched = sortedKeys([...rowsByKey.keys()].filter((key) => resultsByKey.has(key)), rowsByKey);
  return matched.map(({ id }) => [rowsByKey.get(id)!.row, resultsByKey.get(id)!.row]);
}

/** How complete a (possibly partial) collection is, per rollout and per input row (task). */
export function profileCompletionSummary(rows: Row[], results: Row[]): CompletionSummary {
  const rowsByKey = indexByRolloutKey(rows, "materialized input");
  const resultsByKey = indexByRolloutKey(results, "result");
  const expectedByTask = new Map<unknown, number>();
  const completedByTask = new Map<unknown, number>();
  let completedRolloutRows = 0;
  for (const [id, { key }] of rowsByKey) {
    expectedByTask.set(key[0], (expectedByTask.get(key[0]) ?? 0) + 1);
    if (resultsByKey.has(id)) {
      completedRolloutRows += 1;
      completedByTask.set(key[0], (completedByTask.get(key[0]) ?? 0) + 1);
    }
  }
  let complete = 0;
  let partial = 0;
  let missing = 0;
  for (const [task, expected] of expectedByTask) {
    const completed = completedByTask.get(task) ?? 0;
    if (completed === expected) complete += 1;
    else if (completed > 0) partial += 1;
    else missing += 1;
  }
  const expectedRolloutRows = rowsByKey.size;
  return {
    expected_rollout_rows: expectedRolloutRows,
    completed_rollout_rows: completedRolloutRows,
    missing_rollout_rows: expectedRolloutRows - completedRolloutRows,
    extra_rollout_rows: [...resultsByKey.keys()].filter((id) => !rowsByKey.has(id)).length,
    reward_profile_completion_pct: expectedRolloutRows === 0 ? 100.0 : (100.0 * completedRolloutRows) / expectedRolloutRows,
    total_input_rows: expectedByTask.size,
    complete_input_rows: complete,
    partial_input_rows: partial,
    missing_input_rows: missing,
  };
}

/** Copies of metric rows without their `histogram*` keys (NeMo Gym's W&B histograms), ready to write out. */
export function prepareForSerialization(metrics: Record<string, unknown>[]): Record<string, unknown>[] {
  return metrics.map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => !key.startsWith("histogram"))));
}

// --- helpers ---------------------------------------------------------------------------------------------

function asNumber(value: unknown): number | undefined {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return value;
  return undefined;
}

function usageOf(result: Row): Record<string, unknown> {
  const response = result.response;
  if (response === null || typeof response !== "object" || Array.isArray(response)) return {};
  const usage = (response as Row).usage;
  if (usage === null || typeof usage !== "object" || Array.isArray(usage)) return {};
  return usage as Record<string, unknown>;
}

function agentNameOf(row: Row): unknown {
  const agentRef = row[AGENT_REF_KEY];
  const name = agentRef !== null && typeof agentRef === "object" ? (agentRef as Row).name : undefined;
  if (name === undefined) throw new Error(`Materialized input row ${pythonTuple(rolloutKeyOf(row))} has no ${AGENT_REF_KEY}.name`);
  return name;
}

function groupBy<T>(items: T[], keyOf: (item: T) => unknown): Map<unknown, T[]> {
  const groups = new Map<unknown, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(item);
  }
  return groups;
}

type RolloutKey = [unknown, unknown];

function rolloutKeyOf(row: Row): RolloutKey {
  return [row[TASK_INDEX_KEY], row[ROLLOUT_INDEX_KEY]];
}

function indexByRolloutKey(rows: Row[], name: string): Map<string, { key: RolloutKey; row: Row }> {
  const indexed = new Map<string, { key: RolloutKey; row: Row }>();
  for (const row of rows) {
    const key = rolloutKeyOf(row);
    if (key[0] === undefined || key[1] === undefined) {
      throw new Error(`A ${name} row has no ${key[0] === undefined ? TASK_INDEX_KEY : ROLLOUT_INDEX_KEY}`);
    }
    const id = JSON.stringify(key);
    if (indexed.has(id)) throw new Error(`Duplicate ${name} row for rollout key ${pythonTuple(key)}`);
    indexed.set(id, { key, row });
  }
  return indexed;
}

function sortedKeys(ids: string[], index: Map<string, { key: RolloutKey }>): { id: string; key: RolloutKey }[] {
  return ids
    .map((id) => ({ id, key: index.get(id)!.key }))
    .sort((a, b) => compareIndex(a.key[0], b.key[0]) || compareIndex(a.key[1], b.key[1]));
}

/** Order of task/rollout indices and agent names: numbers numerically, anything else by its text. */
export function compareIndex(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

function pythonTuple(key: RolloutKey): string {
  return `(${jsonRepr(key[0])}, ${jsonRepr(key[1])})`;
}

function pythonKeyList(keys: { key: RolloutKey }[]): string {
  return `[${keys.map(({ key }) => pythonTuple(key)).join(", ")}]`;
}
