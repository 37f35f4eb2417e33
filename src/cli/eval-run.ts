// `gym eval run` / `ng_collect_rollouts`: collection parameters are read from the merged config's
// top-level keys (NeMo Gym's RolloutCollectionConfig), so `+agent_name=…` and `--agent …` are the same thing.
import { isAbsolute, resolve } from "node:path";
import { existsSync } from "node:fs";
import { z } from "zod";
import { PROJECT_ROOT, type ConfigDict } from "../config/index.ts";
import { collectRollouts, materializeInput, precheckResume, type CollectSummary } from "../rollouts/collect.ts";
import { loadPromptConfig } from "../rollouts/prompt-config.ts";
import { withServers } from "./server-session.ts";

export const RolloutCollectionConfig = z.object({
  agent_name: z.string().nullish(),
  input_jsonl_fpath: z.string({ error: "input_jsonl_fpath is required (--input FILE or +input_jsonl_fpath=FILE)" }),
  output_jsonl_fpath: z.string({ error: "output_jsonl_fpath is required (--output FILE or +output_jsonl_fpath=FILE)" }),
  limit: z.number().int().positive().nullish(),
  num_repeats: z.union([z.number().int().min(1), z.record(z.string(), z.number().int().min(1))]).nullish(),
  num_repeats_add_seed: z.boolean().default(false),
  num_samples_in_parallel: z.number().int().positive().nullish(),
  responses_create_params: z.record(z.string(), z.unknown()).nullish(),
  disable_aggregation: z.boolean().default(false),
  rollout_deadline_s: z.number().positive().nullish(),
  prompt_config: z.string().nullish(),
  resume_from_cache: z.boolean().default(false),
  max_rollout_attempts: z.number().int().positive().nullish(),
  retry_backoff_s: z.number().min(0).nullish(),
});
export type RolloutCollectionConfig = z.output<typeof RolloutCollectionConfig>;

export function collectionConfigFrom(resolved: ConfigDict): RolloutCollectionConfig {
  const parsed = RolloutCollectionConfig.safeParse(resolved);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("\n"));
  return parsed.data;
}

/** Relative paths: the working directory first, then the repository root (NeMo Gym's install root). */
export function resolveUserPath(path: string): string {
  if (isAbsolute(path)) return path;
  const fromCwd = resolve(process.cwd(), path);
  return existsSync(fromCwd) ? fromCwd : existsSync(resolve(PROJECT_ROOT, path)) ? resolve(PROJECT_ROOT, path) : fromCwd;
}

export interface EvalRunOptions {
  raw: ConfigDict;
  resolved: ConfigDict;
  /** Start the config's servers for the run (default when configs are given) or use running ones. */
  serve: boolean;
  log?: (line: string) => void;
}

export async function evalRun(options: EvalRunOptions): Promise<CollectSummary> {
  const settings = collectionConfigFrom(options.resolved);
  const collectOptions = {
    inputPath: resolveUserPath(settings.input_jsonl_fpath),
    outputPath: resolve(process.cwd(), settings.output_jsonl_fpath),
    agentName: settings.agent_name,
    limit: settings.limit,
    numRepeats: settings.num_repeats,
    numRepeatsAddSeed: settings.num_repeats_add_seed,
    responsesCreateParams: settings.responses_create_params,
    concurrency: settings.num_samples_in_parallel,
    rolloutDeadlineMs: settings.rollout_deadline_s ? settings.rollout_deadline_s * 1000 : undefined,
    disableAggregation: settings.disable_aggregation,
    promptConfig: settings.prompt_config ? loadPromptConfig(resolveUserPath(settings.prompt_config)) : null,
    resume: settings.resume_from_cache,
    maxAttempts: settings.max_rollout_attempts ?? undefined,
    retryBackoffMs: settings.retry_backoff_s != null ? settings.retry_backoff_s * 1000 : undefined,
  };
  // A bad input file is reported before any server is started.
  const rows = materializeInput(collectOptions);
  precheckResume(collectOptions, rows);

  return withServers({ raw: options.raw, resolved: options.resolved, serve: options.serve, log: options.log }, ({ client, config }) =>
    collectRollouts({ ...collectOptions, rows, client, runConfig: config }),
  );
}
