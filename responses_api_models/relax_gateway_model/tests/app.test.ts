// The gateway hosted in a Gym config (`gym env start`, one process per server): the agent's model server is the
// gateway, a trainer creates a trial on its port, and the model calls come back through its bridge to Relax.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpClient } from "../../../src/client/http-client.ts";
import type { TrialSnapshot } from "../../../src/gateway/types.ts";
import { startGym, startRelaxSessions } from "../../../src/testing/index.ts";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("gym env start hosts the gateway as policy_model: a trial runs simple_agent with its model calls bridged to Relax", async () => {
  const [gatewayPort, agentPort, resourcesPort] = [await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), "relax-gateway-model-"));
  const relax = await startRelaxSessions();
  const config = join(dir, "ports.yaml");
  const resources = `http://127.0.0.1:${resourcesPort}`;
  writeFileSync(
    config,
    JSON.stringify({
      policy_model: {
        responses_api_models: {
          relax_gateway_model: {
            port: gatewayPort,
            state: ":memory:",
            environments: {
              "example-single-tool-call-v1": {
                environment: "example_single_tool_call",
                agent_name: "example_single_tool_call_simple_agent",
                agent_url: `http://127.0.0.1:${agentPort}`,
                abort_url: `${resources}/cleanup/{rollout_id}`,
                force_cleanup_url: `${resources}/cleanup/{rollout_id}`,
                cleanup_probe_url: `${resources}/cleanup/{rollout_id}`,
                interrupt_policy: "protected",
                max_concurrency: 4,
                queue_capacity: 4,
                max_deadline_s: 300,
              },
            },
          },
        },
      },
      example_single_tool_call_simple_agent: { responses_api_agents: { simple_agent: { port: agentPort } } },
      example_single_tool_call: { resources_servers: { example_single_tool_call: { port: resourcesPort } } },
    }),
  );
  const gym = startGym(
    ["env", "start", "-c", "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml", "-c", "responses_api_models/relax_gateway_model/configs/relax_gateway_model.yaml", "-c", config, "++head_server.port=0"],
    { env: { NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "127.0.0.1/32" } },
  );
  const client = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 30_000, maxRetries: 0 });
  try {
    await gym.waitFor(/Head server: http/);
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    assert.equal((await client.request(`${gateway}/readyz`)).json<{ ready: boolean }>().ready, true);
    const session = "session-plugin-1";
    const requestId = "relax-plugin-test-1";
    const created = await client.request(`${gateway}/v1/trials`, {
      method: "POST",
      json: {
        protocol_version: "relax-nemo-gym/v1",
        request_id: requestId,
        session: { session_id: session, group_id: "0", rollout_mode: "train", attempt: 1 },
        environment: {
          name: "example_single_tool_call",
          config: "example-single-tool-call-v1",
          task: { messages: [{ role: "user", content: "Weather in Paris?" }], metadata: { tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }] } },
        },
        model_endpoint: { base_url: `${relax.url}/sessions/${session}`, api_key: session, model: "policy" },
        interrupt_policy: "protected",
        deadline_s: 120,
        lease_s: 60,
      },
    });
    assert.equal(created.status, 202, created.text);
    let snapshot = created.json<TrialSnapshot>();
    while (snapshot.status === "queued" || snapshot.status === "running") snapshot = (await client.request(`${gateway}/v1/trials/${requestId}?wait=10`)).json();
    assert.deepEqual([snapshot.status, snapshot.reward, snapshot.error], ["completed", 1, null], gym.output());
    assert.equal(relax.refused, 0);
    assert.equal(relax.calls.get(session), 2);
  } finally {
    await gym.stop();
    await client.close();
    await relax.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
