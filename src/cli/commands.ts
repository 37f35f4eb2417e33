// Every `gym` command, in the order `gym --help` lists them; NeMo Gym's `ng_*` names come from the same table.
import { agentAskCommand } from "./agent-ask.ts";
import type { GymCommand } from "./command.ts";
import { datasetCollateCommand } from "./dataset-collate.ts";
import { datasetDownloadCommand } from "./dataset-download.ts";
import { datasetMigrateCommand } from "./dataset-migrate.ts";
import { datasetRmCommand } from "./dataset-rm.ts";
import { datasetUploadCommand } from "./dataset-upload.ts";
import { devTestCommand } from "./dev-test.ts";
import { envPackagesCommand } from "./env-packages.ts";
import { envPrefetchCommand } from "./env-prefetch.ts";
import { evalSubmitCommand } from "./eval-submit.ts";
import { datasetRenderCommand } from "./dataset-render.ts";
import { datasetValidateCommand } from "./dataset-validate.ts";
import { envInitCommand } from "./env-init.ts";
import { envResolveCommand } from "./env-resolve.ts";
import { envStartCommand } from "./env-start.ts";
import { envStatusCommand } from "./env-status.ts";
import { envTestCommand } from "./env-test.ts";
import { envValidateCommand } from "./env-validate.ts";
import { envWrapCommand } from "./env-wrap.ts";
import { evalAggregateCommand } from "./eval-aggregate.ts";
import { evalProfileCommand } from "./eval-profile.ts";
import { evalPrepareCommand } from "./eval-prepare.ts";
import { evalReverifyCommand } from "./eval-reverify.ts";
import { evalRunCommand } from "./eval-run.ts";
import { gatewayCommand } from "./gateway.ts";
import { listAgentsCommand } from "./list-agents.ts";
import { listBenchmarksCommand } from "./list-benchmarks.ts";
import { listEnvironmentsCommand } from "./list-environments.ts";
import { listModelsCommand } from "./list-models.ts";
import { listResourcesServersCommand } from "./list-resources-servers.ts";
import { quickstartCommand } from "./quickstart.ts";
import { searchCommand } from "./search.ts";
import { convertDatasetCommand, trialClientCommand } from "./trial-client.ts";

export const COMMANDS: readonly GymCommand[] = [
  listEnvironmentsCommand,
  listBenchmarksCommand,
  listAgentsCommand,
  listModelsCommand,
  listResourcesServersCommand,
  searchCommand,
  envWrapCommand,
  envTestCommand,
  envInitCommand,
  envStartCommand,
  envStatusCommand,
  envResolveCommand,
  envValidateCommand,
  evalPrepareCommand,
  evalRunCommand,
  evalReverifyCommand,
  evalAggregateCommand,
  evalProfileCommand,
  datasetCollateCommand,
  datasetRenderCommand,
  // NeMo Gym's commands that do not apply here: each says why in one line.
  envPackagesCommand,
  envPrefetchCommand,
  evalSubmitCommand,
  datasetUploadCommand,
  datasetDownloadCommand,
  datasetRmCommand,
  datasetMigrateCommand,
  devTestCommand,
  agentAskCommand,
  datasetValidateCommand,
  gatewayCommand,
  convertDatasetCommand,
  trialClientCommand,
  quickstartCommand,
];

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
