// Re-scoring stored rollouts without a model: for each rollout line, the resources server gets the original
// row on /seed_session, the stored response's tool calls replayed in order on the same session (so a
// stateful environment is back in the state the rollout left it in), then /verify with the stored response.
// The new reward and every extra field the stored line has are compared with the stored ones.
import { DeadlineExceededError, TransportError, type HttpResponse, type ServerClient } from "../client/index.ts";
import { ResponseCreateParamsSchema } from "../protocol/index.ts";
import type { InputLine, Row } from "./jsonl.ts";
import { runConcurrently } from "./run-concurrently.ts";
import { pathSegment } from "../client/path-segment.ts";

/** Keys of a rollout line that are bookkeeping, not verify output: never compared. */
const BOOKKEEPING_KEYS = new Set(["responses_create_params", "response", "reward", "agent_ref", "skills_ref", "ng_model_call_capture", "ng_agent_observations"]);
const isBookkeeping = (key: string) => BOOKKEEPING_KEYS.has(key) || key.startsWith("_ng_");

/** Ours, or the class a verify reports itself in `_ng_failure_class` (NeMo Gym's judge_failsafe: `judge_failed`). */
export type ReverifyFailureClass = "no_input" | "no_resources_server" | "seed_session" | "verify" | "invalid_result" | "transport" | "timeout" | "error" | (string & {});

export interface ReverifyOptions {
  client: ServerClient;
  /** The stored rollout lines (NeMo Gym rollout JSONL). */
  rollouts: InputLine[];
  /**
   * The original rows: materialized inputs (matched by `_ng_task_index`/`_ng_rollout_index`) or a dataset
   * (matched by the prompt). Without them each row is rebuilt from its rollout line, which lacks the
   * dataset fields a verify does not echo back.
   */
  inputs?: InputLine[] | null;
  /** The resources server instance for a rollout's agent; throws when it cannot tell. */
  resourcesServerFor: (agentName: string | undefined) => string;
  /** Rows re-verified at once at most; null = all at once (NeMo Gym's default). */
  concurrency?: number | null;
  /** Deadline of each HTTP call. */
  callDeadlineMs?: number;
  /** Only POST /verify, as NeMo Gym's reverify does: no /seed_session, no tool replay (stateless environments). */
  verifyOnly?: boolean;
  /** Numbers closer than this (relative to the larger, at least 1) count as equal. */
  tolerance?: number;
  /** Called as each row finishes (completion order). */
  onOutcome?: (outcome: ReverifyOutcome) => void;
}

export interface ReverifyOutcome {
  /** Line of the rollout in the rollouts file. */
  lineNumber: number;
  taskIndex: number;
  rolloutIndex: number;
  /** The resources server instance used ("" when none could be chosen). */
  resourcesServer: string;
  storedReward: unknown;
  /** The re-scored rollout line (verify response + bookkeeping keys); absent when the row failed. */
  line?: Row;
  rewardEqual: boolean;
  /** Extra fields of the stored line whose new value differs (or is missing). */
  differentFields: string[];
  comparedFields: number;
  toolCallsReplayed: number;
  /** Replayed tool calls whose answer differs from the stored function_call_output (a sign the state was not rebuilt). */
  toolOutputsDifferent: number;
  failure?: { failureClass: ReverifyFailureClass; message: string; status?: number; reported?: Row };
}

export interface EnvironmentReport {
  resourcesServer: string;
  rows: number;
  rewardsEqual: number;
  rewardsDifferent: number;
  /** Rows whose stored extra fields all came back equal (rows without extra fields included). */
  extraFieldsEqual: number;
  extraFieldsDifferent: number;
  errors: number;
  /** How many rows differ in each extra field. */
  differentFieldCounts: Record<string, number>;
  toolCallsReplayed: number;
  toolOutputsDifferent: number;
  meanStoredReward: number | null;
  meanNewReward: number | null;
}

export interface ReverifyReport {
  rows: number;
  rewardsEqual: number;
  rewardsDifferent: number;
  errors: number;
  environments: EnvironmentReport[];
  /** Every row, in rollouts-file order. */
  outcomes: ReverifyOutcome[];
}

export async function reverifyRollouts(options: ReverifyOptions): Promise<ReverifyReport> {
  const inputs = options.inputs ? indexInputs(options.inputs) : undefined;
  const outcomes: ReverifyOutcome[] = new Array(options.rollouts.length);
  await runConcurrently(options.rollouts, options.concurrency, async (stored, position) => {
    const outcome = await reverifyOne(options, inputs, stored, position);
    outcomes[position] = outcome;
    options.onOutcome?.(outcome);
  });
  return summarize(outcomes);
}

// ---- matching rollouts with their input rows ----

interface InputIndex {
  byKey: Map<string, Row>;
  byPrompt: Map<string, InputLine[]>;
}

const rowKey = (taskIndex: unknown, rolloutIndex: unknown) => (Number.isInteger(taskIndex) && Number.isInteger(rolloutIndex) ? `${taskIndex}:${rolloutIndex}` : undefined);

function indexInputs(inputs: InputLine[]): InputIndex {
  const byKey = new Map<string, Row>();
  const byPrompt = new Map<string, InputLine[]>();
  for (const input of inputs) {
    const key = rowKey(input.row._ng_task_index, input.row._ng_rollout_index);
    if (key !== undefined && !byKey.has(key)) byKey.set(key, input.row);
    const prompt = promptKey(input.row.responses_create_params);
    if (prompt === undefined) continue;
    if (!byPrompt.has(prompt)) byPrompt.set(prompt, []);
    byPrompt.get(prompt)!.push(input);
  }
  return { byKey, byPrompt };
}

/** The prompt of a row, normalized as the protocol parses it (so a dataset row matches its rollout's echoed params). */
export function promptKey(params: unknown): string | undefined {
  if (params === null || typeof params !== "object") return undefined;
  // Only the prompt is parsed: old rollout files echo params (e.g. `tool_choice: null`) that today's schema rejects.
  const input = ResponseCreateParamsSchema.shape.input.safeParse((params as Row).input);
  if (!input.success) return undefined;
  const instructions = (params as Row).instructions;
  return canonicalJson({ input: input.data, instructions: typeof instructions === "string" ? instructions : null });
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * A stored row with its null `responses_create_params` fields dropped: older NeMo Gym versions dumped unset
 * fields as null (`tool_choice: null`), which today's strict schema would refuse.
 */
export function withoutNullParams<T extends { responses_create_params?: unknown }>(row: T): T {
  const params = row.responses_create_params;
  if (params === null || typeof params !== "object" || Array.isArray(params)) return row;
  return { ...row, responses_create_params: Object.fromEntries(Object.entries(params).filter(([, value]) => value !== null)) };
}

/** The original row of a rollout, or why there is none. */
function inputRowFor(stored: Row, inputs: InputIndex | undefined): Row | string {
  if (!inputs) {
    // Rebuilt from the line: everything but the verify output's own reward and response.
    const { response: _response, reward: _reward, ...row } = stored;
    return row;
  }
  const key = rowKey(stored._ng_task_index, stored._ng_rollout_index);
  if (key !== undefined && inputs.byKey.size > 0) {
    return inputs.byKey.get(key) ?? `no input row has _ng_task_index=${stored._ng_task_index}, _ng_rollout_index=${stored._ng_rollout_index}`;
  }
  const prompt = promptKey(stored.responses_create_params);
  const candidates = prompt === undefined ? undefined : inputs.byPrompt.get(prompt);
  if (!candidates || candidates.length === 0) return "no input row has this rollout's prompt (responses_create_params.input)";
  const distinct = new Set(candidates.map((c) => canonicalJson(withoutIndices(c.row))));
  if (distinct.size > 1) return `ambiguous: input lines ${candidates.map((c) => c.lineNumber).join(", ")} share this rollout's prompt but differ; pass the materialized inputs`;
  return candidates[0]!.row;
}

function withoutIndices(row: Row): Row {
  const { _ng_task_index: _t, _ng_rollout_index: _r, _ng_attempt_index: _a, ...rest } = row;
  return rest;
}

// ---- one row ----

class RowFailure extends Error {
  constructor(
    readonly failureClass: ReverifyFailureClass,
    message: string,
    readonly status?: number,
    /** A verify answer that reported its own failure: kept whole in the failure line (its response too). */
    readonly reported?: Row,
  ) {
    super(message);
  }
}

async function reverifyOne(options: ReverifyOptions, inputs: InputIndex | undefined, stored: InputLine, position: number): Promise<ReverifyOutcome> {
  const line = stored.row;
  const input = inputRowFor(line, inputs);
  const inputRow = typeof input === "string" ? undefined : input;
  // Lines written without indices (old example files) are numbered by their position.
  const taskIndex = (Number.isInteger(line._ng_task_index) ? line._ng_task_index : Number.isInteger(inputRow?._ng_task_index) ? inputRow!._ng_task_index : position) as number;
  const rolloutIndex = (Number.isInteger(line._ng_rollout_index) ? line._ng_rollout_index : Number.isInteger(inputRow?._ng_rollout_index) ? inputRow!._ng_rollout_index : 0) as number;
  const outcome: ReverifyOutcome = {
    lineNumber: stored.lineNumber,
    taskIndex,
    rolloutIndex,
    resourcesServer: "",
    storedReward: line.reward,
    rewardEqual: false,
    differentFields: [],
    comparedFields: 0,
    toolCallsReplayed: 0,
    toolOutputsDifferent: 0,
  };
  try {
    if (typeof input === "string") throw new RowFailure("no_input", input);
    const agentRef = (line.agent_ref ?? input.agent_ref) as { name?: unknown } | undefined;
    const agentName = typeof agentRef?.name === "string" ? agentRef.name : undefined;
    try {
      outcome.resourcesServer = options.resourcesServerFor(agentName);
    } catch (error) {
      throw new RowFailure("no_resources_server", (error as Error).message);
    }
    const row = withoutNullParams<Row>({ ...input, _ng_task_index: taskIndex, _ng_rollout_index: rolloutIndex });
    if (agentRef !== undefined) row.agent_ref = agentRef;
    const result = await rescore(options, outcome, row, line.response);
    compare(outcome, line, result, options.tolerance ?? 1e-9);
    const rescored: Row = { ...result, _ng_task_index: taskIndex, _ng_rollout_index: rolloutIndex };
    if (agentRef !== undefined) rescored.agent_ref = agentRef;
    for (const key of ["skills_ref", "_ng_attempt_index"]) if (line[key] !== undefined) rescored[key] = line[key];
    outcome.line = rescored;
  } catch (error) {
    outcome.rewardEqual = false;
    if (error instanceof RowFailure) outcome.failure = { failureClass: error.failureClass, message: error.message, ...(error.status !== undefined ? { status: error.status } : {}), ...(error.reported ? { reported: error.reported } : {}) };
    else if (error instanceof DeadlineExceededError) outcome.failure = { failureClass: "timeout", message: error.message };
    else if (error instanceof TransportError) outcome.failure = { failureClass: "transport", message: error.message };
    else outcome.failure = { failureClass: "error", message: (error as Error)?.message ?? String(error) };
  }
  return outcome;
}

async function rescore(options: ReverifyOptions, outcome: ReverifyOutcome, row: Row, response: unknown): Promise<Row> {
  const server = outcome.resourcesServer;
  const call = (path: string, json: unknown, cookies: Record<string, string>) => options.client.post(server, path, { json, cookies, deadlineMs: options.callDeadlineMs });
  let cookies: Record<string, string> = {};
  const keep = (answer: HttpResponse) => (cookies = { ...cookies, ...answer.cookies });

  if (!options.verifyOnly) {
    const seeded = await call("/seed_session", row, cookies);
    if (!seeded.ok) throw new RowFailure("seed_session", `${server}/seed_session answered ${seeded.status}: ${seeded.text.slice(0, 1000)}`, seeded.status);
    keep(seeded);
    const storedOutputs = new Map<string, string>();
    const output = outputItems(response);
    for (const item of output) if (item.type === "function_call_output" && typeof item.call_id === "string") storedOutputs.set(item.call_id, String(item.output));
    for (const item of output) {
      if (item.type !== "function_call" || typeof item.name !== "string") continue;
      let args: unknown;
      try {
        args = JSON.parse(String(item.arguments));
      } catch {
        continue; // the agent never sent it either: the model was told its arguments were not JSON
      }
      // Tool errors are not failures: the model read them during the rollout, and reads them again here.
      const answer = await call(`/${pathSegment(item.name)}`, args, cookies);
      keep(answer);
      outcome.toolCallsReplayed++;
      const storedOutput = typeof item.call_id === "string" ? storedOutputs.get(item.call_id) : undefined;
      if (storedOutput !== undefined && !sameToolOutput(storedOutput, answer.text)) outcome.toolOutputsDifferent++;
    }
  }

  const verified = await call("/verify", { ...row, response }, cookies);
  if (!verified.ok) throw new RowFailure("verify", `${server}/verify answered ${verified.status}: ${verified.text.slice(0, 1000)}`, verified.status);
  let result: unknown;
  try {
    result = verified.json();
  } catch {
    throw new RowFailure("invalid_result", `${server}/verify answered invalid JSON: ${verified.text.slice(0, 1000)}`);
  }
  // A verify that says it failed (a judge call that did not go through) is not a score, whatever its reward.
  if (result !== null && typeof result === "object" && typeof (result as Row)._ng_failure_class === "string") {
    const reported = result as Row;
    throw new RowFailure(reported._ng_failure_class as string, `${server}/verify reported ${reported._ng_failure_class}: ${String(reported._ng_failure_judge_error ?? reported.error ?? "")}`.slice(0, 1000), undefined, reported);
  }
  if (result === null || typeof result !== "object" || Array.isArray(result) || typeof (result as Row).reward !== "number") {
    throw new RowFailure("invalid_result", `${server}/verify answered without a numeric reward: ${verified.text.slice(0, 1000)}`);
  }
  return result as Row;
}

function outputItems(response: unknown): Row[] {
  const output = response !== null && typeof response === "object" ? (response as Row).output : undefined;
  return Array.isArray(output) ? output.filter((item): item is Row => item !== null && typeof item === "object") : [];
}

/** Tool answers compare as JSON when both parse (Python writes `{"a": 1}`, we write `{"a":1}`), else as text. */
function sameToolOutput(stored: string, replayed: string): boolean {
  try {
    return deepEqual(JSON.parse(stored), JSON.parse(replayed), 0);
  } catch {
    return stored === replayed;
  }
}

// ---- comparison ----

function compare(outcome: ReverifyOutcome, stored: Row, result: Row, tolerance: number): void {
  outcome.rewardEqual = typeof stored.reward === "number" && numbersClose(stored.reward, result.reward as number, tolerance);
  for (const key of Object.keys(stored)) {
    if (isBookkeeping(key)) continue;
    outcome.comparedFields++;
    if (!(key in result) || !deepEqual(stored[key], result[key], tolerance)) outcome.differentFields.push(key);
  }
}

function numbersClose(a: number, b: number, tolerance: number): boolean {
  return a === b || Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}

function deepEqual(a: unknown, b: unknown, tolerance: number): boolean {
  if (typeof a === "number" && typeof b === "number") return numbersClose(a, b, tolerance);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, i) => deepEqual(item, (b as unknown[])[i], tolerance));
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return aKeys.length === bKeys.length && aKeys.every((key) => key in b && deepEqual((a as Row)[key], (b as Row)[key], tolerance));
}

// ---- report ----

function summarize(outcomes: ReverifyOutcome[]): ReverifyReport {
  const byServer = new Map<string, ReverifyOutcome[]>();
  for (const outcome of outcomes) {
    const name = outcome.resourcesServer || "(no resources server)";
    if (!byServer.has(name)) byServer.set(name, []);
    byServer.get(name)!.push(outcome);
  }
  const mean = (values: number[]) => (values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length);
  const environments = [...byServer].map(([resourcesServer, rows]): EnvironmentReport => {
    const scored = rows.filter((r) => !r.failure);
    const differentFieldCounts: Record<string, number> = {};
    for (const row of scored) for (const field of row.differentFields) differentFieldCounts[field] = (differentFieldCounts[field] ?? 0) + 1;
    return {
      resourcesServer,
      rows: rows.length,
      rewardsEqual: scored.filter((r) => r.rewardEqual).length,
      rewardsDifferent: scored.filter((r) => !r.rewardEqual).length,
      extraFieldsEqual: scored.filter((r) => r.differentFields.length === 0).length,
      extraFieldsDifferent: scored.filter((r) => r.differentFields.length > 0).length,
      errors: rows.length - scored.length,
      differentFieldCounts,
      toolCallsReplayed: rows.reduce((s, r) => s + r.toolCallsReplayed, 0),
      toolOutputsDifferent: rows.reduce((s, r) => s + r.toolOutputsDifferent, 0),
      meanStoredReward: mean(scored.map((r) => r.storedReward).filter((v): v is number => typeof v === "number")),
      meanNewReward: mean(scored.map((r) => r.line!.reward as number)),
    };
  });
  return {
    rows: outcomes.length,
    rewardsEqual: environments.reduce((s, e) => s + e.rewardsEqual, 0),
    rewardsDifferent: environments.reduce((s, e) => s + e.rewardsDifferent, 0),
    errors: environments.reduce((s, e) => s + e.errors, 0),
    environments,
    outcomes,
  };
}

function formatReward(value: unknown): string {
  return typeof value === "number" ? (Number.isInteger(value) ? value.toFixed(1) : String(value)) : JSON.stringify(value ?? null);
}

/** The report as a table per resources server, then the first differing and failed rows. */
export function formatReverifyReport(report: ReverifyReport, maxListed = 10): string {
  const header = ["resources server", "rows", "rewards =", "rewards ≠", "extras =", "extras ≠", "errors", "mean reward (stored → new)"];
  const body = report.environments.map((e) => [
    e.resourcesServer,
    String(e.rows),
    String(e.rewardsEqual),
    String(e.rewardsDifferent),
    String(e.extraFieldsEqual),
    String(e.extraFieldsDifferent),
    String(e.errors),
    `${e.meanStoredReward === null ? "-" : e.meanStoredReward.toFixed(4)} → ${e.meanNewReward === null ? "-" : e.meanNewReward.toFixed(4)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const format = (row: string[]) => row.map((cell, i) => (i === 0 || i === row.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd();
  const lines = [`Re-verified ${report.rows} rollouts: ${report.rewardsEqual} rewards equal, ${report.rewardsDifferent} different, ${report.errors} errors.`, ``, format(header), ...body.map(format)];

  const differing = report.outcomes.filter((o) => !o.failure && (!o.rewardEqual || o.differentFields.length > 0));
  if (differing.length > 0) {
    lines.push(``, `Different (${differing.length}):`);
    for (const o of differing.slice(0, maxListed)) {
      const changes = [...(o.rewardEqual ? [] : [`reward ${formatReward(o.storedReward)} → ${formatReward(o.line!.reward)}`]), ...(o.differentFields.length ? [`fields ${o.differentFields.join(", ")}`] : [])];
      lines.push(`  line ${o.lineNumber} (task ${o.taskIndex}, rollout ${o.rolloutIndex}, ${o.resourcesServer}): ${changes.join("; ")}`);
    }
    if (differing.length > maxListed) lines.push(`  … ${differing.length - maxListed} more`);
  }
  const failed = report.outcomes.filter((o) => o.failure);
  if (failed.length > 0) {
    lines.push(``, `Errors (${failed.length}):`);
    for (const o of failed.slice(0, maxListed)) lines.push(`  line ${o.lineNumber} (task ${o.taskIndex}, rollout ${o.rolloutIndex}): ${o.failure!.failureClass}: ${o.failure!.message.split("\n")[0]!.slice(0, 300)}`);
    if (failed.length > maxListed) lines.push(`  … ${failed.length - maxListed} more`);
  }
  const replayMismatches = report.environments.reduce((s, e) => s + e.toolOutputsDifferent, 0);
  if (replayMismatches > 0) lines.push(``, `${replayMismatches} replayed tool call(s) answered differently from the stored function_call_output: the environment's state may not have been rebuilt.`);
  return lines.join("\n");
}

/** A failed row for `<output>_failures.jsonl`, shaped as collection's failure lines (plus the rollouts line); never a reward. */
export function failureLine(outcome: ReverifyOutcome, stored: Row): Row {
  const { reward: _reward, ...reported } = outcome.failure!.reported ?? {};
  return {
    // What a verify reported with its own failure (its response included, so a later --judge-failed-only can recover it).
    ...reported,
    _ng_task_index: outcome.taskIndex,
    _ng_rollout_index: outcome.rolloutIndex,
    ...(stored.agent_ref !== undefined ? { agent_ref: stored.agent_ref } : {}),
    _ng_attempt_index: stored._ng_attempt_index ?? 0,
    _ng_failure_class: outcome.failure!.failureClass,
    _ng_will_retry: false,
    ...(outcome.failure!.status !== undefined ? { status: outcome.failure!.status } : {}),
    error: outcome.failure!.message,
    rollouts_line: outcome.lineNumber,
  };
}
