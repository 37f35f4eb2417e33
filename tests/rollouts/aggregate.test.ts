// Aggregating rollout shards: the shard globs, the merge by (task, rollout) key, and the metrics file,
// computed offline or by a resources server over real HTTP.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aggregateRollouts, loadShards, mergeShards, offlineMetrics, serverMetrics } from "../../src/rollouts/aggregate.ts";
import { expandGlobs, segmentRegExp } from "../../src/rollouts/glob.ts";
import { computeAggregateMetrics, stripForAggregation } from "../../src/metrics/index.ts";
import type { Row } from "../../src/rollouts/jsonl.ts";
import { resourcesServer } from "../../src/server/index.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";
import { startServers } from "../../src/testing/servers.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";

const tempDir = () => mkdtempSync(join(tmpdir(), "gym-aggregate-"));
const quiet = () => undefined;

function touch(root: string, ...paths: string[]): void {
  for (const path of paths) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), "");
  }
}

test("globs: * and ? stay within a segment, ** crosses directories, [..] classes, hidden files need a leading dot", () => {
  const root = tempDir();
  touch(root, "r/shard-1.jsonl", "r/shard-2.jsonl", "r/shard-10.jsonl", "r/deep/er/shard-3.jsonl", "r/.shard-4.jsonl", "r/notes.txt", "r/.hidden/shard-5.jsonl");
  assert.deepEqual(expandGlobs("r/shard-*.jsonl", root), ["r/shard-1.jsonl", "r/shard-10.jsonl", "r/shard-2.jsonl"]);
  assert.deepEqual(expandGlobs("r/shard-?.jsonl", root), ["r/shard-1.jsonl", "r/shard-2.jsonl"]);
  assert.deepEqual(expandGlobs("r/shard-[!2].jsonl", root), ["r/shard-1.jsonl"]);
  assert.deepEqual(expandGlobs("r/**/shard-*.jsonl", root), ["r/deep/er/shard-3.jsonl", "r/shard-1.jsonl", "r/shard-10.jsonl", "r/shard-2.jsonl"]);
  assert.deepEqual(expandGlobs("r/**", root), ["r/deep/er/shard-3.jsonl", "r/notes.txt", "r/shard-1.jsonl", "r/shard-10.jsonl", "r/shard-2.jsonl"]);
  assert.deepEqual(expandGlobs("r/.shard-*.jsonl", root), ["r/.shard-4.jsonl"]);
  assert.deepEqual(expandGlobs(`${root}/r/*.txt`), [`${root}/r/notes.txt`], "absolute patterns give absolute paths");
  assert.deepEqual(expandGlobs("r/nothing-*.jsonl", root), []);
});

test("globs: comma-separated patterns, each sorted, duplicates kept once in first-seen order", () => {
  const root = tempDir();
  touch(root, "a/2.jsonl", "a/1.jsonl", "b/0.jsonl");
  assert.deepEqual(expandGlobs(" b/*.jsonl , a/*.jsonl,a/1.jsonl ", root), ["b/0.jsonl", "a/1.jsonl", "a/2.jsonl"]);
  assert.ok(segmentRegExp("x.(1)+*").test("x.(1)+anything"), "regex characters in a pattern are literal");
});

function rolloutLine(task: number, rollout: number, reward: number, agent = "agent_a", extra: Row = {}): Row {
  return { responses_create_params: { input: "q" }, response: { usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } }, reward, ...extra, _ng_task_index: task, _ng_rollout_index: rollout, agent_ref: { name: agent } };
}
const jsonl = (rows: Row[]) => rows.map((r) => JSON.stringify(r) + "\n").join("");

test("shards merge by (task, rollout): the first line of a key wins, the rest are counted, the result is sorted", () => {
  const dir = tempDir();
  writeFileSync(join(dir, "s0.jsonl"), jsonl([rolloutLine(1, 0, 1), rolloutLine(0, 1, 0)]));
  writeFileSync(join(dir, "s1.jsonl"), jsonl([rolloutLine(0, 0, 1), rolloutLine(1, 0, 0.5)]));
  const { lines, duplicates } = mergeShards(loadShards([join(dir, "s0.jsonl"), join(dir, "s1.jsonl")]));
  assert.deepEqual(lines.map((l) => [l.taskIndex, l.rolloutIndex, l.row.reward]), [[0, 0, 1], [0, 1, 0], [1, 0, 1]]);
  assert.deepEqual(duplicates.map((d) => [d.path.endsWith("s1.jsonl"), d.lineNumber, d.row.reward]), [[true, 2, 0.5]]);
});

test("a shard line without integer indices cannot be merged: the error names the file and line", () => {
  const dir = tempDir();
  const path = join(dir, "s.jsonl");
  writeFileSync(path, jsonl([rolloutLine(0, 0, 1), { reward: 1 }]));
  assert.throws(() => loadShards([path]), (error: Error) => error.name === "InputError" && error.message.startsWith(`${path}:2: a rollout line needs integer _ng_task_index`));
});

test("offline: the merged file repeats the kept lines byte for byte; metrics per agent as collection writes them", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "shard-0.jsonl"), '{"reward":1.0,"_ng_task_index":1,"_ng_rollout_index":0,"agent_ref":{"name":"agent_b"}}\n' + jsonl([rolloutLine(0, 0, 1), rolloutLine(0, 1, 0)]));
  writeFileSync(join(dir, "shard-1.jsonl"), jsonl([rolloutLine(0, 1, 1), rolloutLine(1, 1, 0.5, "agent_a", { accuracy: true })]));
  const output = join(dir, "merged.jsonl");
  const printed: string[] = [];
  const summary = await aggregateRollouts({ inputGlob: "shard-*.jsonl", cwd: dir, outputPath: output, metrics: offlineMetrics, print: (l) => printed.push(l) });

  assert.deepEqual([summary.loaded, summary.merged, summary.duplicatesDropped], [5, 4, 1]);
  const merged = readFileSync(output, "utf8").split("\n").filter(Boolean);
  assert.equal(merged[2], '{"reward":1.0,"_ng_task_index":1,"_ng_rollout_index":0,"agent_ref":{"name":"agent_b"}}');
  assert.deepEqual(merged.map((l) => JSON.parse(l)._ng_rollout_index), [0, 1, 0, 1]);

  const file = JSON.parse(readFileSync(join(dir, "merged_aggregate_metrics.json"), "utf8"));
  assert.deepEqual(file.map((e: Row) => Object.keys(e)), [["agent_ref", "agent_metrics", "key_metrics", "group_level_metrics"], ["agent_ref", "agent_metrics", "key_metrics", "group_level_metrics"]]);
  assert.deepEqual(file.map((e: Row) => e.agent_ref), [{ name: "agent_a" }, { name: "agent_b" }]);
  const agentA = [rolloutLine(0, 0, 1), rolloutLine(0, 1, 0), rolloutLine(1, 1, 0.5, "agent_a", { accuracy: true })].map(stripForAggregation);
  assert.deepEqual(file[0], { agent_ref: { name: "agent_a" }, ...JSON.parse(JSON.stringify(await computeAggregateMetrics(agentA))) });
  assert.equal(file[0].key_metrics["mean/reward"], 0.5);
  assert.ok(printed.some((l) => /Dropped 1 duplicate line\(s\), keeping the first of each key: .*shard-1\.jsonl:1 \(0:1\)/.test(l)), printed.join("\n"));
  assert.ok(printed.join("\n").includes("Key metrics for agent_a:\n  mean/reward"), printed.join("\n"));
});

test("no --output: nothing is written, the metrics are still computed and printed", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "a.jsonl"), jsonl([rolloutLine(0, 0, 1)]));
  const summary = await aggregateRollouts({ inputGlob: join(dir, "*.jsonl"), metrics: offlineMetrics, print: quiet });
  assert.deepEqual([summary.mergedPath, summary.aggregateMetricsPath, summary.entries[0]!.key_metrics["mean/reward"]], [null, null, 1]);
});

test("a glob that matches nothing is an input error naming it", async () => {
  await assert.rejects(aggregateRollouts({ inputGlob: "/nonexistent/*.jsonl", metrics: offlineMetrics, print: quiet }), /no file matches input_glob '\/nonexistent\/\*\.jsonl'/);
});

// Over HTTP: the counter (default metrics) must agree with the offline computation; an environment with its
// own compute_metrics adds what only the server knows.
const withHook = resourcesServer({
  name: "HookedResourcesServer",
  tools: {},
  verify: { run: () => 1 },
  computeMetrics: (tasks) => ({ tasks_seen: tasks.length }),
});

let graph: InProcessGraph;
before(async () => (graph = await startServers({ counter: [counter], hooked: [withHook] })));
after(() => graph.close());

test("through a server: /aggregate_metrics of the agent's resources server; default hooks agree with offline", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "s.jsonl"), jsonl([rolloutLine(0, 0, 1), rolloutLine(0, 1, 0), rolloutLine(1, 0, 1, "agent_b")]));
  const viaServer = await aggregateRollouts({ inputGlob: join(dir, "s.jsonl"), metrics: serverMetrics(graph.client, (agent) => (agent === "agent_a" ? "counter" : "hooked")), print: quiet });
  const offline = await aggregateRollouts({ inputGlob: join(dir, "s.jsonl"), metrics: offlineMetrics, print: quiet });
  assert.deepEqual(viaServer.entries[0], offline.entries[0]);
  assert.equal(viaServer.entries[1]!.agent_metrics.tasks_seen, 1);
  assert.equal(offline.entries[1]!.agent_metrics.tasks_seen, undefined);
});
