// The catalogue reader on temp roots: names as NeMo Gym gives them, config_paths chains, shadowing, and why an
// entry is not ported; the NeMo Gym index; and the matching that `gym search` and the did-you-mean hints use.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PROJECT_ROOT } from "../../../src/config/index.ts";
import { benchmarkName, closeMatches, didYouMean, discoverCatalog, environmentCatalog, fuzzyMatches, readNemoGymIndex, similarity } from "../../../src/config/catalog/index.ts";
import { tempProject } from "../fixtures.ts";

const server = (instance: string, implementation: string, extra = "") =>
  `${instance}:\n  resources_servers:\n    ${implementation}:\n      entrypoint: app.py\n      domain: math\n      description: ${instance} server\n${extra}`;
const agent = (instance: string, resources: string, datasets: string) =>
  `${instance}:\n  responses_api_agents:\n    simple_agent:\n      entrypoint: app.py\n      resources_server: {type: resources_servers, name: ${resources}}\n      model_server: {type: responses_api_models, name: policy_model}\n      datasets:\n${datasets}`;

test("difflib's ratio and get_close_matches, as Python computes them", () => {
  // Values from CPython 3 difflib.
  assert.equal(similarity("abcd", "bcde"), 0.75);
  assert.equal(similarity("qabxcd", "abycdf"), 2 / 3);
  assert.equal(similarity("instruction_following", "instruction_folowing"), 0.975609756097561);
  assert.deepEqual(closeMatches("appel", ["ape", "apple", "peach", "puppy"]), ["apple", "ape"]);
  assert.equal(didYouMean("calendr", ["calendar", "calendar_v2", "arc_agi"]), " Did you mean `calendar`?");
  assert.equal(didYouMean("zzz", ["calendar"]), "");
});

test("search matches a substring, or a close match to the field or one of its words", () => {
  assert.ok(fuzzyMatches("GPQA", "gpqa-x"));
  assert.ok(fuzzyMatches("reasonign", "reasoning_gym"), "close to the word 'reasoning'");
  assert.ok(fuzzyMatches("math", null, "", "Solve the math problem"));
  assert.ok(!fuzzyMatches("calendar", "arc_agi", "knowledge"));
});

test("benchmark names: <name>/config.yaml is <name>; any other file keeps its path", () => {
  assert.equal(benchmarkName("gpqa/config.yaml"), "gpqa");
  assert.equal(benchmarkName("longbench_v2/config_n3_1m.yaml"), "longbench_v2/config_n3_1m");
  assert.equal(benchmarkName("livecodebench/v5_2408_2502/config.yaml"), "livecodebench/v5_2408_2502/config");
});

test("a benchmark's metadata comes through its config_paths chain and _inherit_from; what is missing makes it not ported", async () => {
  const project = await tempProject({
    "resources_servers/toy/configs/toy.yaml": server("toy", "math_with_judge") + agent("toy_simple_agent", "toy", "      - {name: train, type: train, jsonl_fpath: x.jsonl, license: MIT}\n"),
    "benchmarks/toy_bench/config.yaml":
      "config_paths: [resources_servers/toy/configs/toy.yaml]\ntoy_bench_agent:\n  _inherit_from: toy_simple_agent\n  responses_api_agents:\n    simple_agent:\n      datasets:\n      - {name: toy_bench, type: benchmark, jsonl_fpath: benchmarks/toy_bench/data/t.jsonl, prepare_script: benchmarks/toy_bench/prepare.py, prompt_config: benchmarks/prompts/generic/math.yaml, license: MIT}\n",
    "benchmarks/lost/nested/config.yaml": "config_paths: [resources_servers/nowhere/configs/nowhere.yaml]\na:\n  responses_api_agents:\n    simple_agent:\n      entrypoint: app.py\n      datasets: [{name: lost, type: benchmark, jsonl_fpath: l.jsonl, prepare_script: p.py, prompt_config: benchmarks/prompts/none.yaml}]\n",
    "benchmarks/prompts/not_a_benchmark.yaml": "user: '{question}'\n",
    "environments/far/config.yaml": server("far", "far_away_server") + agent("far_agent", "far", "      - {name: example, type: example, jsonl_fpath: e.jsonl}\n"),
  });
  try {
    const entries = discoverCatalog([project.dir, PROJECT_ROOT]);
    const find = (kind: string, name: string) => entries.find((entry) => entry.kind === kind && entry.name === name);

    const bench = find("benchmark", "toy_bench")!;
    assert.equal(bench.domain, "math", "inherited from the included server");
    assert.equal(bench.description, "toy server");
    assert.equal(bench.licensing, "MIT", "the benchmark dataset's licence (the inherited agent's datasets are replaced)");
    assert.deepEqual(bench.requires, ["resources_servers/math_with_judge", "responses_api_agents/simple_agent"]);
    assert.ok(bench.ported, String(bench.notPortedReason));

    const lost = find("benchmark", "lost/nested/config")!;
    assert.equal(lost.ported, false);
    assert.deepEqual(lost.missing, ["resources_servers/nowhere/configs/nowhere.yaml (config_paths)", "benchmarks/prompts/none.yaml (prompt_config)"]);
    assert.deepEqual(lost.requires, ["responses_api_agents/simple_agent", "resources_servers/nowhere"]);

    const far = find("environment", "far")!;
    assert.deepEqual(far.missing, ["resources_servers/far_away_server"]);
    assert.match(far.notPortedReason!, /not here: resources_servers\/far_away_server/);

    assert.equal(find("benchmark", "prompts/not_a_benchmark"), undefined, "a YAML without a benchmark dataset is no benchmark");
    assert.ok(find("environment", "resources_servers/toy"), "a resources-server config with datasets is a workload");
    assert.ok(find("environment", "calendar")?.ported, "the project root is searched after the temp root");
  } finally {
    await project.remove();
  }
});

test("an earlier root shadows an entry of the same kind and name; a workload named like an entry is not listed twice", async () => {
  const project = await tempProject({
    "environments/calendar/config.yaml": server("calendar", "calendar") + agent("cal_agent", "calendar", "      - {name: example, type: example, jsonl_fpath: e.jsonl}\n"),
  });
  try {
    const entries = discoverCatalog([project.dir, PROJECT_ROOT]);
    const calendars = entries.filter((entry) => entry.kind === "environment" && entry.name === "calendar");
    assert.equal(calendars.length, 1);
    assert.equal(calendars[0]!.description, "calendar server");
    assert.ok(calendars[0]!.configPath!.startsWith(project.dir));
    assert.equal(entries.find((entry) => entry.name === "resources_servers/calendar"), undefined, "claimed by environments/calendar");
  } finally {
    await project.remove();
  }
});

test("NeMo Gym's index adds its entries that have no config here, never ported, naming the servers not here", () => {
  const index = readNemoGymIndex();
  assert.match(index.source, /^NVIDIA-NeMo\/Gym@/);
  assert.ok(index.entries.length > 200);
  for (const entry of index.entries) assert.ok(entry.name && (entry.kind === "environment" || entry.kind === "benchmark") && Array.isArray(entry.requires), JSON.stringify(entry));

  const catalogue = environmentCatalog({ cwd: PROJECT_ROOT, env: {} });
  const gpqa = catalogue.filter((entry) => entry.name === "gpqa");
  assert.equal(gpqa.length, 1, "the folder here shadows the index entry");
  assert.ok(gpqa[0]!.configPath && gpqa[0]!.ported);
  const biomnibench = catalogue.find((entry) => entry.name === "biomnibench_da")!;
  assert.equal(biomnibench.ported, false);
  assert.deepEqual(biomnibench.missing, ["responses_api_agents/harbor_agent"]);
  assert.equal(biomnibench.configPath, null);
  assert.ok(environmentCatalog({ cwd: PROJECT_ROOT, env: {}, withNemoGym: false }).every((entry) => entry.configPath !== null));
});
