// `gym eval prepare` (NeMo Gym's ng_prepare_benchmark): download and convert a benchmark's data to the
// jsonl_fpath its config names, with a record of sources and checksums next to it. See src/rollouts/prepare.
import { prepareBenchmarks } from "../rollouts/prepare/run.ts";
import { progressReporter } from "../rollouts/prepare/progress.ts";
import { arg, configFlag, defineCommand, flag } from "./command.ts";

export const evalPrepareCommand = defineCommand({
  path: ["eval", "prepare"],
  description: "download a benchmark's data from its public source (Hugging Face, GitHub) and write its jsonl_fpath rows (NeMo Gym's ng_prepare_benchmark)",
  examples: [
    "gym eval prepare --benchmark aime24",
    "gym eval prepare --config benchmarks/aime24-x/config.yaml '+prepare_script_args.languages=[de,fr]'",
    "HF_TOKEN=hf_... gym eval prepare --benchmark gpqa --force",
  ],
  legacyNames: { ng_prepare_benchmark: [] },
  args: { overrides: arg.overrides("Hydra-style overrides, e.g. +prepare_script_args.<name>=value (the prepare() keyword arguments) or +use_cached_prepared_benchmarks=true") },
  flags: {
    benchmark: flag.string("name", "the benchmark: benchmarks/<name>/config.yaml under the search roots", { short: "b" }),
    config: configFlag("a benchmark config YAML (repeatable)"),
    searchDir: flag.list("dir", "look for benchmarks/<name>/ under this folder first (repeatable; then NEMO_GYM_EXTRA_ROOTS, cwd, the project root)"),
    force: flag.boolean("prepare again even when the rows match their record (URL sources are downloaded again)"),
  },
  helpAfter:
    "\nDownloads go to $NEMO_GYM_CACHE_DIR (default ~/.cache/nemo-gym-ts) and resume after an interruption. Hugging Face: HF_ENDPOINT, HF_TOKEN for gated datasets.\n" +
    "Next to the rows, <jsonl_fpath>.prepare.json records the source URLs, the commit read, every file's sha256 and the output's.\n",
  async run(_config, { flags, print }) {
    await prepareBenchmarks({
      benchmark: flags.benchmark,
      configPaths: flags.config,
      searchDirs: flags.searchDir,
      overrides: flags.overrides,
      force: flags.force,
      print,
      progress: progressReporter(process.stderr),
    });
  },
});
