// NeMo Gym's StructEvalResourcesServer.compute_metrics: mean render and key-validation scores, and mean reward
// per output type, input type and task name.
import { pythonMean } from "../../src/python/float.ts";

type Row = Record<string, unknown>;

const number = (value: unknown, fallback: number) => (typeof value === "number" ? value : fallback);

export function structEvalMetrics(tasks: Row[][]): Record<string, number> {
  const renderScores: number[] = [];
  const keyScores: number[] = [];
  const groups = { output: new Map<string, number[]>(), input: new Map<string, number[]>(), task: new Map<string, number[]>(), render: new Map<string, number[]>(), key: new Map<string, number[]>() };
  const add = (group: Map<string, number[]>, name: string, value: number) => group.set(name, [...(group.get(name) ?? []), value]);
  for (const rollouts of tasks) {
    for (const rollout of rollouts) {
      const reward = number(rollout.reward, 0);
      const outputType = String(rollout.output_type ?? "unknown");
      const render = number(rollout.render_score, 0);
      const key = number(rollout.key_validation_score, 0);
      add(groups.output, outputType, reward);
      add(groups.input, String(rollout.input_type ?? "unknown"), reward);
      add(groups.task, String(rollout.task_name ?? "unknown"), reward);
      renderScores.push(render);
      keyScores.push(key);
      add(groups.render, outputType, render);
      add(groups.key, outputType, key);
    }
  }
  const metrics: Record<string, number> = {};
  if (renderScores.length > 0) metrics["mean/render_score"] = pythonMean(renderScores);
  if (keyScores.length > 0) metrics["mean/key_validation_score"] = pythonMean(keyScores);
  for (const [name, values] of groups.output) metrics[`mean/reward_output_${name}`] = pythonMean(values);
  for (const [name, values] of groups.input) metrics[`mean/reward_input_${name}`] = pythonMean(values);
  for (const [name, values] of groups.task) metrics[`mean/reward_${name}`] = pythonMean(values);
  for (const [name, values] of groups.render) metrics[`mean/render_score_${name}`] = pythonMean(values);
  for (const [name, values] of groups.key) metrics[`mean/key_validation_score_${name}`] = pythonMean(values);
  return metrics;
}
