// NeMo Gym's StructuredOutputsResourcesServer.compute_metrics: mean reward per format and per each row
// attribute the dataset records (problem type, schema representation, tool-call layout, …).
import { pythonMean } from "../../src/python/float.ts";
import { jsonTruthy } from "../../src/python/json-value.ts";

type Row = Record<string, unknown>;

// [metric prefix, row field, how the field names its group]; `flag` groups booleans as "true"/"false" and
// keeps any non-null value, `text` skips empty values, as Python's truthiness check does.
const BREAKDOWNS: [string, string, "text" | "flag" | "count"][] = [
  ["", "problem_type", "text"],
  ["repr_", "schema_repr", "text"],
  ["response_mode_", "response_mode", "text"],
  ["tool_schema_mode_", "tool_schema_mode", "text"],
  ["tool_choice_", "tool_choice", "text"],
  ["parallel_tool_calls_", "parallel_tool_calls", "flag"],
  ["num_tools_", "num_tools", "count"],
  ["has_distractors_", "has_distractors", "flag"],
  ["instruction_layout_", "instruction_layout", "text"],
  ["instruction_detail_level_", "instruction_detail_level", "text"],
  ["system_instruction_style_", "system_instruction_style", "text"],
  ["tool_name_style_", "tool_name_style", "text"],
  ["distractor_style_", "distractor_style", "text"],
  ["tool_union_mode_", "tool_union_mode", "text"],
];


function groupName(value: unknown, kind: "text" | "flag" | "count"): string | undefined {
  if (kind === "text") return jsonTruthy(value) ? String(value) : undefined;
  if (value === undefined || value === null) return undefined;
  if (kind === "flag") return String(jsonTruthy(value));
  return String(value);
}

export function structuredOutputsMetrics(tasks: Row[][]): Record<string, number> {
  const byFormat = new Map<string, number[]>();
  const breakdowns = BREAKDOWNS.map(() => new Map<string, number[]>());
  const add = (groups: Map<string, number[]>, key: string, reward: number) => groups.set(key, [...(groups.get(key) ?? []), reward]);
  for (const rollouts of tasks) {
    for (const rollout of rollouts) {
      const reward = typeof rollout.reward === "number" ? rollout.reward : 0;
      add(byFormat, String(rollout.schema_type ?? "unknown"), reward);
      BREAKDOWNS.forEach(([, field, kind], i) => {
        const name = groupName(rollout[field], kind);
        if (name !== undefined) add(breakdowns[i]!, name, reward);
      });
    }
  }
  const metrics: Record<string, number> = {};
  for (const [format, rewards] of byFormat) metrics[`mean/reward_${format}`] = pythonMean(rewards);
  BREAKDOWNS.forEach(([prefix], i) => {
    for (const [name, rewards] of breakdowns[i]!) metrics[`mean/reward_${prefix}${name}`] = pythonMean(rewards);
  });
  return metrics;
}
