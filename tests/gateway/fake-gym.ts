// Real HTTP stand-ins for the gateway's two neighbours: a NeMo Gym agent (`/run`, with the cleanup endpoints of
// the workplace patch) and a Relax per-session model API that records which bearer token each call carried.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { CallbackTarget } from "../../src/gateway/types.ts";

export interface RunCall {
  rolloutId: string;
  body: Record<string, unknown>;
}

type RunReply = { status: number; json?: unknown; text?: string };

async function readBody(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface FakeAgent {
  url: string;
  runs: RunCall[];
  abortCalls: Map<string, number>;
  forceCalls: Map<string, number>;
  probeCalls: Map<string, number>;
  /** What the next `/run`s answer; by default they hang until `finish`/`fail`. */
  onRun: ((call: RunCall) => Promise<RunReply> | RunReply | "hang") | null;
  /** Probe answer (`text`: sent as is, not JSON): clean after an abort by default. */
  probe: (rolloutId: string) => { status: number; body?: unknown; text?: string };
  abortStatus: number;
  finish(rolloutId: string, json: unknown): void;
  fail(rolloutId: string, status?: number): void;
  waitForRuns(count: number): Promise<RunCall[]>;
  close(): Promise<void>;
}

export async function startFakeAgent(): Promise<FakeAgent> {
  const pending = new Map<string, (reply: RunReply) => void>();
  const runWaiters: (() => void)[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const agent: FakeAgent = {
    url: "",
    runs: [],
    abortCalls: new Map(),
    forceCalls: new Map(),
    probeCalls: new Map(),
    onRun: null,
    probe: (rolloutId) => ({ status: 200, body: { clean: (agent.abortCalls.get(rolloutId) ?? 0) > 0 } }),
    abortStatus: 200,
    finish: (rolloutId, json) => pending.get(rolloutId)?.({ status: 200, json }),
    fail: (rolloutId, status = 500) => pending.get(rolloutId)?.({ status, text: "agent exploded" }),
    async waitForRuns(count) {
      while (agent.runs.length < count) await new Promise<void>((resolve) => runWaiters.push(resolve));
      return agent.runs;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const server = createServer(async (request, response) => {
    const url = request.url ?? "/";
    const body = await readBody(request);
    const cleanup = /^\/(cleanup|force)\/([^/]+)$/.exec(url);
    if (request.method === "POST" && url === "/run") {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      const call = { rolloutId: `${parsed._ng_task_index}-${parsed._ng_rollout_index}`, body: parsed };
      agent.runs.push(call);
      runWaiters.splice(0).forEach((wake) => wake());
      const decided = agent.onRun ? await agent.onRun(call) : "hang";
      const reply = decided === "hang" ? await new Promise<RunReply>((resolve) => pending.set(call.rolloutId, resolve)) : decided;
      if (response.destroyed) return;
      if (reply.json !== undefined) send(response, reply.status, reply.json);
      else response.writeHead(reply.status).end(reply.text ?? "");
    } else if (cleanup && request.method === "POST") {
      bump(cleanup[1] === "cleanup" ? agent.abortCalls : agent.forceCalls, cleanup[2]!);
      send(response, cleanup[1] === "cleanup" ? agent.abortStatus : 200, { accepted: true });
    } else if (cleanup && request.method === "GET") {
      bump(agent.probeCalls, cleanup[2]!);
      const probe = agent.probe(cleanup[2]!);
      if (probe.text !== undefined) response.writeHead(probe.status, { "content-type": "text/plain" }).end(probe.text);
      else send(response, probe.status, probe.body);
    } else {
      send(response, 200, { ok: true });
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  agent.url = await listen(server);
  return agent;
}

export interface FakeRelax {
  url: string;
  /** Bearer token and model of every call, in arrival order. */
  calls: { path: string; authorization: string | undefined; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/** Answers every Responses call with a final assistant message; tokens are whatever the caller sent. */
export async function startFakeRelax(answer: (body: Record<string, unknown>) => unknown = defaultResponse): Promise<FakeRelax> {
  const relax: FakeRelax = { url: "", calls: [], close: async () => void (await new Promise((resolve) => server.close(resolve))) };
  const server = createServer(async (request, response) => {
    const body = JSON.parse((await readBody(request)) || "{}") as Record<string, unknown>;
    relax.calls.push({ path: request.url ?? "", authorization: request.headers.authorization, body });
    send(response, 200, answer(body));
  });
  relax.url = await listen(server);
  return relax;
}

export function defaultResponse(body: Record<string, unknown>) {
  return {
    id: "resp_relax",
    object: "response",
    created_at: 1,
    model: body.model,
    status: "completed",
    output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done", annotations: [] }] }],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
  };
}

/** A registration (the JSON value keyed by config name) for the fake agent. */
export function registration(agentUrl: string, overrides: Record<string, unknown> = {}) {
  return {
    environment: "workplace_assistant",
    agent_url: agentUrl,
    abort_url: `${agentUrl}/cleanup/{rollout_id}`,
    force_cleanup_url: `${agentUrl}/force/{rollout_id}`,
    cleanup_probe_url: `${agentUrl}/cleanup/{rollout_id}`,
    interrupt_policy: "protected",
    max_concurrency: 2,
    queue_capacity: 4,
    max_deadline_s: 120,
    ...overrides,
  };
}

let counter = 0;

/** A create body as the thin client sends it. */
export function trialPayload(overrides: { request_id?: string; base_url?: string; api_key?: string; config?: string; deadline_s?: number; lease_s?: number; task?: unknown } = {}) {
  counter++;
  return {
    protocol_version: "relax-nemo-gym/v1",
    request_id: overrides.request_id ?? `relax-test-${process.pid}-${Date.now()}-${counter}`,
    session: { session_id: overrides.api_key ?? `session-${counter}`, group_id: "3", rollout_mode: "train", attempt: 1 },
    environment: {
      name: "workplace_assistant",
      config: overrides.config ?? "workplace-assistant-v1",
      task: overrides.task ?? { messages: [{ role: "user", content: "Reply to the latest email." }], metadata: { ground_truth: [] } },
    },
    model_endpoint: { base_url: overrides.base_url ?? "http://127.0.0.1:9/agentic_api", api_key: overrides.api_key ?? `session-${counter}`, model: "policy-model" },
    generation: { responses_create_params: {}, sampling_params: {} },
    interrupt_policy: "protected",
    deadline_s: overrides.deadline_s ?? 60,
    lease_s: overrides.lease_s ?? 60,
    metadata: { integration: "relax" },
  };
}

/** A forwarding target as the trial service builds it, with the reference suite's defaults. */
export function callbackTarget(baseUrl: string, overrides: Partial<CallbackTarget> = {}): CallbackTarget {
  return {
    base_url: baseUrl,
    api_key: "secret-one",
    model: "policy-model",
    api_key_header: "Authorization",
    api_key_prefix: "Bearer ",
    headers: {},
    generation: {},
    remaining_s: 60,
    ...overrides,
  };
}

// A Relax per-session model API is in the public test kit: environments' tests use it too.
export { startRelaxSessions, type RelaxSessions } from "../../src/testing/fake-relax.ts";
