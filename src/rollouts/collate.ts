// NeMo Gym's data preparation (`gym dataset collate`, its TrainDataProcessor): every agent instance of the
// config that declares `datasets`, the ones in scope for the mode (train_preparation: train, validation,
// benchmark; example_validation: example), each row checked against the protocol, stamped with its agent's
// agent_ref (a benchmark's prompt_config applied), repeated num_repeats times, and written per type to
// <output_dir>/<type>.jsonl. Unlike NeMo Gym, a row that fails the protocol stops the run, named by file and
// line, instead of being collated anyway.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listServerInstances, searchRoots, type ConfigDict } from "../config/index.ts";
import { benchmarkOfPrepareScript, isFetchedPrompt } from "../config/nemo-gym-files.ts";
import { resolveUnderRoots } from "../config/paths.ts";
import { pythonJsonDumps } from "../python/json-dumps.ts";
import { formatProblem, validateDatasetFile } from "./dataset-validate.ts";
import { InputError, readJsonl, type Row } from "./jsonl.ts";
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
  /** NeMo Gym's should_download; downloading is not ported, so it only changes what the error says. */
  download?: boolean;
  log?: (line: string) => void;
  roots?: readonly string[];
}

/** Collates; the files written, by dataset type. */
export async function collateDatasets(options: CollateOptions): Promise<Record<string, string>> {
  const log = options.log ?? (() => undefined);
  const roots = options.roots ?? searchRoots();
  const datasets = declaredDatasets(options.config, options.mode, roots);
  if (datasets.length === 0) {
    throw new InputError(`no agent instance of the config declares a dataset of type ${IN_SCOPE[options.mode].join(", ")} (mode ${options.mode}); pass the environment's config (--config or --resources-server)`);
  }

  const missing = datasets.filter((d) => d.path === undefined);
  if (missing.length > 0) {
    const list = missing.map((d) => `${d.agentName}: ${d.name} (${d.type}) at ${d.jsonlFpath}`).join("; ");
    const why = options.download
      ? "downloading datasets (--download / +should_download=true) is not supported by gym TS yet; download them with NeMo Gym or by hand to those paths"
      : options.mode === "example_validation"
        ? "You must provide the missing example jsonl files"
        : "You must provide local datasets since download is disabled";
    throw new InputError(`missing datasets: ${list}. ${why}`);
  }

  const promptless = datasets.find((d) => d.type === "benchmark" && d.promptConfig && !resolveUnderRoots(d.promptConfig, roots).found);
  if (promptless) throw new InputError(missingPromptMessage(promptless));

  const problems = (await Promise.all(datasets.map((d) => validateDatasetFile(d.path!)))).flat();
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).map(formatProblem).join("; ");
    throw new InputError(`${problems.length} dataset row problem(s), nothing collated: ${shown}${problems.length > 5 ? "; …" : ""} (gym dataset validate FILE lists them all)`);
  }

  mkdirSync(options.outputDir, { recursive: true });
  const written: Record<string, string> = {};
  for (const type of IN_SCOPE[options.mode]) {
    const ofType = datasets.filter((d) => d.type === type);
    if (ofType.length === 0) continue;
    const lines: string[] = [];
    for (const d of ofType) {
      const rows = readJsonl(d.path!);
      if (d.type === "benchmark" && d.promptConfig) applyPromptConfig(rows, loadPromptConfig(resolveUnderRoots(d.promptConfig, roots).path), d.jsonlFpath);
      // Each line repeated num_repeats times in place (abc → aabbcc), as NeMo Gym's _iter_dataset_lines.
      for (const { row } of rows) {
        const text = pythonJsonDumps({ ...row, agent_ref: { type: "responses_api_agents", name: d.agentName } });
        for (let r = 0; r < d.numRepeats; r++) lines.push(text);
      }
      log(`${d.agentName}: ${d.name} (${d.type}) ${rows.length} rows${d.numRepeats > 1 ? ` × ${d.numRepeats}` : ""} from ${d.path}`);
    }
    const path = join(options.outputDir, `${type}.jsonl`);
    writeFileSync(path, lines.map((line) => `${line}\n`).join(""));
    written[type] = path;
  }
  return written;
}

/** A benchmark's prompt that is not here: NeMo Gym's own templates come with `gym eval prepare`, one line. */
function missingPromptMessage(d: DeclaredDataset): string {
  const benchmark = benchmarkOfPrepareScript(d.prepareScript) ?? d.name;
  return isFetchedPrompt(d.promptConfig!)
    ? `${d.agentName}: benchmark ${d.name}'s prompt_config ${d.promptConfig} is not here (NeMo Gym's template, fetched at its pinned commit): run \`gym eval prepare --benchmark ${benchmark}\` first`
    : `${d.agentName}: benchmark ${d.name}'s prompt_config ${d.promptConfig} is under none of the search roots; give the file or fix the path`;
}
