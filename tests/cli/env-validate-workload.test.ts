// `gym env validate NAME | --manifest PATH [--kind] [--json]` as a real process: a workload of the catalogue
// loaded through its config.yaml, its example data checked row by row; --sync refused by name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGym } from "./gym-process.ts";

test("env validate NAME: the workload's config loads and its example data is valid; a typo and --sync are one line each", async () => {
  const [ok, typo, sync] = await Promise.all([
    runGym(["env", "validate", "instruction_following", "--model-type", "scripted_model"]),
    runGym(["env", "validate", "instruction_folowing"]),
    runGym(["env", "validate", "instruction_following", "--sync"]),
  ]);
  assert.equal(ok.code, 0, ok.output);
  assert.match(ok.stdout, /^✓ instruction_following_simple_agent: example \(example\) \S+environments\/instruction_following\/data\/example\.jsonl\n✓ Config is valid\.\n$/);
  assert.equal(typo.code, 2);
  assert.equal(typo.stderr, "error: Unknown environment or benchmark 'instruction_folowing'. Did you mean `instruction_following`?\n");
  assert.equal(sync.code, 2);
  assert.match(sync.stderr, /^error: --sync does not apply here: /);
});

test("env validate --manifest PATH --json: a workload whose example row is broken is invalid (exit 1), the problem named by file and line", async () => {
  const workload = join(mkdtempSync(join(tmpdir(), "gym-validate-")), "environments", "broken");
  mkdirSync(join(workload, "data"), { recursive: true });
  const broken = join(workload, "data", "example.jsonl");
  writeFileSync(broken, JSON.stringify({ responses_create_params: { input: 3 } }) + "\n");
  writeFileSync(join(workload, "manifest.yaml"), "name: broken\n");
  writeFileSync(
    join(workload, "config.yaml"),
    [
      "config_paths: [resources_servers/mcqa/configs/mcqa.yaml]",
      "broken_agent:",
      "  responses_api_agents:",
      "    simple_agent:",
      "      entrypoint: app.py",
      "      resources_server: {type: resources_servers, name: mcqa}",
      "      model_server: {type: responses_api_models, name: policy_model}",
      `      datasets: [{name: broken, type: example, jsonl_fpath: ${broken}}]`,
      "",
    ].join("\n"),
  );
  const bad = await runGym(["env", "validate", "--manifest", join(workload, "manifest.yaml"), "--model-type", "scripted_model", "--json"]);
  assert.equal(bad.code, 1, bad.output);
  const report = JSON.parse(bad.stdout);
  assert.equal(report.valid, false);
  const mine = report.datasets.find((d: { agent: string }) => d.agent === "broken_agent");
  assert.match(mine.problems[0], /example\.jsonl:1: responses_create_params\.input/);
});
