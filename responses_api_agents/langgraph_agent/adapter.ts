// NeMo Gym's LangGraphAgentAdapter (langgraph_agent/app.py), shared by the four graphs of this folder (each its own
// entrypoint, as in NeMo Gym: orchestrator_agent.py, parallel_thinking_agent.py, reflection_agent.py,
// rewoo_agent.py). `/v1/responses` runs the graph (a TypeScript state machine, no LangGraph runtime) and answers the
// last model response with every model output as `output` and the summed usage; `/run` seeds the row's session,
// calls its own `/v1/responses` with the row's `responses_create_params` and verifies. `/aggregate_metrics` is
// computed here (NeMo Gym's default). The graphs' prompt texts are NeMo Gym's, read out of its graph modules
// (prompts.ts).
import { z } from "zod";
import type { ResponseCreateParamsInput } from "../../src/protocol/index.ts";
import { alwaysVerifiesKeys, callOwnResponses, responsesApiAgent, seedSession, verifyRollout, type ServerContext, type ServerDefinition } from "../../src/server/index.ts";
import { GraphTrace } from "../../src/server/graph-agent.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

/** LangGraphAgentConfig, plus ours: where the graph module with NeMo Gym's prompt texts is (prompts.ts). */
export const LangGraphAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
  /** Ours: NeMo Gym's graph module the prompt texts are read from; unset: its pinned copy, fetched when absent. */
  prompts_module_fpath: z.string().optional(),
});

export interface GraphCall<Config> {
  /** The request exactly as sent. */
  rawParams: ResponseCreateParamsInput;
  trace: GraphTrace;
  config: Config;
}

export interface LangGraphAgentSpec<Config> {
  name: string;
  config: z.ZodType<Config>;
  refusedConfigKeys?: Readonly<Record<string, string>>;
  /** Runs the graph, recording every model call on the trace. */
  runGraph(call: GraphCall<Config>): Promise<void>;
}

export function langGraphAgent<Config extends z.output<typeof LangGraphAgentConfig>>(spec: LangGraphAgentSpec<Config>): ServerDefinition<Config> {
  return responsesApiAgent<Config>({
    name: spec.name,
    config: spec.config,
    // NeMo Gym's run verifies whatever these say: refused, not ignored.
    refusedConfigKeys: { ...alwaysVerifiesKeys("langgraph_agent"), ...spec.refusedConfigKeys },

    // NeMo Gym's graphs call the model at `/v1/responses` without the rollout prefix, whatever path they were called on.
    async responses({ rawParams, cookies, signal }, agent: ServerContext<Config>) {
      const trace = new GraphTrace(agent, agent.config.model_server.name, rawParams as Record<string, unknown>, cookies, signal);
      await spec.runGraph({ rawParams, trace, config: agent.config });
      return trace.result();
    },

    // Seed, own /v1/responses (unprefixed, as NeMo Gym's run posts it), verify in the session.
    async run(call, agent) {
      const resources = agent.config.resources_server.name;
      const sessionCookies = await seedSession(agent, resources, call);
      const answer = await callOwnResponses(agent, "/v1/responses", { json: call.row.responses_create_params, cookies: sessionCookies, signal: call.signal });
      return verifyRollout(agent, resources, { json: { ...call.row, response: answer.json() }, cookies: { ...sessionCookies, ...answer.cookies }, signal: call.signal });
    },
  });
}

/** Python's truthiness of a JSON value (`x or default`). */
export const pyTruthy = (value: unknown): boolean =>
  !(value === null || value === undefined || value === false || value === 0 || value === "" || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0));

/**
 * The task of the orchestrator, parallel-thinking and ReWOO graphs: a string input as is; else the content of the
 * last item whose role (missing: "user") is user/human and whose content (missing or empty: "") is a string. An item
 * without a role or content (a function_call_output) thus counts as an empty user message, as in NeMo Gym.
 */
export function taskOf(input: ResponseCreateParamsInput["input"]): string {
  if (typeof input === "string") return input;
  let task = "";
  for (const item of input as Record<string, unknown>[]) {
    const content = pyTruthy(item.content) ? item.content : "";
    const role = pyTruthy(item.role) ? item.role : "user";
    if ((role === "user" || role === "human") && typeof content === "string") task = content;
  }
  return task;
}
