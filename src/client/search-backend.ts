// Search backends for the search environments (google_search, tavily_search, finance_sec_search, aviary's search
// tools): a backend answers one query — a string, or a JSON object when the provider call has parameters (an
// operation, a URL, options) — with the provider's result.
//
// Two kinds:
//   - ProviderSearchBackend wraps a real provider: its API key comes from the config (missing → a UserError naming
//     the key, raised when the backend is built, i.e. at server start), requests go through src/client's HttpClient
//     (undici, connect timeout, a deadline per attempt and one over all attempts), 429/408/5xx and transport failures
//     are retried a bounded number of times with exponential backoff (honouring Retry-After), requests are spaced
//     to a configurable rate, and answers are cached by query (memory by default, SQLite when a path is given).
//   - FixtureSearchBackend answers from a local JSONL file of {"query": …, "results": …} lines: what the tests and
//     example configs use, so nothing leaves the machine. A query the file lacks is a SearchFixtureMissError naming
//     the query and the file.
//
// A failure is typed, never an answer: SearchProviderError (a 502: the caller's agent files it as
// `environment_unavailable`, never shown to the model, never scored) and SearchFixtureMissError (a 503, same path).
// Only successful answers are cached.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { z } from "zod";
import { HttpError } from "../protocol/errors.ts";
import { UserError } from "../config/errors.ts";
import { DeadlineExceededError, HttpClient, TransportError, type HttpResponse } from "./http-client.ts";

export type SearchJson = null | boolean | number | string | SearchJson[] | { [key: string]: SearchJson };
/** A query: the search text, or an object naming the call (e.g. `{"op": "extract", "url": …}`). */
export type SearchQuery = string | { [key: string]: SearchJson };

export interface SearchOptions {
  signal?: AbortSignal;
}

export interface SearchBackend<R = unknown> {
  /** For messages: the provider's name, or `fixture <path>`. */
  readonly label: string;
  search(query: SearchQuery, options?: SearchOptions): Promise<R>;
  close(): Promise<void>;
}

/** A provider call that did not give an answer after its retries: a typed failure (HTTP 502), never a result. */
export class SearchProviderError extends HttpError {
  constructor(
    readonly provider: string,
    readonly reason: string,
    readonly attempts: number,
    /** The provider's last HTTP status, when it answered at all. */
    readonly lastStatus?: number,
  ) {
    super(502, `Search provider ${provider} failed after ${attempts} attempt(s): ${reason}`);
    this.name = "SearchProviderError";
  }
}

/** The fixture file has no entry for a query (HTTP 503): the fixture is incomplete for this rollout. */
export class SearchFixtureMissError extends HttpError {
  constructor(
    readonly fixturePath: string,
    readonly query: SearchQuery,
  ) {
    super(503, `Search fixture ${fixturePath} has no entry for query ${searchQueryKey(query)}; add a line {"query": …, "results": …} for it`);
    this.name = "SearchFixtureMissError";
  }
}

/** Sorted-key JSON: two queries that differ only in key order are the same query. */
export function searchQueryKey(query: SearchQuery): string {
  return JSON.stringify(canonical(query));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    const object = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .filter((key) => object[key] !== undefined)
        .map((key) => [key, canonical(object[key])]),
    );
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// Fixture backend

/** Reads a JSONL fixture; every line is `{"query": <string|object>, "results": <any JSON>}`. Later lines win. */
export class FixtureSearchBackend<R = unknown> implements SearchBackend<R> {
  readonly label: string;
  private readonly entries = new Map<string, R>();

  constructor(readonly path: string) {
    this.label = `fixture ${path}`;
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new UserError(`search fixture ${path}: cannot read it (${(error as Error).message})`);
    }
    text.split("\n").forEach((line, index) => {
      if (line.trim() === "") return;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch (error) {
        throw new UserError(`search fixture ${path} line ${index + 1}: not JSON (${(error as Error).message})`);
      }
      const record = entry as { query?: unknown; results?: unknown };
      const queryOk = typeof record?.query === "string" || (typeof record?.query === "object" && record.query !== null && !Array.isArray(record.query));
      if (!queryOk || !("results" in (record as object))) {
        throw new UserError(`search fixture ${path} line ${index + 1}: expected {"query": <string or object>, "results": …}`);
      }
      this.entries.set(searchQueryKey(record.query as SearchQuery), record.results as R);
    });
  }

  get size(): number {
    return this.entries.size;
  }

  async search(query: SearchQuery, _options?: SearchOptions): Promise<R> {
    const key = searchQueryKey(query);
    if (!this.entries.has(key)) throw new SearchFixtureMissError(this.path, query);
    return structuredClone(this.entries.get(key) as R);
  }

  async close(): Promise<void> {}
}

// ---------------------------------------------------------------------------------------------------------------
// Caches

export interface SearchCache {
  get(key: string): unknown | undefined;
  set(key: string, value: unknown): void;
  close(): void;
}

/** In-process, bounded: the oldest entry goes first once `maxEntries` is reached. */
export class MemorySearchCache implements SearchCache {
  private readonly map = new Map<string, string>();
  constructor(readonly maxEntries = 10_000) {}
  get(key: string): unknown | undefined {
    const text = this.map.get(key);
    return text === undefined ? undefined : JSON.parse(text);
  }
  set(key: string, value: unknown): void {
    if (this.map.size >= this.maxEntries && !this.map.has(key)) this.map.delete(this.map.keys().next().value as string);
    // Stored as JSON so a caller mutating its result cannot change the cache.
    this.map.set(key, JSON.stringify(value));
  }
  close(): void {
    this.map.clear();
  }
}

/** On disk (WAL, shared by the processes of one machine); survives restarts. Only answers are stored. */
export class SqliteSearchCache implements SearchCache {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string], { results: string }>;
  private readonly insert: Database.Statement<[string, string, number]>;

  constructor(readonly path: string) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec("CREATE TABLE IF NOT EXISTS search_results (key TEXT PRIMARY KEY, results TEXT NOT NULL, created_at INTEGER NOT NULL)");
    this.select = this.db.prepare("SELECT results FROM search_results WHERE key = ?");
    this.insert = this.db.prepare("INSERT OR REPLACE INTO search_results (key, results, created_at) VALUES (?, ?, ?)");
  }
  get(key: string): unknown | undefined {
    const row = this.select.get(key);
    return row === undefined ? undefined : JSON.parse(row.results);
  }
  set(key: string, value: unknown): void {
    this.insert.run(key, JSON.stringify(value), Date.now());
  }
  close(): void {
    this.db.close();
  }
}

const sqliteCaches = new Map<string, { cache: SqliteSearchCache; users: number }>();

/** One SQLite handle per file per process, closed when its last user closes. */
function sharedSqliteCache(path: string): SearchCache {
  const absolute = path === ":memory:" ? path : resolve(path);
  let entry = sqliteCaches.get(absolute);
  if (!entry || absolute === ":memory:") {
    entry = { cache: new SqliteSearchCache(absolute), users: 0 };
    if (absolute !== ":memory:") sqliteCaches.set(absolute, entry);
  }
  entry.users++;
  const shared = entry;
  let closed = false;
  return {
    get: (key) => shared.cache.get(key),
    set: (key, value) => shared.cache.set(key, value),
    close() {
      if (closed) return;
      closed = true;
      if (--shared.users === 0) {
        shared.cache.close();
        if (sqliteCaches.get(absolute) === shared) sqliteCaches.delete(absolute);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Rate limit

/** Spaces calls at least 1/rps apart, in arrival order. */
export class RequestSpacer {
  private next = 0;
  private readonly intervalMs: number;
  constructor(requestsPerSecond: number) {
    if (!(requestsPerSecond > 0)) throw new UserError(`requests_per_second: expected a positive number, got ${requestsPerSecond}`);
    this.intervalMs = 1000 / requestsPerSecond;
  }
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    if (at > now) await sleep(at - now, signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolvePromise();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Provider backend

export interface ProviderRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  json?: unknown;
}

/** The settings every real-provider backend takes from its config (all optional but the key). */
export interface SearchBackendSettings {
  /** Connect timeout per attempt (ms). Default 10 s. */
  connectTimeoutMs?: number;
  /** Deadline of one attempt (ms). Default 30 s. */
  attemptDeadlineMs?: number;
  /** Deadline over all attempts and waits (ms). Default 120 s. */
  deadlineMs?: number;
  /** Retries after a 429/408/5xx or a transport failure. Default 3. */
  maxRetries?: number;
  /** First backoff (ms), doubled per retry, capped by maxBackoffMs. Default 500. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Requests per second to the provider; unlimited when absent. */
  requestsPerSecond?: number | null;
  /** A SQLite file for the cache; memory when absent. */
  cachePath?: string | null;
  /** `false` turns the cache off (every query calls the provider). Default true. */
  cache?: boolean;
}

export interface ProviderSearchBackendOptions<R> extends SearchBackendSettings {
  /** The provider's name, for messages and the cache key (e.g. "google_custom_search"). */
  provider: string;
  /**
   * The API key and the config key it comes from; a missing or empty value is a UserError naming the key. A list of
   * keys is used in turn, one per provider call (NeMo Gym's tavily_search rotates its keys so).
   */
  apiKey: { configKey: string; value: unknown };
  buildRequest(query: SearchQuery, apiKey: string): ProviderRequest;
  /** The result of a 2xx answer; throwing here is a failed call (not retried). */
  parseResponse(response: HttpResponse, query: SearchQuery): R;
  /** A shared HttpClient; else the backend owns one. */
  http?: HttpClient;
}

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** Retry-After in ms (delta-seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The API key from a config value: a non-empty string, else a UserError naming the key. */
export function requireApiKey(configKey: string, value: unknown, provider: string): string {
  if (typeof value !== "string" || value.trim() === "" || value === "???") {
    throw new UserError(`${configKey} is not set: ${provider} needs an API key (set ${configKey} in env.yaml or on the command line), or configure a search fixture instead`);
  }
  return value;
}

export class ProviderSearchBackend<R = unknown> implements SearchBackend<R> {
  readonly label: string;
  private readonly apiKeys: string[];
  private keyTurn = 0;
  private readonly http: HttpClient;
  private readonly ownsHttp: boolean;
  private readonly cache: SearchCache | undefined;
  private readonly spacer: RequestSpacer | undefined;
  private readonly inFlight = new Map<string, Promise<R>>();
  private readonly settings: Required<Omit<SearchBackendSettings, "requestsPerSecond" | "cachePath" | "cache">>;
  /** Calls that reached the provider (attempts included), for tests and logs. */
  providerCalls = 0;

  constructor(private readonly options: ProviderSearchBackendOptions<R>) {
    this.label = options.provider;
    const { configKey, value } = options.apiKey;
    this.apiKeys = Array.isArray(value) && value.length > 0 ? value.map((key, i) => requireApiKey(`${configKey}[${i}]`, key, options.provider)) : [requireApiKey(configKey, value, options.provider)];
    this.settings = {
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      attemptDeadlineMs: options.attemptDeadlineMs ?? 30_000,
      deadlineMs: options.deadlineMs ?? 120_000,
      maxRetries: options.maxRetries ?? 3,
      backoffMs: options.backoffMs ?? 500,
      maxBackoffMs: options.maxBackoffMs ?? 30_000,
    };
    this.ownsHttp = options.http === undefined;
    // Retries are this backend's (it sees statuses); the client retries only connects that never sent a byte.
    this.http = options.http ?? new HttpClient({ connectTimeoutMs: this.settings.connectTimeoutMs, deadlineMs: this.settings.attemptDeadlineMs, maxRetries: 0, connectionsPerOrigin: 64 });
    this.cache = options.cache === false ? undefined : options.cachePath ? sharedSqliteCache(options.cachePath) : new MemorySearchCache();
    this.spacer = options.requestsPerSecond ? new RequestSpacer(options.requestsPerSecond) : undefined;
  }

  private cacheKey(query: SearchQuery): string {
    return createHash("sha256").update(`${this.options.provider}\n${searchQueryKey(query)}`).digest("hex");
  }

  async search(query: SearchQuery, options: SearchOptions = {}): Promise<R> {
    const key = this.cacheKey(query);
    const cached = this.cache?.get(key);
    if (cached !== undefined) return cached as R;
    // Concurrent calls for one query share one provider call.
    const pending = this.inFlight.get(key);
    if (pending) return structuredClone(await pending);
    const call = this.callProvider(query, options.signal).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, call);
    const result = await call;
    this.cache?.set(key, result);
    return result;
  }

  private async callProvider(query: SearchQuery, signal: AbortSignal | undefined): Promise<R> {
    const { provider } = this.options;
    const deadline = AbortSignal.timeout(this.settings.deadlineMs);
    const overall = signal ? AbortSignal.any([deadline, signal]) : deadline;
    const startedAt = Date.now();
    const request = this.options.buildRequest(query, this.apiKeys[this.keyTurn++ % this.apiKeys.length]!);
    let lastReason = "no attempt";
    let lastStatus: number | undefined;
    for (let attempt = 1; ; attempt++) {
      let waitMs: number | undefined;
      try {
        await this.spacer?.acquire(overall);
        this.providerCalls++;
        const remaining = this.settings.deadlineMs - (Date.now() - startedAt);
        const response = await this.http.request(request.url, {
          method: request.method ?? (request.json === undefined ? "GET" : "POST"),
          headers: request.headers,
          json: request.json,
          deadlineMs: Math.max(1, Math.min(this.settings.attemptDeadlineMs, remaining)),
          signal: overall,
          // A search is a read: sending it again cannot apply anything twice.
          idempotent: true,
          maxRetries: 0,
        });
        lastStatus = response.status;
        if (response.ok) {
          try {
            return this.options.parseResponse(response, query);
          } catch (error) {
            throw new SearchProviderError(provider, `answered ${response.status} with a body this port cannot read: ${(error as Error).message}`, attempt, response.status);
          }
        }
        lastReason = `HTTP ${response.status}: ${response.text.slice(0, 300)}`;
        if (!RETRYABLE_STATUS.has(response.status)) throw new SearchProviderError(provider, lastReason, attempt, response.status);
        waitMs = retryAfterMs(response.headers["retry-after"]);
      } catch (error) {
        if (error instanceof SearchProviderError) throw error;
        if (signal?.aborted) throw error;
        if (deadline.aborted) throw new SearchProviderError(provider, `no answer within the ${this.settings.deadlineMs} ms deadline (last: ${lastReason})`, attempt, lastStatus);
        if (error instanceof TransportError || error instanceof DeadlineExceededError) lastReason = error.message;
        else throw error;
      }
      if (attempt > this.settings.maxRetries) throw new SearchProviderError(provider, lastReason, attempt, lastStatus);
      const backoff = Math.min(this.settings.maxBackoffMs, waitMs ?? this.settings.backoffMs * 2 ** (attempt - 1));
      const remaining = this.settings.deadlineMs - (Date.now() - startedAt);
      if (backoff >= remaining) throw new SearchProviderError(provider, `${lastReason} (the next retry, in ${backoff} ms, would pass the ${this.settings.deadlineMs} ms deadline)`, attempt, lastStatus);
      try {
        await sleep(backoff, overall);
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new SearchProviderError(provider, `no answer within the ${this.settings.deadlineMs} ms deadline (last: ${lastReason})`, attempt, lastStatus);
      }
    }
  }

  async close(): Promise<void> {
    this.cache?.close();
    if (this.ownsHttp) await this.http.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Config

/**
 * The config keys every search environment of this port reads besides NeMo Gym's own (none of them exists in NeMo
 * Gym, which always calls the live provider with fixed settings):
 *   search_fixture_path         JSONL fixture; when set, no provider is called and no API key is needed
 *   search_cache_path           SQLite file for the result cache (memory when unset)
 *   search_cache                false: no cache
 *   search_requests_per_second  spacing of provider calls (unlimited when unset)
 *   search_max_retries          retries after 429/408/5xx/transport failures (default 3)
 *   search_retry_backoff_s      the first wait before a retry, doubled per retry, when no Retry-After (default 0.5)
 *   search_connect_timeout_s, search_attempt_timeout_s, search_deadline_s   (10, 30, 120)
 *   search_base_url             the provider's base URL (its public one by default; tests point it at loopback)
 */
export const SEARCH_BACKEND_CONFIG_KEYS = [
  "search_fixture_path",
  "search_cache_path",
  "search_cache",
  "search_requests_per_second",
  "search_max_retries",
  "search_retry_backoff_s",
  "search_connect_timeout_s",
  "search_attempt_timeout_s",
  "search_deadline_s",
  "search_base_url",
] as const;

/** The search keys a server's config takes, as one zod shape to spread into the server's schema. */
export const searchBackendConfigShape = {
  search_fixture_path: z.string().nullish(),
  search_cache_path: z.string().nullish(),
  search_cache: z.boolean().nullish(),
  search_requests_per_second: z.number().nullish(),
  search_max_retries: z.number().int().nullish(),
  search_retry_backoff_s: z.number().nullish(),
  search_connect_timeout_s: z.number().nullish(),
  search_attempt_timeout_s: z.number().nullish(),
  search_deadline_s: z.number().nullish(),
  search_base_url: z.string().nullish(),
};

export type SearchBackendConfig = Partial<z.output<z.ZodObject<typeof searchBackendConfigShape>>>;

const positive = (key: string, value: unknown): number | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !(value > 0)) throw new UserError(`${key}: expected a positive number, got ${JSON.stringify(value)}`);
  return value;
};

/** The backend settings a config gives (validated; a bad value is a UserError naming the key). */
export function searchBackendSettings(config: SearchBackendConfig): SearchBackendSettings {
  const seconds = (key: keyof SearchBackendConfig) => {
    const value = positive(key, config[key]);
    return value === undefined ? undefined : value * 1000;
  };
  const retries = config.search_max_retries;
  if (retries !== undefined && retries !== null && !(Number.isInteger(retries) && retries >= 0)) {
    throw new UserError(`search_max_retries: expected a non-negative integer, got ${JSON.stringify(retries)}`);
  }
  return {
    connectTimeoutMs: seconds("search_connect_timeout_s"),
    attemptDeadlineMs: seconds("search_attempt_timeout_s"),
    deadlineMs: seconds("search_deadline_s"),
    maxRetries: retries ?? undefined,
    backoffMs: seconds("search_retry_backoff_s"),
    requestsPerSecond: positive("search_requests_per_second", config.search_requests_per_second) ?? null,
    cachePath: config.search_cache_path ?? null,
    cache: config.search_cache !== false,
  };
}

/**
 * The fixture backend when the config names one (relative paths resolve against `baseDir`, the server's folder),
 * else the provider backend `provider()` builds — which checks its API key then, at start.
 */
export function searchBackendFromConfig<R>(config: SearchBackendConfig, baseDir: string, provider: (settings: SearchBackendSettings) => SearchBackend<R>): SearchBackend<R> {
  const settings = searchBackendSettings(config);
  if (config.search_fixture_path) return new FixtureSearchBackend<R>(resolve(baseDir, config.search_fixture_path));
  return provider(settings);
}
