// NeMo Gym's finance_agent (the Vals AI finance-agent loop): call the model, run its tool calls one by one against
// the resources server, feed the outputs back. Unlike simple_agent: a prose-only turn gets `no_tool_call_nudge` as a
// user message and the loop goes on; a call to one of `done_tools` (after its output is kept) ends it; a tool error
// naming one of `abort_on_tool_error_types` ends it; `max_steps` bounds the turns and `max_time_seconds` the wall
// clock (checked before each model call); only an incomplete response for max_output_tokens stops it. The reason is
// recorded in `response.metadata.stop_reason` (done_tool, max_turns, max_time, max_output_tokens, error) with `steps`.
//
// On purpose unlike NeMo Gym: a failed model call (transport, 5xx, model_call_timeout) or a tool answer that is not
// the resources server's is a typed failure of the rollout, never a loop that stops with stop_reason "error" and a
// reward 0 (NeMo Gym's run() also turns any exception into reward 0). A tool call that outlives `tool_call_timeout`
// is handed to the model as NeMo Gym's "Tool call timed out" error, as NeMo Gym does (its policy: every tool error
// goes back to the model).
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { FunctionCall, NeMoGymResponse, ResponseInputItem, Usage } from "../../src/protocol/index.ts";
import { innerCall, raiseForStatus, toolOutputText } from "../../src/client/index.ts";
import { pathSegment } from "../../src/client/path-segment.ts";
import { jsonLoads } from "../../src/python/json-value.ts";
import { addUsage, alwaysVerifiesKeys, callModel, pythonJsonDumps, responsesApiAgent, rolloutPathPrefix, functionCallOutput, seededOwnResponses, verifyRollout, withListInput } from "../../src/server/index.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

const FinanceAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
  // Required in NeMo Gym (a config states its policy).
  no_tool_call_nudge: z.string(),
  max_time_seconds: z.number().nullable(),
  abort_on_tool_error_types: z.array(z.string()),
  max_steps: z.number().int().nullish(),
  done_tools: z.array(z.string()).default(["submit_final_result"]),
  model_call_timeout: z.number().positive().nullish(),
  tool_call_timeout: z.number().positive().nullish(),
  truncate_on_overflow: z.boolean().default(false),
});
type FinanceAgentConfig = z.output<typeof FinanceAgentConfig>;

/** `_CONTEXT_OVERFLOW_RE`: the model server's message for an input over its context window. */
export const CONTEXT_OVERFLOW_RE = new RegExp(
  [
    "maximum context length is \\d+ tokens",
    "context length is (?:only )?\\d+ tokens",
    "maximum input length of \\d+ tokens",
    "Please reduce the length of the input",
    "exceed.* context (limit|window|length)",
    "context window exceeds",
    "exceeds maximum length",
    "too long.*tokens.*maximum",
    "too large for model with \\d+ maximum context length",
    "longer than the model's context length",
    "too many tokens.*size limit exceeded",
    "prompt is too long",
    "maximum prompt length",
    "input length should be",
    "sent message larger than max",
    "input tokens exceeded",
    "(messages?|total length).*too long",
    "payload.*too large",
    "string too long",
    "input exceeded the context window",
  ].join("|"),
  "i",
);

const isModelOutput = (item: unknown): boolean => {
  const { type, role } = (item ?? {}) as { type?: string; role?: string };
  return type === "reasoning" || type === "function_call" || (type === "message" && role === "assistant");
};

/** `_truncate_oldest_exchange`: drop the first block of model items and the tool results / user messages after it. */
export function truncateOldestExchange<T>(outputs: T[]): T[] {
  if (outputs.length <= 1) return outputs;
  let i = 0;
  while (i < outputs.length && isModelOutput(outputs[i])) i++;
  while (i < outputs.length && !isModelOutput(outputs[i])) i++;
  return i >= outputs.length ? outputs : outputs.slice(i);
}

const decodedObject = (raw: unknown): Record<string, unknown> | undefined => {
  if (typeof raw !== "string") return undefined;
  try {
    const value = JSON.parse(raw);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/** `_tool_error_message`: `{"results": "<JSON with error>"}` from the server, or a flat `{"error": …}`. */
export function toolErrorMessage(toolOutput: string): string | undefined {
  const payload = decodedObject(toolOutput);
  if (!payload) return undefined;
  if (typeof payload.results === "string") {
    const inner = decodedObject(payload.results);
    if (inner && typeof inner.error === "string") return inner.error;
  }
  return typeof payload.error === "string" ? payload.error : undefined;
}

const abortingErrorType = (config: FinanceAgentConfig, toolOutput: string): string | undefined => {
  if (config.abort_on_tool_error_types.length === 0) return undefined;
  const error = toolErrorMessage(toolOutput);
  return error === undefined ? undefined : config.abort_on_tool_error_types.find((name) => error.startsWith(`${name}:`));
};



class ToolTimeout extends Error {}
const withTimeout = async <T>(seconds: number | null | undefined, signal: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
  if (!seconds) return run(signal);
  const timer = AbortSignal.timeout(seconds * 1000);
  try {
    return await run(AbortSignal.any([signal, timer]));
  } catch (error) {
    if (timer.aborted && !signal.aborted) throw new ToolTimeout();
    throw error;
  }
};

export default responsesApiAgent({
  name: "FinanceAgent",
  config: FinanceAgentConfig,
  refusedConfigKeys: alwaysVerifiesKeys("finance_agent"),

  async responses({ rawParams, cookies, rolloutId, signal }, agent) {
    const { config, client } = agent;
    const input: unknown[] = [...withListInput(rawParams).input];
    let newOutputs: unknown[] = [];
    const modelPath = `${rolloutPathPrefix(rolloutId)}/v1/responses`;
    let usage: Usage | null = null;
    let modelCookies: Record<string, string> = {};
    let resourcesCookies = cookies;
    let lastResponse: NeMoGymResponse | undefined;
    const loopId = randomUUID();
    const done = new Set(config.done_tools);
    const started = performance.now();
    let stopReason = "error";
    let step = 0;

    loop: for (;;) {
      if (config.max_steps !== null && config.max_steps !== undefined && step >= config.max_steps) {
        stopReason = "max_turns";
        break;
      }
      if (config.max_time_seconds !== null && (performance.now() - started) / 1000 >= config.max_time_seconds) {
        stopReason = "max_time";
        break;
      }
      signal.throwIfAborted();
      step++;
      let answer;
      try {
        answer = await withTimeout(config.model_call_timeout, signal, (callSignal) => callModel(agent, config.model_server.name, modelPath, { json: { ...rawParams, input: [...input, ...newOutputs] }, cookies: modelCookies, signal: callSignal }));
      } catch (error) {
        if (config.truncate_on_overflow && CONTEXT_OVERFLOW_RE.test(String((error as Error)?.message ?? error))) {
          const truncated = truncateOldestExchange(newOutputs);
          if (truncated.length < newOutputs.length) {
            newOutputs = truncated;
            continue;
          }
        }
        if (error instanceof ToolTimeout) throw new Error(`model call to ${config.model_server.name} timed out after ${config.model_call_timeout}s (model_call_timeout)`);
        throw error;
      }
      modelCookies = answer.cookies;
      lastResponse = answer.response;
      const output = lastResponse.output as ResponseInputItem[];
      newOutputs.push(...output);
      usage = addUsage(usage, lastResponse.usage);
      if (lastResponse.incomplete_details?.reason === "max_output_tokens") {
        stopReason = "max_output_tokens";
        break;
      }
      const calls = output.filter((item): item is FunctionCall => item.type === "function_call");
      const hasMessage = output.some((item) => item.type === "message" && "role" in item && item.role === "assistant");
      if (calls.length === 0 && hasMessage) {
        newOutputs.push({ role: "user", content: config.no_tool_call_nudge, type: "message" });
        continue;
      }
      for (const [index, call] of calls.entries()) {
        let toolOutput: string;
        let args: unknown;
        try {
          args = jsonLoads(call.arguments);
        } catch (error) {
          // NeMo Gym's json.loads raises inside its try: the model reads "Tool call failed: JSONDecodeError: …".
          args = undefined;
          toolOutput = pythonJsonDumps({ error: `Tool call failed: ${(error as { type?: string }).type ?? "JSONDecodeError"}: ${(error as Error).message}. Please try a different approach or submit your final answer.` });
          newOutputs.push(functionCallOutput(call.call_id, toolOutput));
          if (done.has(call.name)) {
            stopReason = "done_tool";
            break loop;
          }
          continue;
        }
        const toolPath = `/${pathSegment(call.name)}`;
        const toolUrl = `${config.resources_server.name}${toolPath}`;
        const idempotencyKey = `${loopId}:${step}.${index}:${call.call_id}`;
        try {
          const toolAnswer = await withTimeout(config.tool_call_timeout, signal, (callSignal) =>
            innerCall(toolUrl, () => client.post(config.resources_server.name, toolPath, { json: args, cookies: resourcesCookies, signal: callSignal, idempotencyKey })),
          );
          toolOutput = toolOutputText(toolAnswer, toolUrl);
          resourcesCookies = { ...resourcesCookies, ...toolAnswer.cookies };
        } catch (error) {
          if (!(error instanceof ToolTimeout)) throw error;
          toolOutput = pythonJsonDumps({ error: `Tool call timed out after ${config.tool_call_timeout}s. Please try a different approach or submit your final answer.` });
        }
        newOutputs.push(functionCallOutput(call.call_id, toolOutput));
        if (done.has(call.name)) {
          stopReason = "done_tool";
          break loop;
        }
        if (abortingErrorType(config, toolOutput)) {
          stopReason = "error";
          break loop;
        }
      }
    }

    const base: NeMoGymResponse = lastResponse ?? ({ id: "error", created_at: 0, model: "error", object: "response", output: [], tools: [], parallel_tool_calls: false, tool_choice: "auto" } as unknown as NeMoGymResponse);
    const metadata = { ...((base as { metadata?: Record<string, string> | null }).metadata ?? {}), stop_reason: stopReason, steps: String(step) };
    return {
      response: { ...base, output: newOutputs as NeMoGymResponse["output"], usage, metadata } as NeMoGymResponse,
      cookies: { ...resourcesCookies, ...modelCookies },
    };
  },

  async run(call, agent) {
    const resources = agent.config.resources_server.name;
    const loop = await seededOwnResponses(agent, resources, call);
    return verifyRollout(agent, resources, { json: { ...call.row, response: loop.json() }, cookies: loop.cookies, signal: call.signal });
  },

  async aggregateMetrics(body, { config, client }) {
    const resources = config.resources_server.name;
    return raiseForStatus(await client.post(resources, "/aggregate_metrics", { json: body }), `${resources}/aggregate_metrics`).json();
  },
});
