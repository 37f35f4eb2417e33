// NeMo Gym's aviary_agent: drives an aviary environment served by resources_servers/aviary. A rollout is
//   seed (POST /seed_session {task_idx}: env_id, first observations, the environment's tools)
//   → loop: the model is called with the whole agent state; its function calls go to POST /step as one action;
//     the observations are appended; stop when the environment says done, on max_steps, or (done_if_no_tool_calls)
//     when the model answers without calling a tool
//   → POST /close {env_id}, always → POST /verify (the reward is the environment's sum of step rewards).
// Its /v1/responses takes the run request (task_idx + responses_create_params), as NeMo Gym's does.
// A fault is never scored: a transport error, a deadline, a 502/503/504 or an answer that is not the server's own
// ends the attempt as a typed failure (src/client/inner-answer.ts). A model's own error answer (a 400 for a context
// too long, a 500) ends the loop as in NeMo Gym, which then verifies what the environment got so far.
import { setTimeout as delay } from "node:timers/promises";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { AggregateMetricsRequestSchema, ResponseCreateParamsSchema, ResponseSchema, type NeMoGymResponse } from "../../src/protocol/index.ts";
import { computeAggregateMetrics } from "../../src/metrics/index.ts";
import { innerCall, requireOwnAnswer, requireOwnSuccess, requireVerifyResponse, InfrastructureFailure } from "../../src/client/index.ts";
import { answeringInfrastructureFailures, callerGone, defineServer, parseBody, rolloutIdForRow, rolloutPathPrefix, type ServerContext } from "../../src/server/index.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

export const AviaryAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
  /** Steps (model calls) before the loop stops; null = until done. */
  max_steps: z.number().int().nullish(),
  /** True: `output` is the agent state after each step (a list of lists); false: the trajectory's items once. */
  return_transitions: z.boolean().default(true),
  /** Accepted and, as in NeMo Gym at 07d6b0d, never read by the loop (its TODO: stop before the limit). */
  max_total_sequence_length: z.number().int().nullish(),
  /** True: an answer without a function call ends the rollout; false: the model is told to call a tool. */
  done_if_no_tool_calls: z.boolean().default(true),
  /** True: after each successful step, earlier environment-state messages are replaced by `old_env_state_message`. */
  collapse_old_env_states: z.boolean().default(false),
  old_env_state_message: z.string().default("[Previous environment state - hidden]"),
  /** This port's: the first wait of /seed_session's retries (NeMo Gym's tenacity: 3 attempts, exponential jitter from 5 s). */
  seed_retry_initial_s: z.number().min(0).default(5),
});
export type AviaryAgentConfig = z.output<typeof AviaryAgentConfig>;

const RunRequestSchema = z.looseObject({
  task_idx: z.number().int(),
  responses_create_params: z.looseObject({}).default({ input: [] }),
});
type RunRequest = z.output<typeof RunRequestSchema>;

const SeedResponseSchema = z.looseObject({ env_id: z.string(), obs: z.array(z.looseObject({})), tools: z.array(z.looseObject({})) });
const StepResponseSchema = z.looseObject({ obs: z.array(z.looseObject({})), reward: z.number(), done: z.boolean() });

type Item = Record<string, any>;

export const NO_TOOL_CALL_HINT =
  "You did not respond with a valid tool call. This may mean you did not call tools, or you tried to and got the formatting, tool name, or arguments wrong. To proceed, please call at least one tool.";

/** `update_agent_state`: previous input (env states collapsed after a successful step, when asked) + model output + obs. */
export function updateAgentState(input: Item[], modelOutput: Item[], obs: Item[], successfulTransition: boolean, config: Pick<AviaryAgentConfig, "collapse_old_env_states" | "old_env_state_message">): Item[] {
  let previous = input;
  if (successfulTransition && config.collapse_old_env_states) {
    const hidden = { role: "user", content: config.old_env_state_message, type: "message" };
    previous = input.map((item) => (item.is_env_state === true ? hidden : item));
  }
  return [...previous, ...modelOutput, ...obs];
}


/** Full-jitter exponential waits as tenacity's wait_exponential_jitter(initial): initial·2^n plus up to 1 s. */
const seedWaitMs = (initialS: number, attempt: number) => (initialS * 2 ** attempt + (initialS > 0 ? Math.random() : 0)) * 1000;

async function seedSession(agent: ServerContext<AviaryAgentConfig>, taskIdx: number, signal: AbortSignal) {
  const resources = agent.config.resources_server.name;
  const url = `${resources}/seed_session`;
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await delay(seedWaitMs(agent.config.seed_retry_initial_s, attempt - 1), undefined, { signal });
    try {
      const answer = requireOwnSuccess(await innerCall(url, () => agent.client.post(resources, "/seed_session", { json: { task_idx: taskIdx }, signal })), url);
      const seeded = SeedResponseSchema.parse(answer.json());
      if (seeded.obs.length === 0) throw new Error("No observations in seed session response");
      return seeded;
    } catch (error) {
      if (signal.aborted) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

/** One model call: the response, or undefined when the model answered its own error (the loop then stops). */
async function callModel(agent: ServerContext<AviaryAgentConfig>, path: string, json: unknown, cookies: Record<string, string>, signal: AbortSignal) {
  const model = agent.config.model_server.name;
  const url = `${model}${path}`;
  const answer = requireOwnAnswer(await innerCall(url, () => agent.client.post(model, path, { json, cookies, signal })), url);
  if (!answer.ok) {
    agent.log.warn(`Error calling /v1/responses: HTTP ${answer.status}. Response: ${answer.text.slice(0, 500)}`);
    return undefined;
  }
  const parsed = ResponseSchema.safeParse(answer.json());
  if (!parsed.success) {
    agent.log.warn(`Error validating model response: ${parsed.error.message.slice(0, 500)}`);
    return undefined;
  }
  return { response: parsed.data as NeMoGymResponse, cookies: answer.cookies };
}

export async function aviaryRollout(agent: ServerContext<AviaryAgentConfig>, request: RunRequest, signal: AbortSignal): Promise<Item> {
  const { config, client } = agent;
  const resources = config.resources_server.name;
  const params = structuredClone(request.responses_create_params) as Item;
  ResponseCreateParamsSchema.parse(params);
  const initialInput: Item[] = typeof params.input === "string" ? [{ role: "user", content: params.input, type: "message" }] : [...(params.input ?? [])];

  const seeded = await seedSession(agent, request.task_idx, signal);
  let agentState: Item = { ...params, input: [...initialInput, ...seeded.obs], tools: seeded.tools };
  const envId = seeded.env_id;
  const modelPath = `${rolloutPathPrefix(rolloutIdForRow(request, agent.globalConfig))}/v1/responses`;
  let modelResponse: NeMoGymResponse | undefined;
  const history: Item[][] = [];
  const allMessages: Item[] = [];
  let modelCookies: Record<string, string> = {};

  try {
    for (let step = 0; ; ) {
      if (config.max_steps !== null && config.max_steps !== undefined && step >= config.max_steps) break;
      step += 1;
      let successfulTransition = true;
      signal.throwIfAborted();

      const called = await callModel(agent, modelPath, agentState, modelCookies, signal);
      if (!called) break;
      modelResponse = called.response;
      modelCookies = called.cookies;

      const modelOutput = modelResponse.output as Item[];
      const calls = modelOutput.filter((item) => item.type === "function_call");
      const hasAssistantMessage = modelOutput.some((item) => item.type === "message" && item.role === "assistant");
      let done = false;
      let obs: Item[];
      if (calls.length === 0 && hasAssistantMessage) {
        if (config.done_if_no_tool_calls) {
          done = true;
          obs = [];
        } else {
          obs = [{ role: "user", content: NO_TOOL_CALL_HINT, type: "message" }];
          successfulTransition = false;
        }
      } else {
        // A reasoning-only answer (no call, no message) steps with an empty action, as in NeMo Gym.
        const url = `${resources}/step`;
        const action = calls.map(({ arguments: args, call_id, name, type, id, status }) => ({ arguments: args, call_id, name, type, id: id ?? null, status: status ?? null }));
        const answer = requireOwnSuccess(await innerCall(url, () => client.post(resources, "/step", { json: { action, env_id: envId }, signal })), url);
        const stepped = StepResponseSchema.parse(answer.json());
        obs = stepped.obs;
        done = stepped.done;
      }

      agentState = { ...agentState, input: updateAgentState(agentState.input, modelOutput, obs, successfulTransition, config) };
      if (config.return_transitions) history.push(agentState.input);
      else {
        allMessages.push(...modelOutput);
        if (successfulTransition) allMessages.push(...obs);
      }
      if (done) break;
    }
  } finally {
    // Always, even when the caller hung up: the environment is freed (its own deadline, not the caller's signal).
    const url = `${resources}/close`;
    await innerCall(url, () => client.post(resources, "/close", { json: { env_id: envId } })).catch((error) => agent.log.warn(`closing ${envId}: ${(error as Error).message}`));
  }

  if (!modelResponse) throw new Error("AssertionError: Rollout crashed or terminated before first transition completed, cannot proceed.");
  return { ...modelResponse, env_id: envId, group_id: String(request.task_idx), contains_transitions: config.return_transitions, output: config.return_transitions ? history : allMessages };
}

export default defineServer<AviaryAgentConfig>({
  serverType: "responses_api_agents",
  className: "AviaryAgent",
  configSchema: AviaryAgentConfig,
  refusedConfigKeys: {
    skip_verification: "AviaryAgent always verifies (NeMo Gym's run ignores skip_verification)",
    skip_verification_reward: "AviaryAgent always verifies, so there is no reward for a skipped verification",
  },
  register(app, agent) {
    const responses = async (request: FastifyRequest, reply: FastifyReply) => {
      const body = parseBody(RunRequestSchema, request);
      return answeringInfrastructureFailures(reply, () => aviaryRollout(agent, body, callerGone(reply)));
    };
    app.post("/v1/responses", responses);
    // NeMo Gym's prefixed twin (a self-call made with url_path_for_run).
    app.post("/ng-rollout/:rollout_id/v1/responses", responses);

    app.post("/run", async (request, reply) => {
      const body = parseBody(RunRequestSchema, request);
      const signal = callerGone(reply);
      return answeringInfrastructureFailures(reply, async () => {
        const response = await aviaryRollout(agent, body, signal);
        const resources = agent.config.resources_server.name;
        const url = `${resources}/verify`;
        const verified = requireOwnSuccess(await innerCall(url, () => agent.client.post(resources, "/verify", { json: { ...(request.body as object), responses_create_params: body.responses_create_params, response }, signal })), url);
        return requireVerifyResponse(verified, url);
      });
    });

    app.post("/aggregate_metrics", async (request) => {
      const body = parseBody(AggregateMetricsRequestSchema, request);
      return computeAggregateMetrics(body.verify_responses);
    });
  },
});
