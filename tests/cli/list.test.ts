// `gym list …` and `gym search …` as users run them (the real CLI, a child process), against this project's
// folders and a temp extra root.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGym } from "./gym-process.ts";

const SHIPPED_ENVIRONMENTS = ["arc_agi", "blackjack", "calendar", "calendar_v2", "instruction_following", "reasoning_gym", "workplace_assistant"];
const NEMO_PAYLOAD_KEYS = ["name", "kind", "status", "domain", "description", "version", "integration_profile", "modality", "licensing", "lifecycle"];

async function json(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>[]> {
  const result = await runGym(args, { env });
  assert.equal(result.code, 0, result.output);
  return JSON.parse(result.stdout);
}

test("gym list environments --json: NeMo Gym's fields plus whether each entry is ported, the shipped folders ported", async () => {
  const entries = await json(["list", "environments", "--json"]);
  for (const entry of entries) for (const key of [...NEMO_PAYLOAD_KEYS, "ported", "missing", "not_ported_reason", "config_path"]) assert.ok(key in entry, `${entry.name} has ${key}`);
  for (const name of SHIPPED_ENVIRONMENTS) {
    const entry = entries.find((e) => e.name === name && e.kind === "environment")!;
    assert.equal(entry.ported, true, name);
    assert.match(String(entry.config_path), new RegExp(`environments/${name}/config\\.yaml$`));
    assert.equal(entry.status, "no-manifest");
  }
  const harborOnly = entries.find((e) => e.name === "biomnibench_da")!;
  assert.equal(harborOnly.ported, false);
  assert.deepEqual(harborOnly.missing, ["responses_api_agents/harbor_agent"]);
  assert.equal(harborOnly.config_path, null);
  assert.ok(entries.some((e) => e.kind === "benchmark" && e.name === "gpqa" && e.ported));
});

test("filters: --kind, --domain and --ported narrow the listing; the table says what is ported", async () => {
  const [result, table] = await Promise.all([runGym(["list", "environments", "--kind", "benchmark", "--domain", "math", "--ported", "--json"]), runGym(["list", "benchmarks", "--ported"])]);
  assert.equal(result.code, 0, result.output);
  const names = (JSON.parse(result.stdout) as { name: string; kind: string; domain: string; ported: boolean }[]).map((e) => {
    assert.ok(e.kind === "benchmark" && e.domain === "math" && e.ported, JSON.stringify(e));
    return e.name;
  });
  assert.deepEqual(names, ["aime24", "aime24-x", "aime25", "aime25-x", "aime26", "apex_shortlist", "gsm8k", "hendrycks_math", "hmmt_feb25", "hmmt_nov25", "imo_gradingbench", "math-500", "polymath"]);

  assert.equal(table.code, 0, table.output);
  assert.match(table.stdout, /^Available environments and benchmarks \((\d+); ported \1\/\1; manifests 0\/\d+\)\nName +Kind +Ported +Status/);
  assert.match(table.stdout, /\nifeval +benchmark +yes +no-manifest +instruction_following +Instruction following datasets/);
});

test("gym list environments NAME prints its detail; --json the same fields", async () => {
  const [text, detailRun] = await Promise.all([runGym(["list", "environments", "instruction_following"]), runGym(["list", "environments", "biomnibench_da", "--json"])]);
  assert.equal(text.code, 0, text.output);
  assert.match(text.stdout, /^The instruction_following environment \(domain: instruction_following\)\n\nInstruction following datasets .*\nValue: Improve IFEval and IFBench\n\nDetails:\nconfig: \S+environments\/instruction_following\/config\.yaml\nstatus: no-manifest\n/);
  assert.match(text.stdout, /\nagent: simple_agent\ndatasets: example, train\n/);
  // NeMo Gym's usage line, through the selectors.
  assert.match(text.stdout, /\nported: yes\n\nUsage example:\ngym env start --environment instruction_following --model-type vllm_model\n$/);

  assert.equal(detailRun.code, 0, detailRun.output);
  const detail = JSON.parse(detailRun.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(detail), ["name", "type", "domain", "description", "details", "usage_example", "ported"]);
  assert.equal(detail.name, "biomnibench_da");
  assert.equal(detail.ported, false);
  assert.match(String((detail.details as Record<string, string>).ported), /^no \(not here: responses_api_agents\/harbor_agent/);
  assert.equal(detail.usage_example, null);
});

test("the usage example of a workload in a resources server's configs, of a resources server and of a model: NeMo Gym's selector form", async () => {
  const [workload, server, model] = await Promise.all([
    runGym(["list", "environments", "resources_servers/example_multi_step"]),
    runGym(["list", "resources-servers", "mcqa"]),
    runGym(["list", "models", "vllm_model"]),
  ]);
  assert.match(workload.stdout, /\nUsage example:\ngym env start --resources-server example_multi_step --model-type vllm_model\n$/, workload.output);
  assert.match(server.stdout, /\nUsage example:\ngym env start --resources-server mcqa --model-type vllm_model\n$/, server.output);
  assert.match(model.stdout, /\nUsage example:\ngym env start --resources-server example_single_tool_call --model-type vllm_model\n$/, model.output);
});

test("an unknown name is one line with a did-you-mean (exit 2); a name of the other kind says which it is", async () => {
  const [typo, agent, kind] = await Promise.all([runGym(["list", "environments", "calendr"]), runGym(["list", "agents", "simple_agnt"]), runGym(["ng_list_benchmarks", "calendar"])]);
  assert.equal(typo.code, 2);
  assert.equal(typo.stderr, "error: Unknown environment 'calendr'. Did you mean `calendar`?\n");
  assert.equal(agent.stderr, "error: Unknown agent 'simple_agnt'. Did you mean `simple_agent`?\n");
  assert.equal(kind.code, 2);
  assert.match(kind.stderr, /error: 'calendar' is an environment, not a benchmark\. Try `gym list environments calendar`\.\n$/);
});

test("gym search [TYPE] QUERY: substring or close match, over the catalogue or one component type", async () => {
  const [benchmarkRows, agentRows, servers, none, wrongType] = await Promise.all([
    json(["search", "benchmarks", "gpqa", "--json"]),
    json(["search", "agents", "simpel", "--json"]),
    json(["search", "resources-servers", "calendar", "--json"]),
    runGym(["search", "models", "no-such-model-anywhere"]),
    runGym(["search", "widgets", "x"]),
  ]);
  const benchmarks = benchmarkRows.map((e) => e.name);
  assert.ok(benchmarks.includes("gpqa") && benchmarks.includes("gpqa-x"), benchmarks.join(", "));
  assert.ok(!benchmarks.includes("mmlu") && benchmarkRows.every((e) => e.kind === "benchmark"));
  assert.deepEqual(agentRows.map((e) => e.name), ["non_executing_simple_agent", "simple_agent"], "a close match to a word of the name");
  assert.deepEqual(servers.map((s) => s.name), ["calendar"]);
  assert.equal(servers[0]!.domain, "agent");
  assert.equal(none.stdout, "No models match 'no-such-model-anywhere'.\n");
  assert.equal(wrongType.code, 2);
  assert.match(wrongType.stderr, /'widgets' is not a component type/);
});

test("--search-dir and NEMO_GYM_EXTRA_ROOTS add a root whose environments are listed, and name what they lack", async () => {
  const root = await mkdtemp(join(tmpdir(), "gym-list-root-"));
  try {
    const write = async (rel: string, text: string) => {
      await mkdir(join(root, rel, ".."), { recursive: true });
      await writeFile(join(root, rel), text);
    };
    await write(
      "environments/my_counter/config.yaml",
      "my_counter:\n  resources_servers:\n    example_session_state_mgmt:\n      entrypoint: app.py\n      domain: agent\n      description: My own counter environment\nmy_counter_agent:\n  responses_api_agents:\n    simple_agent:\n      entrypoint: app.py\n      resources_server: {type: resources_servers, name: my_counter}\n      model_server: {type: responses_api_models, name: policy_model}\n      datasets: [{name: example, type: example, jsonl_fpath: environments/my_counter/data/example.jsonl}]\n",
    );
    await write("environments/my_missing/config.yaml", "m:\n  resources_servers:\n    not_ported_server:\n      entrypoint: app.py\n      domain: other\n");
    await write("responses_api_agents/my_agent/configs/my_agent.yaml", "my_agent:\n  responses_api_agents:\n    my_agent:\n      entrypoint: app.py\n      description: An agent of my own\n");

    const [viaFlag, viaEnv, agents] = await Promise.all([
      json(["list", "environments", "--search-dir", root, "--json"]),
      json(["list", "environments", "--json"], { NEMO_GYM_EXTRA_ROOTS: root }),
      json(["list", "agents", "--search-dir", root, "--json"]),
    ]);
    const mine = viaFlag.find((e) => e.name === "my_counter")!;
    assert.equal(mine.ported, true, String(mine.not_ported_reason));
    assert.equal(mine.description, "My own counter environment");
    assert.equal(viaFlag.find((e) => e.name === "my_missing")!.not_ported_reason, "not here: resources_servers/not_ported_server");

    assert.ok(viaEnv.some((e) => e.name === "my_counter"));
    assert.deepEqual(agents.find((a) => a.name === "my_agent"), { name: "my_agent", pattern: "B (self-contained)", self_contained: true, variants: ["my_agent"], description: "An agent of my own", ported: false });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
