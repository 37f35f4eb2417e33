// NeMo Gym's commands that do not apply here answer with one line (exit 2) saying why and what to do instead,
// whatever NeMo Gym flags they are given — never "invalid choice" or "unrecognized arguments".
import { test } from "node:test";
import assert from "node:assert/strict";
import { runGym } from "./gym-process.ts";

const CASES: { args: string[]; line: RegExp }[] = [
  { args: ["env", "packages", "--resources-server", "mcqa", "--outdated", "--json"], line: /^error: gym env packages does not apply here: this project has no per-server Python venvs; its npm dependencies are in package\.json \(npm ls\)$/ },
  { args: ["ng_pip_list", "+entrypoint=resources_servers/mcqa"], line: /^error: gym env packages does not apply here: this project has no per-server Python venvs/ },
  { args: ["env", "prefetch", "--resources-server", "mcqa"], line: /^error: gym env prefetch does not apply here: there are no per-server venvs to warm; .*node_modules/ },
  { args: ["eval", "submit", "--config", "submit.yaml", "--dry-run"], line: /^error: gym eval submit does not apply here: Slurm job submission is not ported; run gym eval run in your own job script/ },
  { args: ["dataset", "upload", "--storage", "gitlab", "-i", "a.jsonl", "--name", "d", "--revision", "1"], line: /^error: gym dataset upload does not apply here: uploading datasets to Hugging Face or GitLab is not ported; upload the JSONL with huggingface-cli upload/ },
  { args: ["dataset", "rm", "--name", "d"], line: /^error: gym dataset rm does not apply here: NeMo Gym's GitLab dataset registry is not used here/ },
  { args: ["dataset", "migrate", "-i", "a.jsonl", "--name", "d"], line: /^error: gym dataset migrate does not apply here: NeMo Gym's GitLab dataset registry is not used here; download the file from GitLab/ },
  { args: ["dev", "test"], line: /^error: gym dev test does not apply here: this project's tests run with npm test/ },
];

for (const { args, line } of CASES) {
  test(`gym ${args.join(" ")}: one line saying why it does not apply here, exit 2`, async () => {
    const result = await runGym(args);
    assert.equal(result.code, 2, result.output);
    const lines = result.output.trim().split("\n").filter((l) => !/is deprecated/.test(l));
    assert.equal(lines.length, 1, result.output);
    assert.match(lines[0]!, line);
  });
}
