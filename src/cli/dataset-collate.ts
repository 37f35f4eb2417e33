// `gym dataset collate` (NeMo Gym's ng_prepare_data): the config's agent datasets, checked and collated per
// type into --output-dir, with their agent_ref stamped — what a training run or `gym eval run --split` reads —
// and their metrics (<type>_metrics.json there, <stem>_metrics.json next to each dataset), checked against
// committed ones. --download fetches missing datasets from their Hugging Face source first.
import { resolve } from "node:path";
import { COLLATE_MODES, collateDatasets, type CollateMode } from "../rollouts/collate.ts";
import { UserError } from "../config/errors.ts";
import { arg, configFlag, defineCommand, flag } from "./command.ts";
import { hubAccess } from "./hub-access.ts";
import { flagOverrides } from "./load-config.ts";
import { selectedConfig, serverSelectorFlags } from "./selector-flags.ts";

export const datasetCollateCommand = defineCommand({
  path: ["dataset", "collate"],
  description: "validate and collate the datasets the config's agents declare into <output-dir>/<type>.jsonl (NeMo Gym's ng_prepare_data)",
  examples: [
    "gym dataset collate --resources-server mcqa --mode example_validation --output-dir data/mcqa",
    'ng_prepare_data "+config_paths=[resources_servers/mcqa/configs/mcqa.yaml]" +output_dirpath=data/mcqa +mode=train_preparation +should_download=true',
  ],
  legacyNames: { ng_prepare_data: [] },
  args: { overrides: arg.overrides() },
  flags: {
    config: configFlag(),
    ...serverSelectorFlags,
    mode: flag.string("mode", "train_preparation (train, validation, benchmark datasets) or example_validation (example datasets)", { choices: COLLATE_MODES }),
    outputDir: flag.string("dir", "where <type>.jsonl files are written (+output_dirpath)"),
    download: flag.boolean("download missing datasets from their Hugging Face source first (+should_download=true; HF_TOKEN for gated ones)"),
  },
  toConfig: (flags) => {
    const selected = selectedConfig(flags);
    return {
      configPaths: selected.configPaths,
      overrides: flags.overrides,
      withoutModel: true,
      flagOverrides: flagOverrides({ mode: flags.mode, output_dirpath: flags.outputDir, should_download: flags.download || undefined }),
    };
  },
  async run({ resolved }, { print }) {
    const mode = resolved.mode;
    if (!COLLATE_MODES.includes(mode as CollateMode)) throw new UserError(`mode is required: --mode ${COLLATE_MODES.join("|")} (or +mode=…)${mode === undefined ? "" : `; got '${String(mode)}'`}`);
    if (typeof resolved.output_dirpath !== "string" || resolved.output_dirpath === "") throw new UserError("output_dirpath is required (--output-dir DIR or +output_dirpath=DIR)");
    const written = await collateDatasets({
      config: resolved,
      mode: mode as CollateMode,
      outputDir: resolve(resolved.output_dirpath),
      download: resolved.should_download === true,
      hub: () => hubAccess(resolved),
      overwriteMetricsConflicts: resolved.overwrite_metrics_conflicts === true,
      log: print,
    });
    print(`View your final data!${Object.entries(written).map(([type, path]) => `\n- ${type}: ${path}`).join("")}`);
  },
});
