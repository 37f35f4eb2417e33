// NeMo Gym's data preparation (`gym dataset collate`, its TrainDataProcessor): every agent instance of the
// config that declares `datasets`, the ones in scope for the mode (train_preparation: train, validation,
// benchmark; example_validation: example), each row checked against the protocol, stamped with its agent's
// agent_ref (a benchmark's prompt_config applied), repeated num_repeats times, and written per type to
// <output_dir>/<type>.jsonl. With --download (should_download), a missing dataset with a Hugging Face source is
// downloaded to its jsonl_fpath first. Metrics (dataset-metrics.ts) are written next to each dataset as
// <stem>_metrics.json and per type as <output_dir>/<type>_metrics.json; a committed metrics file that the data no
// longer matches is a conflict: <stem>_metrics_conflict.json is written beside it and the run fails (unless
// +overwrite_metrics_conflicts=true). Unlike NeMo Gym, a row that fails the protocol stops the run, named by file
// and line, instead of being collated anyway.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, parse, resolve } from "node:path";
import type { HuggingFaceHub } from "../client/hf-hub.ts";
import { listServerInstances, searchRoots, type ConfigDict } from "../config/index.ts";
import { benchmarkOfPrepareScript, isFetchedPrompt } from "../config/nemo-gym-files.ts";
import { resolveUnderRoots } from "../config/paths.ts";
import { pythonJsonDumps } from "../python/json-dumps.ts";
import { pythonJsonLoads } from "../python/json.ts";
import type { PyValue } from "../python/values.ts";
import { conflictMessage, DatasetMetrics, DatasetMetricsBuilder, metricsDifferences, metricsFileContent, metricsJson } from "./dataset-metrics.ts";
import { formatProblem, validateDatasetFile } from "./dataset-validate.ts";
import { downloadHfDataset } from "./hf-dataset-download.ts";
import { InputError, readJsonl, type InputLine, type Row } from "./jsonl.ts";
import { applyPromptConfig, loadPromptConfig } from "./prompt-config.ts";

export const COLLATE_MODES = ["train_preparation", "example_validation"] as const;
export type CollateMode = (typeof COLLATE_MODES)[number];

const IN_SCOPE: Readonly<Record<CollateMode, readonly string[]>> = {
  train_preparation: ["train", "validation", "benchmark"],
  example_validation: ["example"],
};

export interface DeclaredDataset {
  agentName: string;
  name: string;
  type: string;
  /** As the config spells it. */
  jsonlFpath: string;
  /** Where it was found (undefined: nowhere under the search roots). */
  path?: string;
  numRepeats: number;
  promptConfig?: string;
  /** The config entry as written (its fields head the metrics files). */
  entry: Row;
  prepareScript?: string;
}

/** The in-scope datasets of every agent instance, in config order. */
export function declaredDatasets(config: ConfigDict, mode: CollateMode, roots: readonly string[] = searchRoots()): DeclaredDataset[] {
  const datasets: DeclaredDataset[] = [];
  for (const instance of listServerInstances(config, { errorOnAlmostServers: false, logger: { warn: () => undefined } })) {
    if (instance.serverType !== "responses_api_agents" || !Array.isArray(instance.fields.datasets)) continue;
    for (const [index, entry] of (instance.fields.datasets as unknown[]).entries()) {
      const where = `${instance.instanceName}.datasets[${index}]`;
      if (entry === null || typeof entry !== "object") throw new InputError(`${where}: a dataset must be a mapping with name, type and jsonl_fpath`);
      const d = entry as Row;
      for (const key of ["name", "type", "jsonl_fpath"]) {
        if (typeof d[key] !== "string" || d[key] === "") throw new InputError(`${where}: ${key} is required (a string)`);
      }
      if (!IN_SCOPE[mode].includes(d.type as string)) continue;
      const numRepeats = d.num_repeats ?? 1;
      if (!Number.isInteger(numRepeats) || (numRepeats as number) < 1) throw new InputError(`${where}: num_repeats must be an integer of at least 1`);
      const located = resolveUnderRoots(d.jsonl_fpath as string, roots);
      datasets.push({
        agentName: instance.instanceName,
        name: d.name as string,
        type: d.type as string,
        jsonlFpath: d.jsonl_fpath as string,
        path: located.found ? located.path : undefined,
        numRepeats: numRepeats as number,
        promptConfig: typeof d.prompt_config === "string" ? d.prompt_config : undefined,
        entry: d,
        prepareScript: typeof d.prepare_script === "string" ? d.prepare_script : undefined,
      });
    }
  }
  return datasets;
}

export interface CollateOptions {
  config: ConfigDict;
  mode: CollateMode;
  outputDir: string;
  /** NeMo Gym's should_download: missing datasets with a Hugging Face source are downloaded first. */
  download?: boolean;
  /** Where downloads come from and are cached (needed when `download` is set and a dataset is missing). */
  hub?: () => { hub: HuggingFaceHub; cacheDir: string };
  /** NeMo Gym's overwrite_metrics_conflicts: conflicting metrics files are reported and replaced, not fatal. */
  overwriteMetricsConflicts?: boolean;
  log?: (line: string) => void;
  roots?: readonly string[];
  cwd?: string;
}

/** Collates; the files written, by dataset type. */
export async function collateDatasets(options: CollateOptions): Promise<Record<string, string>> {
  const log = options.log ?? (() => undefined);
  const roots = options.roots ?? searchRoots();
  let datasets = declaredDatasets(options.config, options.mode, roots);
  if (datasets.length === 0) {
    throw new InputError(`no agent instance of the config declares a dataset of type ${IN_SCOPE[options.mode].join(", ")} (mode ${options.mode}); pass the environment's config (--config or --resources-server)`);
  }

  const missing = datasets.filter((d) => d.path === undefined);
  if (missing.length > 0) {
    const list = missing.map((d) => `${d.agentName}: ${d.name} (${d.type}) at ${d.jsonlFpath}`).join("; ");
    if (options.mode === "example_validation") throw new InputError(`missing datasets: ${list}. You must provide the missing example jsonl files`);
    if (!options.download) throw new InputError(`missing datasets: ${list}. You must provide local datasets since download is disabled. Run with --download (+should_download=true) to enable downloading.`);
    await downloadMissing(missing, options, log);
    datasets = declaredDatasets(options.config, options.mode, roots);
  }

  const promptless = datasets.find((d) => d.type === "benchmark" && d.promptConfig && !resolveUnderRoots(d.promptConfig, roots).found);
  if (promptless) throw new InputError(missingPromptMessage(promptless));

  const problems = (await Promise.all(datasets.map((d) => validateDatasetFile(d.path!)))).flat();
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).map(formatProblem).join("; ");
    throw new InputError(`${problems.length} dataset row problem(s), nothing collated: ${shown}${problems.length > 5 ? "; …" : ""} (gym dataset validate FILE lists them all)`);
  }

  // Each line repeated num_repeats times in place (abc → aabbcc), as NeMo Gym's _iter_dataset_lines.
  const rowsOf = new Map(datasets.map((d) => [d, readJsonl(d.path!)]));
  const repeated = (d: DeclaredDataset): InputLine[] => rowsOf.get(d)!.flatMap((line) => Array<InputLine>(d.numRepeats).fill(line));

  // Per dataset: <stem>_metrics.json next to it; all conflicts are reported before anything is collated.
  const overwrite = options.overwriteMetricsConflicts === true;
  const byType = new Map<string, DatasetMetrics>();
  const datasetConflicts: string[] = [];
  for (const d of datasets) {
    const builder = new DatasetMetricsBuilder(d.path!);
    for (const line of repeated(d)) builder.addRow(line.row, line.lineNumber);
    const metrics = builder.finish();
    if (!byType.has(d.type)) byType.set(d.type, new DatasetMetrics());
    byType.get(d.type)!.add(metrics);
    const { name } = parse(d.path!);
    const metricsPath = join(dirname(d.path!), `${name}_metrics.json`);
    const content = metricsFileContent(d.entry, metrics);
    const conflict = checkMetricsFile(content, metricsPath, log);
    if (conflict) {
      datasetConflicts.push(conflict);
      if (!overwrite) continue;
    } else if (existsSync(metricsPath)) {
      log(`Aggregate metrics for ${metricsPath} already up to date`);
      continue;
    }
    writeMetricsFile(metricsPath, content);
    log(`Aggregate metrics for ${metricsPath}`);
  }
  reportConflicts(datasetConflicts, overwrite, log);

  mkdirSync(options.outputDir, { recursive: true });
  const written: Record<string, string> = {};
  const typeConflicts: string[] = [];
  for (const type of IN_SCOPE[options.mode]) {
    const ofType = datasets.filter((d) => d.type === type);
    if (ofType.length === 0) continue;
    const metricsPath = join(options.outputDir, `${type}_metrics.json`);
    const content = metricsFileContent(ofType[0]!.entry, byType.get(type)!);
    const conflict = checkMetricsFile(content, metricsPath, log);
    if (conflict) {
      typeConflicts.push(conflict);
      if (!overwrite) continue;
    }
    writeMetricsFile(metricsPath, content);

    const lines: string[] = [];
    for (const d of ofType) {
      const rows = rowsOf.get(d)!;
      if (d.type === "benchmark" && d.promptConfig) applyPromptConfig(rows, loadPromptConfig(resolveUnderRoots(d.promptConfig, roots).path), d.jsonlFpath);
      for (const { row } of rows) {
        const text = pythonJsonDumps({ ...row, agent_ref: { type: "responses_api_agents", name: d.agentName } });
        for (let r = 0; r < d.numRepeats; r++) lines.push(text);
      }
      log(`${d.agentName}: ${d.name} (${d.type}) ${rows.length} rows${d.numRepeats > 1 ? ` × ${d.numRepeats}` : ""} from ${d.path}`);
    }
    const path = join(options.outputDir, `${type}.jsonl`);
    writeFileSync(path, lines.map((line) => `${line}\n`).join(""));
    log(`Aggregate metrics for ${metricsPath}`);
    written[type] = path;
  }
  reportConflicts(typeConflicts, overwrite, log);
  return written;
}

/** `_validate_aggregate_metrics`: the conflict file written (and its path returned) when an existing file disagrees. */
function checkMetricsFile(content: Map<string, PyValue>, metricsPath: string, log: (line: string) => void): string | undefined {
  if (!existsSync(metricsPath)) return undefined;
  let previous: PyValue;
  try {
    previous = pythonJsonLoads(readFileSync(metricsPath, "utf8"));
  } catch (error) {
    throw new InputError(`${metricsPath} is not a JSON metrics file (${(error as Error).message}); delete it and run again`);
  }
  const diffs = metricsDifferences(previous, content);
  if (diffs.length === 0) return undefined;
  log(`Differences found in aggregate metrics: ${diffs.join("; ")}`);
  const { dir, name } = parse(metricsPath);
  const conflictPath = join(dir, `${name}_conflict.json`);
  writeFileSync(conflictPath, metricsJson(content));
  return conflictPath;
}

function writeMetricsFile(path: string, content: Map<string, PyValue>): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, metricsJson(content));
  } catch (error) {
    throw new InputError(`cannot write the metrics file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function reportConflicts(conflicts: string[], overwrite: boolean, log: (line: string) => void): void {
  if (conflicts.length === 0) return;
  if (!overwrite) throw new InputError(conflictMessage(conflicts));
  log(conflictMessage(conflicts));
}

/**
 * NeMo Gym's load_datasets with should_download: each missing dataset fetched from its Hugging Face source to its
 * jsonl_fpath (its raw artifact_fpath if it names one, else the split named by the dataset's type).
 */
async function downloadMissing(missing: DeclaredDataset[], options: CollateOptions, log: (line: string) => void): Promise<void> {
  const dataSource = (options.config.data_source as string | undefined) ?? "huggingface";
  const plans = missing.map((d) => {
    const where = `${d.agentName}: ${d.name} (${d.type}) at ${d.jsonlFpath}`;
    if (d.type === "benchmark") throw new InputError(`missing datasets: ${where}. A benchmark's data is prepared, not downloaded: run gym eval prepare with its config`);
    const source = d.entry.source as Row | undefined;
    const hf = (source?.type === "huggingface" ? source : d.entry.huggingface_identifier) as Row | undefined;
    const gitlab = source?.type === "gitlab" || (d.entry.gitlab_identifier != null && (hf == null || dataSource === "gitlab"));
    if (gitlab) throw new InputError(`missing datasets: ${where}. Its source is NeMo Gym's GitLab dataset registry, which is not used here; download the file to ${d.jsonlFpath} yourself, or give it a Hugging Face source (source: {type: huggingface, repo_id: ORG/NAME})`);
    if (hf == null || typeof hf.repo_id !== "string") throw new InputError(`missing datasets: ${where}. It names no source to download from (source: {type: huggingface, repo_id: ORG/NAME} or huggingface_identifier)`);
    return { d, repoId: hf.repo_id, artifact: typeof hf.artifact_fpath === "string" ? hf.artifact_fpath : undefined };
  });
  if (!options.hub) throw new InputError("downloading needs a Hugging Face Hub (internal: collateDatasets was called without one)");
  const context = options.hub();
  const cwd = resolve(options.cwd ?? process.cwd());
  for (const { d, repoId, artifact } of plans) {
    log(`Downloading '${d.type}' split from ${repoId} to ${d.jsonlFpath}...`);
    await downloadHfDataset(
      { repoId, outputFpath: resolve(cwd, d.jsonlFpath), ...(artifact ? { artifactFpath: artifact } : { split: d.type }) },
      { ...context, log },
    );
  }
}

/** A benchmark's prompt that is not here: NeMo Gym's own templates come with `gym eval prepare`, one line. */
function missingPromptMessage(d: DeclaredDataset): string {
  const benchmark = benchmarkOfPrepareScript(d.prepareScript) ?? d.name;
  return isFetchedPrompt(d.promptConfig!)
    ? `${d.agentName}: benchmark ${d.name}'s prompt_config ${d.promptConfig} is not here (NeMo Gym's template, fetched at its pinned commit): run \`gym eval prepare --benchmark ${benchmark}\` first`
    : `${d.agentName}: benchmark ${d.name}'s prompt_config ${d.promptConfig} is under none of the search roots; give the file or fix the path`;
}
