// Pieces of NeMo Gym's LangGraph agent adapter (responses_api_agents/langgraph_agent/app.py) that any agent running a
// fixed graph of model calls needs, written as a plain state machine instead of a LangGraph runtime:
// - each node run is counted against LangGraph's default recursion limit (25 super-steps), so a graph that would
//   raise GraphRecursionError in NeMo Gym fails here too, and stops when its caller hangs up;
// - every model call's output and usage is recorded; the answer is the last model response with `output` = every
//   recorded item that is not an input message (role user/system/developer) and `usage` = all usages added up
//   field by field (NeMo Gym's aggregate_response_usage).
import type { NeMoGymResponse, Usage } from "../protocol/index.ts";
import { callModel, type AgentGraph } from "./agent-rollout.ts";

/** LangGraph's default `recursion_limit`: at most this many super-steps (node runs, for a graph without fan-out). */
export const LANGGRAPH_RECURSION_LIMIT = 25;

/** LangGraph's GraphRecursionError: the graph needed more super-steps than the limit allows (a 500, as in NeMo Gym). */
export class GraphRecursionError extends Error {
  constructor(limit: number) {
    super(`Recursion limit of ${limit} reached without hitting a stop condition. You can increase the limit by setting the \`recursion_limit\` config key.`);
    this.name = "GraphRecursionError";
  }
}

const INPUT_ROLES = new Set(["user", "system", "developer"]);

/** NeMo Gym's response_output_items: the recorded items that may sit in a Responses API output (no input messages). */
export const responseOutputItems = (items: readonly unknown[]): unknown[] =>
  items.filter((item) => !(item !== null && typeof item === "object" && INPUT_ROLES.has((item as { role?: unknown }).role as string)));

/** The `output_text` parts of the `message` items, joined with nothing between (NeMo Gym's `_extract_text`). */
export function outputTextOf(output: readonly unknown[]): string {
  let text = "";
  for (const item of output as { type?: unknown; content?: unknown }[]) {
    if (item?.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content as { type?: unknown; text?: unknown }[]) if (part?.type === "output_text") text += String(part.text);
  }
  return text;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * NeMo Gym's `_aggregate_usage_values`: nulls dropped; booleans → the last; numbers → their sum; objects → each key
 * (in order of first appearance) aggregated; lists → concatenated; anything else or a mix → the last.
 */
function aggregateValues(values: readonly unknown[]): unknown {
  const present = values.filter((value) => value !== null && value !== undefined);
  if (present.length === 0) return null;
  if (present.every((value) => typeof value === "boolean")) return present.at(-1);
  if (present.every((value) => typeof value === "number")) return (present as number[]).reduce((sum, value) => sum + value, 0);
  if (present.every(isPlainObject)) {
    const keys = [...new Set(present.flatMap((value) => Object.keys(value)))];
    return Object.fromEntries(keys.map((key) => [key, aggregateValues(present.map((value) => value[key]))]));
  }
  if (present.every(Array.isArray)) return present.flat(1);
  return present.at(-1);
}

/** NeMo Gym's aggregate_response_usage: every model call's usage added up, details included; none → null. */
export function aggregateResponseUsage(usages: readonly Usage[]): Usage | null {
  if (usages.length === 0) return null;
  return aggregateValues(usages) as Usage;
}

/** One model answer: the response, its text and the cookies it set. */
export interface ModelAnswer {
  response: NeMoGymResponse;
  text: string;
  cookies: Record<string, string>;
}

/**
 * The state a graph agent carries through its nodes: what was recorded (policy_outputs, policy_usages), the cookies
 * the next model call sends (the caller's, then each model answer's: NeMo Gym keeps only the last answer's), the last
 * model response, and the node count.
 */
export class GraphTrace {
  readonly outputs: unknown[] = [];
  readonly usages: Usage[] = [];
  cookies: Record<string, string>;
  lastResponse: NeMoGymResponse | undefined;
  private nodeRuns = 0;

  constructor(
    private readonly agent: AgentGraph,
    private readonly modelServer: string,
    /** The request exactly as sent: every model call is it with `input` replaced. */
    private readonly rawParams: Record<string, unknown>,
    readonly callerCookies: Record<string, string>,
    readonly signal: AbortSignal,
    private readonly recursionLimit = LANGGRAPH_RECURSION_LIMIT,
  ) {
    this.cookies = callerCookies;
  }

  /** A node starts: stop if the caller hung up; fail past the recursion limit. */
  enter(): void {
    this.signal.throwIfAborted();
    if (++this.nodeRuns > this.recursionLimit) throw new GraphRecursionError(this.recursionLimit);
  }

  /** One model call with this input and the current cookies; nothing is recorded. */
  async ask(input: unknown[]): Promise<ModelAnswer> {
    const { response, cookies } = await callModel(this.agent, this.modelServer, "/v1/responses", { json: { ...this.rawParams, input }, cookies: this.cookies, signal: this.signal });
    return { response, text: outputTextOf(response.output), cookies };
  }

  /** Records an answer: the prompt items then its output, its usage (when it has one), its cookies, it as the last response. */
  record(promptItems: readonly unknown[], answer: ModelAnswer): void {
    this.outputs.push(...promptItems, ...answer.response.output);
    if (answer.response.usage) this.usages.push(answer.response.usage);
    this.cookies = answer.cookies;
    this.lastResponse = answer.response;
  }

  /**
   * The agent's answer: the last model response with every recorded non-input item as its output and the summed
   * usage. The cookies handed back are the caller's with the last model answer's over them (NeMo Gym hands back only
   * the latter; the caller's session cookie is kept so /run's verify stays in the seeded session).
   */
  result(): { response: NeMoGymResponse; cookies: Record<string, string> } {
    if (!this.lastResponse) throw new Error("the graph made no model call");
    const response = { ...this.lastResponse, output: responseOutputItems(this.outputs) as NeMoGymResponse["output"], usage: aggregateResponseUsage(this.usages) };
    return { response, cookies: { ...this.callerCookies, ...this.cookies } };
  }
}

/** NeMo Gym's prompt message: `NeMoGymEasyInputMessage(role="user", content=...)` as it is sent (unset `type` left out). */
export const userMessage = (content: unknown) => ({ content, role: "user" });
