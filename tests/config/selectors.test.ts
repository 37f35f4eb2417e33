// NeMo Gym's asset selectors over real folders: which config each name implies, the first root winning (with
// a warning), and the miss messages word for word (flavor vs server did-you-mean, benchmark nesting).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { UserError } from "../../src/config/errors.ts";
import { assetConfigPath, benchmarkConfigNames, didYouMean } from "../../src/config/selectors.ts";
import { getCloseMatches } from "../../src/python/difflib.ts";

/** A root with these files (relative path → content). */
function root(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "gym-selectors-")));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const BENCHMARK_YAML = "bench:\n  responses_api_agents:\n    simple_agent:\n      datasets:\n        - {name: b, type: benchmark, jsonl_fpath: b.jsonl}\n";

const A = root({
  "resources_servers/mcqa/configs/mcqa.yaml": "a: 1\n",
  "resources_servers/mcqa/configs/mcqa_lenient.yaml": "a: 2\n",
  "resources_servers/math_with_judge/configs/math_with_judge.yaml": "a: 3\n",
  "responses_api_models/openai_model/configs/openai_model.yaml": "m: 1\n",
  "environments/workplace/config.yaml": "e: 1\n",
  "environments/suite/hard/config.yaml": "e: 2\n",
  "benchmarks/aime25/config.yaml": BENCHMARK_YAML,
  "benchmarks/livecodebench/v5_2408_2502/config.yaml": BENCHMARK_YAML,
  "benchmarks/livecodebench/v6/config.yaml": BENCHMARK_YAML,
  "benchmarks/tau2/configs/airline.yaml": BENCHMARK_YAML,
  "benchmarks/notes/readme.yaml": "not_a_benchmark: true\n",
});
const B = root({ "resources_servers/mcqa/configs/mcqa.yaml": "shadowed: true\n", "resources_servers/only_in_b/configs/only_in_b.yaml": "b: 1\n" });

const miss = (run: () => unknown, message: string) =>
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof UserError, String(error));
    assert.equal(error.message, message);
    return true;
  });

test("a name (and name/flavor) implies <parent>/<name>/configs/<flavor or name>.yaml under the roots", () => {
  assert.equal(assetConfigPath("resources-server", "mcqa", { roots: [A] }), join(A, "resources_servers/mcqa/configs/mcqa.yaml"));
  assert.equal(assetConfigPath("resources-server", "mcqa/mcqa_lenient", { roots: [A] }), join(A, "resources_servers/mcqa/configs/mcqa_lenient.yaml"));
  assert.equal(assetConfigPath("model-type", "openai_model", { roots: [A] }), join(A, "responses_api_models/openai_model/configs/openai_model.yaml"));
  assert.equal(assetConfigPath("environment", "workplace", { roots: [A] }), join(A, "environments/workplace/config.yaml"));
  assert.equal(assetConfigPath("environment", "suite/hard", { roots: [A] }), join(A, "environments/suite/hard/config.yaml"));
  assert.equal(assetConfigPath("benchmark", "aime25", { roots: [A] }), join(A, "benchmarks/aime25/config.yaml"));
  assert.equal(assetConfigPath("benchmark", "livecodebench/v5_2408_2502", { roots: [A] }), join(A, "benchmarks/livecodebench/v5_2408_2502/config.yaml"));
  // The name a miss suggests for a nested benchmark works as a name/flavor: benchmarks/livecodebench/v6/config.yaml.
  assert.equal(assetConfigPath("benchmark", "livecodebench/v6/config", { roots: [A] }), join(A, "benchmarks/livecodebench/v6/config.yaml"));
  assert.throws(() => assetConfigPath("benchmark", "tau2/airline", { roots: [A] }), UserError);
});

test("the first root wins; the shadowed ones are named in a warning", () => {
  const warnings: string[] = [];
  assert.equal(assetConfigPath("resources-server", "mcqa", { roots: [B, A], warn: (w) => warnings.push(w) }), join(B, "resources_servers/mcqa/configs/mcqa.yaml"));
  assert.deepEqual(warnings, [
    `\`--resources-server mcqa\` matches multiple configs; using \`${join(B, "resources_servers/mcqa/configs/mcqa.yaml")}\` from the highest-priority root and ignoring \`${join(A, "resources_servers/mcqa/configs/mcqa.yaml")}\`. Pass \`--config <path>\` to select a different one.`,
  ]);
  assert.equal(assetConfigPath("resources-server", "only_in_b", { roots: [A, B] }), join(B, "resources_servers/only_in_b/configs/only_in_b.yaml"));
});

test("a mistyped server name: NeMo Gym's message, the closest server folder, every parent folder searched", () => {
  miss(
    () => assetConfigPath("resources-server", "mcqaa", { roots: [A, B] }),
    `\`--resources-server mcqaa\` was specified which implies config \`resources_servers/mcqaa/configs/mcqaa.yaml\`, which does not exist. Did you mean \`mcqa\`? See available resources-server configs in \`${join(A, "resources_servers")}\`, \`${join(B, "resources_servers")}\`.`,
  );
  miss(
    () => assetConfigPath("model-type", "opnai_model", { roots: [A] }),
    `\`--model-type opnai_model\` was specified which implies config \`responses_api_models/opnai_model/configs/opnai_model.yaml\`, which does not exist. Did you mean \`openai_model\`? See available model-type configs in \`${join(A, "responses_api_models")}\`.`,
  );
  // Nothing close: no hint.
  miss(
    () => assetConfigPath("resources-server", "zzz", { roots: [A] }),
    `\`--resources-server zzz\` was specified which implies config \`resources_servers/zzz/configs/zzz.yaml\`, which does not exist. See available resources-server configs in \`${join(A, "resources_servers")}\`.`,
  );
});

test("a mistyped flavor of an existing server: the closest config of that server, its configs folder", () => {
  miss(
    () => assetConfigPath("resources-server", "mcqa/mcqa_lenint", { roots: [A] }),
    `\`--resources-server mcqa/mcqa_lenint\` was specified which implies config \`resources_servers/mcqa/configs/mcqa_lenint.yaml\`, which does not exist. Did you mean \`mcqa_lenient\`? See available resources-server configs in \`${join(A, "resources_servers/mcqa/configs")}\`.`,
  );
});

test("environments: a missing one names the closest environment folder", () => {
  miss(
    () => assetConfigPath("environment", "workplac", { roots: [A] }),
    `\`--environment workplac\` was specified which implies config \`environments/workplac/config.yaml\`, which does not exist. Did you mean \`workplace\`? See available environment configs in \`${join(A, "environments")}\`.`,
  );
});

test("benchmarks: a grouping folder points at the shortest config under it; a typo at the closest benchmark name", () => {
  assert.deepEqual(benchmarkConfigNames(join(A, "benchmarks")), ["aime25", "livecodebench/v5_2408_2502/config", "livecodebench/v6/config", "tau2/configs/airline"]);
  miss(
    () => assetConfigPath("benchmark", "livecodebench", { roots: [A] }),
    `\`--benchmark livecodebench\` was specified which implies config \`benchmarks/livecodebench/config.yaml\`, which does not exist. Did you mean \`livecodebench/v6/config\`? See available benchmark configs in \`${join(A, "benchmarks")}\`.`,
  );
  miss(
    () => assetConfigPath("benchmark", "aime2", { roots: [A] }),
    `\`--benchmark aime2\` was specified which implies config \`benchmarks/aime2/config.yaml\`, which does not exist. Did you mean \`aime25\`? See available benchmark configs in \`${join(A, "benchmarks")}\`.`,
  );
});

test("no root has the folder at all: the roots searched, instead of NeMo Gym's empty list", () => {
  miss(
    () => assetConfigPath("benchmark", "aime25", { roots: [B] }),
    `\`--benchmark aime25\` was specified which implies config \`benchmarks/aime25/config.yaml\`, which does not exist. No search root has a benchmarks/ folder (searched \`${B}\`); add one with --search-dir DIR.`,
  );
});

test("difflib: get_close_matches as Python's (values checked against CPython 3.12)", () => {
  assert.deepEqual(getCloseMatches("abc", ["abd", "abe", "xbc"]), ["xbc", "abe", "abd"]);
  assert.deepEqual(getCloseMatches("mcqaa", ["mcqa", "math", "mcqab_x", "aaaa"]), ["mcqa", "mcqab_x"]);
  assert.deepEqual(getCloseMatches("appel", ["ape", "apple", "peach", "puppy"]), ["apple", "ape"]);
  assert.deepEqual(getCloseMatches("--bogus", ["--json", "--verbose", "-v", "-h", "--help"], 1), ["--verbose"]);
  assert.equal(didYouMean("--limt", ["--limit", "--list"]), " Did you mean `--limit`?");
  assert.equal(didYouMean("zzz", ["--limit"]), "");
});
