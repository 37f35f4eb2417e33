// The eight-tool action space (7 bounded actuators + noop) in the OpenAI function shape the task rows carry, and the
// operational bounds the guardrail checks. Values are NeMo Gym's openair_congestion/tools.py.
export const MAX_CELLS = 4;
export const MAX_UES = 24;
export const PRB_MAX = 273;
export const MCS_MAX = 27;
export const POLICY_VALUES = ["PF", "RR", "MaxCI"] as const;
export const PRB_CAP_TARGETS = ["ue"] as const;
export const A3_OFFSET_DB_RANGE = [-24.0, 24.0] as const;
export const TTT_MS_VALUES = [0, 40, 64, 80, 100, 128, 160, 256, 320, 480, 512, 640, 1024, 1280, 2560, 5120] as const;
export const P0_DBM_RANGE = [-126.0, 23.0] as const;
export const ALPHA_VALUES = [0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0] as const;

type JsonSchema = Record<string, unknown>;
interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

const func = (name: string, description: string, properties: JsonSchema, required: string[]): ToolSpec => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties, required, additionalProperties: false } },
});

const CELL_ID = { type: "integer", minimum: 0, maximum: MAX_CELLS - 1, description: "Cell identifier (0-indexed; valid 0..n_cells-1 at runtime)." };

export const TOOLS: ToolSpec[] = [
  func(
    "set_scheduler_policy",
    "Select the synthetic per-cell scheduler setpoint. Replay models PF as the neutral baseline, RR as fairness-oriented, and MaxCI as throughput-oriented with a fairness tradeoff.",
    { cell_id: CELL_ID, policy: { type: "string", enum: [...POLICY_VALUES], description: "Target scheduler policy." } },
    ["cell_id", "policy"],
  ),
  func(
    "set_prb_cap",
    "Cap the maximum PRBs allocated per scheduling round to a single UE. Used to throttle a hog UE that is starving the rest of the cell.",
    {
      cell_id: CELL_ID,
      target: { type: "string", enum: [...PRB_CAP_TARGETS], description: "The cap applies to one observed UE." },
      target_id: { type: "integer", minimum: 0, maximum: MAX_UES - 1, description: "UE id exactly as listed under the selected cell." },
      max_prb: { type: "integer", minimum: 0, maximum: PRB_MAX, description: "Hard cap on PRBs per slot for this target." },
    },
    ["cell_id", "target", "target_id", "max_prb"],
  ),
  func(
    "set_mcs_bounds",
    "Constrain the MCS index range the scheduler may select per UE, plus an outer-loop link-adaptation BLER target. Useful when channel estimates are noisy and the default MCS picker oscillates.",
    {
      cell_id: CELL_ID,
      mcs_min: { type: "integer", minimum: 0, maximum: MCS_MAX, description: "Lower bound on MCS index (3GPP 38.214 Table 5.1.3.1-1)." },
      mcs_max: { type: "integer", minimum: 0, maximum: MCS_MAX, description: "Upper bound on MCS index. Must be >= mcs_min." },
      target_bler: { type: "number", minimum: 0.0, maximum: 0.5, description: "Outer-loop target block-error rate (typical 0.1)." },
    },
    ["cell_id", "mcs_min", "mcs_max", "target_bler"],
  ),
  func(
    "set_qos_weights",
    "Re-weight the per-5QI scheduler priority. Larger weights win more PRBs for that 5QI. Use to defend low-latency 5QIs (e.g. 5QI=1 voice) during congestion.",
    {
      cell_id: CELL_ID,
      weights: {
        type: "object",
        description: "Mapping of 5QI (string-keyed integer 1..127) → weight (0..10).",
        additionalProperties: { type: "number", minimum: 0.0, maximum: 10.0 },
        minProperties: 1,
      },
    },
    ["cell_id", "weights"],
  ),
  func(
    "set_admission_policy",
    "Tighten or loosen RRC admission. Lowering the accept_threshold admits fewer UEs in synthetic replay. Slice reservations are not modeled, so slice_reservation must be empty.",
    {
      cell_id: CELL_ID,
      accept_threshold_pct: { type: "number", minimum: 0.0, maximum: 100.0, description: "RRC accept threshold as a percentage of cell load." },
      slice_reservation: { type: "object", description: "Must be empty; synthetic replay does not model slices.", properties: {}, additionalProperties: false, maxProperties: 0 },
    },
    ["cell_id", "accept_threshold_pct", "slice_reservation"],
  ),
  func(
    "set_handover_trigger",
    "Adjust the A3-event handover trigger: a3_offset_db is the dB margin the neighbour must beat the serving cell by, ttt_ms is the dwell time. Tighter (lower offset, shorter ttt) → more handovers; looser → ping-pong protection.",
    {
      cell_id: CELL_ID,
      a3_offset_db: { type: "number", minimum: A3_OFFSET_DB_RANGE[0], maximum: A3_OFFSET_DB_RANGE[1], description: "A3-event offset in dB." },
      ttt_ms: { type: "integer", enum: [...TTT_MS_VALUES], description: "Time-to-trigger from 3GPP 38.331 TimeToTrigger set." },
    },
    ["cell_id", "a3_offset_db", "ttt_ms"],
  ),
  func(
    "set_ul_power_control",
    "Configure uplink fractional path-loss compensation: p0_dbm is the target receive power in dBm, alpha (0..1) is the path-loss compensation fraction. Lowering p0 reduces UE Tx power (good for inter-cell interference), raising alpha hurts cell-edge UEs less.",
    {
      cell_id: CELL_ID,
      p0_dbm: { type: "number", minimum: P0_DBM_RANGE[0], maximum: P0_DBM_RANGE[1], description: "Target receive power per PRB in dBm." },
      alpha: { type: "number", enum: [...ALPHA_VALUES], description: "Path-loss compensation fraction (3GPP 38.213 Table 7.1.1-1)." },
    },
    ["cell_id", "p0_dbm", "alpha"],
  ),
  func("noop", "Explicitly choose to take no configuration action this step. Required in the action space so the policy can deliberately stand pat instead of guessing a low-impact change.", {}, []),
];

export const TOOL_NAMES = TOOLS.map((t) => t.function.name);
export const TOOL_SCHEMA_BY_NAME = new Map(TOOLS.map((t) => [t.function.name, t]));

// Value policy (ranges, enums, sizes) is the guardrail's, which scores a violation as a rejected transition; the
// structural check before it keeps only shape and type, so an out-of-range value is never a protocol violation.
const GUARDRAIL_KEYWORDS = new Set(["const", "enum", "exclusiveMaximum", "exclusiveMinimum", "maximum", "maxItems", "maxLength", "maxProperties", "minimum", "minItems", "minLength", "minProperties", "multipleOf", "pattern"]);

export function structuralSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(structuralSchema);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([key]) => !GUARDRAIL_KEYWORDS.has(key)).map(([key, item]) => [key, structuralSchema(item)]));
  }
  return value;
}
