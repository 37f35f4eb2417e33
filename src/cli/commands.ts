// Every `gym` command, in the order `gym --help` lists them; NeMo Gym's `ng_*` names come from the same table.
// The table holds each command's path and NeMo Gym names and loads its module only when asked: a `gym` process
// imports the one command it runs (all of them only for help and typos), which halves its start-up.
import type { GymCommand } from "./command.ts";

export interface IndexedCommand {
  /** Words after `gym`; the same as the loaded command's `path` (a test checks). */
  path: readonly string[];
  /** The loaded command's `legacyNames` (a test checks): `ng_*` names expand before anything is loaded. */
  legacyNames: Readonly<Record<string, readonly string[]>>;
  load(): Promise<GymCommand>;
}

export const COMMAND_INDEX: readonly IndexedCommand[] = [
  { path: ["list", "environments"], legacyNames: {}, load: async () => (await import("./list-environments.ts")).listEnvironmentsCommand },
  { path: ["list", "benchmarks"], legacyNames: { ng_list_benchmarks: [] }, load: async () => (await import("./list-benchmarks.ts")).listBenchmarksCommand },
  { path: ["list", "agents"], legacyNames: {}, load: async () => (await import("./list-agents.ts")).listAgentsCommand },
  { path: ["list", "models"], legacyNames: {}, load: async () => (await import("./list-models.ts")).listModelsCommand },
  { path: ["list", "resources-servers"], legacyNames: {}, load: async () => (await import("./list-resources-servers.ts")).listResourcesServersCommand },
  { path: ["search"], legacyNames: {}, load: async () => (await import("./search.ts")).searchCommand },
  { path: ["env", "wrap"], legacyNames: {}, load: async () => (await import("./env-wrap.ts")).envWrapCommand },
  { path: ["env", "test"], legacyNames: { ng_test: [] }, load: async () => (await import("./env-test.ts")).envTestCommand },
  { path: ["env", "init"], legacyNames: { ng_init_resources_server: [] }, load: async () => (await import("./env-init.ts")).envInitCommand },
  { path: ["env", "start"], legacyNames: { ng_run: [] }, load: async () => (await import("./env-start.ts")).envStartCommand },
  { path: ["env", "status"], legacyNames: { ng_status: [] }, load: async () => (await import("./env-status.ts")).envStatusCommand },
  { path: ["env", "resolve"], legacyNames: { ng_dump_config: [] }, load: async () => (await import("./env-resolve.ts")).envResolveCommand },
  { path: ["env", "validate"], legacyNames: { ng_validate: [] }, load: async () => (await import("./env-validate.ts")).envValidateCommand },
  { path: ["eval", "prepare"], legacyNames: { ng_prepare_benchmark: [] }, load: async () => (await import("./eval-prepare.ts")).evalPrepareCommand },
  { path: ["eval", "run"], legacyNames: { ng_collect_rollouts: ["--no-serve"], ng_e2e_collect_rollouts: [] }, load: async () => (await import("./eval-run.ts")).evalRunCommand },
  { path: ["eval", "worker"], legacyNames: {}, load: async () => (await import("./eval-worker.ts")).evalWorkerCommand },
  { path: ["eval", "reverify"], legacyNames: {}, load: async () => (await import("./eval-reverify.ts")).evalReverifyCommand },
  { path: ["eval", "aggregate"], legacyNames: { ng_aggregate_rollouts: [] }, load: async () => (await import("./eval-aggregate.ts")).evalAggregateCommand },
  { path: ["eval", "profile"], legacyNames: { ng_reward_profile: [] }, load: async () => (await import("./eval-profile.ts")).evalProfileCommand },
  { path: ["dataset", "collate"], legacyNames: { ng_prepare_data: [] }, load: async () => (await import("./dataset-collate.ts")).datasetCollateCommand },
  { path: ["dataset", "render"], legacyNames: { ng_materialize_prompts: [] }, load: async () => (await import("./dataset-render.ts")).datasetRenderCommand },
  { path: ["env", "packages"], legacyNames: { ng_pip_list: [] }, load: async () => (await import("./env-packages.ts")).envPackagesCommand },
  { path: ["env", "prefetch"], legacyNames: {}, load: async () => (await import("./env-prefetch.ts")).envPrefetchCommand },
  { path: ["eval", "submit"], legacyNames: {}, load: async () => (await import("./eval-submit.ts")).evalSubmitCommand },
  { path: ["dataset", "upload"], legacyNames: { ng_upload_dataset_to_hf: [], ng_upload_dataset_to_gitlab: [] }, load: async () => (await import("./dataset-upload.ts")).datasetUploadCommand },
  { path: ["dataset", "download"], legacyNames: { ng_download_dataset_from_hf: [], ng_download_dataset_from_gitlab: ["--storage=gitlab"] }, load: async () => (await import("./dataset-download.ts")).datasetDownloadCommand },
  { path: ["dataset", "rm"], legacyNames: { ng_delete_dataset_from_gitlab: [] }, load: async () => (await import("./dataset-rm.ts")).datasetRmCommand },
  { path: ["dataset", "migrate"], legacyNames: { ng_gitlab_to_hf_dataset: [] }, load: async () => (await import("./dataset-migrate.ts")).datasetMigrateCommand },
  { path: ["dev", "test"], legacyNames: { ng_dev_test: [] }, load: async () => (await import("./dev-test.ts")).devTestCommand },
  { path: ["agent", "ask"], legacyNames: {}, load: async () => (await import("./agent-ask.ts")).agentAskCommand },
  { path: ["dataset", "validate"], legacyNames: {}, load: async () => (await import("./dataset-validate.ts")).datasetValidateCommand },
  { path: ["gateway"], legacyNames: {}, load: async () => (await import("./gateway.ts")).gatewayCommand },
  { path: ["gateway", "convert-dataset"], legacyNames: {}, load: async () => (await import("./trial-client.ts")).convertDatasetCommand },
  { path: ["trial-client"], legacyNames: {}, load: async () => (await import("./trial-client.ts")).trialClientCommand },
  { path: ["view"], legacyNames: {}, load: async () => (await import("./view.ts")).viewCommand },
  { path: ["quickstart"], legacyNames: {}, load: async () => (await import("./quickstart.ts")).quickstartCommand },
];

/** Every command, loaded (help, a mistyped command, the tests). */
export const loadAllCommands = (): Promise<GymCommand[]> => Promise.all(COMMAND_INDEX.map((entry) => entry.load()));

/**
 * The commands `args` can reach: the one whose path the leading words spell (the longest such path), or every
 * command when they spell none (`gym`, `gym eval --help`, a typo), so help and "did you mean" see the whole table.
 */
export async function loadCommandsFor(args: readonly string[]): Promise<GymCommand[]> {
  // Root flags (-v, --json, --version) come before the command words; `gym --version` needs no command.
  const firstWord = args.findIndex((word) => !word.startsWith("-"));
  if (firstWord === -1) return args.includes("--version") && !args.includes("--help") && !args.includes("-h") ? [] : loadAllCommands();
  const words = args.slice(firstWord);
  const matches = COMMAND_INDEX.filter((entry) => entry.path.every((word, i) => words[i] === word));
  const longest = matches.sort((a, b) => b.path.length - a.path.length)[0];
  return longest ? [await longest.load()] : loadAllCommands();
}

/** What the words that only group commands are for. */
export const COMMAND_GROUPS: Readonly<Record<string, string>> = {
  list: "list or inspect components (environments, benchmarks, agents, models, resources-servers)",
  env: "start, inspect and validate server configs",
  eval: "collect and score rollouts",
  dataset: "check and prepare datasets",
  agent: "talk to the agents of a running graph",
  dev: "NeMo Gym's contributor helpers (not applicable here)",
};

/** NeMo Gym names that stand for the program's own flags rather than a command. */
export const LEGACY_PROGRAM_FLAGS: Readonly<Record<string, readonly string[]>> = {
  ng_version: ["--version"],
  ng_help: ["--help"],
};
