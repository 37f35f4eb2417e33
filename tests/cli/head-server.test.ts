// The head server's config for callers with and without the graph's token: secrets (by key, and every value
// env.yaml set) are redacted for anyone without it, and what discovery reads (addresses, references, settings)
// is kept, for our client and for NeMo Gym's Python one.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import type { FastifyInstance } from "fastify";
import { HttpClient } from "../../src/client/index.ts";
import { HEAD_TOKEN_HEADER } from "../../src/client/head-token.ts";
import { copyEnvYamlPaths, envYamlPathsOf, loadGlobalConfig, type ConfigDict } from "../../src/config/index.ts";
import { REDACTED, redactForCallers, startHeadServer } from "../../src/cli/head-server.ts";

const dir = mkdtempSync(join(tmpdir(), "gym-head-"));
const envYaml = join(dir, "env.yaml");
writeFileSync(
  envYaml,
  [
    "policy_base_url: https://inference.example/v1",
    "policy_model_name: private-model",
    "judge_endpoint: https://judge.example/?sig=abc", // a secret whose key does not say so
    "head_server: {host: 127.0.0.1}",
    "global_aiohttp_connector_limit: 512",
    "observability_enabled: false",
    "extra_hosts: [a.example, b.example]",
    "token_id_capture: {enabled: true, agents: [counter_agent]}",
  ].join("\n"),
);
const configYaml = join(dir, "graph.yaml");
writeFileSync(
  configYaml,
  [
    "policy_api_key: sk-live-123",
    "hf_token: hf_abc",
    "db_password: hunter2",
    "auth: {Authorization: Bearer xyz, client_secret: shh}",
    "session_secret: graph-secret",
    "counter_env:",
    "  resources_servers:",
    "    example_session_state_mgmt:",
    "      entrypoint: app.ts",
    "      domain: other",
    "      host: 127.0.0.1",
    "      port: 4101",
    "policy_model:",
    "  responses_api_models:",
    "    openai_model:",
    "      entrypoint: app.ts",
    "      openai_base_url: ${policy_base_url}",
    "      openai_api_key: ${policy_api_key}",
    "      openai_model: ${policy_model_name}",
    "      return_token_id_information: false",
    "      max_tokens: 4096",
    "      host: 127.0.0.1",
    "      port: 4102",
    "counter_agent:",
    "  responses_api_agents:",
    "    simple_agent:",
    "      entrypoint: app.ts",
    "      host: 127.0.0.1",
    "      port: 4103",
    "      resources_server: {type: resources_servers, name: counter_env}",
    "      model_server: {type: responses_api_models, name: policy_model}",
  ].join("\n"),
);

const TOKEN = "head-token-for-tests";
let raw: ConfigDict;
let app: FastifyInstance;
let url: string;
const http = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 10_000, maxRetries: 0 });

before(async () => {
  const loaded = await loadGlobalConfig({ configPaths: [configYaml], cwd: dir, rootDir: dir, envYamlPath: envYaml, env: {}, logger: { warn: () => undefined } });
  raw = loaded.raw;
  const head = await startHeadServer({ rawConfig: () => raw, instances: () => [], token: TOKEN, envYamlPaths: envYamlPathsOf(raw) }, "127.0.0.1", 0);
  app = head.app;
  url = head.url;
});
after(async () => {
  await app.close();
  await http.close();
});

const fetchConfig = async (headers: Record<string, string> = {}) => {
  const answer = await http.request(`${url}/global_config_dict_yaml`, { headers });
  assert.equal(answer.status, 200);
  return parseYaml(answer.json<string>()) as Record<string, any>;
};

test("without the token, secret keys and env.yaml's text values read <redacted>; addresses, references and settings are intact", async () => {
  const config = await fetchConfig();
  for (const key of ["policy_api_key", "hf_token", "db_password", "session_secret", "policy_base_url", "policy_model_name", "judge_endpoint"]) {
    assert.equal(config[key], REDACTED, key);
  }
  assert.deepEqual(config.auth, { Authorization: REDACTED, client_secret: REDACTED });
  assert.equal(config.policy_model.responses_api_models.openai_model.return_token_id_information, false, "a switch under a token key is no secret");
  assert.equal(config.policy_model.responses_api_models.openai_model.max_tokens, REDACTED, "a number under one may be (a numeric key)");
  assert.deepEqual(config.extra_hosts, [REDACTED, REDACTED], "a list env.yaml set is hidden element by element");
  // The references stay references (the raw config is unresolved), so nothing resolves to a secret either.
  assert.equal(config.policy_model.responses_api_models.openai_model.openai_api_key, REDACTED);
  assert.equal(config.policy_model.responses_api_models.openai_model.openai_base_url, "${policy_base_url}");
  for (const [name, port] of [["counter_env", 4101], ["policy_model", 4102], ["counter_agent", 4103]] as const) {
    const block = config[name];
    const fields = Object.values(Object.values(block)[0] as object)[0] as Record<string, unknown>;
    assert.equal(fields.host, "127.0.0.1", name);
    assert.equal(fields.port, port, name);
    assert.equal(fields.entrypoint, "app.ts", name);
  }
  assert.deepEqual(config.counter_agent.responses_api_agents.simple_agent.resources_server, { type: "resources_servers", name: "counter_env" });
  assert.equal(config.head_server.host, "127.0.0.1", "env.yaml's head_server is discovery: kept");
  assert.equal(config.global_aiohttp_connector_limit, 512, "numbers env.yaml set are settings: kept");
  assert.equal(config.observability_enabled, false);
  assert.deepEqual(config.token_id_capture, { enabled: true, agents: ["counter_agent"] }, "NeMo Gym's agents read this block: kept");
  assert.deepEqual(config.config_paths, [configYaml]);
  assert.doesNotMatch(JSON.stringify(config), /sk-live-123|hf_abc|hunter2|graph-secret|private-model|sig=abc|inference\.example/);
});

test("with the graph's token (header or bearer) the config is served whole; a wrong token is no token", async () => {
  for (const headers of [{ [HEAD_TOKEN_HEADER]: TOKEN }, { authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
    const config = await fetchConfig(headers);
    assert.equal(config.policy_api_key, "sk-live-123");
    assert.equal(config.policy_model_name, "private-model");
    assert.equal(config.judge_endpoint, "https://judge.example/?sig=abc");
    assert.deepEqual(config.auth, { Authorization: "Bearer xyz", client_secret: "shh" });
  }
  for (const headers of [{ [HEAD_TOKEN_HEADER]: "wrong" }, { authorization: `Bearer ${TOKEN}x` }, { authorization: TOKEN }, { [HEAD_TOKEN_HEADER]: "" }] as Record<string, string>[]) {
    assert.equal((await fetchConfig(headers)).policy_api_key, REDACTED, JSON.stringify(headers));
  }
});

test("env.yaml paths travel with the config they were loaded with, and to a copy only when given", () => {
  assert.ok(envYamlPathsOf(raw).some((path) => path.join(".") === "judge_endpoint"));
  const copy = structuredClone(raw);
  assert.deepEqual(envYamlPathsOf(copy), []);
  copyEnvYamlPaths(raw, copy);
  assert.deepEqual(envYamlPathsOf(copy), envYamlPathsOf(raw));
  assert.equal(redactForCallers(copy, envYamlPathsOf(copy)).judge_endpoint, REDACTED);
});

const python = spawnSync("python3", ["-c", "import requests, yaml"], { encoding: "utf8" });
const skip = python.error ? "python3 is not installed" : python.status !== 0 ? "the Python packages requests and yaml are not installed" : false;

// NeMo Gym's ServerClient.load_from_global_config and what it reads: json.loads of the body, then YAML, then
// get_first_server_config_dict (three levels) for host and port, head_server, observability_enabled.
const CLIENT = String.raw`
import json, sys, requests, yaml
config = yaml.safe_load(json.loads(requests.get(sys.argv[1] + "/global_config_dict_yaml").content.decode()))
def first(name):
    block = config[name]
    block = list(block.values())[0]
    return list(block.values())[0]
print(json.dumps({
    "urls": {name: f"http://{first(name)['host']}:{first(name)['port']}" for name in ["counter_env", "policy_model", "counter_agent"]},
    "head": config["head_server"]["host"],
    "observability": config.get("observability_enabled", False),
    "is_resources": "resources_servers" in config["counter_env"],
    "api_key": config["policy_api_key"],
}))
`;

test("a NeMo Gym-style Python client reads every server address from the redacted config", { skip }, async () => {
  // Not spawnSync: the head server answering it runs in this process.
  const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("python3", ["-c", CLIENT, url]);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), {
    urls: { counter_env: "http://127.0.0.1:4101", policy_model: "http://127.0.0.1:4102", counter_agent: "http://127.0.0.1:4103" },
    head: "127.0.0.1",
    observability: false,
    is_resources: true,
    api_key: REDACTED,
  });
});
