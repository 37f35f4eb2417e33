// The environment playground's back end: the running resources servers, from the head server's list of
// instances, and playground sessions that call one of them on the page's behalf — /seed_session, its tools, /verify —
// each keeping the server's session cookie, as an agent does for one rollout. The page never talks to the
// resources server itself (another origin), and a session only ever calls the server it was opened on.
import { randomUUID } from "node:crypto";
import { HttpClient, type HttpResponse } from "../../client/http-client.ts";
import type { InstanceRecord } from "../head-server.ts";
import { ViewRequestError } from "./request-error.ts";

export interface PlaygroundServer {
  /** The instance's name in the graph's config (the head server's `process_name`). */
  name: string;
  /** Its implementation folder's name (the head server's `name`). */
  implementation: string;
  url: string;
  status: InstanceRecord["status"];
}

export interface PlaygroundCall {
  path: string;
  status: number;
  /** The answer's JSON, or its text when it is not JSON. */
  body: unknown;
}

interface Session {
  server: PlaygroundServer;
  cookies: Record<string, string>;
  lastUsedMs: number;
}

/** Sessions kept at most; the least recently used goes first (a playground is one person clicking). */
const MAX_SESSIONS = 64;
/** A tool, seed or verify call a person waits on: long enough for a slow verify, never forever. */
const CALL_DEADLINE_MS = 60_000;
const TOOL_PATH = /^[A-Za-z0-9_.-]+$/;

function answerBody(answer: HttpResponse): unknown {
  try {
    return answer.json();
  } catch {
    return answer.text;
  }
}

export class Playground {
  private readonly http = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: CALL_DEADLINE_MS, maxRetries: 1 });
  private readonly sessions = new Map<string, Session>();

  constructor(readonly headServerUrl: string) {}

  /** The resources servers the head server lists; those not running yet are listed with their status. */
  async servers(): Promise<PlaygroundServer[]> {
    let answer: HttpResponse;
    try {
      answer = await this.http.request(`${this.headServerUrl}/server_instances`, { deadlineMs: 5000 });
    } catch (error) {
      throw new ViewRequestError(502, `cannot reach the head server at ${this.headServerUrl} (${(error as Error).message}); start a graph with \`gym env start\` or pass --head-server`);
    }
    if (!answer.ok) throw new ViewRequestError(502, `the head server at ${this.headServerUrl} answered ${answer.status} to /server_instances`);
    const instances = answer.json<InstanceRecord[]>();
    return instances
      .filter((instance) => instance.server_type === "resources_servers" && instance.url)
      .map((instance) => ({ name: instance.process_name, implementation: instance.name, url: instance.url!.replace(/\/$/, ""), status: instance.status }));
  }

  /** Opens a session on the running resources server `name`; answers its id and the server's GET /tools. */
  async open(name: string): Promise<{ session: string; server: PlaygroundServer; tools: unknown }> {
    const server = (await this.servers()).find((candidate) => candidate.name === name);
    if (!server) throw new ViewRequestError(404, `server: no resources server named '${name}' is listed by the head server at ${this.headServerUrl}`);
    const tools = await this.request(server, "GET", "/tools", undefined, {});
    if (tools.status !== 200) throw new ViewRequestError(502, `${server.name} answered ${tools.status} to GET /tools`);
    while (this.sessions.size >= MAX_SESSIONS) {
      const oldest = [...this.sessions].sort(([, a], [, b]) => a.lastUsedMs - b.lastUsedMs)[0]![0];
      this.sessions.delete(oldest);
    }
    const session = randomUUID();
    this.sessions.set(session, { server, cookies: {}, lastUsedMs: Date.now() });
    return { session, server, tools: tools.body };
  }

  /** POSTs `body` to `/<path>` of the session's server with the session's cookies, and keeps the ones it sets. */
  async call(sessionId: string, path: string, body: unknown): Promise<PlaygroundCall> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new ViewRequestError(404, `session: no playground session '${sessionId}' (expired, or the view restarted); open the server again`);
    if (!TOOL_PATH.test(path)) throw new ViewRequestError(400, `path: '${path}' is not a tool name, seed_session or verify`);
    session.lastUsedMs = Date.now();
    const answer = await this.request(session.server, "POST", `/${path}`, body, session.cookies);
    return { path, ...answer };
  }

  private async request(server: PlaygroundServer, method: "GET" | "POST", path: string, json: unknown, cookies: Record<string, string>): Promise<{ status: number; body: unknown }> {
    let answer: HttpResponse;
    try {
      // A POST is not retried: a tool call may have changed the session's state before the connection broke.
      answer = await this.http.request(`${server.url}${path}`, { method, json, cookies, maxRetries: method === "GET" ? 1 : 0 });
    } catch (error) {
      throw new ViewRequestError(502, `${server.name} (${server.url}) did not answer ${method} ${path}: ${(error as Error).message}`);
    }
    Object.assign(cookies, answer.cookies);
    return { status: answer.status, body: answerBody(answer) };
  }

  async close(): Promise<void> {
    this.sessions.clear();
    await this.http.close();
  }
}
