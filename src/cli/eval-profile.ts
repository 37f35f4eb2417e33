// `gym eval profile` (NeMo Gym's ng_reward_profile): per-task and per-agent statistics of a run's rollouts
// against its materialized inputs, written next to the rollouts as <stem>_reward_profiling.jsonl and
// <stem>_agent_metrics.json.
import { existsSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { UserError } from "../config/errors.ts";
import { prepareForSerialization, profileCompletionSummary, profileFromData } from "../metrics/reward-profile.ts";
import { InputError, readJsonl } from "../rollouts/jsonl.ts";
import { arg, defineCommand, flag } from "./command.ts";
import { flagOverrides } from "./load-config.ts";

/** `<dir>/<stem><suffix>` for the rollouts file `<dir>/<stem>.<ext>` (Python's with_stem + with_suffix). */
function besideRollouts(rolloutsPath: string, suffix: string): string {
  return join(dirname(rolloutsPath), `${basename(rolloutsPath, extname(rolloutsPath))}${suffix}`);
}

export const evalProfileCommand = defineCommand({
  path: ["eval", "profile"],
  description: "compute a reward profile (per-task and per-agent statistics) from a run's rollouts (NeMo Gym's ng_reward_profile)",
  examples: ["gym eval profile --inputs results/out_materialized_inputs.jsonl --rollouts results/out.jsonl"],
  legacyNames: { ng_reward_profile: [] },
  args: { overrides: arg.overrides() },
  flags: {
    inputs: flag.string("file", "materialized inputs JSONL the run wrote (+materialized_inputs_jsonl_fpath)"),
    rollouts: flag.string("file", "rollouts JSONL the run wrote (+rollouts_jsonl_fpath)"),
  },
  toConfig: (flags) => ({
    overrides: flags.overrides,
    withoutModel: true,
    flagOverrides: flagOverrides({ materialized_inputs_jsonl_fpath: flags.inputs, rollouts_jsonl_fpath: flags.rollouts }),
  }),
  run({ resolved }, { print }) {
    const paths = { materialized_inputs_jsonl_fpath: "--inputs", rollouts_jsonl_fpath: "--rollouts" } as const;
    for (const [key, flagName] of Object.entries(paths)) {
      const path = resolved[key];
      if (typeof path !== "string" || path === "") throw new UserError(`${key} is required (${flagName} FILE or +${key}=FILE)`);
      if (!existsSync(path)) throw new UserError(`Input file not found: '${path}' (${flagName}). Check the path is spelled correctly.`);
    }
    const inputsPath = resolved.materialized_inputs_jsonl_fpath as string;
    const rolloutsPath = resolved.rollouts_jsonl_fpath as string;
    const rows = readJsonl(inputsPath).map((line) => line.row);
    const results = readJsonl(rolloutsPath).map((line) => line.row);

    let profile: ReturnType<typeof profileFromData>;
    try {
      profile = profileFromData(rows, results, { allowPartialRollouts: resolved.allow_partial_rollouts === true });
    } catch (error) {
      // The profiler's complaints are about the two files (a duplicate or unmatched rollout key).
      throw new InputError(`${(error as Error).message} (inputs ${inputsPath}, rollouts ${rolloutsPath})`);
    }
    const summary = profileCompletionSummary(rows, results);
    const profilingPath = besideRollouts(rolloutsPath, "_reward_profiling.jsonl");
    writeFileSync(profilingPath, prepareForSerialization(profile.groupLevelMetrics).map((row) => `${JSON.stringify(row)}\n`).join(""));
    const agentMetricsPath = besideRollouts(rolloutsPath, "_agent_metrics.json");
    writeFileSync(agentMetricsPath, JSON.stringify(prepareForSerialization(profile.agentLevelMetrics)));

    print("Profiling outputs:");
    print(`Reward profile completion: ${summary.completed_rollout_rows}/${summary.expected_rollout_rows} rollout rows (${summary.reward_profile_completion_pct.toFixed(2)}%)`);
    print(
      `Input rows: ${summary.total_input_rows} total; ${summary.complete_input_rows} complete; ${summary.partial_input_rows} partial; ${summary.missing_input_rows} without rollouts dropped from output.`,
    );
    print(`Reward profiling outputs: ${profilingPath}`);
    print(`Agent-level metrics: ${agentMetricsPath}`);
  },
});
