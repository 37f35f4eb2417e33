// The judge path (src/server/judge.ts) over real HTTP: a small judge environment asks scripted_model (judge_rules)
// through a fault proxy. Every kind of failed judge call is NeMo Gym's judge_failed row — never a reward — while an
// answer without a verdict is scored by the parser; 429/5xx are retried within bounds; the rollout id rides on the
// call path; the cache hits, misses and stays off by default; the per-judge concurrency cap holds. Then a real
// collection: judge failures land in `_failures.jsonl` only, and `--resume` retries them once the judge is back.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { askJudge, judgeEndpoint, resourcesServer, type JudgeError } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { collectRollouts } from "../../src/rollouts/collect.ts";
import { assistantMessage, http, responseWith, serverDefinition, startServers, type InProcessGraph } from "../../src/testing/index.ts";
import { proxyInstance, type FaultProxy } from "../../src/testing/fault-proxy.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const simpleAgent = await serverDefinition("responses_api_agents/simple_agent");

/** The smallest judge environment: the judge says [[YES]] or [[NO]]; anything else is a "no" (the parser's call). */
const yesNoJudge = resourcesServer({
  name: "YesNoJudgeResourcesServer",
  config: z.looseObject({ judge_model_server: z.unknown(), judge_responses_create_params: z.record(z.string(), z.unknown()) }),
  tools: {},
  verify: {
    input: z.object({ question: z.string() }),
    async run(_state, body, { config, server }) {
      const answer = responseOutputText(body.response);
      const judged = await askJudge(server, judgeEndpoint(config), [{ role: "user", content: `Q: ${body.question}\nA: ${answer}\nVerdict?` }], { row: body });
      const verdict = /\[\[(YES|NO)\]\]/.exec(judged.text)?.[1] ?? null;
      return { reward: verdict === "YES" ? 1 : 0, verdict, judge_text: judged.text, judge_cached: judged.cached };
    },
  },
});

const rules = [
  { match: "Q: capital of France[^\\n]*\\nA: Paris", answer: "Correct. [[YES]]" },
  { match: "Q: capital of France", answer: "Wrong. [[NO]]" },
  { match: "Q: mumble", answer: "I cannot decide." },
];

const judgeConfig = (name: string, extra: Record<string, unknown> = {}) => ({
  judge_model_server: { type: "responses_api_models", name },
  judge_responses_create_params: { input: [], temperature: 0 },
  ...extra,
});

let graph: InProcessGraph;
let proxy: FaultProxy;
const cacheDir = mkdtempSync(join(tmpdir(), "gym-judge-cache-"));
const client = http();
before(async () => {
  graph = await startServers(
    {
      env: [yesNoJudge, judgeConfig("judge_via_proxy")],
      cached_env: [yesNoJudge, judgeConfig("judge_via_proxy")],
      judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
    },
    { judge_retry_backoff_ms: 1, judge_timeout_seconds: 1 },
  );
  proxy = await proxyInstance(graph, "judge_model", "judge_via_proxy");
});
after(async () => {
  await proxy.close();
  await graph.close();
  await client.close();
});
beforeEach(() => {
  proxy.decide = () => undefined;
  for (const key of Object.keys(proxy.counts)) delete (proxy.counts as Record<string, number>)[key];
});

const verifyBody = (question: string, answer: string, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: question }] },
  response: responseWith([assistantMessage(answer)]),
  question,
  ...extra,
});

async function verify(server: string, question: string, answer: string, extra: Record<string, unknown> = {}) {
  const reply = await client.request(`${graph.url(server)}/verify`, { method: "POST", json: verifyBody(question, answer, extra) });
  assert.equal(reply.status, 200, reply.text);
  return reply.json<Record<string, any>>();
}

const requestsSeen = () => Object.values(proxy.counts).reduce((a: number, b) => a + (b as number), 0);

describe("a judge answer that arrived is scored by the parser", () => {
  test("[[YES]] → 1, [[NO]] → 0", async () => {
    assert.equal((await verify("env", "capital of France", "Paris")).reward, 1);
    const no = await verify("env", "capital of France", "Lyon");
    assert.deepEqual([no.reward, no.verdict, no._ng_failure_class], [0, "NO", undefined]);
  });

  test("no verdict in the answer → the parser's 0, not a judge failure", async () => {
    const body = await verify("env", "mumble", "whatever");
    assert.deepEqual([body.reward, body.verdict, body.judge_text, body._ng_failure_class], [0, null, "I cannot decide.", undefined]);
  });
});

describe("a failed judge call is NeMo Gym's judge_failed row, never a reward", () => {
  const failedRow = async (why: string) => {
    const body = await verify("env", "capital of France", "Paris");
    assert.equal(body._ng_failure_class, "judge_failed", `${why}: ${JSON.stringify(body).slice(0, 300)}`);
    assert.equal(body.reward, 0);
    assert.equal(body.question, "capital of France", "the verify request is carried, as judge_failsafe does");
    assert.equal(body.verdict, undefined, "nothing of the scoring is reported");
    return String(body._ng_failure_judge_error);
  };

  test("connection reset before the answer (transport)", async () => {
    proxy.decide = () => "reset_before";
    assert.match(await failedRow("transport"), /judge_via_proxy\/v1\/responses/);
  });

  test("no answer within judge_timeout_seconds (deadline)", async () => {
    proxy.decide = () => "hang";
    assert.match(await failedRow("timeout"), /no complete answer within 1000 ms/);
  });

  test("401 (auth) is not retried", async () => {
    proxy.decide = () => ({ status: 401, body: '{"error":"bad key"}' });
    assert.match(await failedRow("auth"), /answered 401/);
    assert.equal(requestsSeen(), 1);
  });

  test("a 200 whose body is not JSON, and one that is JSON but no Response", async () => {
    proxy.decide = () => "garbage_200";
    assert.match(await failedRow("garbage"), /not JSON/);
    proxy.decide = () => ({ status: 200, body: '{"hello":"world"}' });
    assert.match(await failedRow("not a response"), /not a Response/);
  });

  test("500 on every attempt: retried judge_max_retries times (4 calls), then failed", async () => {
    proxy.decide = () => ({ status: 500, body: "boom" });
    assert.match(await failedRow("5xx"), /answered 500 \(after 3 retries\)/);
    assert.equal(requestsSeen(), 4);
  });

  test("the judge server answers 404 (scripted_model: no rule for this prompt)", async () => {
    const body = await verify("env", "unknown question", "x");
    assert.equal(body._ng_failure_class, "judge_failed");
    assert.match(body._ng_failure_judge_error, /answered 404.*no judge rule matches/);
  });
});

describe("retries and correlation", () => {
  test("429 then 503 then the answer: retried, scored", async () => {
    let calls = 0;
    proxy.decide = () => (++calls === 1 ? { status: 429, body: "slow down", headers: { "retry-after": "0" } } : calls === 2 ? { status: 503, body: "busy" } : undefined);
    const body = await verify("env", "capital of France", "Paris");
    assert.deepEqual([body.reward, calls], [1, 3]);
  });

  test("the judge call carries the rollout id on its path", async () => {
    const paths: string[] = [];
    proxy.decide = (request) => (paths.push(request.path), undefined);
    await verify("env", "capital of France", "Paris", { _ng_task_index: 3, _ng_rollout_index: 1 });
    await verify("env", "capital of France", "Paris", { _ng_rollout_id: "trial-7" });
    await verify("env", "capital of France", "Paris");
    assert.deepEqual(paths, ["/ng-rollout/3-1/v1/responses", "/ng-rollout/trial-7/v1/responses", "/v1/responses"]);
  });
});

describe("the judge result cache", () => {
  test("off by default: the same judgement is asked twice", async () => {
    await verify("env", "capital of France", "Paris");
    await verify("env", "capital of France", "Paris");
    assert.equal(requestsSeen(), 2);
  });

  test("on: a miss asks, a hit does not, another prompt or other sampling params miss; failures are not cached", async () => {
    const path = join(cacheDir, "judge.sqlite");
    const cachedGraph = await startServers(
      {
        env: [yesNoJudge, judgeConfig("judge_via_proxy")],
        hot_env: [yesNoJudge, { ...judgeConfig("judge_via_proxy"), judge_responses_create_params: { input: [], temperature: 0.7 } }],
        judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
      },
      { judge_cache_path: path, judge_retry_backoff_ms: 1 },
    );
    const cachedProxy = await proxyInstance(cachedGraph, "judge_model", "judge_via_proxy");
    const seen = () => Object.values(cachedProxy.counts).reduce((a: number, b) => a + (b as number), 0);
    const ask = async (server: string, answer: string) => {
      const reply = await client.request(`${cachedGraph.url(server)}/verify`, { method: "POST", json: verifyBody("capital of France", answer) });
      return reply.json<Record<string, any>>();
    };
    try {
      cachedProxy.decide = () => ({ status: 401, body: "no" });
      assert.equal((await ask("env", "Paris"))._ng_failure_class, "judge_failed");
      cachedProxy.decide = () => undefined;
      const miss = await ask("env", "Paris");
      assert.deepEqual([miss.reward, miss.judge_cached, seen()], [1, false, 2], "the failed call was not cached");
      const hit = await ask("env", "Paris");
      assert.deepEqual([hit.reward, hit.judge_cached, seen()], [1, true, 2]);
      assert.equal((await ask("env", "Lyon")).judge_cached, false, "another prompt");
      assert.equal((await ask("hot_env", "Paris")).judge_cached, false, "other sampling params");
      assert.equal(seen(), 4);
    } finally {
      await cachedProxy.close();
      await cachedGraph.close();
    }
    // A later process (a reverify) reads the same file: the judge need not even be up.
    const later = await startServers({ env: [yesNoJudge, judgeConfig("judge_via_proxy")] }, { judge_cache_path: path });
    try {
      const reply = await client.request(`${later.url("env")}/verify`, { method: "POST", json: verifyBody("capital of France", "Paris") });
      const body = reply.json<Record<string, any>>();
      assert.deepEqual([body.reward, body.judge_cached, body._ng_failure_class], [1, true, undefined]);
    } finally {
      await later.close();
    }
  });
});

describe("the concurrency cap", () => {
  let slowJudge: Server;
  let inFlight = 0;
  let peak = 0;
  before(async () => {
    slowJudge = createServer((request, response) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      request.resume();
      request.on("end", () =>
        setTimeout(() => {
          inFlight--;
          response.setHeader("content-type", "application/json");
          response.end(JSON.stringify({ id: "r", created_at: 0, model: "slow", object: "response", output: [assistantMessage("[[YES]]")], parallel_tool_calls: true, tool_choice: "auto", tools: [] }));
        }, 30),
      );
    });
    await new Promise<void>((resolve) => slowJudge.listen(0, "127.0.0.1", resolve));
  });
  after(() => new Promise<void>((resolve) => slowJudge.close(() => resolve())));

  test("judge_endpoint_max_concurrency bounds the calls in flight to one judge", async () => {
    const port = (slowJudge.address() as { port: number }).port;
    const graphWithJudge = await startServers({ env: [yesNoJudge, judgeConfig("slow_judge", { judge_endpoint_max_concurrency: 2 })] });
    // slow_judge is a bare HTTP server, not a Gym server: the config only gives its address.
    graphWithJudge.config.slow_judge = { responses_api_models: { openai_model: { host: "127.0.0.1", port } } };
    graphWithJudge.client.updateGlobalConfig(graphWithJudge.config);
    try {
      const replies = await Promise.all(Array.from({ length: 6 }, () => client.request(`${graphWithJudge.url("env")}/verify`, { method: "POST", json: verifyBody("q", "a") })));
      assert.deepEqual(replies.map((r) => r.json<Record<string, any>>().reward), [1, 1, 1, 1, 1, 1]);
      assert.equal(peak, 2);
    } finally {
      await graphWithJudge.close();
    }
  });
});

describe("collection: a judge failure is filed apart and retried by --resume", () => {
  test("judge_failed rollouts go to _failures.jsonl only, never into the rewards; --resume scores them once the judge is back", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-judge-collect-"));
    const run = await startServers({
      env: [yesNoJudge, judgeConfig("judge_via_proxy")],
      agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" } }],
      policy_model: [scriptedModel, { mode: "judge_rules", judge_rules: [{ match: ".", answer: "Paris" }] }],
      judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
    }, { judge_retry_backoff_ms: 1 });
    const runProxy = await proxyInstance(run, "judge_model", "judge_via_proxy");
    const inputPath = join(dir, "input.jsonl");
    writeFileSync(inputPath, ["", " (second)", ""].map((mark) => JSON.stringify({ responses_create_params: { input: [{ role: "user", content: "capital of France" }] }, question: `capital of France${mark}` })).join("\n") + "\n");
    const readLines = (path: string) => {
      try {
        return readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
      } catch {
        return [];
      }
    };
    const collect = (resume: boolean) =>
      collectRollouts({
        client: run.client,
        inputPath,
        outputPath: join(dir, "out.jsonl"),
        agentName: "agent",
        retryBackoffMs: 1,
        maxAttempts: 1,
        resume,
        disableAggregation: true,
        print: () => {},
        progressStream: { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream,
        runConfig: run.config,
      } as never);
    try {
      // The judge fails (every retry too) for the second row only.
      runProxy.decide = (request) => (request.body.toString().includes("(second)") ? { status: 502, body: "bad gateway" } : undefined);
      await collect(false);
      const first = readLines(join(dir, "out.jsonl"));
      const failures = readLines(join(dir, "out_failures.jsonl"));
      assert.equal(first.length, 2);
      assert.ok(first.every((line) => line.reward === 1 && line._ng_failure_class === undefined));
      assert.equal(failures.length, 1);
      assert.equal(failures[0]._ng_failure_class, "judge_failed");
      assert.match(failures[0].error, /answered 502/);
      runProxy.decide = () => undefined;
      await collect(true);
      const resumed = readLines(join(dir, "out.jsonl"));
      assert.equal(resumed.length, 3, "the judge-failed rollout was retried and scored");
      assert.deepEqual(resumed.map((line) => line.reward), [1, 1, 1]);
    } finally {
      await runProxy.close();
      await run.close();
    }
  });
});

export type { JudgeError };
