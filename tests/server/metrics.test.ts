// GET /metrics on every server, scraped over real HTTP after real traffic: a collection of rollouts through
// simple_agent + scripted_model + example_session_state_mgmt, a 422 and a 500, a raw URL no route matches. The
// counters and histogram buckets move, route labels are patterns (never the raw URL), and each kind's own figures
// (rollouts by outcome, verify latency and rewards, sessions held, model latency and tokens, the collector's file)
// are there.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { collectRollouts, type CollectSummary } from "../../src/rollouts/collect.ts";
import { http, startServers, type InProcessGraph } from "../../src/testing/index.ts";
import { resourcesServer, tool } from "../../src/server/index.ts";
import { outcomeOfRun } from "../../src/server/agent-metrics.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";
import scriptedModel from "../../responses_api_models/scripted_model/app.ts";
import simpleAgent from "../../responses_api_agents/simple_agent/app.ts";

/** A server whose one tool always fails: a real 500. */
const failing = resourcesServer({
  name: "FailingResourcesServer",
  tools: { explode: tool({ input: z.object({}), run: () => { throw new Error("the tool's own bug"); } }) },
  verify: { run: () => 0 },
});

const ROLLOUTS = 4;
let graph: InProcessGraph;
let summary: CollectSummary;
const client = http();

const TOOLS = [
  { type: "function", name: "increment_counter", description: "Add a number to the counter.", strict: true, parameters: { type: "object", properties: { count: { type: "integer" } }, required: ["count"], additionalProperties: false } },
  { type: "function", name: "get_counter_value", description: "Read the counter.", strict: true, parameters: { type: "object", properties: {}, required: [], additionalProperties: false } },
];

before(async () => {
  graph = await startServers({
    counter_env: [counter],
    broken_env: [failing],
    policy: [scriptedModel],
    agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "counter_env" }, model_server: { type: "responses_api_models", name: "policy" } }],
  });
  const dir = mkdtempSync(join(tmpdir(), "gym-metrics-"));
  const inputPath = join(dir, "input.jsonl");
  const rows = Array.from({ length: ROLLOUTS }, (_, i) => ({
    responses_create_params: { input: [{ role: "user", content: `Task ${i}: add ${i + 1} to the counter, then tell me the value.` }], tools: TOOLS },
    initial_count: 0,
    // Half the tasks expect a wrong count: rewards are both 1 and 0.
    expected_count: i % 2 === 0 ? i + 1 : 1000,
  }));
  writeFileSync(inputPath, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
  summary = await collectRollouts({
    client: graph.client,
    inputPath,
    outputPath: join(dir, "out.jsonl"),
    agentName: "agent",
    concurrency: 4,
    disableAggregation: true,
    print: () => {},
    progressStream: { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream,
    runConfig: graph.config,
  });
});
after(async () => {
  await client.close();
  await graph?.client.close();
  await graph?.close();
});

/** One scrape: the text, and a reader of a series' value by name and labels (all of them, in any order). */
async function scrape(instance: string): Promise<{ text: string; value(name: string, labels?: Record<string, string>): number | undefined }> {
  const answer = await client.request(`${graph.url(instance)}/metrics`);
  assert.equal(answer.status, 200);
  assert.match(String(answer.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
  const text = answer.text;
  return {
    text,
    value(name, labels = {}) {
      for (const line of text.split("\n")) {
        const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
        if (!match || match[1] !== name) continue;
        const found = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
        if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
      }
      return undefined;
    },
  };
}

test("a collection's requests are counted by route pattern and status, with latency buckets, on the agent, the environment and the model", async () => {
  assert.equal(summary.succeeded, ROLLOUTS);
  const agent = await scrape("agent");
  assert.equal(agent.value("gym_http_request_duration_seconds_count", { server: "agent", method: "POST", route: "/run", status: "200" }), ROLLOUTS);
  // Every /run took more than a millisecond and less than the last bucket: the buckets between moved.
  assert.ok(agent.value("gym_http_request_duration_seconds_bucket", { route: "/run", le: "0.001" })! < ROLLOUTS);
  assert.equal(agent.value("gym_http_request_duration_seconds_bucket", { route: "/run", le: "+Inf" }), ROLLOUTS);
  assert.equal(agent.value("gym_agent_rollouts_total", { outcome: "succeeded", failure_class: "" }), ROLLOUTS);
  // The scrape itself is the one request in flight.
  assert.equal(agent.value("gym_http_requests_in_flight"), 1);

  const env = await scrape("counter_env");
  assert.equal(env.value("gym_http_request_duration_seconds_count", { route: "/seed_session", status: "200" }), ROLLOUTS);
  assert.ok(env.value("gym_http_request_duration_seconds_count", { route: "/increment_counter", status: "200" })! >= ROLLOUTS);
  assert.equal(env.value("gym_verify_duration_seconds_count"), ROLLOUTS);
  assert.equal(env.value("gym_verify_reward_count"), ROLLOUTS);
  const rewards = readFileSync(summary.outputPath, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line).reward as number);
  assert.ok(rewards.includes(0) && rewards.includes(1), `rewards both ways: ${rewards}`);
  assert.equal(env.value("gym_verify_reward_sum"), rewards.reduce((a, b) => a + b, 0));
  assert.equal(env.value("gym_verify_reward_bucket", { le: "0" }), rewards.filter((reward) => reward === 0).length);
  assert.equal(env.value("gym_sessions_held"), ROLLOUTS);

  const model = await scrape("policy");
  const modelCalls = model.value("gym_http_request_duration_seconds_count", { route: "/v1/responses", status: "200" })!;
  assert.ok(modelCalls >= ROLLOUTS * 2, `a tool call and an answer per rollout: ${modelCalls}`);
  assert.equal(model.value("gym_model_upstream_duration_seconds_count"), modelCalls);
  assert.ok(model.value("gym_model_tokens_total", { kind: "input" })! > 0);
  assert.ok(model.value("gym_model_tokens_total", { kind: "output" })! > 0);
  // Node's own figures come with every server.
  assert.ok(model.value("gym_process_resident_memory_bytes")! > 0);
});

test("a 422 and a 500 are counted by status; a path no route matches is one <unmatched> series, and a parametric route keeps its pattern", async () => {
  assert.equal((await client.request(`${graph.url("counter_env")}/verify`, { method: "POST", json: { not: "a verify request" } })).status, 422);
  assert.equal((await client.request(`${graph.url("broken_env")}/explode`, { method: "POST", json: {} })).status, 500);
  assert.equal((await client.request(`${graph.url("broken_env")}/no-such-tool-4242`, { method: "POST", json: {} })).status, 404);
  const prefixed = await client.request(`${graph.url("agent")}/ng-rollout/rollout-77/v1/responses`, { method: "POST", json: { input: "hi" } });
  assert.ok(prefixed.status < 500, prefixed.text);

  const env = await scrape("counter_env");
  assert.equal(env.value("gym_http_request_duration_seconds_count", { route: "/verify", status: "422" }), 1);
  const broken = await scrape("broken_env");
  assert.equal(broken.value("gym_http_request_duration_seconds_count", { method: "POST", route: "/explode", status: "500" }), 1);
  assert.equal(broken.value("gym_http_request_duration_seconds_count", { route: "<unmatched>", status: "404" }), 1);
  assert.doesNotMatch(broken.text, /no-such-tool-4242/);
  const agent = await scrape("agent");
  assert.equal(agent.value("gym_http_request_duration_seconds_count", { route: "/ng-rollout/:rollout_id/v1/responses", status: String(prefixed.status) }), 1);
  assert.doesNotMatch(agent.text, /rollout-77/);
});

test("the collector writes its figures beside the rollouts: attempts and rollouts by outcome, /run latency", () => {
  const text = readFileSync(summary.metricsPath, "utf8");
  assert.match(text, new RegExp(`gym_collector_rollouts_total\\{agent="agent",outcome="succeeded",failure_class=""\\} ${ROLLOUTS}`));
  assert.match(text, new RegExp(`gym_collector_attempts_total\\{agent="agent",outcome="succeeded",failure_class=""\\} ${ROLLOUTS}`));
  assert.match(text, new RegExp(`gym_collector_run_duration_seconds_count\\{agent="agent"\\} ${ROLLOUTS}`));
});

test("an agent's /run answer names its outcome: a 200 succeeded, a 4xx the row's fault, a 500 the class the agent reported or agent_error", () => {
  assert.deepEqual(outcomeOfRun(200, undefined), { outcome: "succeeded", failure_class: "" });
  assert.deepEqual(outcomeOfRun(422, undefined), { outcome: "rejected", failure_class: "bad_request" });
  assert.deepEqual(outcomeOfRun(500, "timeout"), { outcome: "failed", failure_class: "timeout" });
  assert.deepEqual(outcomeOfRun(500, "made-up"), { outcome: "failed", failure_class: "agent_error" });
});
