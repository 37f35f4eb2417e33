// Servers for tests, two ways. `injectServer` builds one definition's fastify app and calls its routes through
// fastify's `inject` (no socket: the same routing, validation, hooks and serializers, without a port) — for tests of
// what a route answers. `startServers` binds a graph of definitions on loopback ports — for tests about HTTP itself
// (cookies over the wire, one server calling another, a client library against a real socket). Both answer with the
// HttpResponse shape of src/client, so a test reads an injected answer as it reads an HTTP one.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { FastifyInstance, InjectOptions } from "fastify";
import { PROJECT_ROOT, type ConfigDict } from "../config/index.ts";
import { cookieHeader, cookiesFromSetCookie, HttpClient, jsonReaders, ServerClient, type HttpResponse } from "../client/index.ts";
import { parseWire } from "../protocol/wire-json.ts";
import type { ServerContext, ServerDefinition } from "../server/definition.ts";
import { buildServer } from "../server/serve.ts";
import { startInProcess, type InProcessGraph, type InProcessOptions } from "./in-process.ts";

/** The instances of a test graph: `{ instanceName: [definition, its config fields] }`. */
export type TestServers = Record<string, [ServerDefinition, Record<string, unknown>?]>;

/** A resolved global config holding those instances (implementation dir "test", entrypoint app.ts; resources servers get domain "other"). */
export function testConfig(servers: TestServers, topLevel: ConfigDict = {}): { config: ConfigDict; definitions: Record<string, ServerDefinition> } {
  const config: ConfigDict = { ...topLevel };
  const definitions: Record<string, ServerDefinition> = {};
  for (const [name, [definition, fields]] of Object.entries(servers)) {
    const required = definition.serverType === "resources_servers" ? { domain: "other" } : {};
    config[name] = { [definition.serverType]: { test: { entrypoint: "app.ts", ...required, ...(fields ?? {}) } } };
    definitions[name] = definition;
  }
  return { config, definitions };
}

/**
 * Another server folder's definition, loaded by its path as a config's entrypoint is (`"responses_api_models/scripted_model"`
 * → its `app.ts`): a server folder's tests may compose a graph with other servers without importing their folders.
 */
export async function serverDefinition(folder: string, entrypoint = "app.ts"): Promise<ServerDefinition> {
  const loaded = (await import(pathToFileURL(join(PROJECT_ROOT, folder, entrypoint)).href)).default as ServerDefinition | undefined;
  if (!loaded?.serverType) throw new Error(`${folder}/${entrypoint} does not default-export a server definition`);
  return loaded;
}

/** Starts each instance on its own loopback port (real HTTP); `close()` stops them all. */
export async function startServers(servers: TestServers, topLevel: ConfigDict = {}, options: InProcessOptions = {}): Promise<InProcessGraph> {
  const { config, definitions } = testConfig(servers, topLevel);
  return startInProcess(config, definitions, options);
}

/** An HTTP client for tests: a short connect timeout, no retries (a test wants the first failure). */
export const http = () => new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 15_000, maxRetries: 0 });

export interface CallOptions {
  /** Sent as the Cookie header. */
  cookies?: Record<string, string>;
  headers?: Record<string, string>;
}

/** A server's routes, called by path: through `inject` (injectServer) or over HTTP (overHttp). */
export interface ServerCalls {
  post(path: string, body?: unknown, options?: CallOptions): Promise<HttpResponse>;
  get(path: string, options?: CallOptions): Promise<HttpResponse>;
  /** A caller that keeps the cookies every answer sets and sends them on the next call: one session. */
  session(cookies?: Record<string, string>): ServerCalls & { cookies: Record<string, string> };
}

type Call = (method: "GET" | "POST", path: string, body: unknown, options: CallOptions) => Promise<HttpResponse>;

function callsOf(call: Call): ServerCalls {
  return {
    post: (path, body, options = {}) => call("POST", path, body, options),
    get: (path, options = {}) => call("GET", path, undefined, options),
    session(initial = {}) {
      const jar = { ...initial };
      const inSession: Call = async (method, path, body, options) => {
        const answer = await call(method, path, body, { ...options, cookies: { ...jar, ...options.cookies } });
        Object.assign(jar, answer.cookies);
        return answer;
      };
      return { ...callsOf(inSession), cookies: jar };
    },
  };
}

/** The routes of a server at `baseUrl` over HTTP, through `client` (the caller closes it). */
export function overHttp(baseUrl: string, client: HttpClient): ServerCalls {
  return callsOf((method, path, body, options) => client.request(`${baseUrl}${path}`, { method, json: body, cookies: options.cookies, headers: options.headers }));
}

export interface InjectedServer<Config = unknown> extends ServerCalls {
  app: FastifyInstance;
  context: ServerContext<Config>;
  instanceName: string;
  /** `<ClassName>___<instance>`: the session cookie /seed_session sets. */
  sessionCookieName: string;
  close(): Promise<void>;
}

export interface InjectServerOptions {
  /** The instance name (default: the definition's server type without the plural, e.g. `resources_server`). */
  instanceName?: string;
  /** More top-level config keys, or more instances for its client to address (they are not started). */
  topLevel?: ConfigDict;
  /** The client the server addresses other servers with (default: its own, closed with it). */
  client?: ServerClient;
}

/**
 * Builds `definition` with `fields` as its instance config, without a socket:
 *   const env = await injectServer(counter);
 *   const session = env.session();
 *   await session.post("/seed_session", { initial_count: 3 });
 *   (await session.post("/increment_counter", { count: 1 })).json()
 */
export async function injectServer<Config>(definition: ServerDefinition<Config>, fields: Record<string, unknown> = {}, options: InjectServerOptions = {}): Promise<InjectedServer<Config>> {
  const instanceName = options.instanceName ?? definition.serverType.replace(/s$/, "");
  const { config } = testConfig({ [instanceName]: [definition, fields] }, options.topLevel);
  return injectInstance(definition, instanceName, config, options.client);
}

export interface InjectedGraph {
  servers: Record<string, InjectedServer>;
  /** The instance of that name (throws for an unknown one). */
  server(instanceName: string): InjectedServer;
  close(): Promise<void>;
}

/** Several instances (`{ instanceName: [definition, fields] }`, as startServers takes them) built without sockets, sharing one config. */
export async function injectServers(servers: TestServers, topLevel: ConfigDict = {}): Promise<InjectedGraph> {
  const { config, definitions } = testConfig(servers, topLevel);
  const built: Record<string, InjectedServer> = {};
  const close = () => Promise.all(Object.values(built).map((server) => server.close())).then(() => undefined);
  try {
    for (const [name, definition] of Object.entries(definitions)) built[name] = await injectInstance(definition, name, config);
  } catch (error) {
    await close();
    throw error;
  }
  const server = (name: string) => {
    const found = built[name];
    if (!found) throw new Error(`no injected instance '${name}' (have: ${Object.keys(built).join(", ")})`);
    return found;
  };
  return { servers: built, server, close };
}

async function injectInstance<Config>(definition: ServerDefinition<Config>, instanceName: string, config: ConfigDict, client?: ServerClient): Promise<InjectedServer<Config>> {
  const { app, context } = await buildServer(definition, { instanceName, globalConfig: config, client });
  const call: Call = async (method, path, body, callOptions) => {
    const headers: Record<string, string> = { ...callOptions.headers };
    const cookie = cookieHeader(callOptions.cookies);
    if (cookie) headers.cookie = cookie;
    const request: InjectOptions = { method, url: path, headers };
    if (body !== undefined) {
      request.payload = JSON.stringify(body);
      headers["content-type"] ??= "application/json";
    }
    const answer = await app.inject(request);
    const text = answer.body;
    return {
      status: answer.statusCode,
      headers: answer.headers as HttpResponse["headers"],
      cookies: cookiesFromSetCookie(answer.headers["set-cookie"] as string | string[] | undefined),
      text,
      ok: answer.statusCode >= 200 && answer.statusCode < 300,
      ...jsonReaders(() => parseWire(text)),
    };
  };
  return { ...callsOf(call), app, context, instanceName, sessionCookieName: `${definition.className}___${instanceName}`, close: () => app.close() };
}
