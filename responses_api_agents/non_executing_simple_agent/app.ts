// NeMo Gym's non_executing_simple_agent: for tasks whose answer *is* a tool call. `/run` seeds the session, makes
// exactly one model call (through its own /v1/responses) and hands the model's response, tool calls unexecuted, to
// /verify in that session. Nothing parses or runs the calls; no tool output is appended. /aggregate_metrics is the
// resources server's. An answer that is not the servers' own (src/client/inner-answer.ts) — a transport error, a
// timeout, a 502/503/504, a body that is not their JSON, a seed without a session cookie, a verify without a
// numeric reward — ends the attempt as a typed failure, never a score.
import { z } from "zod";
import { raiseForStatus } from "../../src/client/index.ts";
import { alwaysVerifiesKeys, callModel, responsesApiAgent, rolloutPathPrefix, seededOwnResponses, verifyRollout, withListInput } from "../../src/server/index.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

const NonExecutingSimpleAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
});

export default responsesApiAgent({
  name: "NonExecutingSimpleAgent",
  config: NonExecutingSimpleAgentConfig,
  // NeMo Gym's run verifies whatever these say and its /aggregate_metrics proxies regardless: refused, not ignored.
  refusedConfigKeys: alwaysVerifiesKeys("non_executing_simple_agent"),

  // One model call. The caller's cookies are not sent to the model; they come back with the model's, so /run's
  // verify stays in the seeded session.
  async responses({ rawParams, cookies, rolloutId, signal }, agent) {
    const answer = await callModel(agent, agent.config.model_server.name, `${rolloutPathPrefix(rolloutId)}/v1/responses`, { json: withListInput(rawParams), signal });
    return { response: answer.response, cookies: { ...cookies, ...answer.cookies } };
  },

  async run(call, agent) {
    const resources = agent.config.resources_server.name;
    const modelTurn = await seededOwnResponses(agent, resources, call);
    return verifyRollout(agent, resources, { json: { ...call.row, response: modelTurn.json() }, cookies: modelTurn.cookies, signal: call.signal });
  },

  // The environment owns its metrics, as in NeMo Gym: proxied to the resources server.
  async aggregateMetrics(body, { config, client }) {
    const resources = config.resources_server.name;
    return raiseForStatus(await client.post(resources, "/aggregate_metrics", { json: body }), `${resources}/aggregate_metrics`).json();
  },
});
