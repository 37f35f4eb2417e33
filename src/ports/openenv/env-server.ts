// An OpenEnv-protocol server (see protocol.ts) for an environment written here: what OpenEnv's create_app does
// for a Python Environment class. HTTP /reset and /step make a fresh environment per request, as OpenEnv's do;
// WS /ws holds one environment per connection, and its messages run one at a time in arrival order. The WebSocket
// framing is the `ws` package's (text messages only: a binary one closes the session with 1003; no permessage-deflate).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ActionValidationError, isRecord, type OpenEnvState, type OpenEnvStepResult, type WsErrorData } from "./protocol.ts";
import { WebSocketServer, type WebSocket } from "ws";
import { HttpError } from "../../protocol/errors.ts";
import { toPythonJson } from "../../python/json-dumps.ts";

/** Python's JSON of an observation: a reward is a float (`0.0`, `10.0`), as pydantic writes `float | None`. */
const REWARD = new Set(["reward"]);
const wireJson = (value: unknown) => toPythonJson(value, REWARD);

/** An Observation: its own fields, plus the three every OpenEnv Observation has. */
export interface Observation {
  fields: Record<string, unknown>;
  reward: number | null;
  done: boolean;
  metadata: Record<string, unknown>;
}

/** One environment instance (OpenEnv's Environment): reset, step, state; close when its session ends. */
export interface OpenEnvEnvironment {
  reset(kwargs: Record<string, unknown>): Observation | Promise<Observation>;
  /** Throws ActionValidationError for an action its Action model refuses; any other throw is an execution error. */
  step(action: Record<string, unknown>): Observation | Promise<Observation>;
  state(): OpenEnvState;
  close?(): void | Promise<void>;
}

export interface OpenEnvEnvironmentSpec {
  /** env_name in OpenEnv's create_app (GET /metadata). */
  name: string;
  description: string;
  create(): OpenEnvEnvironment;
  /** JSON Schemas for GET /schema. */
  schemas: { action: Record<string, unknown>; observation: Record<string, unknown>; state: Record<string, unknown> };
}

export interface OpenEnvServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Concurrent WS sessions (OpenEnv's max_concurrent_envs); one more is answered CAPACITY_REACHED and closed. */
  maxSessions?: number;
  maxMessageBytes?: number;
}

export interface RunningOpenEnvServer {
  /** http://host:port */
  url: string;
  port: number;
  activeSessions(): number;
  close(): Promise<void>;
}

/** The wire form of an observation (serialize_observation), with the metadata extension (see OpenEnvStepResult). */
export function serializeObservation(observation: Observation): OpenEnvStepResult {
  return { observation: observation.fields, reward: observation.reward, done: observation.done, metadata: observation.metadata };
}

function errorData(error: unknown): WsErrorData {
  if (error instanceof ActionValidationError) return { message: "Invalid message", code: "VALIDATION_ERROR", errors: error.issues };
  // Not OpenEnv's: the environment could not run the action at all (its sandbox is unavailable). An adapter
  // reads this as the infrastructure's failure, never as the action's outcome.
  if (error instanceof HttpError && error.statusCode >= 500) return { message: error.message, code: "EXECUTION_ERROR", environment_unavailable: true, status: error.statusCode };
  return { message: error instanceof Error ? error.message : String(error), code: "EXECUTION_ERROR" };
}

async function readJson(request: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text.trim() === "" ? undefined : JSON.parse(text);
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = wireJson(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

export async function startOpenEnvServer(spec: OpenEnvEnvironmentSpec, options: OpenEnvServerOptions = {}): Promise<RunningOpenEnvServer> {
  const maxSessions = options.maxSessions ?? 64;
  const maxMessageBytes = options.maxMessageBytes ?? 16 * 1024 * 1024;
  const sessions = new Set<WebSocket>();
  const closers = new Set<() => Promise<void>>();

  // A fresh environment for one HTTP call, closed after it (OpenEnv's stateless HTTP routes).
  const once = async <T>(run: (env: OpenEnvEnvironment) => Promise<T> | T): Promise<T> => {
    const env = spec.create();
    try {
      return await run(env);
    } finally {
      await env.close?.();
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? "/").split("?")[0];
    try {
      if (request.method === "GET" && path === "/health") return send(response, 200, { status: "healthy" });
      if (request.method === "GET" && path === "/metadata") return send(response, 200, { name: spec.name, description: spec.description, readme_content: null, version: null, author: null, documentation_url: null });
      if (request.method === "GET" && path === "/schema") return send(response, 200, spec.schemas);
      if (request.method === "GET" && path === "/state") return send(response, 200, await once((env) => env.state()));
      if (request.method === "POST" && path === "/reset") {
        const body = (await readJson(request, maxMessageBytes)) ?? {};
        if (!isRecord(body)) return send(response, 422, { detail: [{ type: "dict_type", loc: ["body"], msg: "Input should be a valid dictionary", input: body }] });
        return send(response, 200, serializeObservation(await once((env) => env.reset(body))));
      }
      if (request.method === "POST" && path === "/step") {
        const body = await readJson(request, maxMessageBytes);
        if (!isRecord(body) || !isRecord(body.action)) return send(response, 422, { detail: [{ type: "missing", loc: ["body", "action"], msg: "Field required", input: body ?? null }] });
        const action = body.action;
        try {
          return send(response, 200, serializeObservation(await once((env) => env.step(action))));
        } catch (error) {
          if (error instanceof ActionValidationError) return send(response, 422, { detail: error.issues });
          throw error;
        }
      }
      return send(response, 404, { detail: "Not Found" });
    } catch (error) {
      if (error instanceof SyntaxError) return send(response, 422, { detail: [{ type: "json_invalid", loc: ["body"], msg: `JSON decode error: ${error.message}`, input: {} }] });
      return send(response, 500, { detail: error instanceof Error ? error.message : String(error) });
    }
  };

  const server: Server = createServer((request, response) => void handle(request, response));
  // A message (all its fragments) larger than maxMessageBytes closes the connection with 1009; a request that is no
  // WebSocket handshake is answered 400 (both by `ws`). Sessions are counted here, not by `ws`.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes, perMessageDeflate: false });
  const connect = (ws: WebSocket) => {
    ws.on("error", () => undefined); // a protocol error: `ws` closes the connection, and "close" disposes the session
    if (sessions.size >= maxSessions) {
      ws.send(JSON.stringify({ type: "error", data: { message: `Server at capacity (${sessions.size}/${maxSessions})`, code: "CAPACITY_REACHED", active_sessions: sessions.size, max_sessions: maxSessions } }));
      ws.close(1000);
      return;
    }
    sessions.add(ws);
    const env = spec.create();
    let queue: Promise<void> = Promise.resolve();
    let disposed = false;
    const dispose = async () => {
      if (disposed) return;
      disposed = true;
      sessions.delete(ws);
      closers.delete(dispose);
      await env.close?.();
    };
    closers.add(dispose);
    const answer = (type: string, data: unknown) => ws.send(wireJson({ type, data }));
    const run = async (text: string) => {
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch (error) {
        return answer("error", { message: `Invalid JSON: ${(error as Error).message}`, code: "INVALID_JSON" });
      }
      const type = isRecord(message) ? message.type : undefined;
      try {
        switch (type) {
          case "reset": {
            const data = isRecord(message) && message.data !== undefined ? message.data : {};
            if (!isRecord(data)) return answer("error", { message: "Invalid message", code: "VALIDATION_ERROR", errors: [{ type: "dict_type", loc: ["data"], msg: "Input should be a valid dictionary", input: data }] });
            return answer("observation", serializeObservation(await env.reset(data)));
          }
          case "step": {
            const data = isRecord(message) ? message.data : undefined;
            if (!isRecord(data)) return answer("error", { message: "Invalid message", code: "VALIDATION_ERROR", errors: [{ type: data === undefined ? "missing" : "dict_type", loc: ["data"], msg: data === undefined ? "Field required" : "Input should be a valid dictionary", input: data ?? null }] });
            return answer("observation", serializeObservation(await env.step(data)));
          }
          case "state":
            return answer("state", env.state());
          case "close":
            ws.close(1000);
            return;
          default:
            return answer("error", { message: `Unknown message type: ${String(type ?? "")}`, code: "UNKNOWN_TYPE" });
        }
      } catch (error) {
        return answer("error", errorData(error));
      }
    };
    ws.on("message", (data, isBinary) => {
      if (isBinary) return ws.close(1003, "binary messages are not accepted");
      const text = (data as Buffer).toString("utf8"); // binaryType "nodebuffer": a text message is one Buffer
      queue = queue.then(() => run(text)).catch(() => undefined);
    });
    ws.on("close", () => void queue.then(dispose));
  };

  server.on("upgrade", (request, socket, head) => {
    if ((request.url ?? "").split("?")[0] !== "/ws") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(request, socket, head, connect);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    activeSessions: () => sessions.size,
    async close() {
      // Every connection gets a close frame; one whose peer has not answered it within a second is cut.
      const open = [...wss.clients];
      const gone = Promise.all(open.map((ws) => (ws.readyState === ws.CLOSED ? undefined : new Promise<void>((resolve) => ws.once("close", () => resolve())))));
      for (const ws of open) ws.close(1001, "server closing");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000).unref()))]);
      clearTimeout(timer);
      for (const ws of wss.clients) ws.terminate();
      await Promise.all([...closers].map((close) => close()));
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
