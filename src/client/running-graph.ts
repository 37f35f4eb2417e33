// Reaching a graph that is already running (`gym env start`), as NeMo Gym's `ServerClient.load_from_global_config`
// does: the head server's address comes from the global config (`++head_server.port=…`, env.yaml), and the head
// server answers the graph's config, which names every instance's address.
import { loadGlobalConfig, NO_MODEL_CONFIG, parseConfigYaml, resolveConfig, type ConfigDict } from "../config/index.ts";
import { HttpClient } from "./http-client.ts";
import { headTokenHeaders, readHeadToken } from "./head-token.ts";
import { ServerClient, type ServerClientOptions } from "./server-client.ts";

/** NeMo Gym's defaults for `head_server`. */
export const DEFAULT_HEAD_SERVER = { host: "127.0.0.1", port: 11000 } as const;

export interface HeadServerAddress {
  host?: string;
  port?: number;
}

/** The head server a config names (`head_server.host` / `.port`), NeMo Gym's defaults otherwise. */
export function headServerOf(config: ConfigDict): Required<HeadServerAddress> {
  const head = (config.head_server ?? {}) as HeadServerAddress;
  return { host: head.host ?? DEFAULT_HEAD_SERVER.host, port: head.port ?? DEFAULT_HEAD_SERVER.port };
}

export function headServerUrl(head: HeadServerAddress): string {
  const host = head.host ?? DEFAULT_HEAD_SERVER.host;
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${head.port ?? DEFAULT_HEAD_SERVER.port}`;
}

/** No head server answered at `url`: nothing is running there (or it is on another port). */
export class HeadServerUnreachableError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach the head server at ${url} (${reason})`);
    this.name = "HeadServerUnreachableError";
  }
}

/**
 * The running graph's resolved config, from its head server. The graph's token (NEMO_GYM_HEAD_TOKEN, or the
 * launching user's token file) is presented when there is one, so the config has its secrets (and a run's
 * fingerprint is the one a `--config` run of the same graph records); without it they read `<redacted>`, which
 * routing does not need.
 */
export async function fetchGraphConfig(head: HeadServerAddress): Promise<ConfigDict> {
  const url = `${headServerUrl(head)}/global_config_dict_yaml`;
  const http = new HttpClient({ connectTimeoutMs: 3000, deadlineMs: 10_000, maxRetries: 1 });
  try {
    const answer = await http.request(url, { headers: headTokenHeaders(readHeadToken(head.port ?? DEFAULT_HEAD_SERVER.port)) });
    if (!answer.ok) throw new Error(`it answered ${answer.status}`);
    return resolveConfig(parseConfigYaml(answer.json<string>()));
  } catch (error) {
    // The transport's message starts with the URL, which the error names already.
    throw new HeadServerUnreachableError(url, (error as Error).message.replace(`${url}: `, ""));
  } finally {
    await http.close();
  }
}

/** A client for the graph whose head server is at `head`. */
export async function connectToRunningGraph(head: HeadServerAddress, options: Omit<ServerClientOptions, "globalConfig"> = {}): Promise<ServerClient> {
  return new ServerClient({ ...options, globalConfig: await fetchGraphConfig(head) });
}

/**
 * NeMo Gym's `ServerClient.load_from_global_config()` for scripts (`client.ts` files): the head server from the
 * Hydra-style arguments (default: this process's, e.g. `++head_server.port=11001`) and env.yaml.
 */
export async function serverClientFromGlobalConfig(args: readonly string[] = process.argv.slice(2)): Promise<ServerClient> {
  const { resolved } = await loadGlobalConfig({ overrides: [...args], initialConfig: NO_MODEL_CONFIG, logger: { warn: (message) => process.stderr.write(`WARNING ${message}\n`) } });
  return connectToRunningGraph(headServerOf(resolved));
}
