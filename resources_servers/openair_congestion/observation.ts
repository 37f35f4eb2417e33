// The KPI observation a policy sees, built from a recorded snapshot row as NeMo Gym's dataset backend builds it
// (missing optional fields derived with the env's heuristics; every value checked against the schema's bounds),
// and its rendering as the policy's user message.
import { MAX_CELLS, MAX_UES } from "./tools.ts";
import { floatParts, floatRepr } from "../../src/python/float.ts";
import { pythonSum } from "../../src/python/sum.ts";
import { pythonRepr, type PyDict } from "../../src/python/values.ts";

export const SCHEMA_VERSION = "1.0.0";
export const KPI_PROVENANCE_VERSION = "1.1.0";
export const SUPPORTED_REGIMES = ["prb_exhaustion", "bursty", "interference", "prach_storm", "qos_competition"];

export interface UEObservation {
  ue_id: number;
  offered_mbps: number;
  delivered_mbps: number;
  bler: number;
  mcs_mean: number;
  sinr_db: number;
  buffer_occupancy_kb: number;
  pdb_violations: number;
  "5qi": number;
}
export interface CellObservation {
  cell_id: number;
  prb_util_dl_p50: number;
  prb_util_dl_p99: number;
  prb_util_ul_p50: number;
  sched_latency_ms_p99: number;
  rrc_connected_ues: number;
  prach_collision_rate: number;
  fairness_jain: number;
  sla_violations_last_window: number;
  ues: UEObservation[];
}
export interface AgentAux {
  last_action: { name: string; arguments: PyDict } | null;
  last_reward: number | null;
  last_rejection: string | null;
  step_idx: number;
}
export interface Observation {
  t_s: number;
  episode_id: string;
  cells: CellObservation[];
  global: { n_cells: number; n_ues_total: number; difficulty: number; regime_mix: Record<string, number>; tier: "replay" };
  kpi_source_mode: string;
  agent_aux: AgentAux;
}

/** A row NeMo Gym's loader refuses (its ValueError / TypeError), with the same field-level message. */
export class DatasetRowError extends Error {}

const jain = (values: number[]) => {
  if (values.length === 0 || values.every((v) => v <= 0)) return 1.0;
  const s = pythonSum(values);
  const sq = pythonSum(values.map((v) => v * v));
  return (s * s) / Math.max(1e-9, values.length * sq);
};

const typeName = (v: unknown) => (v === null ? "NoneType" : Array.isArray(v) ? "list" : typeof v === "object" ? "dict" : typeof v === "string" ? "str" : typeof v === "boolean" ? "bool" : "float");
const jsonRepr = (v: unknown) => (typeof v === "string" ? pythonRepr(v) : typeof v === "boolean" ? (v ? "True" : "False") : v === null ? "None" : JSON.stringify(v));

/** A finite JSON number (a bool or string is refused, never coerced), the default when absent or null. */
function num(raw: Record<string, unknown>, key: string, fallback: number, min?: number, max?: number): number {
  const value = raw[key];
  let parsed: number;
  if (value === undefined || value === null) parsed = fallback;
  else {
    if (typeof value !== "number") throw new DatasetRowError(`${key} must be a JSON number, got ${jsonRepr(value)}`);
    parsed = value;
  }
  if (!Number.isFinite(parsed)) throw new DatasetRowError(`${key} must be finite, got ${jsonRepr(value)}`);
  if (min !== undefined && parsed < min) throw new DatasetRowError(`${key} must be >= ${floatRepr(min)}, got ${floatRepr(parsed)}`);
  if (max !== undefined && parsed > max) throw new DatasetRowError(`${key} must be <= ${floatRepr(max)}, got ${floatRepr(parsed)}`);
  return parsed;
}

function integer(raw: Record<string, unknown>, key: string, fallback: number, min?: number, max?: number): number {
  const parsed = num(raw, key, fallback);
  if (!Number.isInteger(parsed)) throw new DatasetRowError(`${key} must be an integer, got ${floatRepr(parsed)}`);
  if (min !== undefined && parsed < min) throw new DatasetRowError(`${key} must be >= ${min}, got ${parsed}`);
  if (max !== undefined && parsed > max) throw new DatasetRowError(`${key} must be <= ${max}, got ${parsed}`);
  return parsed;
}

const sortedKeys = (raw: Record<string, unknown>) => `[${Object.keys(raw).sort().map((k) => pythonRepr(k)).join(", ")}]`;

function parseUe(raw: unknown, index: number): UEObservation {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new DatasetRowError(`dataset UE record #${index} must be an object, got ${typeName(raw)}`);
  const ue = raw as Record<string, unknown>;
  if (!("delivered_mbps" in ue)) throw new DatasetRowError(`dataset UE record #${index} is missing required field 'delivered_mbps'; got keys ${sortedKeys(ue)}`);
  const delivered = num(ue, "delivered_mbps", 0.0, 0.0);
  const offered = num(ue, "offered_mbps", Math.max(delivered, 1.0), 0.0);
  const sinr = num(ue, "sinr_db", 10.0, -20.0, 40.0);
  const bler = num(ue, "bler", 0.0, 0.0, 1.0);
  const mcs = num(ue, "mcs_mean", Math.max(0.0, Math.min(27.0, (Math.max(sinr, -10.0) + 5.0) * 1.2)), 0.0, 27.0);
  const buffer = num(ue, "buffer_occupancy_kb", Math.max(0.0, (offered - delivered) * 50.0), 0.0);
  const pdb = integer(ue, "pdb_violations", buffer > 500.0 ? 1 : 0, 0);
  return {
    ue_id: integer(ue, "ue_id", index, 0, MAX_UES - 1),
    offered_mbps: offered,
    delivered_mbps: delivered,
    bler,
    mcs_mean: mcs,
    sinr_db: sinr,
    buffer_occupancy_kb: buffer,
    pdb_violations: pdb,
    // The JSON alias '5qi' or the field name 'qos_5qi'.
    "5qi": integer({ "5qi": "5qi" in ue ? ue["5qi"] : ue.qos_5qi }, "5qi", 9, 1, 127),
  };
}

function parseCell(raw: unknown, index: number): CellObservation {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new DatasetRowError(`dataset cell record #${index} must be an object, got ${typeName(raw)}`);
  const cell = raw as Record<string, unknown>;
  if (!("prb_util_dl_p50" in cell)) throw new DatasetRowError(`dataset cell record #${index} is missing required field 'prb_util_dl_p50'; got keys ${sortedKeys(cell)}`);
  const uesRaw = cell.ues;
  if (!Array.isArray(uesRaw) || uesRaw.length === 0) {
    if (uesRaw && !Array.isArray(uesRaw)) throw new DatasetRowError(`dataset cell record #${index} 'ues' must be a list`);
    throw new DatasetRowError(`dataset cell record #${index} has no 'ues' entries`);
  }
  const ues = uesRaw.map(parseUe);
  const p50 = num(cell, "prb_util_dl_p50", 0.0, 0.0, 1.0);
  const p99 = num(cell, "prb_util_dl_p99", Math.max(p50, Math.min(1.0, p50 * 1.15 + 0.02)), 0.0, 1.0);
  if (p99 < p50) throw new DatasetRowError(`prb_util_dl_p99 must be >= prb_util_dl_p50 (got ${floatRepr(p99)} < ${floatRepr(p50)})`);
  const ul = num(cell, "prb_util_ul_p50", Math.min(1.0, p50 * 0.4), 0.0, 1.0);
  const latency = num(cell, "sched_latency_ms_p99", 5.0 + 20.0 * p99, 0.0);
  const nUes = integer(cell, "rrc_connected_ues", ues.length, 0, MAX_UES);
  const prach = num(cell, "prach_collision_rate", nUes < 8 ? 0.0 : Math.min(0.5, 0.01 * (nUes - 8) ** 2), 0.0, 1.0);
  const fairness = num(cell, "fairness_jain", jain(ues.map((u) => u.delivered_mbps)), 0.0, 1.0);
  const sla = integer(cell, "sla_violations_last_window", ues.filter((u) => u.pdb_violations > 0).length, 0);
  const parsed: CellObservation = {
    cell_id: integer(cell, "cell_id", index, 0, MAX_CELLS - 1),
    prb_util_dl_p50: p50,
    prb_util_dl_p99: p99,
    prb_util_ul_p50: ul,
    sched_latency_ms_p99: latency,
    rrc_connected_ues: nUes,
    prach_collision_rate: prach,
    fairness_jain: fairness,
    sla_violations_last_window: sla,
    ues,
  };
  // CellObservation's own validators.
  if (new Set(ues.map((u) => u.ue_id)).size !== ues.length) throw new DatasetRowError(`cell ${parsed.cell_id} contains duplicate ue_id values`);
  if (nUes !== ues.length) throw new DatasetRowError(`cell ${parsed.cell_id} rrc_connected_ues=${nUes} does not match len(ues)=${ues.length}`);
  return parsed;
}

function regimeMix(value: unknown): Record<string, number> {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new DatasetRowError("global.regime_mix must be a mapping");
  const mix: Record<string, number> = {};
  for (const [name, weight] of Object.entries(value)) {
    if (!SUPPORTED_REGIMES.includes(name)) throw new DatasetRowError(`unknown regime_mix key ${pythonRepr(name)}; valid: (${SUPPORTED_REGIMES.map((r) => pythonRepr(r)).join(", ")})`);
    if (typeof weight !== "number") throw new DatasetRowError(`regime_mix weight must be numeric: ${jsonRepr(weight)}`);
    if (!Number.isFinite(weight) || weight < 0 || weight > 1) throw new DatasetRowError(`regime_mix weight out of [0,1]: ${floatRepr(weight)}`);
    mix[name] = weight;
  }
  if (Object.keys(mix).length === 0) return mix;
  const total = pythonSum(Object.values(mix));
  if (total <= 0) throw new DatasetRowError("regime_mix must contain at least one positive weight");
  if (Math.abs(total - 1.0) > 1e-3) throw new DatasetRowError(`regime_mix must sum to 1.0 (got ${floatRepr(total)})`);
  return mix;
}

/** One snapshot row as a validated observation (NeMo Gym's row_to_observation). */
export function rowToObservation(row: Record<string, unknown>, stepIdx: number, episodeId: string): Observation {
  const cellsRaw = row.cells;
  if (!Array.isArray(cellsRaw) || cellsRaw.length === 0) throw new DatasetRowError(`dataset row has no 'cells' entries; got keys ${sortedKeys(row)}`);
  const cells = cellsRaw.map(parseCell);
  const globalRaw = (row.global ?? {}) as Record<string, unknown>;
  if (typeof globalRaw !== "object" || Array.isArray(globalRaw)) throw new DatasetRowError(`dataset row 'global' must be an object, got ${typeName(globalRaw)}`);
  const nUesTotal = cells.reduce((a, c) => a + c.ues.length, 0); // ints: exact
  const global = {
    n_cells: integer(globalRaw, "n_cells", cells.length, 1, MAX_CELLS),
    n_ues_total: integer(globalRaw, "n_ues_total", nUesTotal, 0, MAX_UES),
    difficulty: num(globalRaw, "difficulty", 0.5, 0.0, 1.0),
    regime_mix: regimeMix(globalRaw.regime_mix),
    tier: (globalRaw.tier ?? "replay") as "replay",
  };
  if (global.tier !== "replay") throw new DatasetRowError(`global.tier must be 'replay', got ${jsonRepr(global.tier)}`);
  const sourceMode = "kpi_source_mode" in row ? pythonStrOf(row.kpi_source_mode) : "replay";
  if (sourceMode.length < 1 || sourceMode.length > 64) throw new DatasetRowError("kpi_source_mode must be 1 to 64 characters");
  const observation: Observation = {
    t_s: num(row, "t_s", stepIdx, 0.0),
    episode_id: episodeId,
    cells,
    global,
    kpi_source_mode: sourceMode,
    agent_aux: { last_action: null, last_reward: null, last_rejection: null, step_idx: 0 },
  };
  // Observation's topology validators.
  if (new Set(cells.map((c) => c.cell_id)).size !== cells.length) throw new DatasetRowError("observation contains duplicate cell_id values");
  if (global.n_cells !== cells.length) throw new DatasetRowError(`global.n_cells=${global.n_cells} does not match len(cells)=${cells.length}`);
  if (global.n_ues_total !== nUesTotal) throw new DatasetRowError(`global.n_ues_total=${global.n_ues_total} does not match observed UE count ${nUesTotal}`);
  return observation;
}

// Python's str() of a JSON value, for kpi_source_mode.
const pythonStrOf = (v: unknown) => (typeof v === "string" ? v : jsonRepr(v));

/**
 * Python's `format(x, ".Nf")`: the exact binary value rounded to N decimals, an exact tie to even (JavaScript's
 * toFixed rounds a tie up).
 */
export function formatFixed(x: number, digits: number): string {
  const text = x.toFixed(digits);
  if (!Number.isFinite(x) || x === 0) return text;
  // A tie is exact: |x|·10^digits = m·10^digits / 2^k with a remainder of exactly half of 2^k.
  const { mantissa, exponent } = floatParts(x);
  if (exponent >= 0) return text;
  const denominator = 1n << BigInt(-exponent);
  const scaled = mantissa * 10n ** BigInt(digits);
  if (scaled % denominator !== denominator / 2n) return text;
  let quotient = scaled / denominator;
  if (quotient % 2n === 1n) quotient += 1n;
  const digitsText = quotient.toString().padStart(digits + 1, "0");
  const whole = digits === 0 ? digitsText : `${digitsText.slice(0, -digits)}.${digitsText.slice(-digits)}`;
  return x < 0 ? `-${whole}` : whole;
}
const pct0 = (x: number) => `${formatFixed(x * 100, 0)}%`;

function sourceCaveat(obs: Observation): string {
  const mode = obs.kpi_source_mode;
  if (["replay", "synthetic", "synthetic_fallback"].includes(mode)) return `KPI source: ${mode}. Telemetry is synthetic and should be treated as benchmark data, not measured OAI/FlexRIC KPM.`;
  return `KPI source: ${mode}. Check kpi_provenance before treating fields as measured radio KPIs.`;
}

/** The policy's user message for an observation (NeMo Gym's to_policy_text, openair_natural_language_v1). */
export function toPolicyText(obs: Observation): string {
  const lines = [`5G RAN telemetry @ t=${formatFixed(obs.t_s, 1)}s (step ${obs.agent_aux.step_idx}, tier ${obs.global.tier}):`, sourceCaveat(obs)];
  for (const c of obs.cells) {
    lines.push(
      `- Cell ${c.cell_id}: DL PRB util p50=${pct0(c.prb_util_dl_p50)}, p99=${pct0(c.prb_util_dl_p99)}; UL PRB util p50=${pct0(c.prb_util_ul_p50)}; ` +
        `sched latency p99 ${formatFixed(c.sched_latency_ms_p99, 0)}ms; Jain fairness ${formatFixed(c.fairness_jain, 2)}; ` +
        `PRACH collision rate ${pct0(c.prach_collision_rate)}; ${c.rrc_connected_ues} UEs RRC-connected; ${c.sla_violations_last_window} SLA violation(s) in last 5s.`,
    );
    for (const ue of c.ues) {
      const sla = ue.pdb_violations > 0 ? "SLA-VIOLATION" : "ok";
      lines.push(
        `    UE ${ue.ue_id} (5QI ${ue["5qi"]}): offered ${formatFixed(ue.offered_mbps, 1)} Mbps, delivered ${formatFixed(ue.delivered_mbps, 1)} Mbps, ` +
          `SINR ${formatFixed(ue.sinr_db, 1)} dB, BLER ${pct0(ue.bler)}, mean MCS ${formatFixed(ue.mcs_mean, 0)}, buffer ${formatFixed(ue.buffer_occupancy_kb, 0)} kB, ` +
          `PDB violations ${ue.pdb_violations} (${sla}).`,
      );
    }
  }
  const aux = obs.agent_aux;
  if (aux.last_action !== null) {
    const rejected = aux.last_rejection ? `, REJECTED (${aux.last_rejection})` : "";
    lines.push(`Last action: ${aux.last_action.name}(${pythonRepr(aux.last_action.arguments)}); last reward: ${aux.last_reward === null ? "None" : floatRepr(aux.last_reward)}${rejected}.`);
  }
  lines.push("Choose one tool call (or noop) to address congestion now. Output only the tool call.");
  return lines.join("\n");
}
