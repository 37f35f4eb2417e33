// NeMo Gym's dataset metrics (train_data_utils.py: AvgMinMax, DatasetMetrics, compute_sample_metrics,
// aggregate_other_metrics), as `gym dataset collate` writes them: `<stem>_metrics.json` next to each dataset and
// `<type>_metrics.json` in the output folder, each the dataset's config fields followed by
//   "Number of examples", "Number of tools", "Json-dumped number of words (proxy for token count)",
//   "Number of turns", "Temperature" (each {Total # non-null values, Average, Min, Max, Standard deviation}),
// then one entry per other top-level row field: numbers (and booleans, as 0/1; list items one by one) as the same
// five stats, strings as {unique_count, total_count}. Stats are rounded to 2 decimals at |x| ≥ 1, else 3 (Python's
// round, half to even on an exact tie). Values are kept in Python's model (ints bigint, floats number, dicts Maps)
// so the file is byte-identical to `json.dump(…, indent=4)` of the pydantic model_dump.
import { ResponseCreateParamsSchema } from "../protocol/index.ts";
import { pythonRound } from "../python/float.ts";
import { pythonJsonDumps, pythonJsonDumpsTyped } from "../python/json-dumps.ts";
import { pythonEquals, pythonRepr, type PyValue } from "../python/values.ts";
import { InputError, type Row } from "./jsonl.ts";

/** Running count, mean, M2 (Welford / Chan), min and max; merged exactly the way NeMo Gym merges them. */
export class AvgMinMax {
  total = 0;
  mean = 0;
  m2 = 0;
  min = Infinity;
  max = -Infinity;

  static of(x: number): AvgMinMax {
    const stats = new AvgMinMax();
    stats.observe(x);
    return stats;
  }

  observe(x: number): void {
    if (x < this.min) this.min = x;
    if (x > this.max) this.max = x;
    this.total += 1;
    const delta = x - this.mean;
    this.mean += delta / this.total;
    this.m2 += delta * (x - this.mean);
  }

  /** NeMo Gym's `_add`: the parallel-variance merge (every per-row stat reaches its dataset this way). */
  add(other: AvgMinMax): void {
    if (other.total === 0) return;
    if (this.total === 0) {
      Object.assign(this, { total: other.total, mean: other.mean, m2: other.m2, min: other.min, max: other.max });
      return;
    }
    const n1 = this.total;
    const n2 = other.total;
    const delta = other.mean - this.mean;
    const n = n1 + n2;
    this.mean = this.mean + delta * (n2 / n);
    this.m2 = this.m2 + other.m2 + delta * delta * ((n1 * n2) / n);
    this.total = n;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }

  /** The dumped, rounded form (`AvgMinMax._aggregate().model_dump(by_alias=True)`). */
  summary(): Map<string, PyValue> {
    const n = this.total;
    const stats: [string, number][] = [
      ["Average", n > 0 ? this.mean : 0],
      ["Min", n > 0 ? this.min : 0],
      ["Max", n > 0 ? this.max : 0],
      ["Standard deviation", n > 1 ? Math.sqrt(this.m2 / (n - 1)) : 0],
    ];
    return new Map<string, PyValue>([["Total # non-null values", BigInt(n)], ...stats.map(([key, x]): [string, PyValue] => [key, roundMetric(x)])]);
  }
}

const roundMetric = (x: number): number => pythonRound(x, x >= 1 || x <= -1 ? 2 : 3);

/** What DatasetMetrics accumulates; `others` holds the finished summaries of the other row fields. */
export class DatasetMetrics {
  examples = 0;
  tools = new AvgMinMax();
  words = new AvgMinMax();
  turns = new AvgMinMax();
  temperature = new AvgMinMax();
  others = new Map<string, PyValue>();

  add(other: DatasetMetrics): void {
    this.examples += other.examples;
    this.tools.add(other.tools);
    this.words.add(other.words);
    this.turns.add(other.turns);
    this.temperature.add(other.temperature);
    // Not merged: a later dataset's summary of a field replaces an earlier one's (NeMo Gym's setattr), in place.
    for (const [key, value] of other.others) this.others.set(key, value);
  }

  dump(): Map<string, PyValue> {
    return new Map<string, PyValue>([
      ["Number of examples", BigInt(this.examples)],
      ["Number of tools", this.tools.summary()],
      ["Json-dumped number of words (proxy for token count)", this.words.summary()],
      ["Number of turns", this.turns.summary()],
      ["Temperature", this.temperature.summary()],
      ...this.others,
    ]);
  }
}

/** DatasetMetrics' own attribute names: a row field so named would overwrite (or crash) NeMo Gym's counters. */
const RESERVED_FIELDS = new Set(["is_aggregated", "number_of_examples", "number_of_tools", "json_dumped_number_of_words", "number_of_turns", "temperature"]);

/** One dataset's rows, in file order with repeats, to its metrics (DatasetValidatorState). */
export class DatasetMetricsBuilder {
  readonly metrics = new DatasetMetrics();
  private readonly others = new Map<string, AvgMinMax | Map<string, number>>();

  constructor(private readonly file: string) {}

  addRow(row: Row, lineNumber: number): void {
    this.metrics.add(sampleMetrics(row));
    this.observeOthers(row, lineNumber);
  }

  /** `postprocess_other_metrics`: the other fields' summaries, after the last row. */
  finish(): DatasetMetrics {
    for (const [key, stats] of this.others) {
      this.metrics.others.set(
        key,
        stats instanceof AvgMinMax
          ? stats.summary()
          : new Map<string, PyValue>([
              ["unique_count", BigInt(stats.size)],
              ["total_count", BigInt([...stats.values()].reduce((a, b) => a + b, 0))],
            ]),
      );
    }
    return this.metrics;
  }

  /** `aggregate_other_metrics`: every top-level field but the request and the response. */
  private observeOthers(row: Row, lineNumber: number): void {
    for (const [key, value] of Object.entries(row)) {
      if (key === "responses_create_params" || key === "response") continue;
      for (let item of Array.isArray(value) ? value : [value]) {
        if (typeof item === "boolean") item = item ? 1 : 0;
        const kind = typeof item === "number" ? "number" : typeof item === "string" ? "string" : undefined;
        if (kind === undefined) continue;
        if (RESERVED_FIELDS.has(key)) {
          throw new InputError(`${this.file}:${lineNumber}: the top-level field '${key}' has the name of one of NeMo Gym's dataset metrics, which its data preparation cannot summarize; rename it`);
        }
        let stats = this.others.get(key);
        if (stats === undefined) this.others.set(key, (stats = kind === "number" ? new AvgMinMax() : new Map<string, number>()));
        if ((kind === "number") !== stats instanceof AvgMinMax) {
          throw new InputError(`${this.file}:${lineNumber}: '${key}' holds both numbers and strings across rows; NeMo Gym's data preparation fails on such a field (make it one type)`);
        }
        if (stats instanceof AvgMinMax) stats.observe(item as number);
        else stats.set(item as string, (stats.get(item as string) ?? 0) + 1);
      }
    }
  }
}

/** `compute_sample_metrics` of a row the protocol accepts. */
export function sampleMetrics(row: Row): DatasetMetrics {
  const raw = row.responses_create_params;
  const parsed = ResponseCreateParamsSchema.safeParse(raw);
  if (!parsed.success) throw new InputError(`responses_create_params does not validate: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  const params = setFields(parsed.data, raw) as Record<string, unknown>;
  const metrics = new DatasetMetrics();
  metrics.examples = 1;
  if (params.tools !== undefined && params.tools !== null) metrics.tools.observe((params.tools as unknown[]).length);
  const inputs = typeof params.input === "string" ? [{ role: "user", content: params.input }] : (params.input as Row[] | undefined);
  const userTurns = (inputs ?? []).filter((item) => item !== null && typeof item === "object" && item.role === "user").length;
  if (userTurns > 0) metrics.turns.observe(userTurns);
  if (typeof params.temperature === "number") metrics.temperature.observe(params.temperature);
  metrics.words.observe(wordCount(pythonJsonDumps(params)));
  return metrics;
}

/**
 * `model_dump(exclude_unset=True)` of the validated request: what validation kept, limited to the fields the row
 * set (defaults left out). Key order does not matter to what is measured (the words of its json.dumps).
 */
function setFields(parsed: unknown, raw: unknown): unknown {
  if (Array.isArray(parsed) && Array.isArray(raw)) return parsed.map((item, i) => setFields(item, raw[i]));
  if (isObject(parsed) && isObject(raw)) {
    return Object.fromEntries(Object.entries(parsed).filter(([key]) => key in raw).map(([key, value]) => [key, setFields(value, raw[key])]));
  }
  return parsed;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** `len(text.split())`: ensure_ascii JSON has no whitespace but spaces (the rest is escaped). */
const wordCount = (text: string): number => text.split(" ").filter((word) => word !== "").length;

/** A dataset config entry as pydantic dumps it (DatasetConfig / BenchmarkDatasetConfig, mode="json"). */
export function datasetConfigDump(entry: Row): Map<string, PyValue> {
  const str = (value: unknown): PyValue => (typeof value === "string" ? value : null);
  const repeats = BigInt(typeof entry.num_repeats === "number" ? entry.num_repeats : 1);
  if (entry.type === "benchmark") {
    return new Map<string, PyValue>([
      ["name", str(entry.name)],
      ["type", "benchmark"],
      ["jsonl_fpath", str(entry.jsonl_fpath)],
      ["prepare_script", str(entry.prepare_script)],
      ["prompt_config", str(entry.prompt_config)],
      ["num_repeats", repeats],
    ]);
  }
  const { source, gitlab, huggingface } = datasetSources(entry);
  return new Map<string, PyValue>([
    ["name", str(entry.name)],
    ["type", str(entry.type)],
    ["jsonl_fpath", str(entry.jsonl_fpath)],
    ["num_repeats", repeats],
    ["source", source],
    ["gitlab_identifier", gitlab],
    ["huggingface_identifier", huggingface],
    ["license", str(entry.license)],
  ]);
}

/**
 * DatasetConfig.normalize_dataset_source: `source: {type, …}` back-fills the matching legacy identifier, and one
 * legacy identifier alone is mirrored into `source` (both legacy ones set: source stays null).
 */
function datasetSources(entry: Row): { source: PyValue; gitlab: PyValue; huggingface: PyValue } {
  const gitlabOf = (v: Row) => new Map<string, PyValue>([["dataset_name", v.dataset_name as string], ["version", v.version as string], ["artifact_fpath", v.artifact_fpath as string]]);
  const hfOf = (v: Row) => new Map<string, PyValue>([["repo_id", v.repo_id as string], ["artifact_fpath", typeof v.artifact_fpath === "string" ? v.artifact_fpath : null]]);
  const withType = (type: string, fields: Map<string, PyValue>) => new Map<string, PyValue>([["type", type], ...fields]);
  const source = isObject(entry.source) ? entry.source : undefined;
  if (source) {
    if (source.type === "gitlab") return { source: withType("gitlab", gitlabOf(source)), gitlab: gitlabOf(source), huggingface: null };
    return { source: withType("huggingface", hfOf(source)), gitlab: null, huggingface: hfOf(source) };
  }
  const gitlab = isObject(entry.gitlab_identifier) ? gitlabOf(entry.gitlab_identifier) : null;
  const huggingface = isObject(entry.huggingface_identifier) ? hfOf(entry.huggingface_identifier) : null;
  const mirrored = gitlab && !huggingface ? withType("gitlab", gitlab) : huggingface && !gitlab ? withType("huggingface", huggingface) : null;
  return { source: mirrored, gitlab, huggingface };
}

/** `d.model_dump(mode="json") | metrics.model_dump(by_alias=True)`: a metrics key the config also has keeps its place. */
export function metricsFileContent(entry: Row, metrics: DatasetMetrics): Map<string, PyValue> {
  const merged = datasetConfigDump(entry);
  for (const [key, value] of metrics.dump()) merged.set(key, value);
  return merged;
}

/** `json.dump(value, f, indent=4)`. */
export const metricsJson = (value: Map<string, PyValue>): string => pythonJsonDumpsTyped(value, { indent: 4 });

// ---- the conflict rule (`_validate_aggregate_metrics`) ----

/**
 * Where a committed metrics file and the new one disagree: every key of the committed file must be in the new one
 * (new keys are fine), floats equal within 5e-3 (|x| ≥ 1) or 5e-4, lists equal as multisets, the rest equal.
 */
export function metricsDifferences(previous: PyValue, next: PyValue, path = "", diffs: string[] = []): string[] {
  if (previous instanceof Map && next instanceof Map) {
    for (const [key, value] of previous) {
      const subPath = path ? `${path}.${key}` : key;
      if (!next.has(key)) diffs.push(`Missing key in new metrics: ${subPath}`);
      else metricsDifferences(value, next.get(key)!, subPath, diffs);
    }
    return diffs;
  }
  if (Array.isArray(previous) && Array.isArray(next)) {
    if (previous.length !== next.length) {
      diffs.push(`List length differs at ${path}: ${previous.length} != ${next.length}`);
      return diffs;
    }
    const used = new Set<number>();
    for (const [i, item] of previous.entries()) {
      const match = next.findIndex((candidate, j) => !used.has(j) && metricsDifferences(item, candidate, `${path}[${i}]`).length === 0);
      if (match < 0) diffs.push(`No matching element for ${path}[${i}] in new metrics (unordered)`);
      else used.add(match);
    }
    return diffs;
  }
  if (typeof previous === "number" && typeof next === "number") {
    if (!numericClose(previous, next)) diffs.push(`Numeric mismatch at ${path}: ${pythonRepr(previous)} != ${pythonRepr(next)}`);
    return diffs;
  }
  if (!pythonEquals(previous, next)) diffs.push(`Value differs at ${path}: ${pythonRepr(previous)} != ${pythonRepr(next)}`);
  return diffs;
}

function numericClose(a: number, b: number): boolean {
  if (a === b) return true;
  const tolerance = Math.max(Math.abs(a), Math.abs(b)) >= 1 ? 5e-3 : 5e-4;
  return Math.abs(a - b) <= Math.max(tolerance, 1e-9);
}

/** NeMo Gym's error for conflicting metrics files (its ValueError, on one line). */
export function conflictMessage(conflictPaths: readonly string[]): string {
  const targets = conflictPaths.map((path) => path.replace(/_conflict\.json$/, ".json"));
  return (
    `Found conflicting aggregate metrics that need to be corrected: ${conflictPaths.join(", ")}. ` +
    `This could be due to a change in how metrics are calculated, leading to outdated metrics. ` +
    `Try deleting the below file(s) and rerunning data preparation: ${targets.join(", ")} (or pass +overwrite_metrics_conflicts=true)`
  );
}
