// The server behind `gym view`, without a browser: files read as they grow (only the new bytes, a half-written
// line left for later, a replaced file read afresh), a 100k-line run served a page at a time, bad requests answered
// with a 4xx naming the field, and the real `gym view` command serving the page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { HttpClient } from "../../../src/client/http-client.ts";
import { parseLine, TailedJsonl } from "../../../src/cli/view/tailed-jsonl.ts";
import { buildViewServer } from "../../../src/cli/view/view-server.ts";
import { runMetrics } from "../../../src/cli/view/run-metrics.ts";
import { summarizeLine } from "../../../src/cli/view/line-summary.ts";
import { runPathsOf, ViewedRun } from "../../../src/cli/view/viewed-run.ts";
import { startGym } from "../gym-process.ts";

let dir: string;
before(() => void (dir = mkdtempSync(join(tmpdir(), "gym-view-api-"))));
after(() => rmSync(dir, { recursive: true, force: true }));

const rolloutLine = (task: number, repeat: number, reward: number, prompt = `question ${task}`) =>
  JSON.stringify({
    responses_create_params: { input: [{ role: "user", content: prompt }] },
    response: { id: "r", output: [{ type: "function_call", call_id: "c", name: "tool", arguments: "{}" }, { type: "function_call_output", call_id: "c", output: "ok" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] }], usage: { input_tokens: 7, output_tokens: 3 } },
    reward,
    _ng_task_index: task,
    _ng_rollout_index: repeat,
    agent_ref: { name: "agent" },
  }) + "\n";

test("a tailed file reads only what was appended, waits for a line's newline, and starts over when replaced", () => {
  const path = join(dir, "tail.jsonl");
  writeFileSync(path, rolloutLine(0, 0, 1) + rolloutLine(0, 1, 0));
  const file = new TailedJsonl(path, "rollout");
  assert.equal(file.refresh(), true);
  assert.deepEqual(file.lines.map((line) => [line.task, line.repeat, line.reward, line.tokens, line.turns, line.toolCalls]), [[0, 0, 1, 10, 2, 1], [0, 1, 0, 10, 2, 1]]);
  assert.equal(file.refresh(), false, "nothing new");
  const third = rolloutLine(1, 0, 1);
  appendFileSync(path, third.slice(0, 30));
  assert.equal(file.refresh(), false, "half a line is not a line yet");
  appendFileSync(path, third.slice(30) + "not json\n");
  assert.equal(file.refresh(), true);
  assert.equal(file.lines.length, 3);
  assert.equal(file.unreadable, 1);
  assert.equal(file.readLine(2)?._ng_task_index, 1, "a line is read again alone, from its offset");
  // A fresh run removes the file and writes it anew.
  rmSync(path);
  writeFileSync(path, rolloutLine(5, 0, 0));
  assert.equal(file.refresh(), true);
  assert.deepEqual(file.lines.map((line) => line.task), [5]);
  assert.equal(file.unreadable, 0);
});

test("a line with Python's NaN and Infinity (json.dumps writes them) is read, them as null, strings untouched", () => {
  assert.deepEqual(parseLine('{"reward": NaN, "extra": [Infinity, -Infinity], "text": "NaN and Infinity \\" NaN"}'), { reward: null, extra: [null, null], text: 'NaN and Infinity " NaN' });
  assert.throws(() => parseLine('{"reward": nan}'), SyntaxError);
});

test("sidecars given with a glob are not runs of their own", () => {
  const run = join(dir, "glob.jsonl");
  writeFileSync(run, "");
  const given = [run, join(dir, "glob_failures.jsonl"), join(dir, "glob_materialized_inputs.jsonl"), join(dir, "lonely_failures.jsonl")];
  assert.deepEqual(runPathsOf(given), [run, join(dir, "lonely_failures.jsonl")]);
});

test("a run not written yet is waited for, and its lines show up once the collection writes them", () => {
  const path = join(dir, "later.jsonl");
  const run = new ViewedRun(0, path);
  run.refresh();
  assert.deepEqual([run.overview().exists, run.overview().metrics.rollouts], [false, 0]);
  writeFileSync(path, rolloutLine(0, 0, 1));
  writeFileSync(join(dir, "later_failures.jsonl"), JSON.stringify({ _ng_task_index: 1, _ng_rollout_index: 0, _ng_failure_class: "timeout", _ng_will_retry: true }) + "\n");
  run.refresh();
  const { exists, metrics } = run.overview();
  assert.deepEqual([exists, metrics.rollouts, metrics.failedAttempts, metrics.failedRollouts], [true, 1, 1, 0], "a retried failure is an attempt, not a failed rollout");
});

test("metrics: a rollout whose last failure was not retried failed for good, unless it succeeded; pass@k of non-0/1 rewards is the best of the first k", () => {
  const rollout = (task: number, repeat: number, reward: number) => summarizeLine(JSON.parse(rolloutLine(task, repeat, reward)), "rollout", 0, 0, 0);
  const failure = (task: number, failureClass: string, willRetry: boolean) =>
    summarizeLine({ _ng_task_index: task, _ng_rollout_index: 0, _ng_failure_class: failureClass, _ng_will_retry: willRetry }, "failure", 0, 0, 0);
  const metrics = runMetrics(
    [rollout(0, 0, 0.2), rollout(0, 1, 0.8), rollout(1, 0, 0.5), rollout(1, 1, 0.5), rollout(2, 0, 1)],
    [failure(2, "timeout", true), failure(3, "timeout", true), failure(3, "agent_error", false), failure(4, "bad_request", false)],
  );
  assert.deepEqual(metrics.failuresByClass, [
    { failureClass: "agent_error", attempts: 1, rollouts: 1 },
    { failureClass: "bad_request", attempts: 1, rollouts: 1 },
    { failureClass: "timeout", attempts: 2, rollouts: 0 },
  ]);
  assert.equal(metrics.failedRollouts, 2);
  // pass@1: mean of the first rollouts (0.2, 0.5, 1); pass@2: tasks with two rollouts only, their best (0.8, 0.5).
  assert.deepEqual(metrics.passAtK.map((point) => Number(point.value.toFixed(6))), [56.666667, 65]);
  assert.deepEqual(metrics.rewardHistogram.map((bin) => bin.count), [0, 0, 1, 0, 0, 2, 0, 0, 1, 1]);
});

test("a 100k-rollout run is indexed once, then served a page at a time, filtered on the server, without reading it again", async (t) => {
  const path = join(dir, "big.jsonl");
  const rewardOf = (task: number, repeat: number) => ((task + repeat) % 3 === 0 ? 1 : 0);
  const line = (task: number, repeat: number) =>
    `{"responses_create_params":{"input":[{"role":"user","content":"question ${task}"}]},"response":{"output":[]},"reward":${rewardOf(task, repeat)},"_ng_task_index":${task},"_ng_rollout_index":${repeat}}\n`;
  const chunks: string[] = [];
  for (let task = 0; task < 25_000; task++) for (let repeat = 0; repeat < 4; repeat++) chunks.push(line(task, repeat));
  writeFileSync(path, chunks.join(""));
  chunks.length = 0;
  const { app } = await buildViewServer({ runPaths: [path], headServerUrl: "http://127.0.0.1:9" });
  t.after(() => app.close());
  const get = async (url: string) => {
    const answer = await app.inject({ method: "GET", url });
    return { status: answer.statusCode, body: answer.json(), bytes: answer.body.length };
  };
  let started = Date.now();
  const runs = await get("/api/runs");
  const indexMs = Date.now() - started;
  assert.equal(runs.body[0].metrics.rollouts, 100_000);
  assert.equal(runs.body[0].metrics.passAtK.length, 4);

  started = Date.now();
  const last = await get("/api/runs/0/table?offset=99990&limit=50");
  assert.equal(last.body.total, 100_000);
  assert.deepEqual(last.body.rows.map((row: { task: number }) => row.task), [24997, 24997, 24998, 24998, 24998, 24998, 24999, 24999, 24999, 24999]);
  // "question 777" is in tasks 777 and 7770-7779; of their rollouts, those rewarded.
  const tasks = [777, ...Array.from({ length: 10 }, (_, i) => 7770 + i)];
  const rewarded = tasks.flatMap((task) => [0, 1, 2, 3].map((repeat) => rewardOf(task, repeat))).filter((reward) => reward === 1).length;
  const filtered = await get("/api/runs/0/table?minReward=1&text=question%20777&limit=5");
  assert.equal(filtered.body.total, rewarded);
  assert.equal(filtered.body.rows.length, 5, "one page, not every match");
  assert.ok(filtered.body.rows.every((row: { reward: number; prompt: string }) => row.reward === 1 && row.prompt.startsWith("question 777")));
  const compared = await get("/api/compare?a=0&b=0");
  assert.deepEqual([compared.body.inBoth, compared.body.rewardChanged, compared.body.total], [100_000, 0, 0]);
  const pagesMs = Date.now() - started;
  // Re-reading the file for each request would cost each of them about what indexing it did.
  assert.ok(pagesMs < indexMs, `three requests after the first took ${pagesMs} ms, indexing the file ${indexMs} ms`);
});

test("bad requests are a 4xx naming what was wrong", async (t) => {
  const path = join(dir, "small.jsonl");
  writeFileSync(path, rolloutLine(0, 0, 1));
  const { app } = await buildViewServer({ runPaths: [path], headServerUrl: "http://127.0.0.1:9" });
  t.after(() => app.close());
  const detail = async (app: FastifyInstance, method: "GET" | "POST", url: string, payload?: object) => {
    const answer = await app.inject({ method, url, payload });
    return `${answer.statusCode} ${answer.json().detail}`;
  };
  assert.match(await detail(app, "GET", "/api/runs/0/table?limit=100000"), /^400 querystring\/limit must be <= 500/);
  assert.match(await detail(app, "GET", "/api/runs/0/table?status=maybe"), /^400 querystring\/status must be equal to one of the allowed values/);
  assert.match(await detail(app, "GET", "/api/runs/3/table"), /^404 run: no run 3 \(there are 1\)/);
  assert.match(await detail(app, "GET", "/api/runs/0/lines/rollout/7"), /^404 index: run 0 has no rollout line 7 \(it has 1\)/);
  assert.match(await detail(app, "GET", "/api/compare?a=0"), /^400 querystring must have required property 'b'/);
  assert.match(await detail(app, "GET", "/api/runs/0/seed-row?task=9"), /^404 task: run 0 has no row for task 9/);
  assert.match(await detail(app, "POST", "/api/playground/sessions", {}), /^400 body must have required property 'server'/);
  assert.match(await detail(app, "POST", "/api/playground/sessions/nope/call", { path: "verify", body: {} }), /^404 session: no playground session 'nope'/);
  assert.match(await detail(app, "GET", "/api/playground/servers"), /^502 cannot reach the head server at http:\/\/127\.0\.0\.1:9 .*pass --head-server/);
});

test("`gym view` serves the page and the API over real HTTP, printing its URL", async (t) => {
  const path = join(dir, "cli.jsonl");
  writeFileSync(path, rolloutLine(0, 0, 1) + rolloutLine(1, 0, 0));
  const gym = startGym(["view", path, join(dir, "cli_failures.jsonl"), "--port", "0"]);
  const http = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 5000, maxRetries: 0 });
  t.after(async () => (await http.close(), await gym.stop()));
  const [, url] = await gym.waitFor(/gym view: 1 run at (http:\/\/\S+)\//, 30_000);
  const page = await http.request(`${url}/`);
  assert.match(page.text, /<script type="module" src="\/app\.js">/);
  const script = await http.request(`${url}/app.js`);
  assert.equal(script.status, 200);
  assert.ok(script.text.length > 10_000, "the bundled app");
  const runs = (await http.request(`${url}/api/runs`)).json<{ metrics: { rollouts: number; meanReward: number } }[]>();
  assert.deepEqual([runs[0]!.metrics.rollouts, runs[0]!.metrics.meanReward], [2, 0.5]);
  assert.equal((await gym.stop("SIGINT")).code, 0);
});
