// NeMo Gym's gymnasium_agent: drives a Gymnasium-style environment (src/server/gymnasium-server.ts). /run resets the
// episode, then up to max_steps times calls the model and posts its whole response to /step as the action; the
// episode ends when a step says terminated or truncated (else, after max_steps, it is truncated). The steps' rewards
// are summed into the answer. Between steps the environment's `info.tool_outputs` become function_call_output items
// and its observation a user message. What the model and the environment answer is taken only when it is theirs
// (src/client/inner-answer.ts): anything else ends the attempt as a typed failure, never a reward.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ResponseCreateParamsSchema, type NeMoGymResponse, type Usage } from "../../src/protocol/index.ts";
import { InfrastructureFailure, innerCall, raiseForStatus, requireOwnSuccess } from "../../src/client/index.ts";
import type { HttpResponse } from "../../src/client/http-client.ts";
import { callModel, responsesApiAgent, rolloutIdForRow, rolloutPathPrefix, type ServerContext } from "../../src/server/index.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

const GymnasiumAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
  /** Model calls per episode (NeMo Gym: `Field(10, ge=1)`). */
  max_steps: z.number().int().min(1).default(10),
});
type GymnasiumAgentConfig = z.output<typeof GymnasiumAgentConfig>;
type Agent = ServerContext<GymnasiumAgentConfig>;
type Item = Record<string, unknown>;

/** NeMo Gym's EnvResetResponse / EnvStepResponse, with their defaults. */
const ResetAnswer = z.object({ observation: z.string().nullish(), info: z.record(z.string(), z.unknown()).default({}) });
const StepAnswer = z.object({
  observation: z.string().nullish(),
  reward: z.number().default(0),
  terminated: z.boolean().default(false),
  truncated: z.boolean().default(false),
  info: z.record(z.string(), z.unknown()).default({}),
});
type StepAnswer = z.output<typeof StepAnswer>;
const ToolOutputs = z.array(z.looseObject({ call_id: z.string(), output: z.unknown() }));

/** How long /close may take after the caller hung up (its own signal is then gone). */
const CLOSE_AFTER_HANG_UP_DEADLINE_MS = 30_000;

/**
 * NeMo Gym's accumulate_response_usage: the first usage as is; later ones add every count, cached and reasoning
 * tokens included (a count either side leaves unknown stays unknown).
 */
export function accumulateUsage(total: Usage | null, next: Usage | null | undefined): Usage | null {
  if (!next) return total;
  if (!total) return structuredClone(next);
  const added = (left: unknown, right: unknown) => (typeof left === "number" && typeof right === "number" ? left + right : null);
  const result = structuredClone(total);
  result.input_tokens += next.input_tokens;
  result.output_tokens += next.output_tokens;
  result.total_tokens += next.total_tokens;
  if (result.input_tokens_details && next.input_tokens_details) result.input_tokens_details.cached_tokens = added(result.input_tokens_details.cached_tokens, next.input_tokens_details.cached_tokens) as number;
  if (result.output_tokens_details && next.output_tokens_details) result.output_tokens_details.reasoning_tokens = added(result.output_tokens_details.reasoning_tokens, next.output_tokens_details.reasoning_tokens) as number;
  return result;
}

/** An environment's answer: its own 2xx JSON (its errors raise, as NeMo Gym's raise_for_status), validated. */
async function envCall<S extends z.ZodType>(agent: Agent, path: string, schema: S, request: { json: unknown; cookies: Record<string, string>; signal: AbortSignal; idempotent?: boolean; deadlineMs?: number }): Promise<{ answer: HttpResponse; body: z.output<S> }> {
  const resources = agent.config.resources_server.name;
  const url = `${resources}${path}`;
  const answer = requireOwnSuccess(await innerCall(url, () => agent.client.post(resources, path, request)), url);
  const parsed = schema.safeParse(answer.json());
  if (!parsed.success) throw new InfrastructureFailure("invalid_inner_answer", `${url} answered a body that is not NeMo Gym's ${path.slice(1)} response: ${answer.text.slice(0, 500)}`);
  return { answer, body: parsed.data };
}

interface Episode {
  responses_create_params: unknown;
  response: NeMoGymResponse;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
}

/** The loop after a successful reset (run owns the episode's cleanup). */
async function runEpisode(agent: Agent, row: Item & { responses_create_params: unknown }, observation: string | null | undefined, resetInfo: Record<string, unknown>, envCookies: Record<string, string>, signal: AbortSignal): Promise<Episode> {
  const rawParams = row.responses_create_params as Item;
  // NeMo Gym builds these messages without `type`, and sends only the fields it set.
  const baseInput: unknown[] = typeof rawParams.input === "string" ? [{ content: rawParams.input, role: "user" }] : [...((rawParams.input as unknown[]) ?? [])];
  if (observation) baseInput.push({ content: observation, role: "user" });
  const modelPath = `${rolloutPathPrefix(rolloutIdForRow(row, agent.globalConfig))}/v1/responses`;
  const stepIdempotent = resetInfo.supports_step_idempotency === true;

  const newOutputs: unknown[] = [];
  let reward = 0;
  let usage: Usage | null = null;
  let modelCookies: Record<string, string> = {};
  let step: StepAnswer = { observation: null, reward: 0, terminated: false, truncated: true, info: {} };
  let lastResponse: NeMoGymResponse | undefined;
  let finished = false;

  for (let turn = 0; turn < agent.config.max_steps; turn++) {
    signal.throwIfAborted();
    const model = await callModel(agent, agent.config.model_server.name, modelPath, { json: { ...rawParams, input: [...baseInput, ...newOutputs] }, cookies: modelCookies, signal });
    modelCookies = model.cookies;
    lastResponse = model.response;
    newOutputs.push(...model.response.output);
    usage = accumulateUsage(usage, model.response.usage);

    // The action is the model's whole response; the environment reads its text or its function calls.
    const stepBody: Item = { ...row, response: model.response };
    if (stepIdempotent) stepBody._ng_step_request_id = randomUUID().replaceAll("-", "");
    const { answer, body } = await envCall(agent, "/step", StepAnswer, { json: stepBody, cookies: envCookies, signal, idempotent: stepIdempotent });
    step = body;
    reward += step.reward;
    Object.assign(envCookies, answer.cookies);
    if (step.terminated || step.truncated) {
      finished = true;
      break;
    }
    const toolOutputs = ToolOutputs.safeParse(step.info.tool_outputs ?? []);
    if (!toolOutputs.success) throw new InfrastructureFailure("invalid_inner_answer", `${agent.config.resources_server.name}/step answered info.tool_outputs that are not a list of {call_id, output}`);
    for (const { call_id, output } of toolOutputs.data) newOutputs.push({ call_id, output, type: "function_call_output" });
    if (step.observation) newOutputs.push({ content: step.observation, role: "user" });
  }

  // Items NeMo Gym built itself are written with their defaults filled in, as pydantic dumps them.
  const written = (item: unknown): unknown => {
    const value = item as Item;
    if (value.type === "function_call_output" && !("id" in value)) return { ...value, id: null, status: null };
    if (value.type === undefined && value.role !== undefined) return { ...value, type: "message" };
    return value;
  };
  const responses_create_params = ResponseCreateParamsSchema.parse({ ...rawParams, input: baseInput.map(written) });
  return {
    responses_create_params,
    response: { ...lastResponse!, output: newOutputs.map(written) as NeMoGymResponse["output"], usage },
    reward,
    terminated: step.terminated,
    truncated: finished ? step.truncated : true,
    info: step.info,
  };
}

export default responsesApiAgent({
  name: "GymnasiumAgent",
  config: GymnasiumAgentConfig,
  refusedConfigKeys: {
    skip_verification: "gymnasium_agent never verifies: its reward is the sum of the episode's step rewards (NeMo Gym's run ignores skip_verification)",
    skip_verification_reward: "gymnasium_agent never verifies, so there is no reward for a skipped verification",
  },

  // As NeMo Gym's: a plain proxy to the model, cookies both ways.
  async responses({ rawParams, cookies, rolloutId, signal }, agent) {
    const model = await callModel(agent, agent.config.model_server.name, `${rolloutPathPrefix(rolloutId)}/v1/responses`, { json: rawParams, cookies, signal });
    return { response: model.response, cookies: model.cookies };
  },

  async run({ row, cookies, signal }, agent) {
    // The caller's cookies (auth, routing) go to the environment, with the session cookies it sets during the episode.
    const envCookies: Record<string, string> = { ...cookies };
    const reset = await envCall(agent, "/reset", z.unknown(), { json: row, cookies: envCookies, signal });
    Object.assign(envCookies, reset.answer.cookies);
    const info = (reset.body as { info?: unknown } | null)?.info;
    const supportsExplicitClose = typeof info === "object" && info !== null && (info as Item).supports_explicit_close === true;
    // A caller who hung up has aborted `signal`: the close still goes out, on its own deadline.
    const close = () => envCall(agent, "/close", z.unknown(), { json: {}, cookies: envCookies, signal: AbortSignal.timeout(CLOSE_AFTER_HANG_UP_DEADLINE_MS) });

    let episode: Episode;
    try {
      // A reset that succeeded holds an episode even if its answer is malformed: validation sits inside the cleanup.
      const parsed = ResetAnswer.safeParse(reset.body);
      if (!parsed.success) throw new InfrastructureFailure("invalid_inner_answer", `${agent.config.resources_server.name}/reset answered a body that is not NeMo Gym's reset response: ${reset.answer.text.slice(0, 500)}`);
      episode = await runEpisode(agent, row, parsed.data.observation, parsed.data.info, envCookies, signal);
    } catch (error) {
      if (supportsExplicitClose) {
        // The rollout's own failure is what the caller hears; a failed close is only logged.
        await close().catch((closeError: Error) => agent.log.warn(`gymnasium_agent: closing the environment after a failed rollout failed: ${closeError.message}`));
      }
      throw error;
    }
    if (supportsExplicitClose) {
      try {
        await close();
      } catch (error) {
        const failure = error as Error;
        agent.log.warn(`gymnasium_agent: the rollout completed, but closing the environment failed: ${failure.message}`);
        episode.info = { ...episode.info, cleanup_warning: { operation: "close", error_type: failure.name, message: failure.message } };
      }
    }
    return { ...episode };
  },

  // As in NeMo Gym, the environment owns its metrics.
  async aggregateMetrics(body, { config, client }) {
    const resources = config.resources_server.name;
    return raiseForStatus(await client.post(resources, "/aggregate_metrics", { json: body }), `${resources}/aggregate_metrics`).json();
  },
});
