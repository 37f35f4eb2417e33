// `data/verifier_cases.jsonl`: rollouts written by hand with the reward verify must give them. Each case's tool
// calls are played on a fresh session to get the environment's real outputs; the trajectory built from them is
// then re-scored by the reverify machinery (/seed_session, tool calls replayed, /verify, reward compared) — what
// `gym env test` does. A tools-free environment's tests instead post each case as one /verify request
// (`assertVerifierCasesScore`): its calls are never executed.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { ServerClient } from "../client/index.ts";
import type { ServerCalls } from "./servers.ts";
import type { InputLine, Row } from "../rollouts/jsonl.ts";
import { reverifyRollouts } from "../rollouts/reverify.ts";
import { validationErrorFromZod } from "../server/index.ts";
import { pathSegment } from "../client/path-segment.ts";

/** The kinds every file should have (a missing one is noted); a `refused` case is optional. */
export const CASE_KINDS = ["full_reward", "zero_reward", "malformed"] as const;

const caseFields = {
  row: z.record(z.string(), z.unknown()),
  tool_calls: z.array(z.object({ name: z.string(), arguments: z.union([z.record(z.string(), z.unknown()), z.string()]) })).default([]),
  output_text: z.string().default(""),
};
// A scored case expects a reward; a `refused` one expects verify to answer an error status instead (a row the port
// cannot score is a 501, a bad field a 4xx: never a reward), so that refusal is a contract too.
const VerifierCaseSchema = z.discriminatedUnion("case", [
  z.object({ case: z.enum(CASE_KINDS), ...caseFields, expected_reward: z.number() }),
  // No reward to expect from a refusal (the key is refused too, so a test reading `expected_reward` gets undefined).
  z.object({ case: z.literal("refused"), ...caseFields, expected_status: z.number().int().min(400).max(599), expected_reward: z.custom<undefined>((value) => value === undefined, "a refused case expects a status, not a reward: leave expected_reward out").optional() }),
]);
export type VerifierCase = z.output<typeof VerifierCaseSchema>;

export const VERIFIER_CASES_CONTRACT =
  'one JSON per line {"case": "full_reward"|"zero_reward"|"malformed", "row": <dataset row>, ' +
  '"tool_calls": [{"name": "<tool>", "arguments": {...}}], "output_text": "<final assistant text>", "expected_reward": <number>} ' +
  '(or {"case": "refused", ..., "expected_status": <4xx|5xx>} for a row verify must refuse)';

/** What a case expects, as a problem line says it. */
const expectation = (verifierCase: VerifierCase) => (verifierCase.case === "refused" ? `status ${verifierCase.expected_status}` : `reward ${verifierCase.expected_reward}`);

/**
 * A case as the /verify request of a tools-free environment, without playing it: its calls become function_call
 * items (never executed: such a server would answer each 404, and no verifier reads those outputs), then the
 * assistant message with `output_text` (always, even when empty).
 */
export function toolsFreeVerifyRequest(verifierCase: Pick<VerifierCase, "row" | "tool_calls" | "output_text">): Record<string, unknown> {
  const calls = verifierCase.tool_calls.map((call, i) => ({
    type: "function_call",
    call_id: `call_case_${i}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    id: `fc_case_${i}`,
    status: "completed",
  }));
  const message = { id: "msg_case", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: verifierCase.output_text, annotations: [] }] };
  const params = verifierCase.row.responses_create_params as { tools?: unknown[] } | undefined;
  const response = { id: "resp_case", created_at: 1, model: "verifier-case", object: "response", output: [...calls, message], parallel_tool_calls: true, tool_choice: "auto", tools: params?.tools ?? [] };
  return { ...verifierCase.row, response };
}

export interface ParsedCases {
  cases: { lineNumber: number; verifierCase: VerifierCase }[];
  problems: string[];
}

/** Every case of a file, valid or a problem naming `shownFile:LINE` (for `gym env test`, which reports them). */
export function readVerifierCases(file: string, shownFile: string): ParsedCases {
  const parsed: ParsedCases = { cases: [], problems: [] };
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() === "") return;
      const at = `${shownFile}:${i + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        parsed.problems.push(`${at}: not valid JSON (${(error as Error).message})`);
        return;
      }
      const result = VerifierCaseSchema.safeParse(value, { reportInput: true });
      if (!result.success) {
        for (const detail of validationErrorFromZod(result.error, value, []).detail) parsed.problems.push(`${at}: ${detail.loc.join(".") || "(line)"}: ${detail.msg}`);
        return;
      }
      parsed.cases.push({ lineNumber: i + 1, verifierCase: result.data });
    });
  return parsed;
}

interface PlayedCall {
  name: string;
  argumentsText: string;
  output: string;
  status: number | undefined;
}

/** The case's tool calls on a fresh session, each answer (a 422 included) kept as the tool's output. */
async function playToolCalls(client: ServerClient, instance: string, verifierCase: VerifierCase): Promise<PlayedCall[] | string> {
  const seeded = await client.post(instance, "/seed_session", { json: verifierCase.row });
  if (!seeded.ok) return `/seed_session answered ${seeded.status}: ${seeded.text.slice(0, 300)}`;
  let cookies = seeded.cookies;
  const played: PlayedCall[] = [];
  for (const call of verifierCase.tool_calls) {
    const argumentsText = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    let args: unknown;
    try {
      args = JSON.parse(argumentsText);
    } catch (error) {
      // As simple_agent: arguments that are not JSON never reach the tool; the model is told so.
      played.push({ name: call.name, argumentsText, output: JSON.stringify({ error: `Invalid tool call arguments: ${(error as Error).message}` }), status: undefined });
      continue;
    }
    const answer = await client.post(instance, `/${pathSegment(call.name)}`, { json: args, cookies });
    cookies = { ...cookies, ...answer.cookies };
    played.push({ name: call.name, argumentsText, output: answer.text, status: answer.status });
  }
  return played;
}

/** A NeMo Gym Responses `response`: function_call + function_call_output per call, then the assistant's message. */
export function caseResponse(row: Row, played: { name: string; argumentsText: string; output: string }[], outputText: string, caseIndex: number): Row {
  const params = (row.responses_create_params ?? {}) as Row;
  const output: Row[] = [];
  played.forEach((call, i) => {
    const callId = `call_env_test_${caseIndex}_${i + 1}`;
    output.push({ type: "function_call", id: `fc_env_test_${caseIndex}_${i + 1}`, call_id: callId, name: call.name, arguments: call.argumentsText, status: "completed" });
    output.push({ type: "function_call_output", call_id: callId, output: call.output });
  });
  output.push({ id: `msg_env_test_${caseIndex}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: outputText, annotations: [] }] });
  return {
    id: `resp_env_test_${caseIndex}`,
    created_at: 0,
    model: typeof params.model === "string" ? params.model : "gym-env-test",
    object: "response",
    output,
    parallel_tool_calls: typeof params.parallel_tool_calls === "boolean" ? params.parallel_tool_calls : true,
    tool_choice: params.tool_choice ?? "auto",
    tools: Array.isArray(params.tools) ? params.tools : [],
  };
}

export interface CasesOutcome {
  problems: string[];
  notes: string[];
}

export async function runVerifierCases(options: { client: ServerClient; instance: string; cases: ParsedCases["cases"]; shownFile: string; callDeadlineMs: number }): Promise<CasesOutcome> {
  const { client, instance, shownFile } = options;
  const outcome: CasesOutcome = { problems: [], notes: [] };
  const label = (lineNumber: number, verifierCase: VerifierCase) => `${shownFile}:${lineNumber} (${verifierCase.case})`;

  const rollouts: InputLine[] = [];
  const inputs: InputLine[] = [];
  const labels: string[] = [];
  const expected: VerifierCase[] = [];
  for (const [index, { lineNumber, verifierCase }] of options.cases.entries()) {
    const played = await playToolCalls(client, instance, verifierCase);
    if (typeof played === "string") {
      outcome.problems.push(`${label(lineNumber, verifierCase)}: ${played}`);
      continue;
    }
    if (verifierCase.case !== "malformed") {
      played.forEach((call, i) => {
        if (call.status !== undefined && call.status >= 400) outcome.notes.push(`${label(lineNumber, verifierCase)}: tool call ${i + 1} '${call.name}' answered ${call.status} (${call.output.slice(0, 160)})`);
      });
    }
    // The row keeps its own fields; the indices only pair the rollout with its input for reverify.
    const row: Row = { ...verifierCase.row, _ng_task_index: index, _ng_rollout_index: 0 };
    const response = caseResponse(verifierCase.row, played, verifierCase.output_text, index);
    inputs.push({ lineNumber, text: "", row });
    // A refused case's stored reward is never compared: its verify must fail.
    rollouts.push({ lineNumber, text: "", row: { ...row, response, reward: verifierCase.case === "refused" ? 0 : verifierCase.expected_reward } });
    labels.push(label(lineNumber, verifierCase));
    expected.push(verifierCase);
  }
  if (rollouts.length === 0) return outcome;

  const report = await reverifyRollouts({
    client,
    rollouts,
    inputs,
    resourcesServerFor: () => instance,
    concurrency: 1,
    callDeadlineMs: options.callDeadlineMs,
    tolerance: 1e-9,
  });
  report.outcomes.forEach((result, i) => {
    const verifierCase = expected[i]!;
    const failure = result.failure ? result.failure.message.split("\n")[0]!.slice(0, 400) : undefined;
    if (verifierCase.case === "refused") {
      const refusedAsExpected = result.failure?.failureClass === "verify" && result.failure.status === verifierCase.expected_status;
      if (!refusedAsExpected) outcome.problems.push(`${labels[i]}: expected ${expectation(verifierCase)}, but ${failure ?? `/verify answered 200 with reward ${result.line!.reward}`}`);
    } else if (failure !== undefined) outcome.problems.push(`${labels[i]}: expected ${expectation(verifierCase)}, but ${failure}`);
    else if (!result.rewardEqual) outcome.problems.push(`${labels[i]}: expected ${expectation(verifierCase)}, /verify returned ${result.line!.reward}`);
    if (result.toolOutputsDifferent > 0) {
      outcome.notes.push(`${labels[i]}: ${result.toolOutputsDifferent} tool call(s) answered differently on a second fresh session: the environment is not deterministic, so this reward may not be either`);
    }
  });
  return outcome;
}

/** A case as a test reads it: with its line number, the row typed as a dataset row. */
export type VerifierCaseLine = VerifierCase & { lineNumber: number; row: { responses_create_params: Record<string, unknown> } };

/** Every case of the file with its line number; a malformed file throws, naming each bad FILE:LINE. */
export function readVerifierCaseFile(path: string): VerifierCaseLine[] {
  const { cases, problems } = readVerifierCases(path, path);
  if (problems.length > 0) throw new Error(`${path} is malformed:\n${problems.join("\n")}`);
  return cases.map(({ lineNumber, verifierCase }) => ({ ...(verifierCase as VerifierCaseLine), lineNumber }));
}

/** The /verify request a tools-free environment's test posts for a case (its calls never executed). */
export const caseVerifyRequest = (verifierCase: VerifierCase) => toolsFreeVerifyRequest(verifierCase);

export interface VerifierCasesExpectations {
  /** The file holds at least this many cases. */
  minCases?: number;
  /** The file covers exactly these case kinds. */
  kinds?: VerifierCase["case"][];
}

/** POSTs every case of a verifier_cases.jsonl to the server's /verify and asserts a 200 with the case's expected reward (a refused case: its status). */
export async function assertVerifierCasesScore(server: ServerCalls, casesPath: string, expect: VerifierCasesExpectations = {}): Promise<void> {
  const cases = readVerifierCaseFile(casesPath);
  if (expect.minCases !== undefined) assert.ok(cases.length >= expect.minCases, `${casesPath}: ${cases.length} cases, expected at least ${expect.minCases}`);
  if (expect.kinds !== undefined) assert.deepEqual(new Set(cases.map((c) => c.case)), new Set(expect.kinds));
  for (const verifierCase of cases) {
    const answer = await server.post("/verify", caseVerifyRequest(verifierCase));
    const at = `verifier_cases.jsonl:${verifierCase.lineNumber} (${verifierCase.case})`;
    if (verifierCase.case === "refused") {
      assert.equal(answer.status, verifierCase.expected_status, `${at}: ${answer.text}`);
      continue;
    }
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json<{ reward: number }>().reward, verifierCase.expected_reward, at);
  }
}
