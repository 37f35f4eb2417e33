// `gym env test NAME [--root DIR]`: checks the environment folder <root>/resources_servers/NAME and prints one
// line per check (✓/✗); exits 1 when any check fails.
import { resolve } from "node:path";
import type { Command } from "commander";
import { formatCheckResults, runEnvironmentChecks } from "../scaffold/env-test.ts";

export function registerEnvTest(env: Command): void {
  env
    .command("test")
    .description("check an environment folder: its dataset against GET /tools, that it starts and seeds, that its tools validate their input, that verify scores data/verifier_cases.jsonl as expected")
    .argument("<name>", "the environment: the folder resources_servers/<name>")
    .option("--root <dir>", "the folder that holds resources_servers/ (default: the working directory)")
    .action(async function (this: Command, name: string, flags: { root?: string }) {
      const rootDir = resolve(flags.root ?? process.cwd());
      const results = await runEnvironmentChecks({ rootDir, name });
      for (const line of formatCheckResults(results)) process.stdout.write(`${line}\n`);
      const failedCount = results.filter((r) => !r.ok).length;
      if (failedCount > 0) {
        this.error(`✗ ${failedCount} of ${results.length} checks failed for resources_servers/${name}`, { exitCode: 1, code: "gym.env.test.failed" });
      }
      process.stdout.write(`✓ all ${results.length} checks passed for resources_servers/${name}\n`);
    });
}
