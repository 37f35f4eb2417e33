// NeMo Gym's tool_simulation_agent: exactly one model call, no tool execution, then /verify. For environments
// whose tool results are simulated (written into the prompt) and whose reward judges the model's next action,
// e.g. single_step_tool_use_with_argument_comparison. There is no /seed_session and no session cookie: the
// verify sees the row and the response, nothing else.
import { z } from "zod";
import { BaseVerifyResponseSchema, ResponseCreateParamsSchema, ResponseSchema } from "../../src/protocol/index.ts";
import { raiseForStatus } from "../../src/client/index.ts";
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
    const answer = raiseForStatus(await client.post(config.model_server.name, modelPath, { json: rawParams, signal }), `${config.model_server.name}${modelPath}`);
    let body: unknown;
    try {
      body = answer.json();
    } catch {
      body = answer.text;
    }
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success) throw new Error(`Received an invalid response from the model server: ${answer.text.slice(0, 2000)}`);
    return { response: parsed.data, cookies: {} };
  },

  async run({ row, signal }, { config, client, instanceName, globalConfig }) {
    const selfPath = `${rolloutPathPrefix(rolloutIdForRow(row, globalConfig))}/v1/responses`;
    const modelTurn = raiseForStatus(await client.post(instanceName, selfPath, { json: row.responses_create_params, signal }), `${instanceName}${selfPath}`);
    const response = modelTurn.json();

    if (config.skip_verification) {
      const responses_create_params = ResponseCreateParamsSchema.parse(row.responses_create_params);
      return { ...row, responses_create_params, response, reward: config.skip_verification_reward, verification_skipped: true };
    }

    const resources = config.resources_server.name;
    const verified = raiseForStatus(await client.post(resources, "/verify", { json: { ...row, response }, signal }), `${resources}/verify`);
    const result = BaseVerifyResponseSchema.safeParse(verified.json());
    if (!result.success) throw new Error(`${resources}/verify answered an invalid verify response: ${verified.text.slice(0, 500)}`);
    return result.data;
  },

  // Computed here, as NeMo Gym's base agent does (no proxy to the resources server); nothing when verify is skipped.
  async aggregateMetrics(body, { config }) {
    if (config.skip_verification) return { group_level_metrics: [], agent_metrics: {}, key_metrics: {} };
    return computeAggregateMetrics(body.verify_responses);
  },
});
