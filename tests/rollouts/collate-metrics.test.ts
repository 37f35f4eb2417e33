// `gym dataset collate` metrics: <stem>_metrics.json next to each dataset and <type>_metrics.json in the output,
// byte for byte what NeMo Gym's json.dump(model_dump, indent=4) writes (the expected file below was computed by hand
// from its algorithm: Welford stats, round to 2 decimals at |x| ≥ 1 else 3, half to even), and its conflict rule.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatasetMetricsBuilder, metricsDifferences, metricsFileContent, metricsJson } from "../../src/rollouts/dataset-metrics.ts";
import { readJsonl } from "../../src/rollouts/jsonl.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { SHARED_DATA_DIR, sharedDataFile } from "../../src/testing/shared-data.ts";
import { runGym } from "../../src/testing/child-process.ts";

const ROWS = [
  { responses_create_params: { input: "Hi there", temperature: 0.5 }, x: 1, tag: "a", ok: true, y: 1 },
  { responses_create_params: { input: [{ role: "system", content: "Be brief." }, { role: "user", content: "2+2?" }], tools: [] }, x: 2.5, tag: "b", ok: false, y: 1.25, list: [3, 4] },
];

// Words of json.dumps(params): 5 ({"input": "Hi there", "temperature": 0.5}) and 12; y's average 1.125 is an exact
// tie, which Python's round makes 1.12 (toFixed would say 1.13).
const EXPECTED = `{
    "name": "mine",
    "type": "example",
    "jsonl_fpath": "data/mine.jsonl",
    "num_repeats": 1,
    "source": null,
    "gitlab_identifier": null,
    "huggingface_identifier": null,
    "license": "MIT",
    "Number of examples": 2,
    "Number of tools": {
        "Total # non-null values": 1,
        "Average": 0.0,
        "Min": 0.0,
        "Max": 0.0,
        "Standard deviation": 0.0
    },
    "Json-dumped number of words (proxy for token count)": {
        "Total # non-null values": 2,
        "Average": 8.5,
        "Min": 5.0,
        "Max": 12.0,
        "Standard deviation": 4.95
    },
    "Number of turns": {
        "Total # non-null values": 2,
        "Average": 1.0,
        "Min": 1.0,
        "Max": 1.0,
        "Standard deviation": 0.0
    },
    "Temperature": {
        "Total # non-null values": 1,
        "Average": 0.5,
        "Min": 0.5,
        "Max": 0.5,
        "Standard deviation": 0.0
    },
    "x": {
        "Total # non-null values": 2,
        "Average": 1.75,
        "Min": 1.0,
        "Max": 2.5,
        "Standard deviation": 1.06
    },
    "tag": {
        "unique_count": 2,
        "total_count": 2
    },
    "ok": {
        "Total # non-null values": 2,
        "Average": 0.5,
        "Min": 0.0,
        "Max": 1.0,
        "Standard deviation": 0.707
    },
    "y": {
        "Total # non-null values": 2,
        "Average": 1.12,
        "Min": 1.0,
        "Max": 1.25,
        "Standard deviation": 0.177
    },
    "list": {
        "Total # non-null values": 2,
        "Average": 3.5,
        "Min": 3.0,
        "Max": 4.0,
        "Standard deviation": 0.707
    }
}`;

function project(rows: object[]): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "gym-collate-metrics-")));
  mkdirSync(join(dir, "data"));
  writeFileSync(join(dir, "data", "mine.jsonl"), rows.map((row) => `${JSON.stringify(row)}\n`).join(""));
  writeFileSync(
    join(dir, "config.yaml"),
    ["mine_agent:", "  responses_api_agents:", "    simple_agent:", "      entrypoint: app.py", "      datasets:", "        - {name: mine, type: example, jsonl_fpath: data/mine.jsonl, license: MIT}", ""].join("\n"),
  );
  return dir;
}

const collate = (dir: string, ...extra: string[]) => runGym(["dataset", "collate", "--config", "config.yaml", "--mode", "example_validation", "--output-dir", "out", ...extra], { cwd: dir });

test("dataset collate writes <stem>_metrics.json and <type>_metrics.json exactly as NeMo Gym's prepare_data", async () => {
  const dir = project(ROWS);
  const result = await collate(dir);
  assert.equal(result.code, 0, result.output);
  assert.equal(readFileSync(join(dir, "data", "mine_metrics.json"), "utf8"), EXPECTED);
  assert.equal(readFileSync(join(dir, "out", "example_metrics.json"), "utf8"), EXPECTED, "one dataset: the type's metrics are its own");
  assert.equal(readFileSync(join(dir, "out", "example.jsonl"), "utf8").trim().split("\n").length, 2);

  // Run again: the committed file matches, so it is left alone.
  const again = await collate(dir);
  assert.equal(again.code, 0, again.output);
  assert.match(again.stdout, /mine_metrics\.json already up to date/);
});

test("dataset collate: a committed metrics file the data no longer matches is a conflict, reported in one line", async () => {
  const dir = project(ROWS.map((row) => ({ ...row, tag: "a" })));
  writeFileSync(join(dir, "data", "mine_metrics.json"), EXPECTED);
  const result = await collate(dir);
  assert.equal(result.code, 2);
  const conflict = join(dir, "data", "mine_metrics_conflict.json");
  assert.equal(
    result.stderr,
    `error: Found conflicting aggregate metrics that need to be corrected: ${conflict}. This could be due to a change in how metrics are calculated, leading to outdated metrics. Try deleting the below file(s) and rerunning data preparation: ${join(dir, "data", "mine_metrics.json")} (or pass +overwrite_metrics_conflicts=true)\n`,
  );
  assert.match(result.stdout, /Value differs at tag\.unique_count: 2 != 1/);
  assert.match(readFileSync(conflict, "utf8"), /"tag": \{\n {8}"unique_count": 1,/);
  assert.equal(readFileSync(join(dir, "data", "mine_metrics.json"), "utf8"), EXPECTED, "the committed file is kept");
  assert.equal(existsSync(join(dir, "out", "example.jsonl")), false, "nothing collated");

  // Within tolerance (5e-3 at |x| ≥ 1) is no conflict; a key the new metrics lack is.
  const close = pythonJsonLoads(EXPECTED);
  (close as Map<string, any>).get("x").set("Average", 1.754);
  assert.deepEqual(metricsDifferences(close, pythonJsonLoads(EXPECTED)), []);
  (close as Map<string, any>).set("Median", 1);
  assert.deepEqual(metricsDifferences(close, pythonJsonLoads(EXPECTED)), ["Missing key in new metrics: Median"]);

  const overwrite = await collate(dir, "+overwrite_metrics_conflicts=true");
  assert.equal(overwrite.code, 0, overwrite.output);
  assert.match(readFileSync(join(dir, "data", "mine_metrics.json"), "utf8"), /"unique_count": 1,/);
});

// NeMo Gym's committed example_metrics.json beside its example.jsonl, where the reference data has both.
const shared = existsSync(SHARED_DATA_DIR) ? { skip: false as const } : sharedDataFile("README.md");
test("parity: our metrics of NeMo Gym's example.jsonl files agree with their committed example_metrics.json", { skip: shared.skip }, (t) => {
  const pairs = readdirSync(SHARED_DATA_DIR)
    .map((server) => join(SHARED_DATA_DIR, server, "data"))
    .filter((dir) => existsSync(join(dir, "example.jsonl")) && existsSync(join(dir, "example_metrics.json")));
  if (pairs.length === 0) return t.skip(`no <server>/data/example.jsonl with its example_metrics.json under ${SHARED_DATA_DIR}`);
  for (const dir of pairs) {
    const text = readFileSync(join(dir, "example_metrics.json"), "utf8");
    const committed = JSON.parse(text);
    const builder = new DatasetMetricsBuilder(join(dir, "example.jsonl"));
    for (const line of readJsonl(join(dir, "example.jsonl"))) for (let r = 0; r < (committed.num_repeats ?? 1); r++) builder.addRow(line.row, line.lineNumber);
    const entry = { name: committed.name, type: committed.type, jsonl_fpath: committed.jsonl_fpath, num_repeats: committed.num_repeats, license: committed.license };
    const ours = metricsJson(metricsFileContent(entry, builder.finish()));
    assert.deepEqual(metricsDifferences(pythonJsonLoads(text), pythonJsonLoads(ours)), [], dir);
  }
});
