// End to end, as Relax drives NeMo Gym: the thin client (a child process, and 100 sessions at once in this
// process) → gateway → our simple_agent + example_single_tool_call → every model call back through the gateway's
// bridge → a stand-in Relax per-session model API that refuses any call whose bearer token is not its session's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT, type ConfigDict } from "../../src/config/index.ts";
import { startInProcess, type InProcessGraph } from "../../src/testing/in-process.ts";
import { runThinClient } from "../../src/gateway/client/main.ts";
import { stableRequestId } from "../../src/gateway/protocol.ts";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { startRelaxSessions, type RelaxSessions } from "./fake-gym.ts";

const AGENT = "example_single_tool_call_simple_agent";

interface Stack {
  graph: InProcessGraph;
  gateway: TestGateway;
  relax: RelaxSessions;
  close(): Promise<void>;
}

async function startStack(): Promise<Stack> {
  const config: ConfigDict = {
    observability_enabled: true,
    // Replaced by the gateway's address below: the agent's model server is the gateway, as in the reference.
    policy_model: { responses_api_models: { scripted_model: { entrypoint: "app.ts" } } },
    example_single_tool_call: { resources_servers: { example_single_tool_call: { entrypoint: "app.ts", domain: "agent" } } },
    [AGENT]: {
      responses_api_agents: {
        simple_agent: {
          entrypoint: "app.ts",
          resources_server: { type: "resources_servers", name: "example_single_tool_call" },
          model_server: { type: "responses_api_models", name: "policy_model" },
        },
      },
    },
  };
  const graph = await startInProcess(config);
  const relax = await startRelaxSessions();
  const agentUrl = graph.url(AGENT);
  const gateway = await startTestGateway({
    NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({
      "example-single-tool-call-v1": {
        environment: "example_single_tool_call",
        agent_name: AGENT,
        agent_url: agentUrl,
        readiness_urls: [agentUrl, graph.url("example_single_tool_call")],
        // The resources server's own cleanup endpoints (POST drops the rollout's state, GET proves it).
        abort_url: `${graph.url("example_single_tool_call")}/cleanup/{rollout_id}`,
        force_cleanup_url: `${graph.url("example_single_tool_call")}/cleanup/{rollout_id}`,
        cleanup_probe_url: `${graph.url("example_single_tool_call")}/cleanup/{rollout_id}`,
        interrupt_policy: "protected",
        max_concurrency: 128,
        queue_capacity: 128,
        max_deadline_s: 600,
      },
    }),
    NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "127.0.0.1/32",
    NEMO_GYM_GATEWAY_STATE: ":memory:",
  });
  const model = (graph.config.policy_model as any).responses_api_models.scripted_model;
  const gatewayAddress = new URL(gateway.url);
  Object.assign(model, { host: gatewayAddress.hostname, port: Number(gatewayAddress.port) });
  graph.client.updateGlobalConfig(graph.config);
  return {
    graph,
    gateway,
    relax,
    close: async () => {
      await relax.close();
      await gateway.close();
      await gateway.client.close();
      await graph.close();
    },
  };
}

function sessionEnv(stack: Stack, dir: string, session: string): Record<string, string> {
  const input = join(dir, `${session}.input.json`);
  writeFileSync(
    input,
    JSON.stringify({
      messages: [{ role: "user", content: "What's the weather like in Paris today?" }],
      metadata: {
        environment: "example_single_tool_call",
        config: "example-single-tool-call-v1",
        tools: [{ type: "function", name: "get_weather", description: "Get the current weather for a city.", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: true }],
      },
    }),
  );
  return {
    RELAX_INPUT_JSON: input,
    RELAX_OUTPUT_JSON: join(dir, `${session}.output.json`),
    RELAX_SESSION_ID: session,
    RELAX_SESSION_IO_DIR: join(dir, session),
    RELAX_BASE_URL: `${stack.relax.url}/sessions/${session}`,
    RELAX_GROUP_ID: "0",
    RELAX_ROLLOUT_MODE: "train",
    NEMO_GYM_URL: stack.gateway.url,
    NEMO_GYM_POLL_INTERVAL_S: "0.1",
    NEMO_GYM_DEADLINE_S: "300",
  };
}

test("the thin client (child process) runs a trial through the gateway, simple_agent and the callback bridge", async () => {
  const stack = await startStack();
  const dir = mkdtempSync(join(tmpdir(), "relax-session-"));
  try {
    const session = "session-child-7f3a";
    const env = sessionEnv(stack, dir, session);
    const child = spawn(process.execPath, [join(PROJECT_ROOT, "bin/gym.js"), "trial-client"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    assert.equal(code, 0, output);
    assert.doesNotMatch(output, new RegExp(session), "the token is never printed");
    const written = JSON.parse(readFileSync(env.RELAX_OUTPUT_JSON, "utf8")) as { reward: number; metadata: { nemo_gym: { status: string; metrics: Record<string, number>; request_id: string } } };
    assert.equal(written.reward, 1);
    assert.equal(written.metadata.nemo_gym.status, "completed");
    assert.deepEqual(written.metadata.nemo_gym.metrics, { model_output_items: 3, tool_calls: 1, tool_outputs: 1, assistant_messages: 1 });
    assert.doesNotMatch(written.metadata.nemo_gym.request_id, new RegExp(session));
    assert.equal(stack.relax.calls.get(session), 2, "both model turns reached Relax with the session's own token");
    assert.equal(stack.relax.refused, 0);
  } finally {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("100 concurrent sessions: every model call carries its own session's token, every trial is scored", async () => {
  const stack = await startStack();
  const dir = mkdtempSync(join(tmpdir(), "relax-session-"));
  try {
    const sessions = Array.from({ length: 100 }, (_, i) => `session-${i}-${Math.random().toString(36).slice(2, 8)}`);
    const logs: string[] = [];
    const codes = await Promise.all(sessions.map((session) => runThinClient(sessionEnv(stack, dir, session), { handleSignals: false, log: (line) => logs.push(line) })));
    assert.deepEqual(codes, sessions.map(() => 0), logs.join("\n"));
    assert.equal(stack.relax.refused, 0, "no call arrived with another session's token");
    for (const session of sessions) {
      assert.equal(stack.relax.calls.get(session), 2, session);
      const written = JSON.parse(readFileSync(join(dir, `${session}.output.json`), "utf8")) as { reward: number };
      assert.equal(written.reward, 1);
    }
    assert.ok(!existsSync(join(dir, `.${sessions[0]}.output.json.tmp`)));
  } finally {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("SIGTERM to the thin client's process group aborts its trial; cleanup is proven by the resources server's probe", async () => {
  const stack = await startStack();
  const dir = mkdtempSync(join(tmpdir(), "relax-session-"));
  try {
    const session = "hang-session-51c2";
    const env = sessionEnv(stack, dir, session);
    const child = spawn(process.execPath, [join(PROJECT_ROOT, "bin/gym.js"), "trial-client"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    while (!stack.relax.calls.get(session)) await new Promise((resolve) => setTimeout(resolve, 20));
    process.kill(-child.pid!, "SIGTERM");
    assert.notEqual(await exited, 0);
    assert.match(output, /Managed session cancelled/);
    assert.equal(existsSync(env.RELAX_OUTPUT_JSON), false);
    // The client derives the id from the launch's IO directory, the session and the attempt.
    const snapshot = await stack.gateway.terminal(stableRequestId(session, 1, env.RELAX_SESSION_IO_DIR));
    assert.deepEqual([snapshot.status, snapshot.error], ["aborted", { code: "aborted" }]);
  } finally {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
