import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { WebSocket } from "undici";
import { assertRowsAreRunRequests, injectServer, readRows, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import { startOpenEnvServer, type OpenEnvEnvironmentSpec, type RunningOpenEnvServer } from "../../../src/ports/openenv/env-server.ts";
import { OpenEnvSession, OpenEnvTransportError, wsUrlOf } from "../../../src/ports/openenv/client.ts";
import app, { openenvServer, resolveEnvironment } from "../app.ts";
import { mazeEnvironment } from "../envs/maze.ts";
import { echoEnvironment, ECHO_TOOLS } from "../envs/echo.ts";
import { codingReward } from "../envs/coding.ts";

const DATA = join(import.meta.dirname, "../data");
const ECHO = { env_class: "echo_env.server.echo_environment.EchoEnvironment", action_class: "openenv.core.env_server.mcp_types.CallToolAction", is_mcp: true };
const CODING = { env_class: "coding_env.server.python_codeact_env.PythonCodeActEnv", action_class: "coding_env.models.CodeAction", is_mcp: false };
const MAZE = { env_class: "maze_env.server.maze_env_environment.MazeEnvironment", action_class: "maze_env.models.MazeAction", is_mcp: false };
const emptyResponse = { id: "r", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] };
const verifyBody = { responses_create_params: { input: "x" }, response: emptyResponse };
/** The shortest way out of the default maze (right ×4, down ×2, …), 14 moves. */
const MAZE_PATH = [3, 3, 3, 3, 1, 1, 3, 3, 1, 3, 1, 1, 1, 1];

type Cookies = Record<string, string>;
async function play(env: InjectedServer, calls: { name: string; args: unknown }[]) {
  let cookies: Cookies = (await env.post("/seed_session", {})).cookies;
  const answers = [];
  for (const { name, args } of calls) {
    const answer = await env.post(`/${name}`, args, { cookies });
    cookies = { ...cookies, ...answer.cookies };
    answers.push(answer);
  }
  return { cookies, answers };
}
const rewardOf = async (env: InjectedServer, cookies: Cookies) => {
  const answer = await env.post("/verify", verifyBody, { cookies });
  return { status: answer.status, reward: answer.status === 200 ? answer.json<{ reward: number }>().reward : undefined, text: answer.text };
};

describe("echo (MCP), served here over OpenEnv's WebSocket protocol", () => {
  let env: InjectedServer;
  before(async () => (env = await injectServer(app, ECHO, { instanceName: "openenv_echo_resources_server" })));
  after(() => env.close());

  const reference = sharedDataFile("openenv/data/example_rollouts.jsonl");
  test("NeMo Gym's reference rollouts: every tool output byte for byte, and every reward", { skip: reference.skip }, async () => {
    const rollouts = readRows(reference.path!);
    assert.equal(rollouts.length, 5);
    for (const rollout of rollouts) {
      const output = rollout.response.output as { type: string; name?: string; arguments?: string; call_id?: string; output?: string }[];
      const calls = output.filter((item) => item.type === "function_call");
      const { cookies, answers } = await play(env, calls.map((call) => ({ name: call.name!, args: JSON.parse(call.arguments!) })));
      calls.forEach((call, i) => {
        const stored = output.find((item) => item.type === "function_call_output" && item.call_id === call.call_id)!;
        assert.equal(answers[i]!.text, stored.output, `${call.name}(${call.arguments})`);
      });
      assert.equal((await rewardOf(env, cookies)).reward, rollout.reward);
    }
  });

  test("the MCP tools are discovered at startup and each is a route; a missing argument is a 422 naming it", async () => {
    const { answers } = await play(env, [
      { name: "echo_with_length", args: { message: "héllo" } },
      { name: "echo_message", args: {} },
      { name: "step", args: { message: "x" } },
    ]);
    assert.deepEqual(answers[0]!.json<any>().result.structured_content, { message: "héllo", length: 5 });
    assert.equal(answers[1]!.status, 422);
    assert.deepEqual(answers[1]!.json<any>().detail[0].loc, ["body", "message"]);
    assert.equal(answers[2]!.status, 404);
  });

  test("GET /tools serves the tools the environment listed", async () => {
    const served = (await env.get("/tools")).json<{ name: string; parameters: { required: string[] } }[]>();
    assert.deepEqual(served.map((t) => [t.name, t.parameters.required]), [["echo_message", ["message"]], ["echo_with_length", ["message"]]]);
  });

  test("a tool called without a seeded session answers NeMo Gym's in-band error", async () => {
    const answer = await env.post("/echo_message", { message: "hi" });
    assert.equal(answer.text, '{"error":"No active session. Call /seed_session first.","result":null}');
  });

  test("the echo rows offer exactly the environment's tools", () => {
    const rows = readRows(join(DATA, "echo/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.deepEqual(row.responses_create_params.tools.map((t: { name: string }) => t.name), ECHO_TOOLS.map((t) => t.name));
  });
});

const sharedRows = sharedDataFile("openenv/data");
test("NeMo Gym's own echo, coding and maze rows offer tools this port serves, with the same parameters", { skip: sharedRows.skip }, async () => {
  for (const [folder, fields] of [["echo", ECHO], ["coding", CODING], ["maze", MAZE]] as const) {
    const served = await injectServer(folder === "coding" ? openenvServer({ probeAtStartup: false }) : app, fields, { instanceName: `shared_${folder}` });
    try {
      const tools = (await served.get("/tools")).json<{ name: string; parameters: { properties: Record<string, { type: string }>; required: string[] } }[]>();
      const shape = (t: { name: string; parameters: { properties: Record<string, { type: string }>; required: string[] } }) =>
        [t.name, Object.entries(t.parameters.properties).map(([k, v]) => `${k}:${v.type}`), t.parameters.required];
      for (const row of readRows(join(sharedRows.path!, folder, "example.jsonl"))) {
        assert.deepEqual(row.responses_create_params.tools.map(shape), tools.map(shape), folder);
      }
    } finally {
      await served.close();
    }
  }
});

describe("maze, served here over OpenEnv's WebSocket protocol", () => {
  let env: InjectedServer;
  before(async () => (env = await injectServer(app, MAZE, { instanceName: "openenv_maze_resources_server" })));
  after(() => env.close());

  test("the shortest way out sums OpenEnv's per-step rewards (13 × -0.05, then +10.0), and the episode then ends", async () => {
    const { cookies, answers } = await play(env, [...MAZE_PATH, 0].map((action) => ({ name: "step", args: { action } })));
    const last = answers[MAZE_PATH.length - 1]!.json<any>();
    assert.deepEqual([last.done, last.reward, last.metadata.status, last.current_position, last.legal_actions], [true, 10, "win", [7, 7], []]);
    assert.match(answers[MAZE_PATH.length - 1]!.text, /^\{"done":true,"reward":10\.0,"metadata":\{"maze":/);
    assert.equal(answers[MAZE_PATH.length]!.text, '{"error":"Episode has ended.","result":null}');
    let expected = 0.0;
    for (let i = 0; i < 13; i++) expected += -0.05;
    expected += 10.0;
    assert.equal((await rewardOf(env, cookies)).reward, expected);
  });

  test("walls cost -0.75 and a revisited cell -0.25; the start cell counts as unvisited", async () => {
    const { cookies, answers } = await play(env, [0, 3, 2, 3].map((action) => ({ name: "step", args: { action } })));
    assert.deepEqual(answers.map((a) => a.json<{ reward: number }>().reward), [-0.75, -0.05, -0.05, -0.25]);
    assert.equal((await rewardOf(env, cookies)).reward, -0.75 + -0.05 + -0.05 + -0.25);
  });

  test("an action the Action model refuses is a 422 naming the field; an action outside 0-3 is the environment's in-band error", async () => {
    const { cookies, answers } = await play(env, [
      { name: "step", args: { action: "up" } },
      { name: "step", args: { direction: 1 } },
      { name: "step", args: { action: 7 } },
    ]);
    assert.equal(answers[0]!.status, 422);
    assert.deepEqual(answers[0]!.json<any>().detail[0].loc, ["body", "action"]);
    assert.equal(answers[1]!.status, 422);
    assert.equal(answers[2]!.text, '{"error":"7 is not a valid Action","result":null}');
    assert.equal((await rewardOf(env, cookies)).reward, 0);
  });

  test("after verify the session is gone, as NeMo Gym deletes it", async () => {
    const { cookies } = await play(env, [{ name: "step", args: { action: 3 } }]);
    assert.equal((await rewardOf(env, cookies)).reward, -0.05);
    assert.equal((await env.post("/step", { action: 3 }, { cookies })).json<{ error: string }>().error, "No active session. Call /seed_session first.");
  });

  test("reset_kwargs reach the environment's reset (start_cell)", async () => {
    const started = await injectServer(app, { ...MAZE, reset_kwargs: { start_cell: [6, 7] } }, { instanceName: "maze_kwargs" });
    try {
      const { cookies, answers } = await play(started, [{ name: "step", args: { action: 3 } }]);
      assert.equal(answers[0]!.json<{ reward: number }>().reward, 10);
      assert.equal((await rewardOf(started, cookies)).reward, 10);
    } finally {
      await started.close();
    }
  });

  test("the example rows (configs/openenv.yaml and data/maze) are valid run requests with the step tool", () => {
    for (const file of ["example.jsonl", "maze/example.jsonl", "coding/example.jsonl"]) {
      const rows = readRows(join(DATA, file));
      assert.equal(rows.length, 5, file);
      assertRowsAreRunRequests(rows);
      for (const row of rows) assert.deepEqual(row.responses_create_params.tools.map((t: { name: string }) => t.name), ["step"]);
    }
  });
});

describe("coding, its code run in the bubblewrap sandbox", () => {
  test("the reward is the safe-coding transform's, from the code's text", () => {
    assert.equal(codingReward("print(1)", true).reward, 0.1);
    assert.deepEqual(codingReward("import os\nprint(os.getcwd())", true), { reward: -1.0 + 0.1, safetyViolation: "import\\s+os" });
    assert.equal(codingReward("def f(:", false).reward, 0.0 + (0.0 + 0.1 + -0.2));
    assert.equal(codingReward(`${"x = 1\n".repeat(20)}   \n`, true).reward, 0.0);
  });

  test("a session keeps its variables between steps; stdout, errors and rewards as OpenEnv's coding_env", async () => {
    // No startup probe: the steps below are real sandbox runs already.
    const env = await injectServer(openenvServer({ probeAtStartup: false }), CODING, { instanceName: "openenv_coding_resources_server" });
    try {
      const { cookies, answers } = await play(env, [
        { name: "step", args: { code: "x = 21\nprint('hi')" } },
        { name: "step", args: { code: "x * 2" } },
        { name: "step", args: { code: "def f(:\n  pass" } },
      ]);
      const [first, second, third] = answers.map((a) => a.json<any>());
      assert.deepEqual([first.stdout, first.exit_code, first.reward], ["hi\n", 0, 0.1]);
      assert.deepEqual([second.stdout, second.exit_code], ["42", 0]);
      assert.equal(third.exit_code, 1);
      assert.match(third.stderr, /SyntaxError/);
      assert.doesNotMatch(third.stderr, /main\.py/);
      assert.equal(third.reward, 0.0 + (0.0 + 0.1 + -0.2));
      assert.equal((await rewardOf(env, cookies)).reward, 0.0 + 0.1 + 0.1 + (0.0 + 0.1 + -0.2));
    } finally {
      await env.close();
    }
  });

  test("a sandbox that cannot run is a 503 for the step and for verify, never a reward", async () => {
    const broken = () => ({ ensureAvailable: async () => undefined, close: async () => undefined, run: async () => ({ exitCode: 1, signal: null, stdout: "", stderr: "bwrap: no", timedOut: false, outputTruncated: false, cpuMs: null, wallMs: 1, maxRssKb: null }) });
    const env = await injectServer(openenvServer({ sandbox: broken as never, probeAtStartup: false }), CODING, { instanceName: "coding_broken" });
    try {
      const { cookies, answers } = await play(env, [{ name: "step", args: { code: "print(1)" } }]);
      assert.equal(answers[0]!.status, 503);
      assert.equal((await rewardOf(env, cookies)).status, 503);
    } finally {
      await env.close();
    }
  });
});

describe("a remote OpenEnv server (openenv_base_url): bounded, typed failures", () => {
  test("the connection closing mid-rollout makes the step a 502 and verify a 502, not the total so far", async () => {
    const remote = await startOpenEnvServer(mazeEnvironment);
    const env = await injectServer(app, { ...MAZE, openenv_base_url: remote.url }, { instanceName: "maze_remote" });
    try {
      const { cookies } = await play(env, [{ name: "step", args: { action: 3 } }]);
      await remote.close();
      const step = await env.post("/step", { action: 3 }, { cookies });
      assert.equal(step.status, 502);
      const verified = await rewardOf(env, cookies);
      assert.equal(verified.status, 502);
      assert.match(verified.text, /OpenEnv environment at ws:\/\/127\.0\.0\.1:\d+\/ws/);
    } finally {
      await env.close();
      await remote.close();
    }
  });

  test("nothing listening: seeding fails with a 502 after the bounded retries", async () => {
    const port = await freePort();
    const env = await injectServer(app, { ...MAZE, openenv_base_url: `http://127.0.0.1:${port}`, openenv_connect_retries: 1 }, { instanceName: "maze_nowhere" });
    try {
      const seeded = await env.post("/seed_session", {});
      assert.equal(seeded.status, 502);
      assert.match(seeded.text, /could not connect|closed during the handshake/);
    } finally {
      await env.close();
    }
  });

  test("a server that accepts the socket but never answers the handshake: a 504 at the connect timeout", async () => {
    const sockets = new Set<import("node:net").Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    const started = Date.now();
    try {
      await assert.rejects(OpenEnvSession.openSession(`http://127.0.0.1:${port}`, {}, { connectTimeoutMs: 200, connectRetries: 1, retryBackoffMs: 10 }), (error: unknown) => error instanceof OpenEnvTransportError && error.statusCode === 504);
      assert.ok(Date.now() - started < 3000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await closeNet(silent);
    }
  });

  test("a step that is never answered: a 504 at the message deadline, and the rollout is not scored", async () => {
    const stuck: OpenEnvEnvironmentSpec = { ...mazeEnvironment, create: () => ({ reset: () => ({ fields: {}, reward: 0, done: false, metadata: {} }), step: () => new Promise(() => undefined), state: () => ({}) }) };
    const remote = await startOpenEnvServer(stuck);
    const env = await injectServer(app, { ...MAZE, openenv_base_url: remote.url, openenv_message_timeout_s: 0.2 }, { instanceName: "maze_stuck" });
    try {
      const { cookies, answers } = await play(env, [{ name: "step", args: { action: 3 } }]);
      assert.equal(answers[0]!.status, 504);
      assert.equal((await rewardOf(env, cookies)).status, 504);
    } finally {
      await env.close();
      await remote.close();
    }
  });

  test("configs that name no environment served here, or the wrong Action class, are refused at startup", () => {
    assert.throws(() => resolveEnvironment({ ...MAZE, env_class: "chess_env.server.ChessEnvironment", openenv_base_url: null }), /set openenv_base_url/);
    assert.throws(() => resolveEnvironment({ ...MAZE, action_class: "coding_env.models.CodeAction", openenv_base_url: null }), /takes action_class 'maze_env.models.MazeAction'/);
    assert.throws(() => resolveEnvironment({ ...ECHO, is_mcp: false, openenv_base_url: null }), /set is_mcp: true/);
    assert.doesNotThrow(() => resolveEnvironment({ ...MAZE, env_class: "chess_env.server.ChessEnvironment", openenv_base_url: "http://127.0.0.1:1" }));
  });
});

describe("the OpenEnv-protocol server itself (HTTP and raw WebSocket)", () => {
  let remote: RunningOpenEnvServer;
  before(async () => (remote = await startOpenEnvServer(echoEnvironment)));
  after(() => remote.close());

  test("HTTP /health, /schema, and a stateless /reset and /step in OpenEnv's shapes", async () => {
    assert.deepEqual(await (await fetch(`${remote.url}/health`)).json(), { status: "healthy" });
    assert.equal(((await (await fetch(`${remote.url}/schema`)).json()) as any).action.title, "CallToolAction");
    const reset = await (await fetch(`${remote.url}/reset`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })).json();
    assert.deepEqual(reset, { observation: {}, reward: 0, done: false, metadata: { status: "ready", message: "Echo environment ready!" } });
    const step = await fetch(`${remote.url}/step`, { method: "POST", body: JSON.stringify({ action: { type: "call_tool", tool_name: "echo_message", arguments: { message: "a" } } }), headers: { "content-type": "application/json" } });
    assert.equal(((await step.json()) as any).observation.result.data, "a");
    assert.equal((await fetch(`${remote.url}/step`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })).status, 422);
  });

  test("WS /ws: reset, step, state in order; an unknown type or bad JSON is an error message, and the session survives it", async () => {
    const ws = new WebSocket(wsUrlOf(remote.url));
    const answers: any[] = [];
    const next = () => new Promise<any>((resolve) => ws.addEventListener("message", (event) => resolve(JSON.parse(String(event.data))), { once: true }));
    await new Promise((resolve) => ws.addEventListener("open", resolve, { once: true }));
    for (const message of [JSON.stringify({ type: "reset", data: { episode_id: "e1" } }), "{not json", JSON.stringify({ type: "bogus" }), JSON.stringify({ type: "step", data: { type: "list_tools" } }), JSON.stringify({ type: "state" })]) {
      const answer = next();
      ws.send(message);
      answers.push(await answer);
    }
    ws.close();
    assert.deepEqual(answers.map((a) => a.type), ["observation", "error", "error", "observation", "state"]);
    assert.equal(answers[1].data.code, "INVALID_JSON");
    assert.equal(answers[2].data.code, "UNKNOWN_TYPE");
    assert.deepEqual(answers[3].data.observation.tools.map((t: { name: string }) => t.name), ["echo_message", "echo_with_length"]);
    assert.deepEqual(answers[4].data, { episode_id: "e1", step_count: 1 });
  });

  test("a large message crosses in fragments-free 64-bit-length frames both ways", async () => {
    const session = await OpenEnvSession.connect(remote.url);
    try {
      await session.reset({});
      const message = "x".repeat(200_000);
      const result = await session.step({ type: "call_tool", tool_name: "echo_message", arguments: { message } });
      assert.equal((result.observation.result as { data: string }).data, message);
    } finally {
      session.close();
    }
  });

  test("a binary message closes the session with 1003, one over maxMessageBytes with 1009", async () => {
    const small = await startOpenEnvServer(echoEnvironment, { maxMessageBytes: 1000 });
    try {
      const closeCode = async (payload: string | Uint8Array) => {
        const ws = new WebSocket(wsUrlOf(small.url));
        await new Promise((resolve) => ws.addEventListener("open", resolve, { once: true }));
        const closed = new Promise<number>((resolve) => ws.addEventListener("close", (event) => resolve(event.code), { once: true }));
        ws.send(payload);
        return closed;
      };
      assert.equal(await closeCode(new Uint8Array([1, 2, 3])), 1003);
      assert.equal(await closeCode("x".repeat(2000)), 1009);
    } finally {
      await small.close();
    }
  });

  test("a session past maxSessions is answered CAPACITY_REACHED and closed normally", async () => {
    const one = await startOpenEnvServer(echoEnvironment, { maxSessions: 1 });
    const first = await OpenEnvSession.connect(one.url);
    try {
      const ws = new WebSocket(wsUrlOf(one.url));
      const message = new Promise<any>((resolve) => ws.addEventListener("message", (event) => resolve(JSON.parse(String(event.data))), { once: true }));
      const closed = new Promise<number>((resolve) => ws.addEventListener("close", (event) => resolve(event.code), { once: true }));
      assert.equal((await message).data.code, "CAPACITY_REACHED");
      assert.equal(await closed, 1000);
      assert.equal(one.activeSessions(), 1);
    } finally {
      first.close();
      await one.close();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe: Server = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const closeNet = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
