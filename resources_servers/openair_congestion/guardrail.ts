// The guardrail: a well-formed call whose values are out of bounds, target a cell or UE the observation does not
// have, would be catastrophic (mcs_max = 0, all weights zero, …) or repeats an accepted call within the rate-limit
// window is rejected, with NeMo Gym's reason text (Python reprs included), and scored as a rejected transition.
import { isPyDict, pythonEquals, pythonRepr, type PyDict, type PyValue } from "../../src/python/values.ts";
import { floatRepr } from "../../src/python/float.ts";
import { A3_OFFSET_DB_RANGE, ALPHA_VALUES, MCS_MAX, P0_DBM_RANGE, POLICY_VALUES, PRB_CAP_TARGETS, PRB_MAX, TTT_MS_VALUES } from "./tools.ts";

export const DEFAULT_RATE_LIMIT_S = 2.0;

export interface ToolCall {
  name: string;
  arguments: PyDict;
}
export interface HistoryEntry {
  action: ToolCall;
  t_s: number;
}
export type GuardrailResult = { accepted: true; reason: null } | { accepted: false; reason: string };

const accept: GuardrailResult = { accepted: true, reason: null };
const reject = (reason: string): GuardrailResult => ({ accepted: false, reason });

// Python's isinstance(v, int) (bool included: True is an int) and isinstance(v, (int, float)).
const isInt = (v: PyValue | undefined): v is bigint | boolean => typeof v === "bigint" || typeof v === "boolean";
const isNumber = (v: PyValue | undefined): v is bigint | boolean | number => isInt(v) || typeof v === "number";
const num = (v: bigint | boolean | number): number => Number(v);
const repr = (v: PyValue | undefined) => pythonRepr(v ?? null);
const tupleRepr = (values: readonly (string | number)[]) => `(${values.map((v) => (typeof v === "string" ? repr(v) : floatRepr(v))).join(", ")})`;

/** Python's int(k) on a 5QI / slice key (a str of digits, optionally signed and padded), or undefined for its ValueError. */
function pythonIntOfKey(key: string): number | undefined {
  const text = key.trim().replace(/_/g, (m, i: number, s: string) => (/\d/.test(s[i - 1] ?? "") && /\d/.test(s[i + 1] ?? "") ? "" : m));
  return /^[+-]?\d+$/.test(text) ? Number(text) : undefined;
}

export interface GuardrailTopology {
  n_cells: number;
  ue_ids_by_cell: Map<number, Set<number>>;
}

export function check(action: ToolCall, topology: GuardrailTopology, history: HistoryEntry[], nowS: number, rateLimitS = DEFAULT_RATE_LIMIT_S): GuardrailResult {
  const args = action.arguments;
  if (action.name === "noop") return accept;

  if (!args.has("cell_id")) return reject(`${action.name}: missing cell_id`);
  const cellIdValue = args.get("cell_id")!;
  if (!isInt(cellIdValue) || num(cellIdValue) < 0 || num(cellIdValue) >= topology.n_cells) {
    return reject(`${action.name}: cell_id=${repr(cellIdValue)} out of range [0,${topology.n_cells})`);
  }
  const cellId = num(cellIdValue);
  const arg = (key: string) => args.get(key);

  switch (action.name) {
    case "set_scheduler_policy": {
      const policy = arg("policy");
      if (!(POLICY_VALUES as readonly PyValue[]).some((p) => pythonEquals(p, policy ?? null))) return reject(`set_scheduler_policy: policy=${repr(policy)} not in ${tupleRepr(POLICY_VALUES)}`);
      break;
    }
    case "set_prb_cap": {
      const target = arg("target");
      if (!(PRB_CAP_TARGETS as readonly PyValue[]).some((p) => pythonEquals(p, target ?? null))) return reject(`set_prb_cap: target=${repr(target)} not in ${tupleRepr(PRB_CAP_TARGETS)}`);
      const targetId = arg("target_id");
      // The observation lists the UEs of each cell: a target must be one of them.
      const validIds = topology.ue_ids_by_cell.get(cellId) ?? new Set<number>();
      if (!isInt(targetId) || !validIds.has(num(targetId))) {
        return reject(`set_prb_cap: target_id=${repr(targetId)} not present in cell ${cellId}; valid ids=[${[...validIds].sort((a, b) => a - b).join(", ")}]`);
      }
      const maxPrb = arg("max_prb");
      if (!isInt(maxPrb) || num(maxPrb) < 0 || num(maxPrb) > PRB_MAX) return reject(`set_prb_cap: max_prb=${repr(maxPrb)} out of [0,${PRB_MAX}]`);
      if (num(maxPrb) === 0) return reject(`set_prb_cap: max_prb=0 starves the ${target as string} entirely (catastrophic)`);
      break;
    }
    case "set_mcs_bounds": {
      const mcsMin = arg("mcs_min");
      const mcsMax = arg("mcs_max");
      const targetBler = arg("target_bler");
      for (const [label, value] of [["mcs_min", mcsMin], ["mcs_max", mcsMax]] as const) {
        if (!isInt(value) || num(value) < 0 || num(value) > MCS_MAX) return reject(`set_mcs_bounds: ${label}=${repr(value)} out of [0,${MCS_MAX}]`);
      }
      if (num(mcsMin as bigint) > num(mcsMax as bigint)) return reject(`set_mcs_bounds: mcs_min (${repr(mcsMin)}) > mcs_max (${repr(mcsMax)})`);
      if (num(mcsMax as bigint) === 0) return reject("set_mcs_bounds: mcs_max=0 zeroes throughput (catastrophic)");
      if (!isNumber(targetBler) || !(num(targetBler) >= 0 && num(targetBler) <= 0.5)) return reject(`set_mcs_bounds: target_bler=${repr(targetBler)} out of [0,0.5]`);
      break;
    }
    case "set_qos_weights": {
      const weights = arg("weights");
      if (!isPyDict(weights) || weights.size === 0) return reject("set_qos_weights: weights must be a non-empty mapping");
      for (const [key, value] of weights) {
        const qos = pythonIntOfKey(key);
        if (qos === undefined) return reject(`set_qos_weights: 5QI key ${repr(key)} not an integer`);
        if (qos < 1 || qos > 127) return reject(`set_qos_weights: 5QI ${qos} out of [1,127]`);
        if (!isNumber(value) || num(value) < 0 || num(value) > 10) return reject(`set_qos_weights[${qos}]: weight=${repr(value)} out of [0,10]`);
      }
      if ([...weights.values()].every((v) => num(v as number) === 0)) return reject("set_qos_weights: all weights zero (catastrophic)");
      break;
    }
    case "set_admission_policy": {
      const acceptPct = arg("accept_threshold_pct");
      if (!isNumber(acceptPct) || !(num(acceptPct) >= 0 && num(acceptPct) <= 100)) return reject(`set_admission_policy: accept_threshold_pct=${repr(acceptPct)} out of [0,100]`);
      if (num(acceptPct) <= 0) return reject("set_admission_policy: accept_threshold_pct=0 rejects all admissions (catastrophic)");
      const slices = args.has("slice_reservation") ? arg("slice_reservation")! : new Map();
      if (!isPyDict(slices)) return reject("set_admission_policy: slice_reservation must be a mapping");
      for (const [key, value] of slices) {
        const sliceId = pythonIntOfKey(key);
        if (sliceId === undefined) return reject(`set_admission_policy: slice id ${repr(key)} not an integer`);
        if (sliceId < 0 || sliceId > 8) return reject(`set_admission_policy: slice id ${sliceId} out of [0,8]`);
        if (!isInt(value) || num(value) < 0 || num(value) > PRB_MAX) return reject(`set_admission_policy: slice ${key} reservation=${repr(value)} out of [0,${PRB_MAX}]`);
      }
      break;
    }
    case "set_handover_trigger": {
      const a3 = arg("a3_offset_db");
      const ttt = arg("ttt_ms");
      if (!isNumber(a3) || !(num(a3) >= A3_OFFSET_DB_RANGE[0] && num(a3) <= A3_OFFSET_DB_RANGE[1])) return reject(`set_handover_trigger: a3_offset_db=${repr(a3)} out of ${tupleRepr(A3_OFFSET_DB_RANGE)}`);
      if (!isInt(ttt) || !(TTT_MS_VALUES as readonly number[]).includes(num(ttt))) return reject(`set_handover_trigger: ttt_ms=${repr(ttt)} not in 38.331 set`);
      break;
    }
    case "set_ul_power_control": {
      const p0 = arg("p0_dbm");
      const alpha = arg("alpha");
      if (!isNumber(p0) || !(num(p0) >= P0_DBM_RANGE[0] && num(p0) <= P0_DBM_RANGE[1])) return reject(`set_ul_power_control: p0_dbm=${repr(p0)} out of ${tupleRepr(P0_DBM_RANGE)}`);
      if (!isNumber(alpha) || !(ALPHA_VALUES as readonly number[]).includes(num(alpha))) return reject(`set_ul_power_control: alpha=${repr(alpha)} not in ${tupleRepr(ALPHA_VALUES)}`);
      break;
    }
    default:
      return reject(`unknown tool ${repr(action.name)} reached guardrail`);
  }

  // An identical accepted call within the window is rejected (most recent first; stop at the first older one).
  if (history.length > 0 && rateLimitS > 0) {
    for (let i = history.length - 1; i >= 0; i--) {
      const entry = history[i]!;
      if (entry.t_s < nowS - rateLimitS) break;
      if (entry.action.name === action.name && pythonEquals(entry.action.arguments, args)) {
        return reject(`${action.name}: identical-action repeat within ${formatG(rateLimitS)}s window`);
      }
    }
  }
  return accept;
}

/** Python's `:g` for the rate limit (2.0 → "2"). */
const formatG = (x: number) => String(Number(x.toPrecision(6)));
