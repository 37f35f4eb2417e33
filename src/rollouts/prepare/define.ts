// What a benchmark's prepare module declares (benchmarks/<name>/prepare.ts, the port of NeMo Gym's prepare.py):
// where its rows come from and how one source row becomes the benchmark's row(s). The runner (run.ts) does the
// rest the same way for every benchmark: download (resumable, checksummed), read, convert, write atomically, record.
//
// Rows are Python values (what NeMo Gym's script saw): an int is a bigint, a float a number, so that the written
// JSON is byte-identical to Python's json.dumps (`3` vs `3.0`). Parquet int columns and JSON ints arrive as bigint.
import { floatRepr } from "../../python/float.ts";

export type Row = Record<string, any>;

/** `load_dataset(repo, config, split=split)`: the dataset's Parquet files for that config and split. */
export interface HubSource {
  kind: "huggingface";
  repo: string;
  split: string;
  config?: string;
  /**
   * `revision=` of load_dataset: read that revision's own Parquet files (`<config>/<split>-*.parquet`) instead of
   * the viewer's conversion. Requires `config`.
   */
  revision?: string;
  /** Handed to `convert` (a language, a subject): which part of the benchmark this source is. */
  tag?: string;
}

/**
 * A public file fetched as is (`urllib.request.urlretrieve(URL, …)` in NeMo Gym's script): JSON Lines give one
 * row per line (gzipped ones, `jsonl.gz`, as the libraries that fetch them read them); a tar archive one row per
 * regular file, `{name, data}` (data a Buffer), in archive order; a CSV the rows `pandas.read_csv(path, index_col=0)`
 * gives (src/python/pandas-csv.ts); a zip archive one row `{name, members}` (every regular file `{name, data}`, in
 * central-directory order: a script that extracts a whole repository archive reads it as one tree); any other file
 * one row `{name, data}` (data a Buffer).
 */
export interface UrlSource {
  kind: "url";
  url: string;
  format: "jsonl" | "jsonl.gz" | "tar" | "zip" | "pandas-csv" | "file";
  /** The file must have this digest (a file pinned by its publisher's commit); a download with another is refused. */
  sha256?: string;
  tag?: string;
}

/**
 * One file of a dataset repo's main branch (`hf://datasets/<repo>/<path>`, as `load_dataset("json", data_files=…)`
 * reads it): a zip archive of JSON files, read as `datasets`' json builder reads an extracted archive (files in
 * its walk order, each JSON Lines or one JSON array of objects).
 */
export interface HubFileSource {
  kind: "huggingface-file";
  repo: string;
  path: string;
  format: "json-zip";
  revision?: string;
  tag?: string;
}

export type Source = HubSource | UrlSource | HubFileSource;

export const huggingFace = (repo: string, split: string, options: { config?: string; revision?: string; tag?: string } = {}): HubSource => ({ kind: "huggingface", repo, split, ...options });
export const hubFile = (repo: string, path: string, options: { revision?: string; tag?: string } = {}): HubFileSource => ({ kind: "huggingface-file", repo, path, format: "json-zip", ...options });
export const url = (href: string, options: { format?: UrlSource["format"]; tag?: string; sha256?: string } = {}): UrlSource => ({
  kind: "url",
  url: href,
  format: options.format ?? "jsonl",
  ...(options.tag ? { tag: options.tag } : {}),
  ...(options.sha256 ? { sha256: options.sha256 } : {}),
});

/** What `sources` may ask before the downloads start: the Hub (`get_dataset_config_names`), or a file's bytes. */
export interface SourceLookups {
  configNames(repo: string): Promise<string[]>;
  /**
   * A URL source's bytes, fetched (cached, checksummed) before the others: a file whose content decides what else is
   * downloaded (NeMo Gym's default language list is the keys of a metadata file).
   */
  file(source: UrlSource): Promise<Buffer>;
}

export interface ConvertContext<Args, State> {
  /** NeMo Gym's prepare() keyword arguments (`+prepare_script_args.<name>=…`) over the module's defaults. */
  args: Args;
  source: Source;
  tag: string | undefined;
  /** The row's position in its source, from 0. */
  index: number;
  /** What `setup` made for this preparation (a seeded random generator, say). */
  state: State;
}

export interface PrepareSpec<Args extends Row, State> {
  /** The keyword arguments' defaults (NeMo Gym's prepare() signature). */
  defaults?: Args;
  sources: readonly Source[] | ((args: Args, lookups: SourceLookups) => readonly Source[] | Promise<readonly Source[]>);
  /** Made once per preparation, before any row is converted (a seeded random generator, a tokenizer). */
  setup?: (args: Args) => State | Promise<State>;
  /** One source row → its benchmark row, several rows, or none (skipped). */
  convert(row: Row, context: ConvertContext<Args, State>): Row | Row[] | null | undefined;
  /** Rows made once every source is converted (a script that pairs rows across sources), after convert's. */
  finish?: (state: State, args: Args) => Row[];
  /** Python's json.dumps flavour the script writes with: `ensure_ascii` (Python's default, true). */
  ensureAscii?: boolean;
  /** The serializer the script writes rows with: `json.dumps` (the default) or `orjson.dumps` (compact, raw UTF-8). */
  dumps?: "json" | "orjson";
  /**
   * Why this benchmark cannot be prepared here, in one line: `gym eval prepare` stops with it before fetching
   * anything (sources and convert are then never used).
   */
  refuse?: string;
  /** A check over all rows before anything is written (NeMo Gym's script raising on a bad row). */
  validate?: (rows: readonly Row[]) => void;
}

export interface PrepareModule<Args extends Row = Row, State = unknown> extends PrepareSpec<Args, State> {
  readonly kind: "gym-prepare-module";
}

export function definePrepare<Args extends Row = Row, State = undefined>(spec: PrepareSpec<Args, State>): PrepareModule<Args, State> {
  return { ...spec, kind: "gym-prepare-module" };
}

export const isPrepareModule = (value: unknown): value is PrepareModule => typeof value === "object" && value !== null && (value as PrepareModule).kind === "gym-prepare-module";

/** Python's `str(value)` of a row value (`str(row["answer"])`): an int as digits, a float as repr(float). */
export function str(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return floatRepr(value);
  if (typeof value === "string") return value;
  throw new TypeError(`str() of a ${Array.isArray(value) ? "list" : typeof value} is not needed by any benchmark`);
}

/** Python's `int(value)` of an int, a whole float or digits. */
export function int(value: unknown): number {
  const n = typeof value === "bigint" ? Number(value) : typeof value === "number" ? Math.trunc(value) : typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) throw new TypeError(`int() of ${String(value)}`);
  return n;
}
