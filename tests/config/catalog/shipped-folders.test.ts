// Every environments/<name>/ and benchmarks/<name>/ this project ships loads through the one config loader,
// names only servers that are here, points at files that are here, and the catalogue calls it ported.
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { loadGlobalConfig, PROJECT_ROOT } from "../../../src/config/index.ts";
import { listServerInstances } from "../../../src/config/servers.ts";
import { discoverCatalog, discoverResourcesServers } from "../../../src/config/catalog/index.ts";
import { isFetchedPrompt, NEMO_GYM_PROMPT_SHA256 } from "../../../src/config/nemo-gym-files.ts";
import { loadPromptConfig } from "../../../src/rollouts/prompt-config.ts";

const MODEL = "responses_api_models/scripted_model/configs/scripted_model.yaml";
const quiet = { warn: () => undefined };

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((child) => {
    const path = join(dir, child);
    return statSync(path).isDirectory() ? yamlFilesUnder(path) : child.endsWith(".yaml") ? [path] : [];
  });
}

const environmentConfigs = readdirSync(join(PROJECT_ROOT, "environments")).map((name) => join(PROJECT_ROOT, "environments", name, "config.yaml"));
const benchmarkConfigs = yamlFilesUnder(join(PROJECT_ROOT, "benchmarks")).filter((path) => /type: benchmark/.test(readFileSync(path, "utf8")));

test("the shipped folders are the ones NeMo Gym has and this project can run", () => {
  assert.deepEqual(readdirSync(join(PROJECT_ROOT, "environments")).sort(), [
    "arc_agi",
    "blackjack",
    "calendar",
    "calendar_v2",
    "circle_click",
    "circle_count",
    "code_gen",
    "ether0",
    "instruction_following",
    "langgraph_orchestrator_reasoning_gym",
    "langgraph_parallel_thinking_reasoning_gym",
    "langgraph_reflection_reasoning_gym",
    "langgraph_rewoo_reasoning_gym",
    "reasoning_gym",
    "workplace_assistant",
  ]);
  // 25 + the code benchmarks: bigcodebench, birdbench, human_eval, human_eval_infilling, ioi, livecodebench-x,
  // livecodebench/{v5_2408_2502,v6_2408_2505}/{config,cascade}, mbpp, spider2_lite (scicode's scicode_agent is not here)
  // + imo_gradingbench, and the long-context ones: graphwalks/{config,config_n3_1m}, mrcr/{config,config_n3_128k,config_n3_1m}
  // + the rest of the catalogue's: bunsenbench_chemistry_mcq, flores200, hotpotqa_closedbook, ifbench, iheval, polymath,
  // ruler, ruler2, wmt24pp.
  assert.equal(benchmarkConfigs.length, 52, benchmarkConfigs.map((p) => relative(PROJECT_ROOT, p)).join("\n"));
});

test("every environments/*/config.yaml and benchmarks/**/*.yaml loads with a model config and names only servers that are here", async () => {
  for (const configPath of [...environmentConfigs, ...benchmarkConfigs]) {
    const label = relative(PROJECT_ROOT, configPath);
    const { resolved } = await loadGlobalConfig({ configPaths: [configPath, MODEL], envYamlPath: null, logger: quiet });
    const instances = listServerInstances(resolved, { logger: quiet });
    assert.ok(instances.some((i) => i.serverType === "resources_servers"), `${label}: a resources server`);
    assert.ok(instances.some((i) => i.serverType === "responses_api_agents"), `${label}: an agent`);
    for (const instance of instances) assert.ok(existsSync(instance.entrypointPath), `${label}: ${instance.instanceName} runs ${instance.entrypointPath}, which is missing`);

    const datasets = instances.flatMap((i) => (Array.isArray(i.fields.datasets) ? (i.fields.datasets as Record<string, unknown>[]) : []));
    for (const dataset of datasets) {
      // NeMo Gym's own templates are not shipped: `gym eval prepare` fetches them (pinned by sha256).
      if (typeof dataset.prompt_config === "string" && !isFetchedPrompt(dataset.prompt_config)) {
        assert.ok(loadPromptConfig(join(PROJECT_ROOT, dataset.prompt_config)).user.length > 0, `${label}: prompt ${dataset.prompt_config}`);
      }
      if (dataset.type === "example") assert.ok(readFileSync(join(PROJECT_ROOT, String(dataset.jsonl_fpath)), "utf8").trim().split("\n").every((line) => JSON.parse(line)), `${label}: example rows`);
      if (dataset.type === "benchmark") {
        // The config's own folder: benchmarks/<name>/ or, nested, benchmarks/livecodebench/v6_2408_2505/.
        const folder = relative(join(PROJECT_ROOT, "benchmarks"), join(configPath, ".."));
        assert.match(String(dataset.jsonl_fpath), new RegExp(`^benchmarks/${folder}/data/[^/]+\\.jsonl$`), label);
        assert.match(String(dataset.prepare_script), new RegExp(`^benchmarks/${folder}/prepare[\\w]*\\.py$`), label);
      }
    }
  }
});

test("no prompt of NeMo Gym's is committed: each is fetched by gym eval prepare and ignored by git; ours is", () => {
  const committed = execFileSync("git", ["ls-files", "benchmarks"], { cwd: PROJECT_ROOT, encoding: "utf8" }).split("\n").filter((path) => /\/prompts\//.test(path));
  assert.deepEqual(committed, ["benchmarks/prompts/generic/default.yaml"]);
  const named = new Set(benchmarkConfigs.flatMap((path) => [...readFileSync(path, "utf8").matchAll(/prompt_config: (\S+)/g)].map((match) => match[1]!)));
  assert.deepEqual([...named].filter((path) => path !== "benchmarks/prompts/generic/default.yaml" && path !== "null").sort(), Object.keys(NEMO_GYM_PROMPT_SHA256).sort(), "every prompt a shipped benchmark names is pinned");
  const ignored = execFileSync("git", ["check-ignore", "--no-index", ...Object.keys(NEMO_GYM_PROMPT_SHA256)], { cwd: PROJECT_ROOT, encoding: "utf8" }).trim().split("\n");
  assert.deepEqual(ignored.sort(), Object.keys(NEMO_GYM_PROMPT_SHA256).sort());
});

test("each shipped folder has a README; each environment its example rows", () => {
  for (const configPath of [...environmentConfigs, ...benchmarkConfigs]) {
    const folder = join(configPath, "..");
    assert.ok(existsSync(join(folder, "README.md")), `${relative(PROJECT_ROOT, folder)}/README.md`);
  }
  for (const configPath of environmentConfigs) assert.ok(existsSync(join(configPath, "..", "data", "example.jsonl")));
});

test("the catalogue lists every shipped folder and every server config here as ported", () => {
  const entries = discoverCatalog([PROJECT_ROOT]);
  const byName = new Map(entries.map((entry) => [`${entry.kind}/${entry.name}`, entry]));
  for (const name of ["arc_agi", "blackjack", "calendar", "calendar_v2", "code_gen", "ether0", "instruction_following", "reasoning_gym", "workplace_assistant"]) {
    const entry = byName.get(`environment/${name}`);
    assert.ok(entry?.ported, `${name}: ${entry?.notPortedReason}`);
  }
  for (const name of ["aime24", "gpqa", "ifeval", "longbench_v2/config_n3_1m", "mmlu_prox", "math-500", "ioi", "livecodebench-x", "spider2_lite", "human_eval", "mbpp", "bigcodebench"]) assert.ok(byName.get(`benchmark/${name}`)?.ported, name);
  // A benchmark whose prompt is NeMo Gym's counts as ported; until prepared, its note says how to get the prompt.
  const gpqa = byName.get("benchmark/gpqa")!;
  if (existsSync(join(PROJECT_ROOT, "benchmarks/prompts/eval/aai/mcq-4choices.yaml"))) assert.equal(gpqa.note, null);
  else assert.equal(gpqa.note, "run `gym eval prepare --benchmark gpqa` first: it fetches NeMo Gym's prompt benchmarks/prompts/eval/aai/mcq-4choices.yaml (pinned by sha256)");
  assert.equal(byName.get("benchmark/ifeval")!.note, null, "ifeval names no prompt");
  // scicode (scicode_agent) and structured_outputs_v4 (non_executing_simple_agent) included: every agent they name is here.
  assert.deepEqual(entries.filter((entry) => !entry.ported).map((entry) => `${entry.name}: ${entry.notPortedReason}`), []);
});

test("every resources server config here carries NeMo Gym's domain and description metadata", () => {
  const servers = discoverResourcesServers([PROJECT_ROOT]);
  assert.ok(servers.length >= 30);
  assert.deepEqual(servers.filter((server) => !server.domain || !server.description || !server.ported).map((server) => server.name), []);
});
