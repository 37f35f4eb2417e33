// `gym env init`: every archetype generates an environment that passes its own tests, collects rollouts for its
// example rows through simple_agent + scripted_model, and plays them with its rollout script; nothing is overwritten.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadGlobalConfig } from "../../src/config/index.ts";
import { collectRollouts } from "../../src/rollouts/collect.ts";
import { libraryImport, ScaffoldError, validateEnvironmentName, writeNewEnvironment } from "../../src/scaffold/common.ts";
import { ARCHETYPE_NAMES, initEnvironment, type ArchetypeName } from "../../src/scaffold/init.ts";
import { startInProcess } from "../../src/testing/in-process.ts";
import { formatCheckResults, runEnvironmentChecks } from "../../src/scaffold/env-test.ts";
import { readRows } from "../../src/testing/rows.ts";
import { runGym } from "../../src/testing/child-process.ts";

const TSX_LOADER = import.meta.resolve("tsx");
const roots: string[] = [];
const freshRoot = () => {
  const root = mkdtempSync(join(tmpdir(), "gym-env-init-"));
  roots.push(root);
  return root;
};
after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** `node --import tsx <args>` in `cwd`; exit code and output. */
function runNode(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // Without the runner's marker, so a child `node --test` runs its file instead of deferring to this runner.
    const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
    const child = spawn(process.execPath, ["--import", TSX_LOADER, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

interface Generated {
  archetype: ArchetypeName;
  name: string;
  root: string;
  envDir: string;
}
const generated: Generated[] = [];
type Run = { code: number | null; output: string };
let ownTestRuns: Promise<Run[]>;
let cliRuns: Promise<{ runs: Run[]; cliRoot: string; taken: Generated }>;

before(async () => {
  for (const archetype of ARCHETYPE_NAMES) {
    const root = freshRoot();
    const name = `my_${archetype.replace(/-/g, "_")}`;
    const { envDir } = await initEnvironment({ name, archetype, rootDir: root });
    generated.push({ archetype, name, root, envDir });
  }
  // The child processes start now and run alongside the in-process tests; their tests await them.
  ownTestRuns = Promise.all(generated.map(({ envDir, root }) => runNode(["--test", join(envDir, "tests/app.test.ts")], root)));
  const cliRoot = freshRoot();
  const taken = generated[1]!;
  cliRuns = Promise.all([
    runGym(["ng_init_resources_server", "legacy_env", "--root", cliRoot]),
    runGym(["ng_init_resources_server", "+entrypoint=resources_servers/entry_env"], { cwd: cliRoot }),
    runGym(["env", "init", "--resources-server", taken.name, "--archetype", "computer-use", "--root", taken.root]),
  ]).then((runs) => ({ runs, cliRoot, taken }));
});

test("each archetype writes the environment's files, with relative imports into this project", () => {
  for (const { name, envDir } of generated) {
    for (const file of ["app.ts", `configs/${name}.yaml`, "data/example.jsonl", "data/verifier_cases.jsonl", "tests/app.test.ts", "README.md", "rollout.ts"]) {
      assert.ok(existsSync(join(envDir, file)), `${name}: ${file}`);
    }
    const app = readFileSync(join(envDir, "app.ts"), "utf8");
    assert.ok(app.includes(`from "${libraryImport(envDir, "src/server/index.ts")}"`), app.slice(0, 400));
    assert.match(libraryImport(envDir, "src/server/index.ts"), /^\.\.\/.*src\/server\/index\.ts$/);
    const cases = readRows(join(envDir, "data/verifier_cases.jsonl"));
    assert.deepEqual(new Set(cases.map((c) => c.case)), new Set(["full_reward", "zero_reward", "malformed"]));
    assert.equal(readRows(join(envDir, "data/example.jsonl")).length, 5);
  }
});

test("each generated environment's own tests pass", async () => {
  const runs = await ownTestRuns;
  runs.forEach((run, i) => {
    assert.equal(run.code, 0, `${generated[i]!.archetype}:\n${run.output}`);
    assert.match(run.output, /# pass [1-9]\d*\n# fail 0/, run.output);
  });
});

test("each generated environment passes gym env test the moment it is generated (no manual edit)", async () => {
  for (const { archetype, name, root } of generated) {
    const results = await runEnvironmentChecks({ rootDir: root, name });
    assert.deepEqual(
      results.map((result) => [result.id, result.ok]),
      [["dataset", true], ["server", true], ["tools", true], ["verify", true]],
      `${archetype}:\n${formatCheckResults(results).join("\n")}`,
    );
  }
});

test("each generated environment collects its 5 example rows through simple_agent and scripted_model, and its rollout script plays them", async () => {
  await Promise.all(generated.map(collectAndPlay));
});

async function collectAndPlay({ archetype, name, root, envDir }: Generated): Promise<void> {
  const { resolved } = await loadGlobalConfig({
    configPaths: [join(envDir, "configs", `${name}.yaml`), "responses_api_models/scripted_model/configs/scripted_model.yaml"],
    cwd: root,
    envYamlPath: null,
  });
  const environment = (await import(pathToFileURL(join(envDir, "app.ts")).href)).default;
  const graph = await startInProcess(resolved, { [`${name}_resources_server`]: environment });
  try {
    const outputPath = join(root, "results", "rollouts.jsonl");
    mkdirSync(join(root, "results"), { recursive: true });
    const summary = await collectRollouts({ client: graph.client, inputPath: join(envDir, "data/example.jsonl"), outputPath, agentName: `${name}_simple_agent`, concurrency: 5, maxAttempts: 1, print: () => {} });
    assert.equal(summary.failed, 0, `${archetype}: ${existsSync(summary.failuresPath) ? readFileSync(summary.failuresPath, "utf8") : ""}`);
    const rollouts = readRows(outputPath);
    assert.equal(rollouts.length, 5, archetype);
    for (const rollout of rollouts) assert.equal(typeof rollout.reward, "number", `${archetype}: ${JSON.stringify(rollout).slice(0, 300)}`);

    // The rollout script, with scripted_model as its OpenAI-compatible model (Chat Completions).
    const played = await runNode([join(envDir, "rollout.ts"), "--model-url", `${graph.url("policy_model")}/v1`, "--model", "scripted"], root);
    assert.equal(played.code, 0, `${archetype} rollout.ts:\n${played.output}`);
    assert.equal(played.output.match(/^row \d: reward \d/gm)?.length, 5, played.output);
    assert.match(played.output, /mean reward \d\.\d{4} over 5 rows/);
  } finally {
    await graph.close();
  }
}

test("init refuses to overwrite: an existing folder is an error and nothing is written", async () => {
  const { root, name, envDir } = generated[0]!;
  const before = readFileSync(join(envDir, "app.ts"), "utf8");
  await assert.rejects(initEnvironment({ name, archetype: "computer-use", rootDir: root }), (error: Error) => error instanceof ScaffoldError && /already exists/.test(error.message));
  assert.equal(readFileSync(join(envDir, "app.ts"), "utf8"), before);

  const emptyRoot = freshRoot();
  mkdirSync(join(emptyRoot, "resources_servers", "taken"), { recursive: true });
  await assert.rejects(initEnvironment({ name: "taken", archetype: "game", rootDir: emptyRoot }), ScaffoldError);
  assert.deepEqual(readdirSync(join(emptyRoot, "resources_servers", "taken")), []);
  assert.throws(() => writeNewEnvironment(emptyRoot, "escape", { "../outside.txt": "x" }), ScaffoldError);
  assert.equal(existsSync(join(emptyRoot, "resources_servers", "escape")), false);
});

test("names must be snake_case identifiers that clash with nothing reserved", () => {
  for (const bad of ["MyEnv", "my-env", "1env", "my__env", "env_", "", "simple_agent", "resources_servers", "config_paths"]) {
    assert.throws(() => validateEnvironmentName(bad), ScaffoldError, bad);
  }
  validateEnvironmentName("word_game_2");
});

test("ng_init_resources_server NAME and NeMo Gym's spellings work through the real CLI; a second init is a user error (exit 2)", async () => {
  const { runs: [legacy, entrypoint, flagged], cliRoot: root, taken } = await cliRuns;
  assert.equal(legacy.code, 0, legacy.output);
  assert.match(legacy.output, /`ng_init_resources_server` is deprecated/);
  assert.ok(existsSync(join(root, "resources_servers/legacy_env/app.ts")));
  assert.equal(entrypoint.code, 0, entrypoint.output);
  assert.ok(existsSync(join(root, "resources_servers/entry_env/data/verifier_cases.jsonl")));
  assert.equal(flagged.code, 2, flagged.output);
  assert.match(flagged.output, new RegExp(`error: .*${taken.name} already exists; refusing to overwrite`));
});
