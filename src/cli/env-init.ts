// `gym env init NAME --archetype game|stateful-sandbox|computer-use [--root DIR]`; NeMo Gym's spellings
// `gym env init --resources-server NAME` and `ng_init_resources_server +entrypoint=resources_servers/NAME` too.
import { basename, dirname, join, relative, resolve } from "node:path";
import { ScaffoldError } from "../scaffold/common.ts";
import { ARCHETYPE_NAMES, initEnvironment, type ArchetypeName } from "../scaffold/init.ts";
import { INTEGRATION_PROFILES, scaffoldWorkload, type IntegrationProfile } from "../scaffold/workload.ts";
import { UsageError } from "./command.ts";
import { arg, defineCommand, flag } from "./command.ts";

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

interface InitFlags {
  resourcesServer?: string;
  archetype: ArchetypeName;
  root?: string;
}

/** The name and root from a positional name, `--resources-server`, or `+entrypoint=<root>/resources_servers/<name>`. */
function target(args: string[], flags: InitFlags): { name: string; rootDir: string } {
  const root = resolve(flags.root ?? process.cwd());
  const names: { name: string; rootDir: string }[] = [];
  for (const arg of args) {
    const entrypoint = /^\+{0,2}entrypoint=(.+)$/.exec(arg)?.[1];
    if (entrypoint !== undefined) {
      const path = resolve(root, entrypoint.replace(/\/+$/, ""));
      if (basename(dirname(path)) !== "resources_servers") throw new ScaffoldError(`entrypoint '${entrypoint}' must be resources_servers/<name>`);
      names.push({ name: basename(path), rootDir: dirname(dirname(path)) });
    } else if (/^[+~]/.test(arg)) {
      throw new ScaffoldError(`'${arg}': env init takes a name and --archetype / --root, or +entrypoint=resources_servers/<name>`);
    } else {
      names.push({ name: arg, rootDir: root });
    }
  }
  if (flags.resourcesServer !== undefined) names.push({ name: flags.resourcesServer, rootDir: root });
  if (names.length !== 1) throw new ScaffoldError(names.length === 0 ? "name the environment: gym env init <name> [--archetype game]" : "give the environment one name");
  return names[0]!;
}

export const envInitCommand = defineCommand({
  path: ["env", "init"],
  description: "create a new environment (resources server) from an archetype, or a manifest-backed workload (--environment / --benchmark) (NeMo Gym's ng_init_resources_server)",
  examples: [
    "gym env init my_game --archetype game",
    "gym env init --benchmark my_quiz --reuse-verifier mcqa --reward-range 0 1 --higher-is-better",
    "ng_init_resources_server +entrypoint=resources_servers/my_game",
  ],
  legacyNames: { ng_init_resources_server: [] },
  args: { name: arg.variadic("the environment's name, snake_case (or +entrypoint=resources_servers/<name>)") },
  flags: {
    resourcesServer: flag.string("name", "the environment's name (NeMo Gym's spelling)"),
    environment: flag.string("name", "a manifest-backed environment: environments/NAME/config.yaml, README.md, data/example.jsonl"),
    benchmark: flag.string("name", "a manifest-backed benchmark: benchmarks/NAME/config.yaml, README.md, data/, prompt.yaml, prepare.ts"),
    profile: flag.string("profile", "integration profile of a manifest-backed scaffold (only custom-gym-verifier is supported here)", { choices: INTEGRATION_PROFILES }),
    reuseVerifier: flag.string("name", "score with this existing resources server instead of generating one"),
    rewardRange: flag.numberPair("low high", "declared inclusive reward range (with --reuse-verifier)"),
    higherIsBetter: flag.boolean("larger rewards are better (with --reuse-verifier)"),
    lowerIsBetter: flag.boolean("smaller rewards are better (with --reuse-verifier)"),
    archetype: flag.string("kind", "what to generate", { choices: ARCHETYPE_NAMES, default: "game" }),
    root: flag.string("dir", "the folder holding resources_servers/ (default: the working directory)"),
  },
  async run(_config, { flags, out }) {
    const archetype = flags.archetype as ArchetypeName;
    // NeMo Gym's argparse groups and _env_init's checks, its words.
    const targets = (["resourcesServer", "environment", "benchmark"] as const).filter((key) => flags[key] !== undefined);
    if (targets.length > 1) throw new UsageError(`argument --${kebab(targets[1]!)}: not allowed with argument --${kebab(targets[0]!)}`, "gym.mutuallyExclusive");
    if (flags.higherIsBetter && flags.lowerIsBetter) throw new UsageError("argument --lower-is-better: not allowed with argument --higher-is-better", "gym.mutuallyExclusive");
    const workload = flags.environment ?? flags.benchmark;
    if (workload !== undefined && flags.name.length > 0) throw new UsageError("select a resources server or a manifest-backed workload, not both", "gym.mutuallyExclusive");
    const scaffoldOptions = flags.profile !== undefined || flags.reuseVerifier !== undefined || flags.rewardRange !== undefined || flags.higherIsBetter || flags.lowerIsBetter;
    if (workload === undefined && scaffoldOptions) throw new UsageError("--profile, --reuse-verifier, and reward options require --environment or --benchmark", "gym.requires");
    if (workload !== undefined) {
      const kind = flags.environment !== undefined ? "environment" : "benchmark";
      const result = await scaffoldWorkload({
        kind,
        name: workload,
        profile: flags.profile as IntegrationProfile | undefined,
        reuseVerifier: flags.reuseVerifier,
        rewardRange: flags.rewardRange,
        higherIsBetter: flags.higherIsBetter ? true : flags.lowerIsBetter ? false : undefined,
        archetype,
        rootDir: flags.root,
      });
      out(`✓ Created ${relative(process.cwd(), result.assetDir) || "."}\n${result.created.map((path) => `  ${relative(process.cwd(), path)}`).join("\n")}\n`);
      return;
    }
    const { name, rootDir } = target(flags.name, { ...flags, archetype });
    const { envDir, files } = await initEnvironment({ name, archetype, rootDir });
    const shown = relative(process.cwd(), envDir) || ".";
    const lines = [`Created ${shown} (archetype ${archetype}):`, ...files.map((file) => `  ${join(shown, file)}`), "", "Next:"];
    lines.push(`  node --import tsx --test ${join(shown, "tests/app.test.ts")}`);
    lines.push(
      `  npm run gym -- eval run --config ${join(shown, "configs", `${name}.yaml`)} --config responses_api_models/scripted_model/configs/scripted_model.yaml \\`,
      `    --agent ${name}_simple_agent --input ${join(shown, "data/example.jsonl")} --output results/${name}.jsonl`,
      `  node --import tsx ${join(shown, "rollout.ts")} --model-url <OpenAI-compatible base URL> --model <name> [--api-key <key>]`,
    );
    out(`${lines.join("\n")}\n`);
  },
});
