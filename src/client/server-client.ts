// Addresses Gym servers by instance name (the top-level YAML key), as NeMo Gym's ServerClient does:
// the address comes from the global config; when the config does not know a port yet (the launcher binds
// port 0 and learns it afterwards), the head server is asked.
import { getServerInstanceConfig, parseConfigYaml, type ConfigDict } from "../config/index.ts";
import { InnerServerError } from "../protocol/errors.ts";
import { IDEMPOTENCY_KEY_HEADER } from "../protocol/failures.ts";
import { HttpClient, type HttpClientOptions, type HttpResponse, type RequestOptions } from "./http-client.ts";
import { headTokenHeaders, readHeadToken } from "./head-token.ts";

export interface ServerClientOptions extends HttpClientOptions {
  /** Resolved global config (instance → type → implementation → fields). */
  globalConfig: ConfigDict;
  /** The graph's head token (servers get it from the launcher); else NEMO_GYM_HEAD_TOKEN or this user's token file. */
  headToken?: string;
}

/** A POST as a server in this process reads it (see LocalServer). */
export interface LocalRequest {
  json?: unknown;
  rawBody?: string;
  cookies?: Record<string, string>;
  /** Lower-case names; the idempotency key is here as `x-ng-idempotency-key`. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * A server running in this process (a co-located graph, see serve.ts): it answers a POST to one of its hot routes
 * in-process, exactly as over HTTP, or returns undefined and the call goes over HTTP as any other.
 */
export interface LocalServer {
  post(path: string, request: LocalRequest & { url: string; deadlineMs: number }): Promise<HttpResponse> | undefined;
}

export class ServerClient {
  readonly http: HttpClient;
  private globalConfig: ConfigDict;
  private readonly urls = new Map<string, string>();
  private readonly headToken: string | undefined;
  private readonly local = new Map<string, LocalServer>();

  constructor(options: ServerClientOptions) {
    const { globalConfig, headToken, ...httpOptions } = options;
    this.globalConfig = globalConfig;
    this.headToken = headToken;
    this.http = new HttpClient({ ...httpClientOptionsFromConfig(globalConfig), ...httpOptions });
  }

  /** Replaces the known config (the launcher pushes the final one once every server has bound its port). */
  updateGlobalConfig(globalConfig: ConfigDict): void {
    this.globalConfig = globalConfig;
    this.urls.clear();
  }

  get config(): ConfigDict {
    return this.globalConfig;
  }

  async baseUrl(serverName: string): Promise<string> {
    const cached = this.urls.get(serverName);
    if (cached) return cached;
    let instance = getServerInstanceConfig(this.globalConfig, serverName);
    if (instance.port === undefined || instance.port === null) {
      await this.refreshFromHeadServer();
      instance = getServerInstanceConfig(this.globalConfig, serverName);
      if (instance.port === undefined || instance.port === null) {
        throw new Error(`server '${serverName}' has no port yet: is it running? (the head server does not know it either)`);
      }
    }
    const url = `http://${formatHost(String(instance.host ?? this.globalConfig.default_host ?? "127.0.0.1"))}:${instance.port}`;
    this.urls.set(serverName, url);
    return url;
  }

  private async refreshFromHeadServer(): Promise<void> {
    const head = this.globalConfig.head_server as { host?: string; port?: number } | undefined;
    if (!head?.port) return;
    // Without the token the head server redacts secrets, and this config replaces the one the client holds.
    const headers = headTokenHeaders(this.headToken ?? readHeadToken(head.port));
    const response = await this.http.request(`http://${formatHost(head.host ?? "127.0.0.1")}:${head.port}/global_config_dict_yaml`, { deadlineMs: 10_000, headers });
    if (!response.ok) return;
    const { resolveConfig } = await import("../config/index.ts");
    this.globalConfig = resolveConfig(parseConfigYaml(response.json<string>()));
  }

  /** Calls to `serverName` that it can answer in-process go to `server` instead of over HTTP (co-located servers). */
  serveLocally(serverName: string, server: LocalServer): void {
    this.local.set(serverName, server);
  }

  stopServingLocally(serverName: string): void {
    this.local.delete(serverName);
  }

  async request(serverName: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const url = `${await this.baseUrl(serverName)}${path}`;
    const local = this.local.get(serverName);
    if (local !== undefined && (options.method ?? (options.json === undefined && options.rawBody === undefined ? "GET" : "POST")) === "POST") {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
      if (options.idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = options.idempotencyKey;
      const answer = local.post(path, { json: options.json, rawBody: options.rawBody, cookies: options.cookies, headers, signal: options.signal, url, deadlineMs: options.deadlineMs ?? this.http.options.deadlineMs });
      if (answer !== undefined) return answer;
    }
    return this.http.request(url, options);
  }

  post(serverName: string, path: string, options: Omit<RequestOptions, "method"> = {}): Promise<HttpResponse> {
    return this.request(serverName, path, { ...options, method: "POST" });
  }

  get(serverName: string, path: string, options: Omit<RequestOptions, "method" | "json"> = {}): Promise<HttpResponse> {
    return this.request(serverName, path, { ...options, method: "GET" });
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** aiohttp's raise_for_status: a non-2xx answer from an inner server becomes an error carrying its body. */
export function raiseForStatus(response: HttpResponse, url: string): HttpResponse {
  if (!response.ok) throw new InnerServerError(response.status, response.text, url);
  return response;
}

function formatHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** Top-level knobs (seconds in config, milliseconds inside). */
export function httpClientOptionsFromConfig(config: ConfigDict): HttpClientOptions {
  const num = (key: string) => (typeof config[key] === "number" ? (config[key] as number) : undefined);
  const options: HttpClientOptions = {};
  if (num("http_connect_timeout_s") !== undefined) options.connectTimeoutMs = num("http_connect_timeout_s")! * 1000;
  if (num("http_request_deadline_s") !== undefined) options.deadlineMs = num("http_request_deadline_s")! * 1000;
  if (num("http_max_retries") !== undefined) options.maxRetries = num("http_max_retries");
  const perHost = num("global_aiohttp_connector_limit_per_host");
  if (perHost !== undefined) options.connectionsPerOrigin = perHost;
  // Opt-in compact training arrays between our own servers (see protocol/wire-json.ts); NeMo Gym's JSON otherwise.
  if (config.wire_array_encoding === "packed-v1") options.arrayEncoding = "packed-v1";
  return options;
}
