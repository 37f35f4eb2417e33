// The mechanics every environment's parity test with NeMo Gym repeats: a server graph whose model replays NeMo
// Gym's recorded turns, the stored rollouts re-verified, the parity reference set posted to /verify, and the
// recorded turns replayed end to end through an agent. What parity means for one environment — which fields
// count, which rows differ and why — stays in that environment's test.
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HttpResponse, ServerClient } from "../client/index.ts";
import { loadGlobalConfig } from "../config/index.ts";
import { collectRollouts, type CollectSummary } from "../rollouts/collect.ts";
import { readJsonl, type InputLine } from "../rollouts/jsonl.ts";
import { formatReverifyReport, reverifyRollouts, withoutNullParams, type ReverifyOutcome, type ReverifyReport } from "../rollouts/reverify.ts";
import { startInProcess, type InProcessGraph } from "./in-process.ts";
import { readRows } from "./rows.ts";

type Row = Record<string, any>;
/** Anything holding a client of a running graph (startReplayGraph's, or servers.ts' startServers'). */
type Graph = { client: ServerClient };

// NeMo Gym's stored rollouts were dumped by an older version whose params allowed null for
// `parallel_tool_calls` / `tool_choice`; re-verification drops those nulls before posting.
export { withoutNullParams };

// ---- the graph ----

const SCRIPTED_MODEL_REPLAY = "responses_api_models/scripted_model/configs/scripted_model_replay.yaml";

/** The environment's configs with scripted_model as the policy model, answering each prompt with its recorded turns. */
export async function startReplayGraph(configPaths: string[], replayRolloutsPath: string, overrides: string[] = []): Promise<InProcessGraph> {
  const { resolved } = await loadGlobalConfig({
    configPaths: [...configPaths, SCRIPTED_MODEL_REPLAY],
    overrides: [`++policy_model.responses_api_models.scripted_model.replay_rollouts_jsonl_fpath=${replayRolloutsPath}`, ...overrides],
  });
  return startInProcess(resolved);
}

/**
 * Starts the replay graph before this file's tests and closes it after them; returns a getter for it. When `skip`
 * names missing data nothing starts (the tests skip with that reason).
 */
export function replayGraphForTests(options: { skip: string | false; configs: string[]; replay: string | undefined; overrides?: string[] }): () => InProcessGraph {
  let graph: InProcessGraph | undefined;
  before(async () => {
    if (options.skip) return;
    graph = await startReplayGraph(options.configs, options.replay!, options.overrides);
  });
  after(() => graph?.close());
  return () => graph ?? assert.fail("the replay graph is not running");
}

// ---- re-verifying the stored rollouts ----

export interface StoredRollouts {
  /** NeMo Gym's rollouts file. */
  rollouts: string;
  /** The dataset rows they were scored with: a JSONL file, or lines (e.g. `referenceRowsAsInputs`). */
  inputs: string | InputLine[];
  /** The resources server instance that verifies them. */
  server: string;
  /** Only POST /verify (the default, as `gym eval reverify --verify-only`), or seed and replay the tool calls first. */
  verifyOnly?: boolean;
  concurrency?: number;
  callDeadlineMs?: number;
}

export function reverifyStored(graph: Graph, stored: StoredRollouts): Promise<ReverifyReport> {
  return reverifyRollouts({
    client: graph.client,
    rollouts: readJsonl(stored.rollouts),
    inputs: typeof stored.inputs === "string" ? readJsonl(stored.inputs) : stored.inputs,
    resourcesServerFor: () => stored.server,
    verifyOnly: stored.verifyOnly ?? true,
    concurrency: stored.concurrency,
    callDeadlineMs: stored.callDeadlineMs ?? 10_000,
  });
}

/** One line per re-verified row for a parity failure message: stored → ours, replayed tools, what differs or why it failed. */
export function parityLine(outcome: ReverifyOutcome): string {
  const replayed = outcome.toolCallsReplayed > 0 ? `; tool calls replayed ${outcome.toolCallsReplayed}, outputs different ${outcome.toolOutputsDifferent}` : "";
  const different = outcome.differentFields.length > 0 ? `; fields different [${outcome.differentFields.join(", ")}]` : "";
  const failure = outcome.failure ? `; ${outcome.failure.failureClass}: ${outcome.failure.message}` : "";
  return `line ${outcome.lineNumber}: stored ${String(outcome.storedReward)} → ours ${String(outcome.line?.reward ?? "-")}${replayed}${different}${failure}`;
}

/** Every row of a reverify report, as `parityLine`s. */
export const parityTable = (outcomes: ReverifyOutcome[]) => outcomes.map(parityLine).join("\n");

/** A parity failure message: one line per row (stored → ours, what differs), then the report. */
export const parityDetails = (report: ReverifyReport) => `${parityTable(report.outcomes)}\n\n${formatReverifyReport(report)}`;

/** A stored row that does not come back as stored, on purpose. */
export interface ExpectedDifference {
  /** The row's line in the rollouts file. */
  line: number;
  /** Exactly the stored extra fields ours differs in, in any order (none when omitted). */
  fields?: string[];
  /** Our reward is not the stored one. */
  rewardDiffers?: boolean;
  /** The row is not scored: verify answers this status, with this text in its body. */
  failure?: { status: number; bodyIncludes: string };
  /** Why: NeMo Gym's own change, a field it no longer echoes, … */
  why: string;
}

export interface ParityExpectations {
  rows: number;
  /** The stored extra fields compared on each scored row (their number is asserted). */
  extraFields: readonly string[];
  expectedDifferences?: ExpectedDifference[];
}

/** Every row scored, with the stored reward and every stored extra field, except exactly the expected differences. */
export function assertParity(report: ReverifyReport, { rows, extraFields, expectedDifferences = [] }: ParityExpectations): void {
  const details = parityDetails(report);
  assert.equal(report.rows, rows, details);
  const differences = new Map(expectedDifferences.map((difference) => [difference.line, difference]));
  assert.equal(differences.size, expectedDifferences.length, "one expected difference per line");
  for (const line of differences.keys()) assert.ok(report.outcomes.some((o) => o.lineNumber === line), `an expected difference names line ${line}, which is no row\n${details}`);
  for (const outcome of report.outcomes) {
    const difference = differences.get(outcome.lineNumber);
    const where = `line ${outcome.lineNumber}${difference ? ` (expected to differ: ${difference.why})` : ""}\n${details}`;
    if (difference?.failure) {
      assert.equal(outcome.failure?.failureClass, "verify", where);
      assert.equal(outcome.failure?.status, difference.failure.status, where);
      assert.ok(outcome.failure?.message.includes(difference.failure.bodyIncludes), where);
      continue;
    }
    assert.equal(outcome.failure, undefined, where);
    assert.equal(outcome.rewardEqual, !difference?.rewardDiffers, where);
    assert.deepEqual([...outcome.differentFields].sort(), [...(difference?.fields ?? [])].sort(), where);
    assert.equal(outcome.comparedFields, extraFields.length, `compared fields: ${extraFields.join(", ")}\n${where}`);
  }
}

// ---- the parity reference set ----

/** A line of `parity/reference_verify.jsonl`: a verify request NeMo Gym's verify scored today, and what it gave. */
export interface ReferenceLine {
  lineNumber: number;
  /** The request as posted: the line without its expectations, null params dropped (see withoutNullParams). */
  request: Row;
  expectedReward: number;
  expectedExtra: Record<string, unknown>;
}

export function referenceLines(path: string): ReferenceLine[] {
  return readJsonl(path).map(({ row, lineNumber }) => {
    const { expected_reward, expected_extra, replay_tool_calls: _replay, ...request } = row as Row;
    return { lineNumber, request: withoutNullParams(request), expectedReward: expected_reward, expectedExtra: expected_extra ?? {} };
  });
}

/** The reference lines as the dataset rows they were: each request without the response. */
export function referenceRowsAsInputs(path: string): InputLine[] {
  return referenceLines(path).map(({ lineNumber, request: { response: _response, ...row } }) => ({ lineNumber, row, text: JSON.stringify(row) }));
}

export interface ReferenceSetExpectations {
  lines: number;
  /** The fields every line's expected_extra names; each must come back equal. */
  extraFields: readonly string[];
  /** More checks of a line verify scored (e.g. the row fields it echoes). */
  alsoCheck?: (body: Row, line: ReferenceLine) => void;
  /** The answer verify must give a line it cannot score (every other line must score). */
  refusal?: (line: ReferenceLine) => { status: number; body: unknown } | undefined;
}

/** Posts every reference line to /verify: NeMo Gym's reward and every expected_extra field come back. Returns the table (expected → ours). */
export const assertReferenceSet = (graph: Graph, server: string, path: string, expectations: ReferenceSetExpectations): Promise<string> =>
  assertReferenceLines((request) => graph.client.post(server, "/verify", { json: request }), path, expectations);

/** The same over any way of posting to /verify (an injected server's `post`, say). */
export async function assertReferenceLines(postVerify: (request: Row) => Promise<HttpResponse>, path: string, expectations: ReferenceSetExpectations): Promise<string> {
  const lines = referenceLines(path);
  assert.equal(lines.length, expectations.lines, `${path}: reference lines`);
  const table: string[] = [];
  for (const line of lines) {
    const answer = await postVerify(line.request);
    const refusal = expectations.refusal?.(line);
    if (refusal) {
      table.push(`line ${line.lineNumber}: refused ${answer.status}`);
      assert.equal(answer.status, refusal.status, `reference line ${line.lineNumber}: ${answer.text}`);
      assert.deepEqual(answer.json(), refusal.body, `reference line ${line.lineNumber}`);
      continue;
    }
    assert.equal(answer.status, 200, `reference line ${line.lineNumber}: ${answer.text}`);
    const body = answer.json<Row>();
    table.push(`line ${line.lineNumber}: expected ${line.expectedReward} → ours ${body.reward}`);
    assert.equal(body.reward, line.expectedReward, table.join("\n"));
    assert.deepEqual(Object.keys(line.expectedExtra).sort(), [...expectations.extraFields].sort(), `reference line ${line.lineNumber}: expected_extra fields`);
    for (const [key, value] of Object.entries(line.expectedExtra)) assert.deepEqual(body[key], value, `${table.join("\n")}\nreference line ${line.lineNumber}: ${key}`);
    expectations.alsoCheck?.(body, line);
  }
  return table.join("\n");
}

// ---- end to end ----

export interface EndToEndRun {
  /** The rows to run: a JSONL file, or rows (written to a temporary file). */
  inputs: string | Row[];
  /** The agent every row runs through; omitted, each row's agent_ref says. */
  agentName?: string;
  concurrency?: number;
  maxAttempts?: number;
  /** Rollouts that must end without a result (each is then a line of the failures file). */
  expectedFailures?: number;
}

/** Collects rollouts through the graph's agent (scripted_model replaying the recorded turns); asserts how many failed. */
export async function replayEndToEnd(graph: Graph, run: EndToEndRun): Promise<{ summary: CollectSummary; rollouts: Row[]; inputs: Row[] }> {
  const dir = mkdtempSync(join(tmpdir(), "gym-parity-replay-"));
  let inputPath = run.inputs as string;
  if (typeof run.inputs !== "string") {
    inputPath = join(dir, "rows.jsonl");
    writeFileSync(inputPath, run.inputs.map((row) => JSON.stringify(row)).join("\n") + "\n");
  }
  const outputPath = join(dir, "rollouts.jsonl");
  const summary = await collectRollouts({ client: graph.client, inputPath, outputPath, agentName: run.agentName, concurrency: run.concurrency ?? 5, maxAttempts: run.maxAttempts, print: () => {} });
  assert.equal(summary.failed, run.expectedFailures ?? 0, safeRead(summary.failuresPath));
  return { summary, rollouts: readRows(outputPath), inputs: readRows(inputPath) };
}

/** The row's last prompt message: how a replayed rollout finds the recorded one. */
export const lastPrompt = (row: Row) => JSON.stringify(row.responses_create_params.input.at(-1).content);

/** Each of our rollouts with the recorded one of the same key (its last prompt unless told); asserts how many and that each has one. */
export function pairWithRecorded(ours: Row[], recorded: Row[], { rows, key = lastPrompt }: { rows: number; key?: (row: Row) => string }): { ours: Row; stored: Row; where: string }[] {
  const byKey = new Map(recorded.map((row) => [key(row), row]));
  assert.equal(ours.length, rows);
  return ours.map((rollout) => {
    const where = `task ${rollout._ng_task_index}`;
    const stored = byKey.get(key(rollout));
    assert.ok(stored, `${where}: no recorded rollout matches it by ${key(rollout).slice(0, 200)}`);
    return { ours: rollout, stored, where };
  });
}

/** Our rollouts score as recorded: the same reward and extra fields. Returns the pairs for further checks. */
export function assertSameAsRecorded(ours: Row[], recorded: Row[], expectations: { rows: number; extraFields: readonly string[]; key?: (row: Row) => string }) {
  const pairs = pairWithRecorded(ours, recorded, expectations);
  for (const { ours: rollout, stored, where } of pairs) {
    assert.equal(rollout.reward, stored.reward, where);
    for (const field of expectations.extraFields) assert.deepEqual(rollout[field], stored[field], `${where}: ${field}`);
  }
  return pairs;
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
