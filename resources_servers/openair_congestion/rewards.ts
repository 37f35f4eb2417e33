// The verifier is the environment: compute_breakdown scores each transition from its KPIs (openair_v1). Delta
// terms compare with the previous observation (none on a first step; a rejected call can only lose), level terms
// charge the current congestion, and a rejected call costs w_reject.
import type { Observation } from "./observation.ts";
import type { ToolCall } from "./guardrail.ts";

export const DEFAULT_WEIGHTS = {
  w_sla: 1.0,
  w_tput: 2.0,
  w_fair: 5.0,
  w_buffer: 0.15,
  w_sla_level: 0.8,
  w_prb_level: 0.4,
  w_access_level: 0.3,
  w_fair_level: 0.35,
  w_action: 0.0,
  w_reject: 0.5,
};
export type RewardWeights = typeof DEFAULT_WEIGHTS;

/** The one supported reward profile (NeMo Gym's select_reward_profile: tier "replay" only). */
export const REWARD_PROFILE = { version: "openair_v1", prb_pressure_threshold: 0.85 };

import { pythonSum } from "../../src/python/sum.ts";

// Python's built-in sum (compensated for floats since CPython 3.12).
const sum = (values: number[]) => pythonSum(values);
const ues = (obs: Observation) => obs.cells.flatMap((c) => c.ues);
const delivered = (obs: Observation) => sum(ues(obs).map((ue) => ue.delivered_mbps));
const meanJain = (obs: Observation) => (obs.cells.length === 0 ? 1.0 : sum(obs.cells.map((c) => c.fairness_jain)) / obs.cells.length);
const slaCount = (obs: Observation) => sum(obs.cells.map((c) => c.sla_violations_last_window));
const nUes = (obs: Observation) => Math.max(1, sum(obs.cells.map((c) => c.ues.length)));
const meanOver = (obs: Observation, f: (c: Observation["cells"][number]) => number) => (obs.cells.length === 0 ? 0.0 : sum(obs.cells.map(f)) / obs.cells.length);
const prbPressure = (obs: Observation, threshold: number) => meanOver(obs, (c) => Math.max(0, c.prb_util_dl_p99 - threshold) / Math.max(1e-6, 1.0 - threshold));
const accessPressure = (obs: Observation) => meanOver(obs, (c) => Math.max(0, c.prach_collision_rate - 0.05) / Math.max(1e-6, 0.5 - 0.05));
const fairnessDeficit = (obs: Observation) => meanOver(obs, (c) => Math.max(0, 0.8 - c.fairness_jain) / Math.max(1e-6, 0.8));
function bufferPressure(obs: Observation, bufferCapacityKb: number): number {
  const all = ues(obs);
  if (all.length === 0) return 0.0;
  const denom = Math.max(1e-6, bufferCapacityKb);
  return sum(all.map((ue) => Math.max(0, ue.buffer_occupancy_kb / denom - 0.7))) / all.length;
}
const actionL1 = (action: ToolCall) => (action.name === "noop" ? 0.0 : 1.0);

export interface RewardBreakdown {
  measurements: Record<string, number>;
  terms: Record<string, number>;
  total: number;
}

export function computeBreakdown(
  prev: Observation | null,
  curr: Observation,
  action: ToolCall,
  options: { rejected: boolean; weights: RewardWeights; cellCapacityMbps: number; bufferCapacityKb?: number; prbPressureThreshold: number },
): RewardBreakdown {
  const { rejected, weights: w, cellCapacityMbps, prbPressureThreshold } = options;
  const bufferCapacityKb = options.bufferCapacityKb ?? 1024.0;
  let dSla = 0;
  let dTput = 0.0;
  let dFair = 0.0;
  if (prev !== null) {
    dSla = slaCount(prev) - slaCount(curr);
    dTput = delivered(curr) - delivered(prev);
    dFair = meanJain(curr) - meanJain(prev);
    if (rejected) {
      dSla = Math.min(0, dSla);
      dTput = Math.min(0.0, dTput);
      dFair = Math.min(0.0, dFair);
    }
  }
  const capacityTotal = Math.max(1e-6, cellCapacityMbps * Math.max(1, curr.global.n_cells));
  const n = nUes(curr);
  const measurements = {
    delta_sla_violations: dSla,
    delta_delivered_mbps: dTput,
    delta_jain_fairness: dFair,
    sla_violations: slaCount(curr),
    aggregate_delivered_mbps: delivered(curr),
    mean_jain_fairness: meanJain(curr),
    prb_pressure: prbPressure(curr, prbPressureThreshold),
    access_pressure: accessPressure(curr),
    fairness_deficit: fairnessDeficit(curr),
    buffer_pressure: bufferPressure(curr, bufferCapacityKb),
    action_l1_norm: actionL1(action),
    cell_capacity_mbps_total: capacityTotal,
    n_ues: n,
  };
  const terms: Record<string, number> = {
    delta_sla: w.w_sla * dSla,
    delta_tput: w.w_tput * (dTput / capacityTotal),
    delta_fair: w.w_fair * dFair,
    level_sla: -w.w_sla_level * (slaCount(curr) / n),
    level_prb: -w.w_prb_level * prbPressure(curr, prbPressureThreshold),
    level_access: -w.w_access_level * accessPressure(curr),
    level_fair: -w.w_fair_level * fairnessDeficit(curr),
    level_buffer: -w.w_buffer * bufferPressure(curr, bufferCapacityKb),
    action: 0.0,
    reject: 0.0,
  };
  if (!rejected) terms.action = -w.w_action * actionL1(action);
  else terms.reject = -w.w_reject;
  const total = sum(Object.values(terms));
  terms.total = total;
  return { measurements, terms, total };
}

/** Every key of the reward's measurements and terms is a Python float on the wire. */
export const REWARD_FLOAT_FIELDS = [
  "delta_sla_violations", "delta_delivered_mbps", "delta_jain_fairness", "sla_violations", "aggregate_delivered_mbps", "mean_jain_fairness",
  "prb_pressure", "access_pressure", "fairness_deficit", "buffer_pressure", "action_l1_norm", "cell_capacity_mbps_total", "n_ues",
  "delta_sla", "delta_tput", "delta_fair", "level_sla", "level_prb", "level_access", "level_fair", "level_buffer", "action", "reject", "total",
  "protocol_violation", "cumulative_reward", "last_reward", "prb_pressure_threshold",
  ...Object.keys(DEFAULT_WEIGHTS),
];
