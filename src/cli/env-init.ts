// `gym env init NAME --archetype game|stateful-sandbox|computer-use [--root DIR]`; NeMo Gym's spellings
// `gym env init --resources-server NAME` and `ng_init_resources_server +entrypoint=resources_servers/NAME` too.
import { basename, dirname, join, relative, resolve } from "node:path";
import { ScaffoldError } from "../scaffold/common.ts";
import { ARCHETYPE_NAMES, initEnvironment, type ArchetypeName } from "../scaffold/init.ts";
import { arg, defineCommand, flag } from "./command.ts";

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
  description: "create a new environment (resources server) from an archetype (NeMo Gym's ng_init_resources_server)",
  examples: ["gym env init my_game --archetype game", "ng_init_resources_server +entrypoint=resources_servers/my_game"],
  legacyNames: { ng_init_resources_server: [] },
  args: { name: arg.variadic("the environment's name, snake_case (or +entrypoint=resources_servers/<name>)") },
  flags: {
    resourcesServer: flag.string("name", "the environment's name (NeMo Gym's spelling)"),
    archetype: flag.string("kind", "what to generate", { choices: ARCHETYPE_NAMES, default: "game" }),
    root: flag.string("dir", "the folder holding resources_servers/ (default: the working directory)"),
  },
  async run(_config, { flags, out }) {
    const archetype = flags.archetype as ArchetypeName;
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
