// What the table of `gym view` shows of one line of a run's files, taken once when the line is first read: the
// line itself stays on disk (its byte offset is kept), so a 100k-rollout file costs a few numbers per line.

/**
 * Which file of the run a line is in: the rollouts file, its `_failures.jsonl` (one line per failed attempt), or its
 * `_materialized_inputs.jsonl` (the rows as dispatched, which the playground seeds a session from).
 */
export type LineKind = "rollout" | "failure" | "input";

export interface LineSummary {
  kind: LineKind;
  /** The line's index in its file (0-based), which the API addresses it by. */
  index: number;
  /** Where the line is in its file, so it can be read again alone. */
  offset: number;
  bytes: number;
  task: number | null;
  repeat: number | null;
  attempt: number | null;
  /** A rollout's reward; null for a failure line (a fault is never scored). */
  reward: number | null;
  failureClass: string | null;
  /** A failure that its collection retried (not the rollout's last word). */
  willRetry: boolean;
  /** `response.usage.total_tokens` (or input + output), when the model reported usage. */
  tokens: number | null;
  /** Model calls in the response: a model item that is first, or follows tool outputs, starts one. */
  turns: number;
  toolCalls: number;
  agent: string | null;
  /** The start of the first user message, for the table and its text filter. */
  prompt: string;
}

const PROMPT_CHARS = 120;

const numberOrNull = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);

type Item = { type?: unknown; role?: unknown; content?: unknown };

/** The text of a message's content: a string, or the text parts of a list. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : ""))
    .filter(Boolean)
    .join(" ");
}

function firstUserText(line: Record<string, unknown>): string {
  const params = line.responses_create_params as { input?: unknown } | undefined;
  const input = params?.input;
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  const user = (input as Item[]).find((item) => item && item.role === "user");
  return user ? contentText(user.content) : "";
}

function usageTokens(response: Record<string, unknown> | undefined): number | null {
  const usage = response?.usage as { total_tokens?: unknown; input_tokens?: unknown; output_tokens?: unknown } | undefined;
  if (!usage) return null;
  const total = numberOrNull(usage.total_tokens);
  if (total !== null) return total;
  const input = numberOrNull(usage.input_tokens);
  const output = numberOrNull(usage.output_tokens);
  return input === null && output === null ? null : (input ?? 0) + (output ?? 0);
}

/** A string of its own: a slice would keep the whole prompt it was cut from alive, for every line of the run. */
const flatCopy = (text: string) => Buffer.from(text, "utf8").toString("utf8");

function modelCalls(output: readonly Item[]): number {
  let calls = 0;
  let afterToolOutput = true;
  for (const item of output) {
    const isToolOutput = item?.type === "function_call_output";
    if (!isToolOutput && afterToolOutput) calls++;
    afterToolOutput = isToolOutput;
  }
  return calls;
}

export function summarizeLine(line: Record<string, unknown>, kind: LineKind, index: number, offset: number, bytes: number): LineSummary {
  const response = (line.response ?? undefined) as Record<string, unknown> | undefined;
  const output = Array.isArray(response?.output) ? (response.output as Item[]) : [];
  const agentRef = line.agent_ref as { name?: unknown } | undefined;
  return {
    kind,
    index,
    offset,
    bytes,
    task: numberOrNull(line._ng_task_index),
    repeat: numberOrNull(line._ng_rollout_index),
    attempt: numberOrNull(line._ng_attempt_index),
    reward: kind === "rollout" ? numberOrNull(line.reward) : null,
    failureClass: kind === "failure" ? String(line._ng_failure_class ?? "unknown") : null,
    willRetry: kind === "failure" && line._ng_will_retry === true,
    tokens: usageTokens(response),
    turns: modelCalls(output),
    toolCalls: output.filter((item) => item?.type === "function_call").length,
    agent: typeof agentRef?.name === "string" ? agentRef.name : null,
    prompt: flatCopy(firstUserText(line).slice(0, PROMPT_CHARS * 4).replace(/\s+/g, " ").trim().slice(0, PROMPT_CHARS)),
  };
}

/** `task/repeat`: how a rollout is matched across its attempts and across two runs of the same inputs. */
export const rolloutKeyOf = (summary: Pick<LineSummary, "task" | "repeat">) => `${summary.task}/${summary.repeat}`;
