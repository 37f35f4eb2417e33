// `gym env init --environment NAME | --benchmark NAME` as a real process: NeMo Gym's manifest-backed workload
// skeleton (config.yaml wiring the scorer through config_paths, README, sample data; a benchmark's prompt and
// prepare stub), and NeMo Gym's errors for the wrong combinations, one line each.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { runGym } from "./gym-process.ts";

const tempRoot = () => mkdtempSync(join(tmpdir(), "gym-env-init-"));

test("env init --benchmark NAME --reuse-verifier mcqa: the benchmark scored by the existing server, its data, prompt and prepare stub", async () => {
  const root = tempRoot();
  const result = await runGym(["env", "init", "--benchmark", "my_quiz", "--reuse-verifier", "mcqa", "--reward-range", "0", "1", "--higher-is-better", "--root", root]);
  assert.equal(result.code, 0, result.output);
  assert.match(result.stdout, /^✓ Created .*benchmarks\/my_quiz\n/);
  const dir = join(root, "benchmarks", "my_quiz");
  for (const file of ["config.yaml", "README.md", "data/source.jsonl", "data/example.jsonl", "prompt.yaml", "prepare.ts"]) assert.ok(existsSync(join(dir, file)), file);
  assert.equal(existsSync(join(root, "resources_servers")), false, "a reused verifier generates no server");
  const config = parse(readFileSync(join(dir, "config.yaml"), "utf8"));
  assert.deepEqual(config.config_paths, ["resources_servers/mcqa/configs/mcqa.yaml"]);
  const agent = config.my_quiz_agent.responses_api_agents.simple_agent;
  assert.deepEqual(agent.resources_server, { type: "resources_servers", name: "mcqa" });
  assert.deepEqual(agent.datasets, [{ name: "my_quiz", type: "benchmark", jsonl_fpath: "benchmarks/my_quiz/data/example.jsonl", prompt_config: "benchmarks/my_quiz/prompt.yaml", num_repeats: 1 }]);
  assert.match(readFileSync(join(dir, "README.md"), "utf8"), /- Integration profile: `custom-gym-verifier`\n- Scorer: `mcqa`\n- Reward: 0 to 1, higher is better/);

  const again = await runGym(["env", "init", "--benchmark", "my_quiz", "--reuse-verifier", "mcqa", "--reward-range", "0", "1", "--higher-is-better", "--root", root]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /^error: Scaffolding would overwrite existing content: .*benchmarks\/my_quiz\n$/);
});

test("env init --environment NAME: a new resources server from the archetype scaffold, the environment's rows its example rows with the workload's agent", async () => {
  const root = tempRoot();
  const result = await runGym(["env", "init", "--environment", "my_env", "--root", root]);
  assert.equal(result.code, 0, result.output);
  assert.ok(existsSync(join(root, "resources_servers", "my_env", "app.ts")));
  const config = parse(readFileSync(join(root, "environments", "my_env", "config.yaml"), "utf8"));
  assert.deepEqual(config.config_paths, ["resources_servers/my_env/configs/my_env.yaml"]);
  assert.equal(config.my_env_agent.responses_api_agents.simple_agent.resources_server.name, "my_env_resources_server");
  const rows = readFileSync(join(root, "environments", "my_env", "data", "example.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  const serverRows = readFileSync(join(root, "resources_servers", "my_env", "data", "example.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(rows.length, serverRows.length);
  assert.ok(rows.every((row) => row.agent_ref.name === "my_env_agent"));
  assert.deepEqual(rows.map(({ agent_ref: _a, ...row }) => row), serverRows.map(({ agent_ref: _a, ...row }) => row));
});

const ERRORS: { args: string[]; message: string }[] = [
  { args: ["--environment", "x", "--resources-server", "y"], message: "argument --environment: not allowed with argument --resources-server" },
  { args: ["--environment", "x", "--benchmark", "y"], message: "argument --benchmark: not allowed with argument --environment" },
  { args: ["my_server", "--profile", "custom-gym-verifier"], message: "--profile, --reuse-verifier, and reward options require --environment or --benchmark" },
  { args: ["--environment", "x", "--reuse-verifier", "mcqa"], message: "reuse_verifier requires reward_range and higher_is_better" },
  { args: ["--environment", "x", "--reward-range", "0", "1", "--lower-is-better"], message: "reward_range and higher_is_better are only accepted with reuse_verifier" },
  { args: ["--environment", "x", "--reuse-verifier", "mcqa", "--reward-range", "0", "1", "--higher-is-better", "--lower-is-better"], message: "argument --lower-is-better: not allowed with argument --higher-is-better" },
  { args: ["--environment", "x", "--reward-range", "0"], message: "argument --reward-range: expected 2 arguments" },
  { args: ["--environment", "Bad Name"], message: "name must be one lowercase path segment containing letters, digits, '.', '_' or '-'" },
  { args: ["--environment", "x", "--reuse-verifier", "no_such_server", "--reward-range", "0", "1", "--higher-is-better"], message: "reuse_verifier 'no_such_server' was not found. Looked in: " },
  {
    args: ["--environment", "x", "--profile", "custom-gym-agent-loop"],
    message: "--profile custom-gym-agent-loop is not supported here: it generates a Python agent (responses_api_agents/<name>_agent/app.py subclassing SimpleAgent), and agents here are TypeScript; use --profile custom-gym-verifier",
  },
  { args: ["--benchmark", "x", "--profile", "external-rollout-driver"], message: "--profile external-rollout-driver is not supported here: it generates a Python rollout_driver.py" },
];

test("env init: NeMo Gym's errors for the wrong combinations, one line each (exit 2), nothing written", async () => {
  const root = tempRoot();
  const results = await Promise.all(ERRORS.map(({ args }) => runGym(["env", "init", ...args, "--root", root])));
  results.forEach((result, i) => {
    assert.equal(result.code, 2, `${ERRORS[i]!.args.join(" ")}: ${result.output}`);
    assert.ok(result.stderr.startsWith(`error: ${ERRORS[i]!.message}`), `${ERRORS[i]!.args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  });
  assert.equal(existsSync(join(root, "environments")) || existsSync(join(root, "benchmarks")) || existsSync(join(root, "resources_servers")), false);
});
