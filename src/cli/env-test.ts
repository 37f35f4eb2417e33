// `gym env test NAME [--root DIR]`: checks the environment folder <root>/resources_servers/NAME and prints one
// line per check (✓/✗); exits 1 when any check fails.
import { resolve } from "node:path";
import { formatCheckResults, runEnvironmentChecks } from "../scaffold/env-test.ts";
import { arg, defineCommand, flag } from "./command.ts";

export const envTestCommand = defineCommand({
  path: ["env", "test"],
  description:
    "check an environment folder: its dataset against GET /tools, that it starts and seeds, that its tools validate their input, that verify scores data/verifier_cases.jsonl as expected",
  examples: ["gym env test example_session_state_mgmt", "gym env test my_game --root ../my-envs"],
  args: { name: arg.required("the environment: the folder resources_servers/<name>") },
  flags: { root: flag.string("dir", "the folder that holds resources_servers/ (default: the working directory)") },
  async run(_config, { flags, out, warn }) {
    const rootDir = resolve(flags.root ?? process.cwd());
    const results = await runEnvironmentChecks({ rootDir, name: flags.name });
    for (const line of formatCheckResults(results)) out(`${line}\n`);
    const failedCount = results.filter((r) => !r.ok).length;
    if (failedCount > 0) {
      warn(`✗ ${failedCount} of ${results.length} checks failed for resources_servers/${flags.name}`);
      return 1;
    }
    out(`✓ all ${results.length} checks passed for resources_servers/${flags.name}\n`);
  },
});
