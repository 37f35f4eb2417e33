// NeMo Gym's non_executing_simple_agent: for tasks whose answer *is* a tool call. `/run` seeds the session, makes
// exactly one model call (through its own /v1/responses) and hands the model's response, tool calls unexecuted, to
// /verify in that session. Nothing parses or runs the calls; no tool output is appended. /aggregate_metrics is the
// resources server's. An answer that is not the servers' own (src/client/inner-answer.ts) — a transport error, a
// timeout, a 502/503/504, a body that is not their JSON, a seed without a session cookie, a verify without a
// numeric reward — ends the attempt as a typed failure, never a score.
import { z } from "zod";
import { ResponseSchema } from "../../src/protocol/index.ts";
import { innerCall, raiseForStatus, requireOwnSuccess, requireSessionCookie, requireVerifyResponse } from "../../src/client/index.ts";
import { responsesApiAgent, rolloutIdForRow, rolloutPathPrefix } from "../../src/server/index.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

const NonExecutingSimpleAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
});

export default responsesApiAgent({
  name: "NonExecutingSimpleAgent",
  config: NonExecutingSimpleAgentConfig,
  // NeMo Gym's run verifies whatever these say and its /aggregate_metrics proxies regardless: refused, not ignored.
  refusedConfigKeys: {
    skip_verification: "non_executing_simple_agent always verifies (NeMo Gym's run ignores skip_verification)",
    skip_verification_reward: "non_executing_simple_agent always verifies, so there is no reward for a skipped verification",
  },

  // One model call. The caller's cookies are not sent to the model; they come back with the model's, so /run's
  // verify stays in the seeded session.
  async responses({ rawParams, cookies, rolloutId, signal }, { config, client }) {
    const params = typeof rawParams.input === "string" ? { ...rawParams, input: [{ role: "user", content: rawParams.input, type: "message" }] } : rawParams;
    const modelPath = `${rolloutPathPrefix(rolloutId)}/v1/responses`;
    const modelUrl = `${config.model_server.name}${modelPath}`;
    const answer = requireOwnSuccess(await innerCall(modelUrl, () => client.post(config.model_server.name, modelPath, { json: params, signal })), modelUrl);
    const parsed = ResponseSchema.safeParse(answer.json());
    if (!parsed.success) throw new Error(`Received an invalid response from model server: ${answer.text.slice(0, 2000)}`);
    return { response: parsed.data, cookies: { ...cookies, ...answer.cookies } };
  },

  async run({ row, cookies, signal }, { config, client, instanceName, globalConfig }) {
    const resources = config.resources_server.name;
    const seedUrl = `${resources}/seed_session`;
    const seeded = requireOwnSuccess(await innerCall(seedUrl, () => client.post(resources, "/seed_session", { json: row, cookies, signal })), seedUrl);
    // Without the session cookie the verify would run in a fresh, unseeded session: that answer is not the server's.
    const sessionCookies = requireSessionCookie(seeded, seedUrl);

    const selfPath = `${rolloutPathPrefix(rolloutIdForRow(row, globalConfig))}/v1/responses`;
    const selfUrl = `${instanceName}${selfPath}`;
    const modelTurn = requireOwnSuccess(
      await innerCall(selfUrl, () => client.post(instanceName, selfPath, { json: row.responses_create_params, cookies: sessionCookies, signal })),
      selfUrl,
    );

    const verifyUrl = `${resources}/verify`;
    const verified = requireOwnSuccess(
      await innerCall(verifyUrl, () => client.post(resources, "/verify", { json: { ...row, response: modelTurn.json() }, cookies: modelTurn.cookies, signal })),
      verifyUrl,
    );
    return requireVerifyResponse(verified, verifyUrl);
  },

  // The environment owns its metrics, as in NeMo Gym: proxied to the resources server.
  async aggregateMetrics(body, { config, client }) {
    const resources = config.resources_server.name;
    return raiseForStatus(await client.post(resources, "/aggregate_metrics", { json: body }), `${resources}/aggregate_metrics`).json();
  },
});
