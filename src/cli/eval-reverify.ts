// `gym eval reverify`: re-score stored rollouts against a resources server, no model involved. Flags become
// top-level config keys (NeMo Gym's RolloutReverificationConfig names), so `+rollouts_jsonl_fpath=…` works too.
// Servers: `--config` starts the resources servers the rows need (nothing else); without it, or with
// `--no-serve`, running servers are found through the head server.
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { z } from "zod";
import { formatZodIssues } from "../config/zod-issues.ts";
import { agentNameOf, InputError, readJsonl, type Row } from "../rollouts/jsonl.ts";
import type { ServerClient } from "../client/index.ts";
import { AggregateMetricsError, formatKeyMetrics, metricsByAgent, serverMetrics } from "../rollouts/aggregate.ts";
import { defaultMaxAttempts } from "../rollouts/collect.ts";
import { checkOutputWritable, RolloutOutputFiles, sidecarPath } from "../rollouts/output-files.ts";
import { guardReverifyModes, reverifyModes, UNSAFE_OUTPUT_PREFIX } from "../rollouts/reverify-mode.ts";
import { judgeFailedLines, loadReverifyCache, RECOVERY_TWO_SOURCES_WARNING, seedOutputWithSuccesses, withoutCached } from "../rollouts/reverify-plan.ts";
import { failureLine, formatReverifyReport, reverifyRollouts, type ReverifyOutcome, type ReverifyReport } from "../rollouts/reverify.ts";
import { arg, configFlag, defineCommand, flag, POSITIVE_INTEGER, POSITIVE_NUMBER } from "./command.ts";
import { resolveUserPath } from "./eval-run.ts";
import { flagOverrides } from "./load-config.ts";
import { selectedConfig, selectorFlags, selectsConfig } from "./selector-flags.ts";
import { resourcesServerRouter, withServers } from "./server-session.ts";

export const RolloutReverificationConfig = z
  .object({
    materialized_inputs_jsonl_fpath: z.string().nullish(),
    rollouts_jsonl_fpath: z.string({ error: "rollouts_jsonl_fpath is required (--rollouts FILE or +rollouts_jsonl_fpath=FILE)" }),
    output_jsonl_fpath: z.string().nullish(),
    num_samples_in_parallel: z.number().int().positive().nullish(),
    limit: z.number().int().positive().nullish(),
    /** Re-score servers whose reverify_mode refuses it; the output is prefixed `unsafe_`. */
    force: z.boolean().default(false),
    overwrite: z.boolean().default(false),
    /** Continue a partial output: skip the keys it has, and those its failures file gave up on. */
    resume_from_cache: z.boolean().default(false),
    disable_aggregation: z.boolean().default(false),
    /** Re-score only the judge-failed rollouts of `<rollouts_stem>_failures.jsonl`, the successes carried over. */
    judge_failed_only: z.boolean().default(false),
    /** With judge_failed_only: add to an existing output instead of a fresh one. */
    append: z.boolean().default(false),
    /** Resources server instance for every row (else: the agent's, or the config's only one). */
    resources_server_name: z.string().nullish(),
    /** Only /verify, as NeMo Gym does (no /seed_session, no tool replay). */
    verify_only: z.boolean().default(false),
    call_deadline_s: z.number().positive().default(300),
    /** Exit 1 when any reward or extra field differs (a parity check). */
    expect_parity: z.boolean().default(false),
  })
  // NeMo Gym's model validator, its words.
  .check((ctx) => {
    if (ctx.value.append && !ctx.value.judge_failed_only) ctx.issues.push({ code: "custom", input: ctx.value, path: ["append"], message: "`append` is only valid together with `judge_failed_only` (pass --judge-failed-only)." });
    if (ctx.value.append && ctx.value.overwrite) ctx.issues.push({ code: "custom", input: ctx.value, path: ["append"], message: "`append` and `overwrite` are mutually exclusive: one appends, the other clears." });
  });
export type RolloutReverificationConfig = z.output<typeof RolloutReverificationConfig>;

function settingsFrom(resolved: Record<string, unknown>): RolloutReverificationConfig {
  const parsed = RolloutReverificationConfig.safeParse(resolved);
  if (!parsed.success) throw new InputError(formatZodIssues(parsed.error.issues));
  const settings = parsed.data;
  const needsOutput = settings.judge_failed_only ? "--judge-failed-only" : settings.resume_from_cache ? "--resume" : undefined;
  if (needsOutput && !settings.output_jsonl_fpath) throw new InputError(`${needsOutput} needs --output FILE (+output_jsonl_fpath=FILE)`);
  if (settings.judge_failed_only && !settings.materialized_inputs_jsonl_fpath) {
    throw new InputError("--judge-failed-only needs --inputs FILE, the run's materialized inputs: a failure line does not carry the row's dataset fields");
  }
  return settings;
}

export interface ReverifyRunResult {
  report: ReverifyReport;
  outputPath: string | null;
  failuresPath: string | null;
  aggregateMetricsPath: string | null;
  /** Why there is no metrics file. */
  aggregateNote?: string;
  aggregateFailed: boolean;
}

/** `<dir>/<prefix><name>`: NeMo Gym's `unsafe_` output of a forced run. */
function prefixed(path: string, prefix: string): string {
  return prefix === "" ? path : join(dirname(path), prefix + basename(path));
}

/** NeMo Gym's _prepare_output_fpaths: a fresh run never silently replaces an earlier one's files. */
function prepareOutput(files: RolloutOutputFiles, settings: RolloutReverificationConfig, log: (line: string) => void): void {
  if (settings.append || settings.resume_from_cache) return;
  for (const path of [files.paths.rollouts, files.paths.failures]) {
    if (!existsSync(path)) continue;
    if (!settings.overwrite) throw new InputError(`Output file already exists: '${path}'. Pass --overwrite to delete it and start fresh, or --resume to continue from it.`);
    rmSync(path);
    log(`Deleted existing output file: '${path}'`);
  }
}

export async function evalReverify(options: { raw: Record<string, unknown>; resolved: Record<string, unknown>; serve: boolean; json: boolean; print: (line: string) => void; log: (line: string) => void }): Promise<{ result: ReverifyRunResult; settings: RolloutReverificationConfig }> {
  const settings = settingsFrom(options.resolved);
  const { log } = options;
  const rolloutsPath = resolveUserPath(settings.rollouts_jsonl_fpath);
  const inputsPath = settings.materialized_inputs_jsonl_fpath ? resolveUserPath(settings.materialized_inputs_jsonl_fpath) : null;
  // Bad files are reported before any server starts. With --judge-failed-only the rows come from the run's
  // failures file, --limit counting the ones left to recover.
  const failuresOfRun = sidecarPath(rolloutsPath, "_failures");
  if (settings.judge_failed_only && !existsSync(failuresOfRun)) throw new InputError(`--judge-failed-only: no failures file '${failuresOfRun}' next to --rollouts; the run recorded no failed rollout to recover`);
  const candidates = settings.judge_failed_only ? judgeFailedLines(readJsonl(failuresOfRun), new Set()) : readJsonl(rolloutsPath, settings.limit);
  if (settings.judge_failed_only) readJsonl(rolloutsPath); // the successes to seed must be readable too
  else if (candidates.length === 0) throw new InputError(`no rollout lines in '${rolloutsPath}'`);
  const inputs = inputsPath ? readJsonl(inputsPath) : null;
  // An output that cannot be written is said before any server starts (a forced run's unsafe_ twin sits beside it).
  if (settings.output_jsonl_fpath) checkOutputWritable(resolve(process.cwd(), settings.output_jsonl_fpath));
  if (!inputs) log(`(reverify) no --inputs: each row is rebuilt from its rollout line (dataset fields that verify does not echo back are missing)`);
  if (settings.judge_failed_only) log(RECOVERY_TWO_SOURCES_WARNING);

  const agentNames = new Set(candidates.map(({ row }) => agentNameOf(row)));
  const result = await withServers(
    {
      raw: options.raw,
      resolved: options.resolved,
      serve: options.serve,
      log,
      startOnly: (config) => {
        const route = resourcesServerRouter(config, settings.resources_server_name);
        const needed = new Set<string>();
        let firstError: Error | undefined;
        for (const agent of agentNames) {
          try {
            needed.add(route(agent));
          } catch (error) {
            firstError ??= error as Error;
          }
        }
        if (needed.size === 0 && firstError) throw new InputError(firstError.message);
        return needed;
      },
    },
    async ({ client, config }) => {
      const route = resourcesServerRouter(config, settings.resources_server_name);
      const deadlineMs = settings.call_deadline_s * 1000;

      // NeMo Gym's guard, before anything is written; a recovery re-scores judge calls only and skips it.
      let forcedWarning: string | undefined;
      if (!settings.judge_failed_only) {
        const servers = [...agentNames].flatMap((agent) => {
          try {
            return [route(agent)];
          } catch {
            return []; // such rows fail on their own (no_resources_server)
          }
        });
        const verdict = guardReverifyModes(await reverifyModes(client, servers, deadlineMs), { verifyOnly: settings.verify_only, force: settings.force });
        if (verdict.note) log(verdict.note);
        forcedWarning = verdict.forcedWarning;
        if (forcedWarning) log(forcedWarning);
      }
      const outputPath = settings.output_jsonl_fpath ? prefixed(resolve(process.cwd(), settings.output_jsonl_fpath), forcedWarning ? UNSAFE_OUTPUT_PREFIX : "") : null;
      const files = outputPath ? new RolloutOutputFiles(outputPath) : null;
      if (files) prepareOutput(files, settings, log);

      let rollouts = candidates;
      if (settings.judge_failed_only) {
        // The successes first, so the metrics cover the whole run; keys already in the output are never re-scored twice.
        mkdirSync(dirname(outputPath!), { recursive: true });
        const { present, seeded } = seedOutputWithSuccesses(rolloutsPath, outputPath!);
        log(`Recovery mode: seeded ${seeded} successful rollout(s) into ${outputPath}`);
        rollouts = judgeFailedLines(candidates, present).slice(0, settings.limit ?? undefined);
      }
      if (settings.resume_from_cache && files) {
        const cache = loadReverifyCache(files.paths.rollouts, files.paths.failures, defaultMaxAttempts());
        if (cache.empty) log("Skipping resume_from_cache because cache paths don't exist!");
        else {
          const { todo, summary } = withoutCached(rollouts, cache);
          log(summary);
          rollouts = todo;
        }
      }
      if (rollouts.length === 0) log("WARNING: Nothing to be re-verified.");

      const output = files?.openAppenders();
      const storedByLine = new Map<number, Row>(rollouts.map((r) => [r.lineNumber, r.row]));
      const write = (outcome: ReverifyOutcome) => {
        if (outcome.line) output?.appendRollout(outcome.line);
        if (outcome.failure) output?.appendFailure(failureLine(outcome, storedByLine.get(outcome.lineNumber)!));
      };
      let report: ReverifyReport;
      try {
        report = await reverifyRollouts({
          client,
          rollouts,
          inputs,
          resourcesServerFor: route,
          concurrency: settings.num_samples_in_parallel,
          callDeadlineMs: deadlineMs,
          verifyOnly: settings.verify_only,
          onOutcome: write,
        });
      } finally {
        output?.close();
      }

      let aggregate: { path: string | null; note?: string; failed?: boolean };
      if (!files) aggregate = { path: null, note: "no --output" };
      else if (settings.disable_aggregation) {
        log("Skipping aggregate-metrics computation because disable_aggregation=True. Run `gym eval aggregate` after all shards finish to compute the global metrics.");
        aggregate = { path: null, note: "disabled" };
      } else aggregate = await aggregateOutput(files, client, route, settings, options);
      if (forcedWarning) log(forcedWarning);
      return { report, outputPath, failuresPath: existsSync(files?.paths.failures ?? "") ? files!.paths.failures : null, aggregateMetricsPath: aggregate.path, aggregateNote: aggregate.note, aggregateFailed: aggregate.failed === true };
    },
  );
  return { result, settings };
}

/**
 * `<output>_aggregate_metrics.json` over the whole output file — rows of an earlier (resumed) run and seeded
 * successes included, as NeMo Gym reads it back; a failure is reported, the re-scored lines stay.
 */
async function aggregateOutput(
  files: RolloutOutputFiles,
  client: ServerClient,
  route: (agent: string | undefined) => string,
  settings: RolloutReverificationConfig,
  options: { json: boolean; print: (line: string) => void },
): Promise<{ path: string | null; note?: string; failed?: boolean }> {
  const rescored = existsSync(files.paths.rollouts) ? readJsonl(files.paths.rollouts).map((line) => line.row) : [];
  if (rescored.length === 0) return { path: null, note: "no row was re-scored" };
  rescored.sort((a, b) => (a._ng_task_index as number) - (b._ng_task_index as number) || (a._ng_rollout_index as number) - (b._ng_rollout_index as number));
  try {
    // The agents may not be running: as NeMo Gym does, each agent's metrics come from its resources server.
    const { entries } = await metricsByAgent(rescored, serverMetrics(client, (agent) => route(agent), settings.call_deadline_s * 1000));
    if (entries.length === 0) return { path: null, note: "no re-scored line has agent_ref" };
    if (!options.json) options.print(formatKeyMetrics(entries));
    return { path: files.writeAggregateMetrics(entries) };
  } catch (error) {
    if (!(error instanceof AggregateMetricsError)) throw error;
    return { path: null, note: `failed: ${error.message}`, failed: true };
  }
}

/** The machine-readable report: totals, one entry per resources server, one per row (without the rescored line). */
export function reportJson(result: ReverifyRunResult): Record<string, unknown> {
  const { report } = result;
  return {
    rows: report.rows,
    rewards_equal: report.rewardsEqual,
    rewards_different: report.rewardsDifferent,
    errors: report.errors,
    environments: report.environments,
    outcomes: report.outcomes.map(({ line, ...outcome }) => ({ ...outcome, newReward: line?.reward ?? null })),
    output: result.outputPath,
    failures: result.failuresPath,
    aggregate_metrics: result.aggregateMetricsPath,
    ...(result.aggregateNote ? { aggregate_metrics_note: result.aggregateNote } : {}),
  };
}

export const evalReverifyCommand = defineCommand({
  path: ["eval", "reverify"],
  description: "re-score stored rollouts against a resources server without calling any model (seed, replay the tool calls, verify)",
  examples: [
    "gym eval reverify --config resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml --inputs out_materialized_inputs.jsonl --rollouts out.jsonl --output reverified.jsonl --expect-parity",
  ],
  args: { overrides: arg.overrides() },
  flags: {
    config: configFlag("a config YAML (repeatable); the resources servers the rows need are started for the run"),
    serve: flag.negated("use servers that are already running (found through the head server)"),
    inputs: flag.string("file", "materialized inputs (matched by _ng_task_index/_ng_rollout_index) or the dataset (matched by prompt)"),
    rollouts: flag.string("file", "rollouts JSONL to re-verify"),
    output: flag.string("file", "re-scored rollouts JSONL (plus _failures.jsonl and _aggregate_metrics.json)", { short: "o" }),
    concurrency: flag.number("n", "rows re-verified at once at most", POSITIVE_INTEGER),
    limit: flag.number("n", "only the first N rollout lines", POSITIVE_INTEGER),
    ...selectorFlags,
    resourcesServerInstance: flag.string("name", "resources server instance for every row (default: the agent's, or the config's only one)"),
    verifyOnly: flag.boolean("only POST /verify, as NeMo Gym does (no /seed_session, no tool replay)"),
    force: flag.boolean("re-score servers whose reverify_mode refuses it (unsupported; with --verify-only also unknown); the output is prefixed unsafe_"),
    overwrite: flag.boolean("delete an existing output file (and its _failures.jsonl) first instead of refusing"),
    resume: flag.boolean("continue a partial output: skip the rows it has (and those its _failures.jsonl gave up on), re-verify the rest"),
    disableAggregation: flag.boolean("skip the aggregate metrics (for shards; `gym eval aggregate` merges them later)"),
    judgeFailedOnly: flag.boolean("recovery: carry the successes of --rollouts over unchanged, re-verify only its judge-failed rollouts (from <rollouts_stem>_failures.jsonl)"),
    append: flag.boolean("with --judge-failed-only: add the recovered rows to an existing --output (never cleared) instead of a fresh file"),
    callDeadline: flag.number("seconds", "deadline of each HTTP call (default 300)", POSITIVE_NUMBER),
    expectParity: flag.boolean("exit 1 when any reward or extra field differs"),
    json: flag.boolean("print the report as JSON"),
  },
  toConfig: (flags) => {
    const selected = selectedConfig(flags);
    return {
      configPaths: selected.configPaths,
      overrides: flags.overrides,
      withoutModel: true,
      flagOverrides: flagOverrides({
        materialized_inputs_jsonl_fpath: flags.inputs,
        rollouts_jsonl_fpath: flags.rollouts,
        output_jsonl_fpath: flags.output,
        num_samples_in_parallel: flags.concurrency,
        limit: flags.limit,
        resources_server_name: flags.resourcesServerInstance,
        call_deadline_s: flags.callDeadline,
        verify_only: flags.verifyOnly || undefined,
        force: flags.force || undefined,
        overwrite: flags.overwrite || undefined,
        resume_from_cache: flags.resume || undefined,
        judge_failed_only: flags.judgeFailedOnly || undefined,
        append: flags.append || undefined,
        disable_aggregation: flags.disableAggregation || undefined,
        expect_parity: flags.expectParity || undefined,
      }),
    };
  },
  async run({ raw, resolved }, { flags, print, warn }) {
    const { json } = flags;
    // With --json, stdout carries the report alone.
    const log = (line: string) => (json ? warn : print)(line);
    const serve = flags.serve && selectsConfig(flags);
    const { result, settings } = await evalReverify({ raw, resolved, serve, json, print, log });

    if (json) print(JSON.stringify(reportJson(result), null, 2));
    else {
      print(`\n${formatReverifyReport(result.report)}`);
      print(`\nRe-verified rollouts: ${result.outputPath ?? "<not written>"}`);
      if (result.failuresPath) print(`Failures: ${result.failuresPath}`);
      print(`Aggregate metrics: ${result.aggregateMetricsPath ?? `<not written: ${result.aggregateNote}>`}`);
    }
    // Not the user's mistakes: rows or metrics the servers could not score, or rewards that differ (exit 1).
    const differences = result.report.outcomes.filter((o) => !o.failure && (!o.rewardEqual || o.differentFields.length > 0)).length;
    const failure =
      result.report.errors > 0
        ? `${result.report.errors} of ${result.report.rows} rows could not be re-verified`
        : result.aggregateFailed
          ? `aggregate metrics could not be computed (${result.aggregateNote})`
          : settings.expect_parity && differences > 0
            ? `${differences} of ${result.report.rows} rows differ from the stored rollouts`
            : undefined;
    if (failure === undefined) return 0;
    warn(failure);
    return 1;
  },
});
