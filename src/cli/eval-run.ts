// `gym eval run` / `ng_collect_rollouts`: collection parameters are read from the merged config's
// top-level keys (NeMo Gym's RolloutCollectionConfig), so `+agent_name=…` and `--agent …` are the same thing.
import { basename, dirname, extname, isAbsolute, join, resolve } from "node:path";
import { existsSync } from "node:fs";
import { z } from "zod";
import { closestMatch } from "../config/servers.ts";
import { listServerInstances, PROJECT_ROOT, type ConfigDict } from "../config/index.ts";
import { UserError } from "../config/errors.ts";
import { formatZodIssues } from "../config/zod-issues.ts";
import { collateDatasets } from "../rollouts/collate.ts";
import { collectRollouts, materializeInput, precheckResume, type CollectSummary } from "../rollouts/collect.ts";
import type { RowSource } from "../rollouts/materialize.ts";
import { loadPromptConfig } from "../rollouts/prompt-config.ts";
import { checkOutputWritable } from "../rollouts/output-files.ts";
import { isFetchedPrompt } from "../config/nemo-gym-files.ts";
import { ANY_NUMBER, arg, configFlag, defineCommand, flag, NON_NEGATIVE_NUMBER, POSITIVE_INTEGER, POSITIVE_NUMBER } from "./command.ts";
import { hubAccess } from "./hub-access.ts";
import { flagOverrides } from "./load-config.ts";
import { modelFlags, selectedConfig, selectorFlags, selectsConfig } from "./selector-flags.ts";
import { instancesOfType, withServers } from "./server-session.ts";

export const RolloutCollectionConfig = z.object({
  agent_name: z.string().nullish(),
  input_jsonl_fpath: z.string().nullish(),
  /** NeMo Gym's e2e collection: the config's datasets of this type, collated, are the input. */
  split: z.enum(["train", "validation", "benchmark"], { error: "split must be train, validation or benchmark" }).nullish(),
  reuse_existing_data_preparation: z.boolean().default(false),
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
  outage_wait_s: z.number().min(0).nullish(),
});
export type RolloutCollectionConfig = z.output<typeof RolloutCollectionConfig>;

export function collectionConfigFrom(resolved: ConfigDict): RolloutCollectionConfig {
  checkNoMisspelledSetting(resolved);
  const parsed = RolloutCollectionConfig.safeParse(resolved);
  if (!parsed.success) throw new UserError(formatZodIssues(parsed.error.issues));
  const { input_jsonl_fpath: input, split } = parsed.data;
  if (!input && !split) throw new UserError("input_jsonl_fpath: input_jsonl_fpath is required (--input FILE or +input_jsonl_fpath=FILE)");
  // NeMo Gym's e2e run silently replaces the input with the split; here the two are one choice.
  if (input && split) throw new UserError(`--input ${input} and --split ${split} both name the input; give one (--split collates the config's ${split} datasets)`);
  return parsed.data;
}

/**
 * `--split S` (NeMo Gym's e2e collection): the config's datasets collated (train_preparation) into
 * <output without extension>/preprocessed_datasets, whose S.jsonl is the input. Its path.
 */
async function splitInput(settings: RolloutCollectionConfig, resolved: ConfigDict, log: (line: string) => void): Promise<string> {
  const output = resolve(process.cwd(), settings.output_jsonl_fpath);
  const dir = join(dirname(output), basename(output, extname(output)), "preprocessed_datasets");
  const input = join(dir, `${settings.split}.jsonl`);
  if (settings.reuse_existing_data_preparation && existsSync(input)) {
    log(`Skipping data preparation since reuse_existing_data_preparation=true and ${input} already exists`);
    return input;
  }
  // As NeMo Gym's e2e collection: should_download=true, so missing datasets with a Hugging Face source are fetched.
  const written = await collateDatasets({
    config: resolved,
    mode: "train_preparation",
    outputDir: dir,
    download: true,
    hub: () => hubAccess(resolved),
    overwriteMetricsConflicts: resolved.overwrite_metrics_conflicts === true,
    log,
  });
  if (!written[settings.split!]) {
    throw new UserError(`--split ${settings.split}: no agent instance of the config declares a ${settings.split} dataset (collated: ${Object.keys(written).join(", ") || "none"})`);
  }
  log(`Dataset file used for rollout collection: ${input}`);
  return input;
}

const COLLECTION_KEYS = Object.keys(RolloutCollectionConfig.shape);

/**
 * A top-level value that is no collection setting but is spelled like one (`+num_repeat=4`, `+agent_nam=…`) would
 * be ignored without a word: it is refused, naming the setting meant. Server blocks and sections (dicts) are
 * not settings; other top-level values (a config's own variables) are left alone unless they are that close.
 */
function checkNoMisspelledSetting(resolved: ConfigDict): void {
  const servers = new Set(listServerInstances(resolved, { errorOnAlmostServers: false, logger: { warn: () => undefined } }).map((i) => i.instanceName));
  for (const [key, value] of Object.entries(resolved)) {
    if (COLLECTION_KEYS.includes(key) || servers.has(key) || (value !== null && typeof value === "object" && !Array.isArray(value))) continue;
    const meant = closestMatch(key, COLLECTION_KEYS);
    if (meant && isCloseTypo(key, meant)) throw new UserError(`unknown setting '${key}': did you mean '${meant}'? (+${meant}=…)`);
  }
}

/** Same length ±2 and the same first letter: a typo, not a config's own variable that shares some letters. */
const isCloseTypo = (key: string, meant: string) => Math.abs(key.length - meant.length) <= 2 && key[0] === meant[0];

/** Relative paths: the working directory first, then the repository root (NeMo Gym's install root). */
export function resolveUserPath(path: string): string {
  if (isAbsolute(path)) return path;
  const fromCwd = resolve(process.cwd(), path);
  return existsSync(fromCwd) ? fromCwd : existsSync(resolve(PROJECT_ROOT, path)) ? resolve(PROJECT_ROOT, path) : fromCwd;
}

/** --prompt-config: one of NeMo Gym's templates that is not here yet comes with `gym eval prepare`. */
function promptConfigPath(path: string): string {
  const located = resolveUserPath(path);
  if (!existsSync(located) && isFetchedPrompt(path)) {
    const benchmark = /^(?:\.\/)?benchmarks\/([^/]+)\/prompts\//.exec(path)?.[1];
    throw new UserError(`prompt_config ${path} is not here (NeMo Gym's template, fetched at its pinned commit): run \`gym eval prepare --benchmark ${benchmark ?? "<a benchmark that uses it>"}\` first`);
  }
  return located;
}

export interface EvalRunOptions {
  raw: ConfigDict;
  resolved: ConfigDict;
  /** Start the config's servers for the run (default when configs are given) or use running ones. */
  serve: boolean;
  /** `--queue redis://…`: the rollouts become BullMQ jobs for `gym eval worker`s; this process writes the files. */
  queueUrl?: string;
  log?: (line: string) => void;
}

export async function evalRun(options: EvalRunOptions): Promise<CollectSummary> {
  const settings = collectionConfigFrom(options.resolved);
  // A bad --queue is one line before anything is read or started.
  const queue = options.queueUrl === undefined ? undefined : await import("../rollouts/queue/connection.ts").then((m) => m.parseQueueUrl(options.queueUrl!));
  // The coordinator runs no rollout itself: a local in-flight cap would be ignored without a word.
  if (queue && settings.num_samples_in_parallel != null) {
    throw new UserError(`--concurrency ${settings.num_samples_in_parallel} limits a local run; with --queue each worker's own --concurrency does (gym eval worker --queue … --concurrency N)`);
  }
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const inputPath = settings.split ? await splitInput(settings, options.resolved, log) : resolveUserPath(settings.input_jsonl_fpath!);
  const collectOptions = {
    inputPath,
    outputPath: resolve(process.cwd(), settings.output_jsonl_fpath),
    agentName: settings.agent_name,
    limit: settings.limit,
    numRepeats: settings.num_repeats,
    numRepeatsAddSeed: settings.num_repeats_add_seed,
    responsesCreateParams: settings.responses_create_params,
    concurrency: settings.num_samples_in_parallel,
    rolloutDeadlineMs: settings.rollout_deadline_s ? settings.rollout_deadline_s * 1000 : undefined,
    disableAggregation: settings.disable_aggregation,
    promptConfig: settings.prompt_config ? loadPromptConfig(promptConfigPath(settings.prompt_config)) : null,
    resume: settings.resume_from_cache,
    maxAttempts: settings.max_rollout_attempts ?? undefined,
    retryBackoffMs: settings.retry_backoff_s != null ? settings.retry_backoff_s * 1000 : undefined,
    outageWaitMs: settings.outage_wait_s != null ? settings.outage_wait_s * 1000 : undefined,
  };
  // A bad input file is reported before any server is started.
  const rows = materializeInput(collectOptions);
  precheckResume(collectOptions, rows);
  checkOutputWritable(collectOptions.outputPath);

  // An agent the config lacks (--agent, or a row's agent_ref) is refused before any server starts; with --no-serve,
  // against the running graph's config from its head server, before any rollout is sent.
  if (options.serve) checkAgentsKnown(rows, settings.agent_name, options.resolved, "the config");
  // BullMQ and ioredis load only for a queued run.
  const overQueue = queue ? await import("../rollouts/queue/index.ts") : undefined;
  if (queue) await overQueue!.checkRedisReachable(queue);
  // A started server that dies stops the collection at once (stopSignal), and withServers waits for its files to be consistent.
  return withServers({ raw: options.raw, resolved: options.resolved, serve: options.serve, log: options.log, stopsOnSignal: true }, ({ client, config, stopSignal }) => {
    if (!options.serve) checkAgentsKnown(rows, settings.agent_name, config, "the running servers");
    if (queue) return overQueue!.collectOverQueue({ ...collectOptions, rows, client, runConfig: config, stopSignal, queue });
    return collectRollouts({ ...collectOptions, rows, client, runConfig: config, stopSignal });
  });
}

/** 0 when every rollout is done; 1 when some failed, or the run stopped early (said in one line on stderr). */
export function evalRunExitCode(summary: CollectSummary, err: (text: string) => void = (text) => process.stderr.write(text)): number {
  if (summary.stopped !== null) {
    err(`error: rollout collection stopped: ${summary.stopped}; ${summary.unfinished} unfinished rollouts are left for --resume (run the same command with --resume)\n`);
    return 1;
  }
  return summary.failed > 0 ? 1 : 0;
}

/**
 * Every agent the rows name, and `--agent` even when every row has its own agent_ref (a typo there would be
 * ignored without a word), is an agent instance of `config`.
 */
function checkAgentsKnown(rows: Pick<RowSource, "agents">, agentName: string | null | undefined, config: ConfigDict, where: string): void {
  const agents = instancesOfType(config, "responses_api_agents");
  const named = new Set([...(agentName ? [agentName] : []), ...rows.agents()]);
  const unknown = [...named].filter((name) => !agents.includes(name));
  if (unknown.length === 0) return;
  const hints = unknown.map((name) => [name, closestMatch(name, agents)] as const).filter(([, meant]) => meant !== undefined);
  throw new UserError(
    `unknown agent ${unknown.map((name) => `'${name}'`).join(", ")}: not an agent instance of ${where} (agents: ${agents.join(", ") || "none"}); ` +
      hints.map(([name, meant]) => (unknown.length === 1 ? `did you mean '${meant}'? ` : `did you mean '${meant}' for '${name}'? `)).join("") +
      `fix --agent / +agent_name or the rows' agent_ref`,
  );
}

export const evalRunCommand = defineCommand({
  path: ["eval", "run"],
  description: "collect rollouts: POST every input row to its agent's /run (NeMo Gym's ng_collect_rollouts)",
  examples: [
    "gym eval run --config resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml --config responses_api_models/scripted_model/configs/scripted_model.yaml --agent example_single_tool_call_simple_agent --input resources_servers/example_single_tool_call/data/example.jsonl --output results/example.jsonl",
    "gym eval run --no-serve --agent example_single_tool_call_simple_agent --input in.jsonl --output out.jsonl --num-repeats 4",
    "gym eval run --no-serve --agent example_single_tool_call_simple_agent --input in.jsonl --output out.jsonl --queue redis://127.0.0.1:6379",
  ],
  legacyNames: { ng_collect_rollouts: ["--no-serve"], ng_e2e_collect_rollouts: [] },
  args: { overrides: arg.overrides() },
  flags: {
    config: configFlag("a config YAML (repeatable); its servers are started for the run"),
    ...selectorFlags,
    serve: flag.negated("use servers that are already running (found through the head server)"),
    agent: flag.string("name", "agent instance for rows without agent_ref", { short: "a" }),
    input: flag.string("file", "input JSONL", { short: "i" }),
    output: flag.string("file", "output JSONL", { short: "o" }),
    limit: flag.number("n", "only the first N rows", POSITIVE_INTEGER),
    numRepeats: flag.number("n", "rollouts per row", POSITIVE_INTEGER),
    numRepeatsAddSeed: flag.boolean("pass metadata.extra_body.seed = rollout index"),
    concurrency: flag.number("n", "in-flight rollouts at most", POSITIVE_INTEGER),
    temperature: flag.number("t", "override responses_create_params.temperature", ANY_NUMBER),
    topP: flag.number("p", "override responses_create_params.top_p", ANY_NUMBER),
    maxOutputTokens: flag.number("n", "override responses_create_params.max_output_tokens", POSITIVE_INTEGER),
    promptConfig: flag.string("file", "build each row's input from a {system?, user} YAML template"),
    resume: flag.boolean("continue an interrupted run: keep its rollouts, retry its failures"),
    rolloutDeadline: flag.number("seconds", "deadline of one /run attempt", POSITIVE_NUMBER),
    maxAttempts: flag.number("n", "attempts per rollout, over the run and its resumes (default NEMO_GYM_MAX_ROLLOUT_ATTEMPTS or 3)", POSITIVE_INTEGER),
    retryBackoff: flag.number("seconds", "first wait before a retry, doubled per attempt (default 1)", NON_NEGATIVE_NUMBER),
    outageWait: flag.number("seconds", "while a server is down, how long dispatch pauses for it before the run stops (default 120)", NON_NEGATIVE_NUMBER),
    queue: flag.string("redis://…", "turn the run into BullMQ jobs on this Redis, run by `gym eval worker --queue` on any machine; this process writes the files"),
    disableAggregation: flag.boolean("skip /aggregate_metrics (for shards; run `gym eval aggregate` afterwards)"),
    split: flag.string("split", "collate the config's datasets of this type and run them (instead of --input)", { choices: ["train", "validation", "benchmark"] }),
    ...modelFlags,
  },
  toConfig: (flags) => {
    const selected = selectedConfig(flags);
    const collection = flagOverrides({
      split: flags.split,
      agent_name: flags.agent,
      input_jsonl_fpath: flags.input,
      output_jsonl_fpath: flags.output,
      limit: flags.limit,
      num_repeats: flags.numRepeats,
      num_samples_in_parallel: flags.concurrency,
      num_repeats_add_seed: flags.numRepeatsAddSeed || undefined,
      "responses_create_params.temperature": flags.temperature,
      "responses_create_params.top_p": flags.topP,
      "responses_create_params.max_output_tokens": flags.maxOutputTokens,
      prompt_config: flags.promptConfig,
      resume_from_cache: flags.resume || undefined,
      rollout_deadline_s: flags.rolloutDeadline,
      max_rollout_attempts: flags.maxAttempts,
      retry_backoff_s: flags.retryBackoff,
      outage_wait_s: flags.outageWait,
      disable_aggregation: flags.disableAggregation || undefined,
    });
    return { configPaths: selected.configPaths, overrides: flags.overrides, flagOverrides: [...selected.flagOverrides, ...collection] };
  },
  async run({ raw, resolved }, { flags }) {
    return evalRunExitCode(await evalRun({ raw, resolved, serve: flags.serve && selectsConfig(flags), queueUrl: flags.queue }));
  },
});
