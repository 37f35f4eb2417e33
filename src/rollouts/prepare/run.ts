// `gym eval prepare` (NeMo Gym's ng_prepare_benchmark): for every `type: benchmark` dataset of a benchmark config,
// run its prepare module (the port of its prepare_script) — download the sources into a cache (resumable,
// checksummed), convert the rows, write jsonl_fpath atomically — and record what was done next to it in
// `<jsonl_fpath>.prepare.json`: source URLs, the commit each Hugging Face source was read at, the sha256 of every
// downloaded file and of the output, the row count. A benchmark whose output still matches its record is left
// alone without touching the network; `force` prepares it again.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { DownloadError, downloadFile, sha256OfFile } from "../../client/download.ts";
import { HuggingFaceHub, PARQUET_REVISION } from "../../client/hf-hub.ts";
import { UserError } from "../../config/errors.ts";
import { isDict } from "../../config/dict.ts";
import { loadGlobalConfig, NO_MODEL_CONFIG } from "../../config/load.ts";
import { NEMO_GYM_PROMPT_SHA256, nemoGymRawBaseUrl } from "../../config/nemo-gym-files.ts";
import { resolveUnderRoots, searchRoots } from "../../config/paths.ts";
import { listServerInstances } from "../../config/servers.ts";
import type { ConfigDict } from "../../config/types.ts";
import { orjsonDumps, pythonJsonDumpsTyped } from "../../python/json-dumps.ts";
import { isPrepareModule, type PrepareModule, type Row, type Source, type SourceLookups } from "./define.ts";
import type { ProgressReporter } from "./progress.ts";
import { ensurePromptConfig } from "./prompts.ts";
import { readJsonlRows, readPandasCsvRows, readParquetRows } from "./readers.ts";
import { readTarMembers } from "./tar.ts";
import { readJsonZipRows, readZipMembers } from "./zip.ts";

export interface PrepareOptions {
  /** `--benchmark NAME`: benchmarks/NAME/config.yaml (or benchmarks/NAME.yaml for `a/b`) under the search roots. */
  benchmark?: string;
  configPaths?: readonly string[];
  /** Searched before NEMO_GYM_EXTRA_ROOTS, cwd and the project root. */
  searchDirs?: readonly string[];
  overrides?: readonly string[];
  force?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** One line of what happened, per benchmark. */
  print: (line: string) => void;
  progress: ProgressReporter;
  hub?: HuggingFaceHub;
  cacheDir?: string;
}

export interface PreparedBenchmark {
  name: string;
  jsonlPath: string;
  recordPath: string;
  rows: number;
  /** False when the output already matched its record and nothing was fetched. */
  prepared: boolean;
}

/** `<jsonl_fpath>.prepare.json`. */
export interface PrepareRecord {
  benchmark: string;
  prepare_script: string;
  module: string;
  args: Row;
  prepared_at: string;
  sources: SourceRecord[];
  output: { path: string; rows: number; bytes: number; sha256: string };
}

export interface SourceRecord {
  kind: Source["kind"];
  repo?: string;
  config?: string;
  split?: string;
  revision?: string;
  commit?: string;
  url?: string;
  rows: number;
  files: { url: string; bytes: number; sha256: string }[];
}

interface BenchmarkEntry {
  name: string;
  agent: string;
  jsonlFpath: string;
  prepareScript: string;
  promptConfig?: string;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.NEMO_GYM_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "nemo-gym-ts");
}

export async function prepareBenchmarks(options: PrepareOptions): Promise<PreparedBenchmark[]> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  const roots = searchRoots({ cwd, env, extraRoots: options.searchDirs });
  const configPaths = [...(options.benchmark ? [benchmarkConfigPath(options.benchmark, roots)] : []), ...(options.configPaths ?? []).map((path) => resolve(cwd, path))];
  if (configPaths.length === 0) throw new UserError("name a benchmark: gym eval prepare --benchmark <name> (e.g. --benchmark aime24) or --config benchmarks/<name>/config.yaml");
  const { resolved } = await loadGlobalConfig({
    configPaths,
    overrides: [...(options.overrides ?? [])],
    initialConfig: NO_MODEL_CONFIG,
    extraRoots: [...(options.searchDirs ?? [])],
    cwd,
    env,
    logger: { warn: (message) => process.stderr.write(`WARNING ${message}\n`) },
  });
  // Paths in a benchmark config (jsonl_fpath, prepare_script) are relative to the root it sits under.
  const base = rootOf(configPaths[0]!) ?? cwd;
  const entries = benchmarkEntries(resolved, { cwd, env, extraRoots: options.searchDirs });
  const args = isDict(resolved.prepare_script_args) ? (resolved.prepare_script_args as Row) : {};
  const useCached = resolved.use_cached_prepared_benchmarks === true;
  const prompts = promptPins(resolved, env);

  // Every module is found before anything is downloaded, as NeMo Gym validates all benchmarks first.
  const modules = await Promise.all(entries.map((entry) => loadPrepareModule(entry, [base, ...roots])));
  for (const [i, entry] of entries.entries()) {
    const refusal = modules[i]!.module.refuse;
    if (refusal) throw new UserError(`benchmark ${entry.name} cannot be prepared here: ${refusal}`);
  }
  const hub = options.hub ?? HuggingFaceHub.fromEnv(env);
  const cacheDir = options.cacheDir ?? defaultCacheDir(env);
  const results: PreparedBenchmark[] = [];
  for (const [i, entry] of entries.entries()) {
    const { module } = modules[i]!;
    const jsonlPath = resolve(base, entry.jsonlFpath);
    const recordPath = `${jsonlPath}.prepare.json`;
    const moduleArgs = { ...(module.defaults ?? {}), ...args };
    const shown = relative(cwd, jsonlPath) || jsonlPath;
    // NeMo Gym's prompt templates are not committed here: the run needs the pinned one, rows prepared or not.
    await ensurePromptConfig(entry.promptConfig, { base, roots, ...prompts, benchmark: entry.name, print: options.print });

    const current = options.force ? undefined : await upToDate(jsonlPath, recordPath, moduleArgs);
    if (current || (useCached && !options.force && existsSync(jsonlPath))) {
      const rows = current?.output.rows ?? countLines(jsonlPath);
      options.print(`${entry.name}: already prepared, nothing fetched (${shown}, ${rows} rows${current ? `, sha256 ${current.output.sha256.slice(0, 12)}…` : ""}); --force prepares it again`);
      results.push({ name: entry.name, jsonlPath, recordPath, rows, prepared: false });
      continue;
    }

    const context = { hub, cacheDir, force: options.force ?? false, progress: options.progress, benchmark: entry.name };
    const sourceRecords: SourceRecord[] = [];
    const lookups: SourceLookups = {
      configNames: async (repo) => (await hub.configNames(repo)).configs,
      file: async (source) => {
        const fetched = await fetchSource({ ...source, format: "file" }, context);
        sourceRecords.push(fetched.record);
        return fetched.rows[0]!.data as Buffer;
      },
    };
    const sources = typeof module.sources === "function" ? await module.sources(moduleArgs, lookups) : module.sources;
    const inputs: { source: Source; rows: Row[] }[] = [];
    for (const source of sources) {
      const fetched = await fetchSource(source, context);
      sourceRecords.push(fetched.record);
      inputs.push({ source, rows: fetched.rows });
    }
    const output = await convertRows(module, moduleArgs, inputs);
    const text = serializeRows(module, output);
    const bytes = Buffer.from(text, "utf8");
    writeAtomically(jsonlPath, bytes);
    const record: PrepareRecord = {
      benchmark: entry.name,
      prepare_script: entry.prepareScript,
      module: modules[i]!.rel,
      args: moduleArgs,
      prepared_at: new Date().toISOString(),
      sources: sourceRecords,
      output: { path: entry.jsonlFpath, rows: output.length, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") },
    };
    writeAtomically(recordPath, Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
    options.print(`${entry.name}: wrote ${output.length} rows to ${shown} (sha256 ${record.output.sha256.slice(0, 12)}…; sources and checksums in ${basename(recordPath)})`);
    results.push({ name: entry.name, jsonlPath, recordPath, rows: output.length, prepared: true });
  }
  return results;
}

/**
 * Where NeMo Gym's prompts come from: `nemo_gym_raw_base_url` (else NEMO_GYM_RAW_BASE_URL, else its repository at
 * the pinned commit), each checked against the pinned sha256 or the one `nemo_gym_prompt_sha256` gives for its path.
 */
function promptPins(resolved: ConfigDict, env: NodeJS.ProcessEnv): { baseUrl: string; sha256: Readonly<Record<string, string>> } {
  const baseUrl = resolved.nemo_gym_raw_base_url;
  if (baseUrl !== undefined && baseUrl !== null && (typeof baseUrl !== "string" || !/^https?:\/\/[^/]/.test(baseUrl))) throw new UserError(`nemo_gym_raw_base_url: ${JSON.stringify(baseUrl)} is not an http(s) URL`);
  const given = resolved.nemo_gym_prompt_sha256 ?? {};
  if (!isDict(given) || Object.values(given).some((digest) => typeof digest !== "string" || !/^[0-9a-fA-F]{64}$/.test(digest))) {
    throw new UserError("nemo_gym_prompt_sha256: must map prompt paths to sha256 digests (64 hex digits)");
  }
  return { baseUrl: typeof baseUrl === "string" ? baseUrl.replace(/\/+$/, "") : nemoGymRawBaseUrl(env), sha256: { ...NEMO_GYM_PROMPT_SHA256, ...(given as Record<string, string>) } };
}

/** Every source's rows through the module's convert, in order (what NeMo Gym's prepare() loop does). */
export async function convertRows(module: PrepareModule, args: Row, inputs: readonly { source: Source; rows: readonly Row[] }[]): Promise<Row[]> {
  const state = await module.setup?.(args);
  const output: Row[] = [];
  for (const { source, rows } of inputs) {
    rows.forEach((row, index) => {
      const converted = module.convert(row, { args, source, tag: source.tag, index, state });
      if (Array.isArray(converted)) output.push(...converted);
      else if (converted) output.push(converted);
    });
  }
  if (module.finish) output.push(...module.finish(state, args));
  module.validate?.(output);
  return output;
}

/** The JSONL text, each row as the module's Python script would json.dumps it. */
export function serializeRows(module: PrepareModule, rows: readonly Row[]): string {
  const dumps = module.dumps === "orjson" ? orjsonDumps : (row: Row) => pythonJsonDumpsTyped(row, { ensureAscii: module.ensureAscii ?? true });
  return rows.map((row) => `${dumps(row)}\n`).join("");
}

function benchmarkConfigPath(name: string, roots: readonly string[]): string {
  const rel = name.includes("/") ? `benchmarks/${name.replace(/\.yaml$/, "")}.yaml` : `benchmarks/${name}/config.yaml`;
  const located = resolveUnderRoots(rel, roots);
  if (!located.found) throw new UserError(`no benchmark '${name}': ${rel} is under none of the search roots (${roots.join(", ")})`);
  return located.path;
}

/** `<R>` of a config at `<R>/benchmarks/…`; undefined for a config elsewhere (then paths are relative to cwd). */
function rootOf(configPath: string): string | undefined {
  const at = configPath.lastIndexOf(`${sep}benchmarks${sep}`);
  return at < 0 ? undefined : configPath.slice(0, at) || sep;
}

/** The benchmark datasets of the config's agents: one per agent, each with a prepare_script (NeMo Gym's rules). */
function benchmarkEntries(resolved: ConfigDict, options: { cwd: string; env: NodeJS.ProcessEnv; extraRoots?: readonly string[] }): BenchmarkEntry[] {
  const agents = listServerInstances(resolved, { cwd: options.cwd, env: options.env, extraRoots: options.extraRoots, logger: { warn: () => undefined } }).filter(
    (instance) => instance.serverType === "responses_api_agents",
  );
  const entries: BenchmarkEntry[] = [];
  for (const agent of agents) {
    const datasets = (Array.isArray(agent.fields.datasets) ? agent.fields.datasets : []).filter((dataset): dataset is ConfigDict => isDict(dataset) && dataset.type === "benchmark");
    if (datasets.length > 1) {
      throw new UserError(`agent ${agent.instanceName} declares ${datasets.length} benchmark datasets (${datasets.map((d) => d.name).join(", ")}); a benchmark config must define a single one`);
    }
    const dataset = datasets[0];
    if (!dataset) continue;
    const missing = ["name", "jsonl_fpath", "prepare_script"].filter((key) => typeof dataset[key] !== "string");
    if (missing.length > 0) throw new UserError(`agent ${agent.instanceName}: its benchmark dataset has no ${missing.join(", ")}`);
    entries.push({
      name: dataset.name as string,
      agent: agent.instanceName,
      jsonlFpath: dataset.jsonl_fpath as string,
      prepareScript: dataset.prepare_script as string,
      ...(typeof dataset.prompt_config === "string" && dataset.prompt_config !== "" ? { promptConfig: dataset.prompt_config } : {}),
    });
  }
  if (entries.length === 0) {
    const names = agents.map((agent) => agent.instanceName);
    throw new UserError(
      `no benchmark config found: ${names.length > 0 ? `agents ${names.join(", ")} declare no 'benchmark' dataset` : "the config has no responses_api_agents instance"}; pass one with gym eval prepare --benchmark <name> (e.g. --benchmark aime24)`,
    );
  }
  return entries;
}

/** NeMo Gym's prepare_script `benchmarks/x/prepare.py` is ported as the sibling `benchmarks/x/prepare.ts`. */
async function loadPrepareModule(entry: BenchmarkEntry, roots: readonly string[]): Promise<{ module: PrepareModule; modulePath: string; rel: string }> {
  const rel = entry.prepareScript.replace(/\.py$/, ".ts");
  const located = resolveUnderRoots(rel, roots);
  if (!located.found) throw new UserError(`benchmark ${entry.name}: no prepare module ${rel} (the port of its prepare_script ${entry.prepareScript}) under ${[...new Set(roots)].join(", ")}`);
  const imported = (await import(pathToFileURL(located.path).href)) as { default?: unknown };
  if (!isPrepareModule(imported.default)) throw new UserError(`benchmark ${entry.name}: ${located.path} has no default export made with definePrepare(...)`);
  return { module: imported.default, modulePath: located.path, rel };
}

async function upToDate(jsonlPath: string, recordPath: string, args: Row): Promise<PrepareRecord | undefined> {
  if (!existsSync(jsonlPath) || !existsSync(recordPath)) return undefined;
  let record: PrepareRecord;
  try {
    record = JSON.parse(readFileSync(recordPath, "utf8")) as PrepareRecord;
  } catch {
    return undefined;
  }
  if (JSON.stringify(record.args ?? {}) !== JSON.stringify(args)) return undefined;
  return (await sha256OfFile(jsonlPath)) === record.output?.sha256 ? record : undefined;
}

interface FetchContext {
  hub: HuggingFaceHub;
  cacheDir: string;
  force: boolean;
  progress: ProgressReporter;
  benchmark: string;
}

async function fetchSource(source: Source, context: FetchContext): Promise<{ rows: Row[]; record: SourceRecord }> {
  if (source.kind === "huggingface") {
    if (source.revision !== undefined && source.config === undefined) throw new Error(`${context.benchmark}: a Hugging Face source at a revision needs its config`);
    const files = source.revision === undefined ? await context.hub.parquetFiles(source.repo, source.split, source.config) : await context.hub.parquetFilesAt(source.repo, source.revision, source.split, source.config!);
    const rows: Row[] = [];
    const fileRecords: SourceRecord["files"] = [];
    for (const file of files) {
      const dest = join(context.cacheDir, "huggingface", "datasets", ...source.repo.split("/"), file.commit, ...file.path.split("/"));
      const done = await download(file.url, dest, context, { expectedSha256: file.sha256, headers: context.hub.authHeaders(), label: `${source.repo}/${file.path}` });
      fileRecords.push({ url: file.url, bytes: done.bytes, sha256: done.sha256 });
      rows.push(...(await readParquetRows(dest)));
    }
    const config = files[0]!.path.split("/")[0]!;
    return { rows, record: { kind: source.kind, repo: source.repo, config, split: source.split, revision: source.revision ?? PARQUET_REVISION, commit: files[0]!.commit, rows: rows.length, files: fileRecords } };
  }
  if (source.kind === "huggingface-file") {
    const revision = source.revision ?? "main";
    const commit = await context.hub.datasetCommit(source.repo, revision);
    const slash = source.path.lastIndexOf("/");
    const listed = (await context.hub.listTree(source.repo, commit, slash < 0 ? "" : source.path.slice(0, slash))).find((entry) => entry.path === source.path && entry.type === "file");
    if (!listed) throw new UserError(`${context.benchmark}: Hugging Face dataset ${source.repo} has no file ${source.path} at ${revision} (${commit})`);
    const fileUrl = context.hub.resolveUrl(source.repo, commit, source.path);
    const dest = join(context.cacheDir, "huggingface", "datasets", ...source.repo.split("/"), commit, ...source.path.split("/"));
    const done = await download(fileUrl, dest, context, { expectedSha256: listed.sha256, headers: context.hub.authHeaders(), label: `${source.repo}/${source.path}` });
    const rows = await readJsonZipRows(dest, `hf://datasets/${source.repo}/${source.path}`);
    return { rows, record: { kind: source.kind, repo: source.repo, revision, commit, rows: rows.length, files: [{ url: fileUrl, bytes: done.bytes, sha256: done.sha256 }] } };
  }
  // A plain URL may change under the same name: cached per URL, fetched again with --force.
  const dest = join(context.cacheDir, "url", createHash("sha256").update(source.url).digest("hex").slice(0, 16), basename(new URL(source.url).pathname) || "file");
  if (context.force) rmSync(dest, { force: true });
  const done = await download(source.url, dest, context, { label: source.url, expectedSha256: source.sha256 });
  const rows =
    source.format === "tar"
      ? readTarMembers(dest).map((member) => ({ ...member }))
      : source.format === "zip"
        ? [{ name: basename(dest), members: await readZipMembers(dest) }]
        : source.format === "pandas-csv"
          ? readPandasCsvRows(dest, source.url)
          : source.format === "file"
            ? [{ name: basename(dest), data: readFileSync(dest) }]
            : readJsonlRows(dest, source.url, { gzip: source.format === "jsonl.gz" });
  return { rows, record: { kind: source.kind, url: source.url, rows: rows.length, files: [{ url: source.url, bytes: done.bytes, sha256: done.sha256 }] } };
}

async function download(url: string, dest: string, context: FetchContext, options: { expectedSha256?: string; headers?: Record<string, string>; label: string }) {
  const progress = context.progress.file(options.label);
  try {
    const result = await downloadFile({ url, dest, expectedSha256: options.expectedSha256, headers: options.headers, onProgress: (bytes, total) => progress.update(bytes, total) });
    progress.done({ bytes: result.bytes, fetched: !result.alreadyPresent, resumedFromBytes: result.resumedFromBytes });
    return result;
  } catch (error) {
    progress.fail();
    if (error instanceof DownloadError) throw new UserError(`${context.benchmark}: ${error.message}`);
    throw error;
  }
}

function writeAtomically(path: string, bytes: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, bytes);
  renameSync(temp, path);
}

function countLines(path: string): number {
  return readFileSync(path, "utf8").split("\n").filter((line) => line.trim() !== "").length;
}
