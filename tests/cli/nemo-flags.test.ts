// NeMo Gym's CLI flags and commands, through the real command table: selectors and model flags become one
// config_paths list and the policy_* keys (seen in `gym env resolve`), --search-dir reaches the config as
// NEMO_GYM_EXTRA_ROOTS, -v, --version --json, and the commands eval profile, dataset render, dataset collate.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { EXTRA_ROOTS_ENV_VAR, PROJECT_ROOT } from "../../src/config/index.ts";
import { buildProgram, runProgram } from "../../src/cli/main.ts";
import { loadCommandsFor } from "../../src/cli/commands.ts";
import { readRows } from "../../src/testing/rows.ts";
import { runGym } from "./gym-process.ts";

const tempDir = () => realpathSync(mkdtempSync(join(tmpdir(), "gym-nemo-flags-")));
const MCQA = join(PROJECT_ROOT, "resources_servers/mcqa/configs/mcqa.yaml");
const OPENAI = join(PROJECT_ROOT, "responses_api_models/openai_model/configs/openai_model.yaml");

/** `gym <args>` in this process: exit code, stdout, stderr. */
async function gym(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const program = buildProgram(await loadCommandsFor(args), { out: (t) => void (out += t), err: (t) => void (err += t) });
  const code = await runProgram(program, args, (t) => void (err += t));
  return { code, out, err };
}

async function resolved(args: string[]): Promise<Record<string, any>> {
  const result = await gym(["env", "resolve", ...args]);
  assert.equal(result.code, 0, result.err);
  return parseYaml(result.out);
}

test("env resolve: the selectors and --config merge into one config_paths list; the model flags are the policy_* keys", async () => {
  const config = await resolved(["--resources-server", "mcqa", "--model-type", "openai_model", "--model", "gpt-x", "--model-url", "http://127.0.0.1:9/v1", "--model-api-key", "sk-secret"]);
  assert.deepEqual(config.config_paths, [MCQA, OPENAI]);
  assert.equal(config.policy_model_name, "gpt-x");
  assert.equal(config.policy_base_url, "http://127.0.0.1:9/v1");
  assert.equal(config.policy_api_key, "****", "the key is a secret: masked");
  assert.equal(config.policy_model.responses_api_models.openai_model.openai_model, "gpt-x");
  assert.equal(config.policy_model.responses_api_models.openai_model.openai_base_url, "http://127.0.0.1:9/v1");
  assert.ok(config.mcqa_simple_agent.responses_api_agents.simple_agent);

  // --config first, then the selectors (NeMo Gym's order); -m is --model; the user's own override wins.
  const extra = join(tempDir(), "extra.yaml");
  writeFileSync(extra, "extra_value: 1\n");
  const merged = await resolved(["--config", extra, "--resources-server", "mcqa/mcqa", "--model-type", "openai_model", "-m", "a", "++policy_model_name=b", "++policy_base_url=u", "++policy_api_key=k"]);
  assert.deepEqual(merged.config_paths, [extra, MCQA, OPENAI]);
  assert.equal(merged.extra_value, 1);
  assert.equal(merged.policy_model_name, "b");
});

test("--search-dir: searched first, and NEMO_GYM_EXTRA_ROOTS holds it while the command runs (what started servers inherit)", async () => {
  const dir = tempDir();
  mkdirSync(join(dir, "resources_servers/probe/configs"), { recursive: true });
  writeFileSync(join(dir, "resources_servers/probe/configs/probe.yaml"), "probe_roots: ${oc.env:NEMO_GYM_EXTRA_ROOTS}\n");
  const before = process.env[EXTRA_ROOTS_ENV_VAR];
  const config = await resolved(["--search-dir", dir, "--resources-server", "probe"]);
  assert.deepEqual(config.config_paths, [join(dir, "resources_servers/probe/configs/probe.yaml")]);
  assert.equal(config.probe_roots.split(":")[0], dir);
  assert.equal(process.env[EXTRA_ROOTS_ENV_VAR], before, "restored afterwards");

  // Without it, the name is unknown: NeMo Gym's message, exit 2.
  const missing = await gym(["env", "resolve", "--resources-server", "probe"]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /^error: `--resources-server probe` was specified which implies config `resources_servers\/probe\/configs\/probe\.yaml`, which does not exist\./);
});

test("-v / --verbose, before or after the command: +verbose=true in the config", async () => {
  assert.equal((await resolved(["--resources-server", "mcqa", "--model-type", "scripted_model", "-v"])).verbose, true);
  const before = await gym(["-v", "env", "resolve", "--resources-server", "mcqa", "--model-type", "scripted_model"]);
  assert.equal(parseYaml(before.out).verbose, true);
  assert.equal((await resolved(["--resources-server", "mcqa", "--model-type", "scripted_model"])).verbose, undefined);
});

test("gym --version [--json] (ng_version): the version, and with --json one JSON object", async () => {
  const version = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).version;
  const json = await runGym(["--version", "--json"]);
  assert.equal(json.code, 0, json.output);
  const info = JSON.parse(json.stdout);
  assert.equal(info.nemo_gym, version);
  assert.equal(info.installation_path, PROJECT_ROOT);
  assert.equal(typeof info.system.cpus, "number");
  const text = await runGym(["ng_version"]);
  assert.match(text.stdout, new RegExp(`^NeMo Gym TS v${version.replace(/\./g, "\\.")}\n`));
  assert.equal((await runGym([])).code, 1, "a bare `gym` prints the help and exits 1, as NeMo Gym");
});

test("eval profile (ng_reward_profile): <stem>_reward_profiling.jsonl and <stem>_agent_metrics.json beside the rollouts", async () => {
  const dir = tempDir();
  const agent = { name: "a" };
  const inputs = [0, 0, 1, 1].map((task, i) => ({ _ng_task_index: task, _ng_rollout_index: i % 2, agent_ref: agent, responses_create_params: { input: "q" } }));
  const rollouts = [1, 0, 1, 1].map((reward, i) => ({ reward, _ng_task_index: inputs[i]!._ng_task_index, _ng_rollout_index: inputs[i]!._ng_rollout_index, agent_ref: agent, response: {} }));
  writeFileSync(join(dir, "in.jsonl"), inputs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileSync(join(dir, "out.jsonl"), rollouts.reverse().map((r) => JSON.stringify(r)).join("\n") + "\n");
  const result = await gym(["eval", "profile", "--inputs", join(dir, "in.jsonl"), "--rollouts", join(dir, "out.jsonl")]);
  assert.equal(result.code, 0, result.err);
  assert.match(result.out, /^Profiling outputs:\nReward profile completion: 4\/4 rollout rows \(100\.00%\)\nInput rows: 2 total; 2 complete; 0 partial; 0 without rollouts dropped from output\.\n/);
  const groups = readRows(join(dir, "out_reward_profiling.jsonl"));
  assert.deepEqual(groups.map((g) => [g._ng_task_index, g["mean/reward"]]), [[0, 0.5], [1, 1]]);
  const agents = JSON.parse(readFileSync(join(dir, "out_agent_metrics.json"), "utf8"));
  assert.equal(agents[0]["mean/reward"], 0.75);
  assert.deepEqual(agents[0].agent_ref, { name: "a" });

  const absent = await gym(["eval", "profile", "--inputs", join(dir, "nope.jsonl"), "--rollouts", join(dir, "out.jsonl")]);
  assert.equal(absent.code, 2);
  assert.equal(absent.err, `error: Input file not found: '${join(dir, "nope.jsonl")}' (--inputs). Check the path is spelled correctly.\n`);
});

test("dataset render (ng_materialize_prompts): each row's input from the template, prompt_config_used recorded", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "raw.jsonl"), `${JSON.stringify({ question: "2+2?", responses_create_params: {} })}\n${JSON.stringify({ question: "3+3?", responses_create_params: {} })}\n`);
  writeFileSync(join(dir, "prompt.yaml"), "system: Be brief.\nuser: 'Q: {question}'\n");
  const output = join(dir, "sub", "rendered.jsonl");
  const result = await gym(["dataset", "render", "-i", join(dir, "raw.jsonl"), "--prompt-config", join(dir, "prompt.yaml"), "-o", output]);
  assert.equal(result.code, 0, result.err);
  assert.equal(result.out, `Materialized 2 rows to ${output}\n`);
  const rows = readRows(output);
  assert.deepEqual(rows[1]!.responses_create_params, { input: [{ role: "system", content: "Be brief." }, { role: "user", content: "Q: 3+3?" }] });
  assert.equal(rows[0]!.prompt_config_used, join(dir, "prompt.yaml"));
  // Python's json.dumps spacing, as NeMo Gym writes it.
  assert.match(readFileSync(output, "utf8"), /^\{"question": "2\+2\?", "responses_create_params": \{"input": \[/);
});

test("dataset collate (ng_prepare_data): the agents' in-scope datasets, agent_ref stamped, into <output-dir>/<type>.jsonl", async (t) => {
  const dir = tempDir();
  // Metrics files go next to each dataset, as NeMo Gym writes them: the ones this run creates in the repo are removed.
  const metricsFiles = ["example_metrics.json", "example_with_template_metadata_metrics.json"].map((file) => join(PROJECT_ROOT, "resources_servers/mcqa/data", file));
  const created = metricsFiles.filter((path) => !existsSync(path));
  t.after(() => created.forEach((path) => rmSync(path, { force: true })));
  const result = await gym(["dataset", "collate", "--resources-server", "mcqa", "--mode", "example_validation", "--output-dir", dir]);
  assert.equal(result.code, 0, result.err);
  assert.match(result.out, new RegExp(`View your final data!\\n- example: ${join(dir, "example.jsonl")}\\n$`));
  // Both example datasets of mcqa_simple_agent, in config order.
  const rows = readRows(join(dir, "example.jsonl"));
  const source = ["example.jsonl", "example_with_template_metadata.jsonl"].flatMap((file) => readRows(join(PROJECT_ROOT, "resources_servers/mcqa/data", file)));
  assert.equal(rows.length, source.length);
  for (const [i, row] of rows.entries()) assert.deepEqual(row, { ...source[i], agent_ref: { type: "responses_api_agents", name: "mcqa_simple_agent" } });
  assert.equal(JSON.parse(readFileSync(join(dir, "example_metrics.json"), "utf8"))["Number of examples"], source.length);
  for (const path of metricsFiles) assert.ok(existsSync(path), path);

  // train_preparation needs the train and validation files, which are downloaded, not in the repository.
  const missing = await gym(["dataset", "collate", "--resources-server", "mcqa", "--mode", "train_preparation", "--output-dir", join(dir, "t")]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /^error: missing datasets: mcqa_simple_agent: train \(train\) at resources_servers\/mcqa\/data\/train\.jsonl; .*You must provide local datasets since download is disabled\. Run with --download \(\+should_download=true\) to enable downloading\.\n$/);
  assert.equal(existsSync(join(dir, "t")), false, "nothing written");
  const noMode = await gym(["dataset", "collate", "--resources-server", "mcqa", "--output-dir", dir]);
  assert.equal(noMode.err, "error: mode is required: --mode train_preparation|example_validation (or +mode=…)\n");
});

test("eval run --split train: the config's train datasets collated beside the output, then collected", async () => {
  const dir = tempDir();
  const rows = readRows(join(PROJECT_ROOT, "resources_servers/mcqa/data/example.jsonl")).slice(0, 2);
  writeFileSync(join(dir, "train.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileSync(
    join(dir, "train_config.yaml"),
    [
      "mcqa:",
      "  resources_servers:",
      "    mcqa: {entrypoint: app.py, domain: knowledge}",
      "mcqa_train_agent:",
      "  responses_api_agents:",
      "    simple_agent:",
      "      entrypoint: app.py",
      "      resources_server: {type: resources_servers, name: mcqa}",
      "      model_server: {type: responses_api_models, name: policy_model}",
      "      datasets:",
      `        - {name: train, type: train, license: MIT, jsonl_fpath: ${join(dir, "train.jsonl")}}`,
      "",
    ].join("\n"),
  );
  const output = join(dir, "run.jsonl");
  const result = await runGym(["eval", "run", "--config", join(dir, "train_config.yaml"), "--model-type", "scripted_model", "--split", "train", "--output", output, "++head_server.port=0"]);
  assert.equal(result.code, 0, result.output);
  const collated = join(dir, "run", "preprocessed_datasets", "train.jsonl");
  assert.equal(readRows(collated).length, 2);
  const rollouts = readRows(output);
  assert.equal(rollouts.length, 2);
  for (const rollout of rollouts) {
    assert.deepEqual(rollout.agent_ref, { type: "responses_api_agents", name: "mcqa_train_agent" });
    assert.equal(typeof rollout.reward, "number");
  }

  const both = await gym(["eval", "run", "--no-serve", "--split", "train", "--input", "x.jsonl", "--output", output]);
  assert.equal(both.code, 2);
  assert.match(both.err, /^error: --input x\.jsonl and --split train both name the input; give one/);
});
