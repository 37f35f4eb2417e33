// `gym eval aggregate` (NeMo Gym's ng_aggregate_rollouts): merge rollout shards and compute their metrics,
// through the servers (each agent's /aggregate_metrics; with `--config`, only the resources servers are
// started and asked) or, with `--offline`, locally with the default computation.
import { resolve } from "node:path";
import { z } from "zod";
import type { ConfigDict } from "../config/index.ts";
import { formatZodIssues } from "../config/zod-issues.ts";
import { AggregateMetricsError, aggregateShards, offlineMetrics, readShards, serverMetrics, type AggregateSummary } from "../rollouts/aggregate.ts";
import { agentNameOf, InputError } from "../rollouts/jsonl.ts";
import { arg, configFlag, defineCommand, flag } from "./command.ts";
import { flagOverrides } from "./load-config.ts";
import { instancesOfType, resourcesServerRouter, withServers } from "./server-session.ts";

export const RolloutAggregationConfig = z.object({
  input_glob: z.string({ error: "input_glob is required (--input-glob GLOB or +input_glob=GLOB)" }),
  output_jsonl_fpath: z.string().nullish(),
  merge_shards: z.boolean().default(true),
  /** Compute the metrics here (NeMo Gym's default computation, no environment hooks) instead of asking the servers. */
  offline: z.boolean().default(false),
  resources_server_name: z.string().nullish(),
});
export type RolloutAggregationConfig = z.output<typeof RolloutAggregationConfig>;

/**
 * The server that computes an agent's metrics: the agent itself when it runs; otherwise (or when only the
 * resources servers were started) its resources server, which is where an agent's /aggregate_metrics goes anyway.
 */
function metricsServerFor(config: ConfigDict, agentsRunning: boolean, resourcesServerName?: string | null): (agentName: string) => string {
  const agents = new Set(agentsRunning ? instancesOfType(config, "responses_api_agents") : []);
  const route = resourcesServerRouter(config, resourcesServerName, "--resources-server");
  return (agentName) => (agents.has(agentName) ? agentName : route(agentName));
}

export async function evalAggregate(options: { raw: ConfigDict; resolved: ConfigDict; serve: boolean; print: (line: string) => void; log: (line: string) => void }): Promise<AggregateSummary> {
  const parsed = RolloutAggregationConfig.safeParse(options.resolved);
  if (!parsed.success) throw new InputError(formatZodIssues(parsed.error.issues));
  const settings = parsed.data;
  // Shards are read (and a bad line reported) before any server starts.
  const shards = readShards(settings.input_glob);
  const outputPath = settings.output_jsonl_fpath ? resolve(process.cwd(), settings.output_jsonl_fpath) : null;
  const aggregate = { outputPath, mergeShards: settings.merge_shards, print: options.print };
  if (settings.offline) return aggregateShards(shards, { ...aggregate, metrics: offlineMetrics });

  const agents = new Set(shards.lines.flatMap(({ row }) => agentNameOf(row) ?? []));
  return withServers(
    {
      raw: options.raw,
      resolved: options.resolved,
      serve: options.serve,
      log: options.log,
      startOnly: (config) => {
        const serverFor = metricsServerFor(config, false, settings.resources_server_name);
        return new Set([...agents].map(serverFor));
      },
    },
    ({ client, config }) => aggregateShards(shards, { ...aggregate, metrics: serverMetrics(client, metricsServerFor(config, !options.serve, settings.resources_server_name)) }),
  );
}

export const evalAggregateCommand = defineCommand({
  path: ["eval", "aggregate"],
  description: "merge rollout shards by (task, rollout) and compute their aggregate metrics (NeMo Gym's ng_aggregate_rollouts)",
  examples: [
    "gym eval aggregate --input-glob 'shards/out-*.jsonl' --output merged.jsonl --offline",
    "gym eval aggregate --config resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml --input-glob 'shards/*.jsonl' --output merged.jsonl",
  ],
  legacyNames: { ng_aggregate_rollouts: [] },
  args: { overrides: arg.overrides() },
  flags: {
    config: configFlag("a config YAML (repeatable); the resources servers that compute the metrics are started for the run"),
    serve: flag.negated("use servers that are already running (found through the head server)"),
    inputGlob: flag.string("globs", "glob or comma-separated globs of rollout shards (*, ?, [..], **)", { short: "i" }),
    output: flag.string("file", "merged rollouts JSONL; <stem>_aggregate_metrics.json is written next to it", { short: "o" }),
    mergeShards: flag.negated("write only the metrics file, not the merged rollouts"),
    offline: flag.boolean("compute the metrics here with the default computation (no servers, no environment hooks)"),
    resourcesServer: flag.string("name", "resources server instance that computes the metrics of agents that are not running"),
  },
  toConfig: (flags) => ({
    configPaths: flags.config,
    overrides: flags.overrides,
    withoutModel: true,
    flagOverrides: flagOverrides({
      input_glob: flags.inputGlob,
      output_jsonl_fpath: flags.output,
      resources_server_name: flags.resourcesServer,
      merge_shards: flags.mergeShards === false ? false : undefined,
      offline: flags.offline || undefined,
    }),
  }),
  async run({ raw, resolved }, { flags, print, warn }) {
    const serve = flags.serve && flags.config.length > 0;
    try {
      await evalAggregate({ raw, resolved, serve, print, log: warn });
    } catch (error) {
      if (!(error instanceof AggregateMetricsError)) throw error;
      // A server that could not compute the metrics: reported in one line, exit 1 (not the user's mistake).
      warn(`error: ${error.message}`);
      return 1;
    }
  },
});
