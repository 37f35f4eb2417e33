// The `gym` command line (NeMo Gym's verbs; the `ng_*` names are aliases).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Command, CommanderError } from "commander";
import { registerDatasetValidate } from "./dataset-validate.ts";
import { registerEnvTest } from "./env-test.ts";
import { registerEnvInit } from "./env-init.ts";
import { registerEnvWrap } from "./env-wrap.ts";
import { registerGateway } from "./gateway.ts";
import { convertDatasetCommand, trialClientCommand } from "./trial-client.ts";
import { registerAggregate } from "./eval-aggregate.ts";
import { registerReverify } from "./eval-reverify.ts";
import { dumpYaml, maskSecrets, PROJECT_ROOT } from "../config/index.ts";
import { envStatus } from "./env-status.ts";
import { evalRun } from "./eval-run.ts";
import { expandLegacyCommand } from "./legacy-aliases.ts";
import { launchServers } from "./launcher.ts";
import { flagOverrides, loadConfigFromFlags } from "./load-config.ts";
import { quickstart } from "./quickstart.ts";

const collect = (value: string, previous: string[] = []) => [...previous, value];
const print = (line: string) => process.stdout.write(`${line}\n`);

function buildProgram(setExitCode: (code: number) => void): Command {
  const version = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).version as string;
  const program = new Command("gym").description("NeMo Gym in TypeScript: environments, agents and model servers for RL on LLM agents").version(version);
  program.exitOverride();

  const env = program.command("env").description("start, inspect and validate server configs");
  registerEnvWrap(env);
  registerEnvTest(env);
  registerEnvInit(env);
  env
    .command("start")
    .description("start every server instance of the configs (NeMo Gym's ng_run)")
    .option("-c, --config <path>", "a config YAML (repeatable)", collect, [])
    .option("--readiness-timeout <seconds>", "how long servers have to come up", "60")
    .argument("[overrides...]", "Hydra-style overrides: +key=value, ++key=value, key=value")
    .action(async (overrides: string[], flags: { config: string[]; readinessTimeout: string }) => {
      const { raw, resolved } = await loadConfigFromFlags({ config: flags.config, overrides }, [], true);
      const running = await launchServers({ raw, resolved, readinessTimeoutMs: Number(flags.readinessTimeout) * 1000 });
      const signal = await new Promise<string>((resolve) => {
        process.once("SIGINT", () => resolve("SIGINT"));
        process.once("SIGTERM", () => resolve("SIGTERM"));
        void running.firstExit.then((exit) => resolve(`exit of ${exit.instanceName}`));
      });
      print(`(launcher) stopping every server (${signal})`);
      await running.stop();
      setExitCode(signal.startsWith("exit of") ? 1 : 0);
    });
  env
    .command("status")
    .description("list the servers the head server knows and whether they answer")
    .option("--json", "print JSON")
    .argument("[overrides...]")
    .action(async (overrides: string[], flags: { json?: boolean }) => {
      const { resolved } = await loadConfigFromFlags({ overrides });
      setExitCode(await envStatus(resolved, flags.json === true, print));
    });
  env
    .command("resolve")
    .description("print the merged, resolved config (secrets masked)")
    .option("-c, --config <path>", "a config YAML (repeatable)", collect, [])
    .argument("[overrides...]")
    .action(async (overrides: string[], flags: { config: string[] }) => {
      const { resolved } = await loadConfigFromFlags({ config: flags.config, overrides });
      process.stdout.write(dumpYaml(maskSecrets(resolved)));
    });
  env
    .command("validate")
    .description("check that the configs merge, resolve and reference existing servers")
    .option("-c, --config <path>", "a config YAML (repeatable)", collect, [])
    .argument("[overrides...]")
    .action(async (overrides: string[], flags: { config: string[] }) => {
      await loadConfigFromFlags({ config: flags.config, overrides }, [], true);
      print("✓ Config is valid.");
    });

  const evalCommand = program.command("eval").description("collect and score rollouts");
  evalCommand
    .command("run")
    .description("collect rollouts: POST every input row to its agent's /run (NeMo Gym's ng_collect_rollouts)")
    .option("-c, --config <path>", "a config YAML (repeatable); its servers are started for the run", collect, [])
    .option("--no-serve", "use servers that are already running (found through the head server)")
    .option("-a, --agent <name>", "agent instance for rows without agent_ref")
    .option("-i, --input <file>", "input JSONL")
    .option("-o, --output <file>", "output JSONL")
    .option("--limit <n>", "only the first N rows")
    .option("--num-repeats <n>", "rollouts per row")
    .option("--num-repeats-add-seed", "pass metadata.extra_body.seed = rollout index")
    .option("--concurrency <n>", "in-flight rollouts at most")
    .option("--temperature <t>", "override responses_create_params.temperature")
    .option("--top-p <p>", "override responses_create_params.top_p")
    .option("--max-output-tokens <n>", "override responses_create_params.max_output_tokens")
    .option("--prompt-config <file>", "build each row's input from a {system?, user} YAML template")
    .option("--resume", "continue an interrupted run: keep its rollouts, retry its failures")
    .option("--rollout-deadline <seconds>", "deadline of one /run attempt")
    .option("--max-attempts <n>", "attempts per rollout, over the run and its resumes (default NEMO_GYM_MAX_ROLLOUT_ATTEMPTS or 3)")
    .option("--retry-backoff <seconds>", "first wait before a retry, doubled per attempt (default 1)")
    .option("--disable-aggregation", "skip /aggregate_metrics (for shards; run `gym eval aggregate` afterwards)")
    .argument("[overrides...]")
    .action(async (overrides: string[], flags: Record<string, any>) => {
      const translated = flagOverrides({
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
        disable_aggregation: flags.disableAggregation || undefined,
      });
      const { raw, resolved } = await loadConfigFromFlags({ config: flags.config, overrides }, translated);
      const serve = flags.serve !== false && (flags.config as string[]).length > 0;
      const summary = await evalRun({ raw, resolved, serve });
      setExitCode(summary.failed > 0 ? 1 : 0);
    });

  registerReverify(evalCommand);
  registerAggregate(evalCommand);
  registerDatasetValidate(program);
  registerGateway(program, print).addCommand(convertDatasetCommand());
  program.addCommand(trialClientCommand());

  program
    .command("quickstart")
    .description("start the example environment with simple_agent and scripted_model, collect its rollouts, stop (npm start)")
    .option("-o, --output <file>", "output JSONL", "results/quickstart/example_single_tool_call_rollouts.jsonl")
    .action(async (flags: { output: string }) => setExitCode(await quickstart(flags.output, print)));

  return program;
}

export async function main(programName: string, argv: string[]): Promise<number> {
  const { args, notice } = expandLegacyCommand(programName, argv);
  if (notice) process.stderr.write(`${notice}\n`);
  let exitCode = 0;
  const program = buildProgram((code) => (exitCode = code));
  try {
    await program.parseAsync(args, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    const message = (error as Error)?.message ?? String(error);
    // Errors a user can act on are printed without a stack trace.
    const known = ["ConfigError", "InputError", "ServerConfigError", "ResumeRefusedError", "GatewayConfigError"].includes((error as Error)?.name);
    process.stderr.write(known ? `error: ${message}\n` : `error: ${(error as Error)?.stack ?? message}\n`);
    return 1;
  }
}
