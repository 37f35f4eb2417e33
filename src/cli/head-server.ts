// The head server: discovery for clients outside the launcher (`gym eval run --no-serve`, `gym env status`,
// trainers). It serves the merged global config — as a JSON string holding unresolved YAML, like NeMo Gym —
// and the list of running server instances. Unlike NeMo Gym, the config's secrets are only for callers that
// present the graph's token: anyone else gets every address and setting, with secrets replaced by a marker.
import { createHash, timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { HEAD_TOKEN_HEADER } from "../client/head-token.ts";
import { ConfigError, dumpYaml, redactSecrets, type ConfigDict } from "../config/index.ts";

/** What a secret reads as for a caller without the token. */
export const REDACTED = "<redacted>";

export interface InstanceRecord {
  config_path: string;
  dir_path: string;
  entrypoint: string;
  host: string;
  name: string;
  pid: number | null;
  port: number | null;
  process_name: string;
  server_type: string;
  start_time: number;
  status: "starting" | "running" | "exited";
  uptime_seconds: number;
  url: string | null;
}

export interface HeadServerState {
  rawConfig(): ConfigDict;
  instances(): InstanceRecord[];
  /** The graph's token: a caller presenting it (`x-ng-head-token`, or `Authorization: Bearer`) gets the config unredacted. */
  token: string;
  /** Key paths of the values taken from env.yaml (its secrets, usually): redacted like secret keys. */
  envYamlPaths?: readonly (readonly string[])[];
}

export async function startHeadServer(state: HeadServerState, host: string, port: number): Promise<{ app: FastifyInstance; port: number; url: string }> {
  const app = Fastify({ logger: false });
  const presentsToken = tokenCheck(state.token);
  app.get("/", async () => ({ status: "ok" }));
  app.get("/global_config_dict_yaml", async (request, reply) => {
    const raw = state.rawConfig();
    const config = presentsToken(request) ? raw : redactForCallers(raw, state.envYamlPaths ?? []);
    return reply.header("content-type", "application/json").send(JSON.stringify(dumpYaml(config)));
  });
  app.get("/server_instances", async () => state.instances());
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: "Not Found" }));
  try {
    await app.listen({ host, port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new ConfigError(`head server port ${port} on ${host} is in use (another gym running?); stop it or choose another with ++head_server.port=<port> (0 = any free port)`);
    }
    throw error;
  }
  const address = app.server.address();
  const boundPort = typeof address === "object" && address ? address.port : port;
  return { app, port: boundPort, url: `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}` };
}

/** Compares digests, so neither the token's length nor its bytes leak through timing. */
function tokenCheck(token: string): (request: FastifyRequest) => boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  const expected = digest(token);
  return (request) => {
    const header = request.headers[HEAD_TOKEN_HEADER];
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
    const given = typeof header === "string" ? header : bearer;
    return given !== undefined && token !== "" && timingSafeEqual(digest(given), expected);
  };
}

/**
 * The config as a caller without the token sees it: values under secret keys (config/secrets.ts' rule; switches,
 * true/false, are kept) and values env.yaml set are replaced by REDACTED. Kept, even when env.yaml set them, are what discovery reads (NeMo Gym's
 * ServerClient and ours): the head server's address, every `host`/`port`/`entrypoint` and server reference
 * (`type`/`name`), the config file list, and numbers and booleans (settings such as `observability_enabled` or
 * `global_aiohttp_connector_limit`; a credential is a string).
 */
export function redactForCallers(raw: ConfigDict, envYamlPaths: readonly (readonly string[])[]): ConfigDict {
  const hiddenPaths = envYamlPaths.filter((path) => !isDiscoveryPath(path) && holdsText(valueAt(raw, path)));
  return redactSecrets(raw, { marker: REDACTED, hiddenPaths, keepBooleans: true });
}

// NeMo Gym's own readers of this route (ServerClient, ModelCallCaptureConfig, the agents' token-capture switch).
const DISCOVERY_TOP_LEVEL = new Set(["head_server", "default_host", "config_paths", "model_call_capture_dir", "token_id_capture", "wire_array_encoding"]);
const DISCOVERY_FIELDS = new Set(["host", "port", "entrypoint", "type", "name"]);

function isDiscoveryPath(path: readonly string[]): boolean {
  return DISCOVERY_TOP_LEVEL.has(path[0]!) || DISCOVERY_FIELDS.has(path[path.length - 1]!);
}

function holdsText(value: unknown): boolean {
  return typeof value === "string" || (Array.isArray(value) && value.some((item) => typeof item === "string"));
}

function valueAt(config: ConfigDict, path: readonly string[]): unknown {
  let node: unknown = config;
  for (const key of path) node = node !== null && typeof node === "object" && !Array.isArray(node) ? (node as ConfigDict)[key] : undefined;
  return node;
}
