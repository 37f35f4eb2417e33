// Every environments/<name>/ and benchmarks/<name>/ this project ships loads through the one config loader,
// names only servers that are here, points at files that are here, and the catalogue calls it ported.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { loadGlobalConfig, PROJECT_ROOT } from "../../../src/config/index.ts";
import { listServerInstances } from "../../../src/config/servers.ts";
import { discoverCatalog, discoverResourcesServers } from "../../../src/config/catalog/index.ts";
import { loadPromptConfig } from "../../../src/rollouts/prompt-config.ts";

const MODEL = "responses_api_models/scripted_model/configs/scripted_model.yaml";
const quiet = { warn: () => undefined };

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((child) => {
    const path = join(dir, child);
    return statSync(path).isDirectory() ? yamlFilesUnder(path) : child.endsWith(".yaml") ? [path] : [];
  });
}

/**
 * NeMo Gym's prompt templates the code benchmarks name, not committed (their text is NeMo Gym's): to be fetched by
 * gym eval prepare at the pinned commit, by these sha256 digests. Until that table holds them, the catalogue calls
 * the benchmarks naming them not ported, naming the prompt.
 */
const NEMO_PROMPTS_TO_PIN: Record<string, string> = {
  "benchmarks/prompts/eval/bigcodebench/codegen.yaml": "c75dd610827ee5861b607dec36cd9d87ff62db973e38ecfba8bfe25e4c2ee472",
  "benchmarks/birdbench/prompts/default.yaml": "ab856406697f67d201b4a375b67f4a0b70f7d7c4b9a28ada9a4618cda5d4d871",
  "benchmarks/prompts/generic/codegen.yaml": "05205bc1610b5f71fe87c888fa84d00262b1bcc97796a70cc8120d1302b96866",
  "benchmarks/human_eval_infilling/prompts/default.yaml": "e0a039ff7f7092a6163d97ee29c05a4356728f2fd6e8a8e61136e13aeacb55bf",
  "benchmarks/mbpp/prompts/default.yaml": "adf0e9fe0e81fb94ddd98b5052e616e4540f10e30c634e1a7d5313b511324165",
  "benchmarks/prompts/eval/livecodebench/default_reasoning.yaml": "4961641673459e04d0795bf0b2f8dff346742ad4b5ab06ea03df373c48979bde",
  "benchmarks/livecodebench/prompts/cascade.yaml": "aceccbd4ada23555dde0ca522b572ea29553495e2a096b0c28c473a8c4a5811d",
};

const environmentConfigs = readdirSync(join(PROJECT_ROOT, "environments")).map((name) => join(PROJECT_ROOT, "environments", name, "config.yaml"));
const benchmarkConfigs = yamlFilesUnder(join(PROJECT_ROOT, "benchmarks")).filter((path) => /type: benchmark/.test(readFileSync(path, "utf8")));

test("the shipped folders are the ones NeMo Gym has and this project can run", () => {
  assert.deepEqual(readdirSync(join(PROJECT_ROOT, "environments")).sort(), ["arc_agi", "calendar", "calendar_v2", "code_gen", "instruction_following", "reasoning_gym", "workplace_assistant"]);
  // 25 + the code benchmarks: bigcodebench, birdbench, human_eval, human_eval_infilling, ioi, livecodebench-x,
  // livecodebench/{v5_2408_2502,v6_2408_2505}/{config,cascade}, mbpp, spider2_lite (scicode's scicode_agent is not here).
  assert.equal(benchmarkConfigs.length, 37, benchmarkConfigs.map((p) => relative(PROJECT_ROOT, p)).join("\n"));
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
      if (typeof dataset.prompt_config === "string" && !(dataset.prompt_config in NEMO_PROMPTS_TO_PIN)) assert.ok(loadPromptConfig(join(PROJECT_ROOT, dataset.prompt_config)).user.length > 0, `${label}: prompt ${dataset.prompt_config}`);
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

test("each shipped folder has a README; each environment its example rows", () => {
  for (const configPath of [...environmentConfigs, ...benchmarkConfigs]) {
    const folder = join(configPath, "..");
    assert.ok(existsSync(join(folder, "README.md")), `${relative(PROJECT_ROOT, folder)}/README.md`);
  }
  for (const configPath of environmentConfigs) assert.ok(existsSync(join(configPath, "..", "data", "example.jsonl")));
});

test("the catalogue lists every shipped folder as ported but those naming a NeMo Gym prompt still to be pinned, and of the servers here only scicode and structured_outputs_v4 as not ported", () => {
  const entries = discoverCatalog([PROJECT_ROOT]);
  const byName = new Map(entries.map((entry) => [`${entry.kind}/${entry.name}`, entry]));
  for (const name of ["arc_agi", "calendar", "calendar_v2", "code_gen", "instruction_following", "reasoning_gym", "workplace_assistant"]) {
    const entry = byName.get(`environment/${name}`);
    assert.ok(entry?.ported, `${name}: ${entry?.notPortedReason}`);
  }
  for (const name of ["aime24", "gpqa", "ifeval", "longbench_v2/config_n3_1m", "mmlu_prox", "math-500", "ioi", "livecodebench-x", "spider2_lite"]) assert.ok(byName.get(`benchmark/${name}`)?.ported, name);
  const prompt = (path: string) => `not here: ${path} (prompt_config)`;
  assert.deepEqual(entries.filter((entry) => !entry.ported).map((entry) => `${entry.name}: ${entry.notPortedReason}`), [
    `bigcodebench: ${prompt("benchmarks/prompts/eval/bigcodebench/codegen.yaml")}`,
    `birdbench: ${prompt("benchmarks/birdbench/prompts/default.yaml")}`,
    `human_eval: ${prompt("benchmarks/prompts/generic/codegen.yaml")}`,
    `human_eval_infilling: ${prompt("benchmarks/human_eval_infilling/prompts/default.yaml")}`,
    `livecodebench/v5_2408_2502/cascade: ${prompt("benchmarks/livecodebench/prompts/cascade.yaml")}`,
    `livecodebench/v5_2408_2502/config: ${prompt("benchmarks/prompts/eval/livecodebench/default_reasoning.yaml")}`,
    `livecodebench/v6_2408_2505/cascade: ${prompt("benchmarks/livecodebench/prompts/cascade.yaml")}`,
    `livecodebench/v6_2408_2505/config: ${prompt("benchmarks/prompts/eval/livecodebench/default_reasoning.yaml")}`,
    `mbpp: ${prompt("benchmarks/mbpp/prompts/default.yaml")}`,
    // Its config names NeMo Gym's scicode_agent, which is not ported (so benchmarks/scicode is not shipped either).
    "resources_servers/scicode: not here: responses_api_agents/scicode_agent",
    // Its config names NeMo Gym's non_executing_simple_agent, which is not ported.
    "resources_servers/structured_outputs/structured_outputs_v4: not here: responses_api_agents/non_executing_simple_agent",
  ]);
});

test("every resources server config here carries NeMo Gym's domain and description metadata", () => {
  const servers = discoverResourcesServers([PROJECT_ROOT]);
  assert.ok(servers.length >= 30);
  assert.deepEqual(servers.filter((server) => !server.domain || !server.description || !server.ported).map((server) => server.name), []);
});
