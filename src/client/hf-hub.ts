// The part of the Hugging Face Hub that `datasets.load_dataset(repo, config, split=…)` needs for the benchmarks
// NeMo Gym prepares: a dataset's Parquet files for one config and split, pinned to a commit. The Hub's dataset
// viewer converts every dataset to Parquet on the `refs/convert/parquet` branch (<config>/<split>/0000.parquet,
// …), whatever format the repo stores, so one route serves them all:
//   GET /api/datasets/{repo}/revision/{revision}      → {sha}: the commit, recorded so the preparation is reproducible
//   GET /api/datasets/{repo}/tree/{sha}/{path}        → [{type, path, size, lfs: {oid = sha256}}], paged by Link
//   GET /datasets/{repo}/resolve/{sha}/{path}         → the bytes (a redirect to the CDN)
// The repo's own files (`gym dataset download --artifact`) come the same way from the main branch's commit.
// Endpoint from HF_ENDPOINT and token from HF_TOKEN, as huggingface_hub reads them.
import type { Dispatcher } from "undici";
import { UserError } from "../config/errors.ts";

export const DEFAULT_HF_ENDPOINT = "https://huggingface.co";
export const PARQUET_REVISION = "refs/convert/parquet";

export interface HubOptions {
  endpoint?: string;
  token?: string;
  connectTimeoutMs?: number;
  /** How long the Hub may stay silent before its answer (or between two chunks of it). */
  idleTimeoutMs?: number;
  /** Attempts after the first, for transport errors, 5xx and 429. */
  maxRetries?: number;
  retryBackoffMs?: number;
}

/** One file in a repo listing; `sha256` is known for files stored in LFS (every Parquet file the Hub converts). */
export interface HubFile {
  path: string;
  size: number;
  sha256?: string;
}

/** A Parquet file to download for one config and split, with what pins it. */
export interface HubParquetFile extends HubFile {
  url: string;
  commit: string;
}

/** The Hub refused or does not have what was asked: always the user's to fix (a token, a name), one line. */
export class HubError extends UserError {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "HubError";
  }
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

export class HuggingFaceHub {
  readonly endpoint: string;
  private readonly token: string | undefined;
  private readonly options: HubOptions;

  constructor(options: HubOptions = {}) {
    this.endpoint = (options.endpoint ?? DEFAULT_HF_ENDPOINT).replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]/.test(this.endpoint)) throw new HubError(`HF_ENDPOINT '${this.endpoint}' is not an http(s) URL (default ${DEFAULT_HF_ENDPOINT})`);
    this.token = options.token || undefined;
    this.options = options;
  }

  /** HF_ENDPOINT and HF_TOKEN (also HUGGING_FACE_HUB_TOKEN, its older name), as huggingface_hub reads them. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env, options: Omit<HubOptions, "endpoint" | "token"> = {}): HuggingFaceHub {
    return new HuggingFaceHub({ ...options, endpoint: env.HF_ENDPOINT || undefined, token: env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN || undefined });
  }

  /** The Authorization header downloads of this Hub's files must carry too. */
  authHeaders(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  /** The commit a branch, tag or ref of a dataset repo points at now. */
  async datasetCommit(repo: string, revision = "main"): Promise<string> {
    const info = (await this.getJson(`/api/datasets/${repo}/revision/${encodeURIComponent(revision)}`, repo)) as { sha?: unknown };
    if (typeof info?.sha !== "string") throw new HubError(`Hugging Face dataset ${repo}: the Hub's answer for revision ${revision} has no commit sha`);
    return info.sha;
  }

  /** Files and folders under `path` (the repo root when empty) at `revision`, every page of the listing. */
  async listTree(repo: string, revision: string, path = ""): Promise<{ type: string; path: string; size: number; sha256?: string }[]> {
    const entries: { type: string; path: string; size: number; sha256?: string }[] = [];
    let next: string | undefined = `/api/datasets/${repo}/tree/${encodeURIComponent(revision)}${path ? `/${path.split("/").map(encodeURIComponent).join("/")}` : ""}`;
    while (next) {
      const page = await this.get(next, repo);
      const body = (await page.json()) as { type: string; path: string; size?: number; lfs?: { oid?: string } }[];
      if (!Array.isArray(body)) throw new HubError(`Hugging Face dataset ${repo}: the tree listing of ${path || "/"} is not a list`);
      for (const entry of body) entries.push({ type: entry.type, path: entry.path, size: entry.size ?? 0, ...(entry.lfs?.oid ? { sha256: entry.lfs.oid } : {}) });
      next = nextPage(page.link);
    }
    return entries;
  }

  /**
   * The configs (subsets) of a dataset in `get_dataset_config_names`' order: the `configs:` list of the dataset
   * card's YAML (README.md on main, which `datasets` builds its configs from, in that order) when it has one, else
   * the folders of the Parquet conversion (alphabetical, as the Hub lists them).
   */
  async configNames(repo: string): Promise<{ commit: string; configs: string[] }> {
    const card = await this.cardConfigNames(repo);
    const parquet = await this.parquetConfigs(repo);
    return { commit: parquet.commit, configs: card ?? parquet.configs };
  }

  /** The config names the dataset card lists, in order; undefined when it lists none. */
  async cardConfigNames(repo: string, revision = "main"): Promise<string[] | undefined> {
    const info = (await this.getJson(`/api/datasets/${repo}/revision/${encodeURIComponent(revision)}`, repo)) as { cardData?: { configs?: unknown } } | null;
    const configs = info?.cardData?.configs;
    if (!Array.isArray(configs)) return undefined;
    const names = configs.map((config) => (typeof config === "object" && config !== null ? (config as { config_name?: unknown }).config_name : undefined)).filter((name): name is string => typeof name === "string");
    return names.length > 0 ? names : undefined;
  }

  /** The configs as the Parquet conversion lays them out (`refs/convert/parquet`, one folder each), and its commit. */
  async parquetConfigs(repo: string): Promise<{ commit: string; configs: string[] }> {
    const commit = await this.datasetCommit(repo, PARQUET_REVISION);
    const configs = (await this.listTree(repo, commit)).filter((entry) => entry.type === "directory").map((entry) => entry.path);
    return { commit, configs };
  }

  /**
   * The config `load_dataset(repo, config)` reads and its splits. Without a config the dataset must have exactly
   * one (or one called "default"), as `load_dataset` requires.
   */
  async splitNames(repo: string, config?: string): Promise<{ commit: string; config: string; splits: string[] }> {
    const { commit, configs } = await this.configNames(repo);
    const chosen = config ?? (configs.length === 1 ? configs[0] : configs.includes("default") ? "default" : undefined);
    if (chosen === undefined) throw new HubError(`Hugging Face dataset ${repo} has several configs (${configs.join(", ")}); name one`);
    if (!configs.includes(chosen)) throw new HubError(`Hugging Face dataset ${repo} has no config '${chosen}' (it has: ${configs.join(", ") || "none"})`);
    const splits = (await this.listTree(repo, commit, chosen)).filter((entry) => entry.type === "directory").map((entry) => entry.path.slice(chosen.length + 1));
    return { commit, config: chosen, splits };
  }

  /** The Parquet files of `load_dataset(repo, config, split=split)`, in order. */
  async parquetFiles(repo: string, split: string, config?: string): Promise<HubParquetFile[]> {
    const { commit, config: chosen, splits } = await this.splitNames(repo, config);
    if (!splits.includes(split)) throw new HubError(`Hugging Face dataset ${repo} (config ${chosen}) has no split '${split}' (it has: ${splits.join(", ") || "none"})`);
    const files = (await this.listTree(repo, commit, `${chosen}/${split}`)).filter((entry) => entry.type === "file" && entry.path.endsWith(".parquet"));
    if (files.length === 0) throw new HubError(`Hugging Face dataset ${repo} (config ${chosen}, split ${split}) has no Parquet files`);
    return files
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .map((file) => ({ path: file.path, size: file.size, ...(file.sha256 ? { sha256: file.sha256 } : {}), commit, url: this.resolveUrl(repo, commit, file.path) }));
  }

  /**
   * The Parquet files of `load_dataset(repo, config, split=split, revision=revision)` for a revision that holds the
   * dataset as Parquet itself (what `datasets-cli convert_to_parquet` commits, and its pull requests hold:
   * `<config>/<split>-00000-of-0000N.parquet`), pinned to that revision's commit. Any other layout is refused in one
   * line naming what was looked for, rather than guessed at.
   */
  async parquetFilesAt(repo: string, revision: string, split: string, config: string): Promise<HubParquetFile[]> {
    const commit = await this.datasetCommit(repo, revision);
    const folders = (await this.listTree(repo, commit)).filter((entry) => entry.type === "directory").map((entry) => entry.path);
    if (!folders.includes(config)) throw new HubError(`Hugging Face dataset ${repo} at ${revision} has no folder ${config}/ (it has: ${folders.join(", ") || "none"}); expected ${config}/${split}-*.parquet`);
    const files = (await this.listTree(repo, commit, config)).filter((entry) => entry.type === "file" && entry.path.startsWith(`${config}/${split}-`) && entry.path.endsWith(".parquet"));
    if (files.length === 0) throw new HubError(`Hugging Face dataset ${repo} at ${revision} has no ${config}/${split}-*.parquet files`);
    return files
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .map((file) => ({ path: file.path, size: file.size, ...(file.sha256 ? { sha256: file.sha256 } : {}), commit, url: this.resolveUrl(repo, commit, file.path) }));
  }

  /** A file of the repo itself (`hf_hub_download(repo, path, repo_type="dataset")`), pinned to the commit `revision` is at now. */
  async repoFile(repo: string, path: string, revision = "main"): Promise<HubParquetFile> {
    const commit = await this.datasetCommit(repo, revision);
    const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    const entries = await this.listTree(repo, commit, folder);
    const file = entries.find((entry) => entry.type === "file" && entry.path === path);
    if (!file) {
      const names = entries.filter((entry) => entry.type === "file").map((entry) => entry.path);
      throw new HubError(`Hugging Face dataset ${repo} has no file '${path}' at ${revision} (${folder || "its root"} has: ${names.join(", ") || "none"})`);
    }
    return { path, size: file.size, ...(file.sha256 ? { sha256: file.sha256 } : {}), commit, url: this.resolveUrl(repo, commit, path) };
  }

  /** Where a file of a dataset repo is downloaded from (`hf_hub_download`'s URL). */
  resolveUrl(repo: string, revision: string, path: string): string {
    return `${this.endpoint}/datasets/${repo}/resolve/${encodeURIComponent(revision)}/${path.split("/").map(encodeURIComponent).join("/")}`;
  }

  private async getJson(path: string, repo: string): Promise<unknown> {
    return (await this.get(path, repo)).json();
  }

  /** One GET of the Hub's API, with the token, timeouts and bounded retries; a refusal is a HubError. */
  private async get(path: string, repo: string): Promise<{ json(): Promise<unknown>; link: string | undefined }> {
    const url = path.startsWith("http") ? path : `${this.endpoint}${path}`;
    const maxRetries = this.options.maxRetries ?? 3;
    // All of undici loads here, when the Hub is first asked (it costs a process ~100 ms to load), not with the module.
    const { Agent, interceptors } = await import("undici");
    const dispatcher: Dispatcher = new Agent({
      connect: { timeout: this.options.connectTimeoutMs ?? 10_000 },
      headersTimeout: this.options.idleTimeoutMs ?? 60_000,
      bodyTimeout: this.options.idleTimeoutMs ?? 60_000,
    }).compose(interceptors.redirect({ maxRedirections: 5 }));
    try {
      for (let attempt = 0; ; attempt++) {
        let failure: string;
        try {
          const parsed = new URL(url);
          const response = await dispatcher.request({
            origin: parsed.origin,
            path: parsed.pathname + parsed.search,
            method: "GET",
            headers: { "user-agent": "nemo-gym-ts", accept: "application/json", ...this.authHeaders() },
          });
          const text = await response.body.text();
          if (response.statusCode === 200) {
            const link = response.headers.link;
            return { json: async () => JSON.parse(text), link: typeof link === "string" ? link : undefined };
          }
          if (!RETRYABLE_STATUS.has(response.statusCode)) throw new HubError(refusal(repo, url, response.statusCode, text, this.token !== undefined), response.statusCode);
          failure = `HTTP ${response.statusCode}`;
        } catch (error) {
          if (error instanceof HubError) throw error;
          failure = (error as Error).message;
        }
        if (attempt >= maxRetries) throw new HubError(`Hugging Face Hub at ${this.endpoint}: ${url}: ${failure} after ${attempt + 1} attempt(s)`);
        await new Promise((resolve) => setTimeout(resolve, (this.options.retryBackoffMs ?? 1000) * 2 ** attempt));
      }
    } finally {
      await dispatcher.close();
    }
  }
}

function refusal(repo: string, url: string, status: number, body: string, hasToken: boolean): string {
  const detail = body.slice(0, 200).replace(/\s+/g, " ").trim();
  if (status === 401 || status === 403) {
    const what = hasToken ? "the token in HF_TOKEN may not read it" : "set HF_TOKEN to a Hugging Face token that may read it";
    return `Hugging Face dataset ${repo} is gated or private (HTTP ${status}): ${what} (and accept its terms on its page, /datasets/${repo})`;
  }
  if (status === 404) return `Hugging Face dataset ${repo}: not found (HTTP 404 for ${url})${detail ? `: ${detail}` : ""}`;
  return `Hugging Face dataset ${repo}: HTTP ${status} for ${url}${detail ? `: ${detail}` : ""}`;
}

/** The `rel="next"` URL of a Link header (the Hub pages long tree listings with a cursor). */
function nextPage(link: string | undefined): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(",")) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match) return match[1];
  }
  return undefined;
}
