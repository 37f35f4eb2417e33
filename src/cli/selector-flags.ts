// NeMo Gym's shared flags: the asset selectors (`--resources-server`, `--model-type`, `--environment`,
// `--benchmark`), `--search-dir`, and the model flags (`--model/-m`, `--model-url`, `--model-api-key`). A
// command spreads the groups NeMo Gym gives it into its `flags`; `selectedConfig` turns them, with `--config`,
// into one config_paths list (NeMo Gym's _merge_config_paths) and the model overrides.
import { assetConfigPath, type SelectorFlag } from "../config/selectors.ts";
import { flag } from "./command.ts";
import { flagOverrides } from "./load-config.ts";

/** `--search-dir DIR` (repeatable): extra roots searched before NEMO_GYM_EXTRA_ROOTS, cwd and the project root. */
export const searchDirFlags = {
  searchDir: flag.list("dir", "extra root directory to search for components (repeatable); reaches the started servers as NEMO_GYM_EXTRA_ROOTS"),
};

export const selectorFlags = {
  benchmark: flag.string("name", "load benchmarks/<name>/config.yaml (nested names too: livecodebench/v5_2408_2502)"),
  environment: flag.string("name", "load environments/<name>/config.yaml"),
  resourcesServer: flag.string("name[/flavor]", "load resources_servers/<name>/configs/<flavor or name>.yaml"),
  modelType: flag.string("type[/flavor]", "load responses_api_models/<type>/configs/<flavor or type>.yaml"),
  ...searchDirFlags,
};

/** The selectors `dataset collate` has (NeMo Gym gives it no environment or benchmark selector). */
export const serverSelectorFlags = {
  resourcesServer: selectorFlags.resourcesServer,
  modelType: selectorFlags.modelType,
  ...searchDirFlags,
};

export const modelFlags = {
  model: flag.string("name", "model name, HF id or checkpoint path (+policy_model_name)", { short: "m" }),
  modelUrl: flag.string("url", "model server base URL (+policy_base_url)"),
  modelApiKey: flag.string("key", "model server API key (+policy_api_key)"),
};

interface SelectorValues {
  config?: readonly string[];
  benchmark?: string;
  environment?: string;
  resourcesServer?: string;
  modelType?: string;
  model?: string;
  modelUrl?: string;
  modelApiKey?: string;
}

/** In NeMo Gym's order: --config, then --benchmark, --environment, --resources-server, --model-type. */
const SELECTORS: readonly [keyof SelectorValues, SelectorFlag][] = [
  ["benchmark", "benchmark"],
  ["environment", "environment"],
  ["resourcesServer", "resources-server"],
  ["modelType", "model-type"],
];

/** The config files the flags name (--config first, then each selector's file) and the model flags' overrides. */
export function selectedConfig(values: SelectorValues, warn: (line: string) => void = (line) => void process.stderr.write(`WARNING ${line}\n`)): { configPaths: string[]; flagOverrides: string[] } {
  const configPaths = [...(values.config ?? [])];
  for (const [key, selector] of SELECTORS) {
    const value = values[key];
    if (typeof value === "string" && value !== "") configPaths.push(assetConfigPath(selector, value, { warn }));
  }
  return {
    configPaths,
    flagOverrides: flagOverrides({ policy_model_name: values.model, policy_base_url: values.modelUrl, policy_api_key: values.modelApiKey }),
  };
}

/** Whether the flags name any config (--config or a selector): then a run starts those servers. */
export function selectsConfig(values: SelectorValues): boolean {
  return (values.config?.length ?? 0) > 0 || SELECTORS.some(([key]) => typeof values[key] === "string" && values[key] !== "");
}
