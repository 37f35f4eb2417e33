// OpenEnv's wire format (meta-pytorch/OpenEnv, src/openenv/core/env_server: types.py, serialization.py,
// http_server.py), restated. A server exposes POST /reset, POST /step, GET /state, GET /health, GET /schema,
// GET /metadata over HTTP, where every request gets a FRESH environment (stateless), and WS /ws, where one
// connection is one environment instance (a session):
//   client → {"type": "reset", "data": {seed?, episode_id?, ...reset kwargs}}
//          → {"type": "step", "data": <action fields>}          (MCP: {"type": "call_tool", "tool_name", "arguments"})
//          → {"type": "state"}
//          → {"type": "close"}                                  (no answer; the server closes)
//   server → {"type": "observation", "data": {"observation": {...}, "reward": number|null, "done": bool}}
//          → {"type": "state", "data": {"episode_id", "step_count", ...}}
//          → {"type": "error", "data": {"message", "code": WSErrorCode, "errors"?}}
// The observation dict is the Observation model without reward, done and metadata (serialize_observation).

/** What a reset or a step returns on the wire (OpenEnv's ResetResponse / StepResponse / WS observation data). */
export interface OpenEnvStepResult {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
  /**
   * Not on OpenEnv's wire: the Observation's `metadata`, which serialize_observation drops. This project's own
   * environment servers add it (a peer ignores unknown keys) so an adapter can show it as NeMo Gym's in-process
   * `obs.model_dump()` does; from any other OpenEnv server it is absent.
   */
  metadata?: Record<string, unknown>;
}

export type OpenEnvState = Record<string, unknown> & { episode_id?: string | null; step_count?: number };

/** OpenEnv's WSErrorCode. */
export const WS_ERROR_CODES = ["INVALID_JSON", "UNKNOWN_TYPE", "VALIDATION_ERROR", "EXECUTION_ERROR", "CAPACITY_REACHED", "FACTORY_ERROR", "SESSION_ERROR"] as const;
export type WsErrorCode = (typeof WS_ERROR_CODES)[number];

export interface WsErrorData {
  message: string;
  code: WsErrorCode | string;
  errors?: ValidationIssue[];
  [key: string]: unknown;
}

/** One pydantic-style validation error (pydantic's `e.errors()` item, reduced to what is written here). */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

/** An action the environment's Action model refuses (pydantic's ValidationError). */
export class ActionValidationError extends Error {
  constructor(
    readonly modelName: string,
    readonly issues: ValidationIssue[],
  ) {
    super(formatValidationIssues(modelName, issues));
    this.name = "ActionValidationError";
  }
}

/** Python's str(ValidationError), without the trailing documentation link. */
export function formatValidationIssues(modelName: string, issues: ValidationIssue[]): string {
  const head = `${issues.length} validation error${issues.length === 1 ? "" : "s"} for ${modelName}`;
  const lines = issues.map((issue) => `${issue.loc.join(".")}\n  ${issue.msg} [type=${issue.type}, input_value=${pythonReprShort(issue.input)}, input_type=${pythonTypeName(issue.input)}]`);
  return [head, ...lines].join("\n");
}

function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (Array.isArray(value)) return "list";
  return "dict";
}

function pythonReprShort(value: unknown): string {
  const repr = (v: unknown): string => {
    if (v === null || v === undefined) return "None";
    if (typeof v === "string") return `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
    if (typeof v === "boolean") return v ? "True" : "False";
    if (typeof v === "number") return String(v);
    if (Array.isArray(v)) return `[${v.map(repr).join(", ")}]`;
    return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${repr(k)}: ${repr(x)}`).join(", ")}}`;
  };
  return repr(value);
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
