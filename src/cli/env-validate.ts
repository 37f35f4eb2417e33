// `gym env validate` (NeMo Gym's ng_validate): the configs merge, resolve and reference servers that exist, and every
// instance's fields are ones its server implements (what `gym env start` checks before it starts anything).
// As NeMo Gym's, it also takes a workload of the catalogue by NAME (`--kind` when an environment and a benchmark
// share it) or by `--manifest PATH` (the workload's folder): its config.yaml is loaded the same way, and the
// example and benchmark datasets its agents declare that are on disk are checked row by row.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { environmentCatalog, didYouMean, type CatalogKind } from "../config/catalog/index.ts";
import { UserError } from "../config/errors.ts";
import { listServerInstances } from "../config/index.ts";
import { declaredDatasets } from "../rollouts/collate.ts";
import { formatProblem, validateDatasetFile } from "../rollouts/dataset-validate.ts";
import { checkServersBeforeStart } from "../server/instance-config.ts";
import { arg, configFlag, defineCommand, flag } from "./command.ts";
import { modelFlags, selectedConfig, selectorFlags } from "./selector-flags.ts";

/** NeMo Gym's ONBOARDING_NAME: the first word that is not a Hydra override is the workload's name. */
function splitName(words: string[]): { name?: string; overrides: string[] } {
  const [first, ...rest] = words;
  return first !== undefined && !first.includes("=") && !/^[+~]/.test(first) ? { name: first, overrides: rest } : { overrides: words };
}

function workloadConfig(name: string | undefined, manifest: string | undefined, kind: CatalogKind | undefined, searchDir: string[]): string | undefined {
  if (manifest !== undefined) {
    const config = join(dirname(resolve(manifest)), "config.yaml");
    if (!existsSync(resolve(manifest))) throw new UserError(`--manifest ${manifest}: no such file`);
    if (!existsSync(config)) throw new UserError(`--manifest ${manifest}: no config.yaml next to it (${config})`);
    return config;
  }
  if (name === undefined) return undefined;
  const entries = environmentCatalog({ extraRoots: searchDir }).filter((entry) => kind === undefined || entry.kind === kind);
  const matches = entries.filter((entry) => entry.name === name);
  if (matches.length === 0) throw new UserError(`Unknown ${kind ?? "environment or benchmark"} '${name}'.${didYouMean(name, entries.map((entry) => entry.name))}`);
  if (matches.length > 1) throw new UserError(`'${name}' is both an environment and a benchmark: pass --kind environment or --kind benchmark`);
  const entry = matches[0]!;
  if (entry.configPath === null) throw new UserError(`${entry.kind} '${name}' is known only from NeMo Gym's catalogue: its config is not here`);
  return entry.configPath;
}

export const envValidateCommand = defineCommand({
  path: ["env", "validate"],
  description: "check that the configs (or a workload's config.yaml) merge, resolve, reference existing servers, set only fields those servers implement, and that its example data is valid",
  examples: [
    "gym env validate --resources-server mcqa --model-type scripted_model",
    "gym env validate instruction_following --model-type scripted_model",
    "gym env validate --config resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml --config responses_api_models/scripted_model/configs/scripted_model.yaml",
  ],
  legacyNames: { ng_validate: [] },
  args: { overrides: arg.overrides("[NAME] (a workload of the catalogue), then Hydra-style overrides") },
  flags: {
    kind: flag.string("kind", "the workload's kind, when NAME is both", { choices: ["environment", "benchmark"] }),
    manifest: flag.string("path", "validate the workload whose manifest.yaml this is (its folder's config.yaml)"),
    sync: flag.boolean("NeMo Gym: synchronize composition mirrors (not applicable here)"),
    json: flag.boolean("print the result as JSON"),
    config: configFlag(),
    ...selectorFlags,
    ...modelFlags,
  },
  // Loading is the check: any problem is a config error before `run`.
  toConfig: (flags) => {
    if (flags.sync) throw new UserError("--sync does not apply here: this project keeps no composition mirrors (a workload's config.yaml is its only wiring)");
    const { name, overrides } = splitName(flags.overrides);
    const selected = selectedConfig(flags);
    const workload = workloadConfig(name, flags.manifest, flags.kind as CatalogKind | undefined, flags.searchDir);
    return { ...selected, configPaths: [...(workload ? [workload] : []), ...selected.configPaths], overrides, requireServers: true };
  },
  async run({ resolved }, { flags, print, warn }) {
    // Each instance against its server (what `gym env start` checks before it starts anything).
    for (const warning of await checkServersBeforeStart(listServerInstances(resolved), resolved)) warn(`WARNING ${warning}`);
    // The example data of the workload on disk, row by row (train/validation data may need downloading first).
    const datasets = [...declaredDatasets(resolved, "example_validation"), ...declaredDatasets(resolved, "train_preparation").filter((d) => d.type === "benchmark")].filter((d) => d.path !== undefined);
    const checked = await Promise.all(datasets.map(async (d) => ({ agent: d.agentName, name: d.name, type: d.type, path: d.path!, problems: (await validateDatasetFile(d.path!)).map(formatProblem) })));
    const valid = checked.every((d) => d.problems.length === 0);
    if (flags.json) print(JSON.stringify({ valid, datasets: checked }, null, 2));
    else {
      for (const d of checked) print(`${d.problems.length === 0 ? "✓" : "✗"} ${d.agent}: ${d.name} (${d.type}) ${d.path}${d.problems.length ? `\n  ${d.problems.slice(0, 10).join("\n  ")}` : ""}`);
      print(valid ? "✓ Config is valid." : "✗ Example data has problems.");
    }
    return valid ? 0 : 1;
  },
});
