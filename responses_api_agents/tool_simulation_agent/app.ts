// NeMo Gym's tool_simulation_agent: exactly one model call, no tool execution, then /verify. For environments
// whose tool results are simulated (written into the prompt) and whose reward judges the model's next action,
// e.g. single_step_tool_use_with_argument_comparison. There is no /seed_session and no session cookie: the
// verify sees the row and the response, nothing else. An answer that is not the servers' own (src/client/inner-answer.ts)
// ends the attempt as a typed failure.
import { z } from "zod";
import { BaseVerifyResponseSchema, ResponseCreateParamsSchema, ResponseSchema } from "../../src/protocol/index.ts";
import { InfrastructureFailure, innerCall, requireOwnSuccess } from "../../src/client/index.ts";
import { computeAggregateMetrics } from "../../src/metrics/index.ts";
import { responsesApiAgent, rolloutIdForRow, rolloutPathPrefix } from "../../src/server/index.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

const ToolSimulationAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
  /** Skip /verify and score every rollout `skip_verification_reward` (adds `verification_skipped: true`). */
  skip_verification: z.boolean().default(false),
  skip_verification_reward: z.number().default(0),
});

export default responsesApiAgent({
  name: "ToolSimulationAgent",
  config: ToolSimulationAgentConfig,

  async responses({ rawParams, rolloutId, signal }, { config, client }) {
    const modelPath = `${rolloutPathPrefix(rolloutId)}/v1/responses`;
    const modelUrl = `${config.model_server.name}${modelPath}`;
    const answer = requireOwnSuccess(await innerCall(modelUrl, () => client.post(config.model_server.name, modelPath, { json: rawParams, signal })), modelUrl);
    const parsed = ResponseSchema.safeParse(answer.json());
    if (!parsed.success) throw new Error(`Received an invalid response from the model server: ${answer.text.slice(0, 2000)}`);
    return { response: parsed.data, cookies: {} };
  },

  async run({ row, signal }, { config, client, instanceName, globalConfig }) {
    const selfPath = `${rolloutPathPrefix(rolloutIdForRow(row, globalConfig))}/v1/responses`;
    const selfUrl = `${instanceName}${selfPath}`;
    const modelTurn = requireOwnSuccess(await innerCall(selfUrl, () => client.post(instanceName, selfPath, { json: row.responses_create_params, signal })), selfUrl);
    const response = modelTurn.json();

    if (config.skip_verification) {
      const responses_create_params = ResponseCreateParamsSchema.parse(row.responses_create_params);
      return { ...row, responses_create_params, response, reward: config.skip_verification_reward, verification_skipped: true };
    }

    const resources = config.resources_server.name;
    const verifyUrl = `${resources}/verify`;
    const verified = requireOwnSuccess(await innerCall(verifyUrl, () => client.post(resources, "/verify", { json: { ...row, response }, signal })), verifyUrl);
    const result = BaseVerifyResponseSchema.safeParse(verified.json());
    // JSON, but no verify response (no numeric reward): not the environment's answer, so never scored.
    if (!result.success) throw new InfrastructureFailure("invalid_inner_answer", `${verifyUrl} answered an invalid verify response: ${verified.text.slice(0, 500)}`);
    return result.data;
  },

  // Computed here, as NeMo Gym's base agent does (no proxy to the resources server); nothing when verify is skipped.
  async aggregateMetrics(body, { config }) {
    if (config.skip_verification) return { group_level_metrics: [], agent_metrics: {}, key_metrics: {} };
    return computeAggregateMetrics(body.verify_responses);
  },
});
