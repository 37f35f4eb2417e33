// POST /aggregate_metrics, computed as NeMo Gym computes it (nemo_gym/reward_profile.py): the reward
// profile of every numeric field per task and overall, then the server's own computeMetrics merged in and
// the headline key_metrics picked out. Also what rollout collection posts for each persisted line.
import { jsonTruthy } from "../python/json-value.ts";
import { prepareForSerialization, profileFromData, compareIndex, AGENT_REF_KEY, ROLLOUT_INDEX_KEY, TASK_INDEX_KEY } from "./reward-profile.ts";

import type { VerifyRecord } from "./reward-profile.ts";

export type { VerifyRecord };

export interface AggregateMetrics {
  group_level_metrics: Record<string, unknown>[];
  agent_metrics: Record<string, unknown>;
  key_metrics: Record<string, unknown>;
}

export interface MetricsHooks {
  /** The resources server's compute_metrics(tasks): tasks = per-task lists of verify records sorted by task index. May return per_task_metrics (merged into matching groups). */
  computeMetrics?(tasks: VerifyRecord[][]): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** get_key_metrics(agent_metrics); default: every key starting with "mean/". */
  keyMetrics?(agentMetrics: Record<string, unknown>): Record<string, unknown>;
}

/** The name every rollout is profiled under in /aggregate_metrics (and so each group's `sample`). */
const AGGREGATE_AGENT_NAME = "agent";

/**
 * The body of a POST /aggregate_metrics answer for these verify responses:
 * - `group_level_metrics`: per task (sorted by `_ng_task_index`, default 0) the task index, mean/max/min/
 *   median/std of every numeric field, `sample`, rollout counts and `rollout_infos`;
 * - `agent_metrics`: the same statistics over all rollouts, then whatever `hooks.computeMetrics` returns
 *   (its `per_task_metrics` list is merged into the groups with the same `_ng_task_index` instead);
 * - `key_metrics`: `hooks.keyMetrics(agent_metrics)`, by default its `mean/*` entries.
 * Throws when two verify responses share a (task, rollout) index pair, as NeMo Gym does.
 */
export async function computeAggregateMetrics(verifyResponses: VerifyRecord[], hooks: MetricsHooks = {}): Promise<AggregateMetrics> {
  if (verifyResponses.length === 0) return { group_level_metrics: [], agent_metrics: {}, key_metrics: {} };

  const rows: VerifyRecord[] = [];
  const results: VerifyRecord[] = [];
  for (const verifyResponse of verifyResponses) {
    const taskIndex = verifyResponse[TASK_INDEX_KEY] ?? 0;
    const rolloutIndex = verifyResponse[ROLLOUT_INDEX_KEY] ?? 0;
    rows.push({ [TASK_INDEX_KEY]: taskIndex, [ROLLOUT_INDEX_KEY]: rolloutIndex, [AGENT_REF_KEY]: { name: AGGREGATE_AGENT_NAME } });
    results.push({ ...verifyResponse, [TASK_INDEX_KEY]: taskIndex, [ROLLOUT_INDEX_KEY]: rolloutIndex });
  }
  const profile = profileFromData(rows, results);

  const groupLevelMetrics = prepareForSerialization(profile.groupLevelMetrics);
  const agentMetrics: Record<string, unknown> = {};
  for (const entry of prepareForSerialization(profile.agentLevelMetrics)) {
    for (const [key, value] of Object.entries(entry)) if (key !== AGENT_REF_KEY) agentMetrics[key] = value;
  }

  if (hooks.computeMetrics) {
    const { per_task_metrics: perTaskMetrics, ...custom } = await hooks.computeMetrics(groupByTask(verifyResponses));
    if (Array.isArray(perTaskMetrics) && perTaskMetrics.length > 0) mergePerTaskMetrics(groupLevelMetrics, perTaskMetrics);
    else if (jsonTruthy(perTaskMetrics)) throw new TypeError("computeMetrics returned a per_task_metrics that is not a list");
    Object.assign(agentMetrics, custom);
  }

  const keyMetrics = hooks.keyMetrics ? hooks.keyMetrics(agentMetrics) : defaultKeyMetrics(agentMetrics);
  return { group_level_metrics: groupLevelMetrics, agent_metrics: agentMetrics, key_metrics: keyMetrics };
}

/** NeMo Gym's default get_key_metrics: every `mean/*` entry. */
export function defaultKeyMetrics(agentMetrics: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(agentMetrics).filter(([key]) => key.startsWith("mean/")));
}

/** Verify responses grouped per task (`_ng_task_index`, default 0), tasks in index order, rollouts in given order. */
export function groupByTask(verifyResponses: VerifyRecord[]): VerifyRecord[][] {
  const groups = new Map<unknown, VerifyRecord[]>();
  for (const verifyResponse of verifyResponses) {
    const taskIndex = verifyResponse[TASK_INDEX_KEY] ?? 0;
    if (!groups.has(taskIndex)) groups.set(taskIndex, []);
    groups.get(taskIndex)!.push(verifyResponse);
  }
  return [...groups.entries()].sort(([a], [b]) => compareIndex(a, b)).map(([, rollouts]) => rollouts);
}

/**
 * What rollout collection posts to /aggregate_metrics for one persisted rollout line: every field except
 * `responses_create_params` and `response`, then `response: {usage}` when the response had a usage.
 */
export function stripForAggregation(rolloutLine: Record<string, unknown>): VerifyRecord {
  const stripped: VerifyRecord = {};
  for (const [key, value] of Object.entries(rolloutLine)) {
    if (key !== "response" && key !== "responses_create_params") stripped[key] = value;
  }
  const response = rolloutLine.response;
  const usage = response !== null && typeof response === "object" ? (response as Record<string, unknown>).usage : undefined;
  if (jsonTruthy(usage)) stripped.response = { usage };
  return stripped;
}

/** Each entry's fields (except `_ng_task_index`) overwrite or extend the group with the same task index; a later entry for the same task wins. */
function mergePerTaskMetrics(groups: Record<string, unknown>[], perTaskMetrics: unknown[]): void {
  const byTask = new Map<unknown, Record<string, unknown>>();
  for (const entry of perTaskMetrics) {
    if (entry !== null && typeof entry === "object" && TASK_INDEX_KEY in entry) {
      byTask.set((entry as Record<string, unknown>)[TASK_INDEX_KEY], entry as Record<string, unknown>);
    }
  }
  for (const group of groups) {
    const entry = byTask.get(group[TASK_INDEX_KEY]);
    if (!entry) continue;
    for (const [key, value] of Object.entries(entry)) if (key !== TASK_INDEX_KEY) group[key] = value;
  }
}
