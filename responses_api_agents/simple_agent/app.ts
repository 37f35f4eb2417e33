// NeMo Gym's simple_agent: call the model, run its tool calls against the resources server one by one,
// feed the outputs back, and stop on a final message, an incomplete response, or max_steps.
// What the model may read is the servers' own answers only (src/client/inner-answer.ts): a transport failure, a
// timeout, a 502/503/504 or a body that is not the server's JSON ends the attempt as a typed failure instead.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ResponseCreateParamsSchema, type FunctionCall, type NeMoGymResponse, type ResponseInputItem, type Usage } from "../../src/protocol/index.ts";
import { innerCall, raiseForStatus, toolOutputText } from "../../src/client/index.ts";
import { pathSegment } from "../../src/client/path-segment.ts";
import { addUsage, callModel, pythonJsonDumps, responsesApiAgent, rolloutPathPrefix, functionCallOutput, seededOwnResponses, verifyRollout, withListInput } from "../../src/server/index.ts";
import { PyException, PyJsonDecodeError } from "../../src/python/exception.ts";
import { jsonLoads, jsonTypeName } from "../../src/python/json-value.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

const SimpleAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
  /** null / absent / 0 = unlimited, as in NeMo Gym. */
  max_steps: z.number().int().nullish(),
  /** Skip /verify and score every rollout `skip_verification_reward` (adds `verification_skipped: true`). */
  skip_verification: z.boolean().default(false),
  skip_verification_reward: z.number().default(0),
});



/** `json.loads(arguments)`: Python's reader, and its TypeError for arguments that are not a str. */
function loadArguments(text: unknown): unknown {
  if (typeof text !== "string") throw new PyException("TypeError", `the JSON object must be str, bytes or bytearray, not ${jsonTypeName(text)}`);
  return jsonLoads(text);
}

export default responsesApiAgent({
  name: "SimpleAgent",
  config: SimpleAgentConfig,

  async responses({ rawParams, cookies, rolloutId, signal }, agent) {
    const { config, client } = agent;
    const input: unknown[] = [...withListInput(rawParams).input];
    const newOutputs: unknown[] = [];
    const modelPath = `${rolloutPathPrefix(rolloutId)}/v1/responses`;
    let usage: Usage | null = null;
    let modelCookies: Record<string, string> = {};
    let resourcesCookies = cookies;
    let lastResponse: NeMoGymResponse;
    // Tool calls carry `<this loop>:<step>.<index>:<call_id>` as their idempotency key: the same on a transport retry
    // of one call, never the same for two calls (a model may repeat a call_id; a caller may rerun a conversation).
    const loopId = randomUUID();

    for (let step = 1; ; step++) {
      signal.throwIfAborted();
      const modelAnswer = await callModel(agent, config.model_server.name, modelPath, { json: { ...rawParams, input: [...input, ...newOutputs] }, cookies: modelCookies, signal });
      modelCookies = modelAnswer.cookies;
      lastResponse = modelAnswer.response;
      const output = lastResponse.output as ResponseInputItem[];
      newOutputs.push(...output);
      usage = addUsage(usage, lastResponse.usage);

      if (lastResponse.incomplete_details) break;
      const calls = output.filter((item): item is FunctionCall => item.type === "function_call");
      const hasAssistantMessage = output.some((item) => item.type === "message" && "role" in item && item.role === "assistant");
      // A reasoning-only turn (no call, no message) continues the loop.
      if (calls.length === 0 && hasAssistantMessage) break;

      for (const [index, call] of calls.entries()) {
        let args: unknown;
        try {
          args = loadArguments(call.arguments);
        } catch (error) {
          // NeMo Gym catches (json.JSONDecodeError, TypeError) and feeds back `{e!r}`; anything else is a 500.
          if (!(error instanceof PyJsonDecodeError || (error instanceof PyException && error.type === "TypeError"))) throw error;
          newOutputs.push(functionCallOutput(call.call_id, pythonJsonDumps({ error: `Invalid tool call arguments: ${error.repr()}` })));
          continue;
        }
        // The environment's own errors (404 unknown tool, 422 bad arguments, its code's 500) are not raised: the
        // model reads them. An answer that is not the environment's ends the attempt (toolOutputText throws).
        const toolPath = `/${pathSegment(call.name)}`;
        const toolUrl = `${config.resources_server.name}${toolPath}`;
        const idempotencyKey = `${loopId}:${step}.${index}:${call.call_id}`;
        const toolAnswer = await innerCall(toolUrl, () =>
          client.post(config.resources_server.name, toolPath, { json: args, cookies: resourcesCookies, signal, idempotencyKey }),
        );
        const toolOutput = toolOutputText(toolAnswer, toolUrl);
        resourcesCookies = toolAnswer.cookies;
        newOutputs.push(functionCallOutput(call.call_id, toolOutput));
      }

      if (config.max_steps && step >= config.max_steps) break;
    }

    return {
      response: { ...lastResponse!, output: newOutputs as NeMoGymResponse["output"], usage },
      cookies: { ...resourcesCookies, ...modelCookies },
    };
  },

  async run(call, agent) {
    const { config } = agent;
    const resources = config.resources_server.name;
    const loop = await seededOwnResponses(agent, resources, call);
    if (config.skip_verification) {
      const responses_create_params = ResponseCreateParamsSchema.parse(call.row.responses_create_params);
      return { ...call.row, responses_create_params, response: loop.json(), reward: config.skip_verification_reward, verification_skipped: true };
    }
    return verifyRollout(agent, resources, { json: { ...call.row, response: loop.json() }, cookies: loop.cookies, signal: call.signal });
  },

  // As in NeMo Gym, the environment owns its metrics: proxy to the resources server (nothing when verify is skipped).
  async aggregateMetrics(body, { config, client }) {
    if (config.skip_verification) return { group_level_metrics: [], agent_metrics: {}, key_metrics: {} };
    const resources = config.resources_server.name;
    return raiseForStatus(await client.post(resources, "/aggregate_metrics", { json: body }), `${resources}/aggregate_metrics`).json();
  },
});
