// `gym env test NAME [--root DIR]`: checks the environment folder <root>/resources_servers/NAME and prints one
// line per check (✓/✗); exits 1 when any check fails. NAME may be the folder's path, resources_servers/NAME.
// NeMo Gym's spellings too: `--resources-server NAME`,
// `ng_test +entrypoint=resources_servers/NAME`; without --root the folder is looked up under --search-dir,
// NEMO_GYM_EXTRA_ROOTS, the working directory and the project.
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { searchRoots } from "../config/index.ts";
import { InputError } from "../rollouts/jsonl.ts";
import { formatCheckResults, runEnvironmentChecks } from "../scaffold/env-test.ts";
import { arg, defineCommand, flag } from "./command.ts";
import { searchDirFlags } from "./selector-flags.ts";

/** The one environment named by a word, `+entrypoint=resources_servers/NAME` or --resources-server. */
export function environmentName(words: readonly string[], resourcesServer: string | undefined): string {
  const names = words.map((word) => {
    const entrypoint = /^\+{0,2}entrypoint=(.+)$/.exec(word)?.[1];
    const path = (entrypoint ?? word).replace(/\/+$/, "");
    // A bare name, or the folder's path as the shell completes it (resources_servers/NAME).
    if (entrypoint === undefined && !path.includes("/")) return word;
    if (basename(dirname(path)) !== "resources_servers") throw new InputError(`${entrypoint === undefined ? "the environment" : "entrypoint"} '${entrypoint ?? word}' must be resources_servers/<name>`);
    return basename(path);
  });
  if (resourcesServer !== undefined) names.push(resourcesServer);
  if (names.length !== 1) {
    throw new InputError(names.length === 0 ? "name the environment: gym env test <name> (or --resources-server <name>); testing every server at once is not supported" : "give the environment one name");
  }
  return names[0]!;
}

export const envTestCommand = defineCommand({
  path: ["env", "test"],
  description:
    "check an environment folder: its dataset against GET /tools, that it starts and seeds, that its tools validate their input, that verify scores data/verifier_cases.jsonl as expected",
  examples: ["gym env test example_session_state_mgmt", "gym env test resources_servers/code_gen", "gym env test --resources-server mcqa", "gym env test my_game --root ../my-envs"],
  legacyNames: { ng_test: [] },
  args: { name: arg.variadic("the environment: the folder resources_servers/<name> (or +entrypoint=resources_servers/<name>)") },
  flags: {
    resourcesServer: flag.string("name", "the environment (NeMo Gym's spelling)"),
    root: flag.string("dir", "the folder that holds resources_servers/ (default: the first search root that has it)"),
    ...searchDirFlags,
  },
  async run(_config, { flags, out, warn }) {
    const name = environmentName(flags.name, flags.resourcesServer);
    const rootDir = flags.root ? resolve(flags.root) : (searchRoots().find((root) => existsSync(join(root, "resources_servers", name))) ?? process.cwd());
    const results = await runEnvironmentChecks({ rootDir, name });
    for (const line of formatCheckResults(results)) out(`${line}\n`);
    const failedCount = results.filter((r) => !r.ok).length;
    if (failedCount > 0) {
      warn(`✗ ${failedCount} of ${results.length} checks failed for resources_servers/${name}`);
      return 1;
    }
    out(`✓ all ${results.length} checks passed for resources_servers/${name}\n`);
  },
});
