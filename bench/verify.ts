// Verify latency of the answer-verification environments: each environment in this process on a loopback port,
// its verify requests replayed one after another, round-robin over the requests, many times. Two figures per
// environment: `verify()` alone (the environment's own function on an already-parsed request — what NeMo Gym's
// 17.6 ms per math-verify call compares with) and `POST /verify` over HTTP (parsing, verify, Python-style JSON
// out, the client's round trip).
//
// Requests: the environment's own data/verifier_cases.jsonl, plus — when ../shared is here — NeMo Gym's recorded
// rollouts joined with their dataset rows and its parity reference requests (real model outputs, longer texts).
//
// `BENCH_VERIFY_CALLS=500 npm run bench verify` changes the calls per environment (default 2000);
// `BENCH_VERIFY_ONLY=math_with_judge,xlam_fc` measures the environments named (any tools-free one).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { PROJECT_ROOT, type ConfigDict } from "../src/config/index.ts";
import { HttpClient } from "../src/client/index.ts";
import { BaseVerifyRequestSchema } from "../src/protocol/index.ts";
import { withoutNullParams } from "../src/rollouts/reverify.ts";
import type { ResourcesServerDefinition } from "../src/server/index.ts";
import { readVerifierCases, toolsFreeVerifyRequest } from "../src/testing/verifier-cases.ts";
import { startInProcess } from "../src/testing/in-process.ts";
import { fixed, formatTable, percentile } from "./measure.ts";

export const VERIFY_ENVIRONMENTS = [
  "mcqa",
  "gpqa_diamond",
  "math_with_judge",
  "arc_agi",
  "nvarc",
  "instruction_following",
  "structured_outputs",
  "structeval",
  "format_verification",
  "reasoning_gym",
];

const SHARED_DATA_DIR = process.env.NEMO_GYM_SHARED_DATA ?? join(PROJECT_ROOT, "..", "shared", "nemo-gym-data");

type Json = Record<string, any>;

export interface VerifyLatency {
  environment: string;
  requests: number;
  fromSharedData: number;
  calls: number;
  functionMedianMs: number;
  functionP99Ms: number;
  httpMedianMs: number;
  httpP99Ms: number;
  /** Requests that did not answer 200 (e.g. nvarc's inductive rows without a sandbox); left out of the timing. */
  notScored: number;
}

const readJsonl = (path: string): Json[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

const lastUserText = (row: Json) => JSON.stringify(row.responses_create_params?.input?.at?.(-1)?.content ?? null);

/** NeMo Gym's recorded rollouts, each with the dataset row of the same prompt (verify needs its fields). */
function sharedRequests(environment: string): Json[] {
  const dir = join(SHARED_DATA_DIR, environment);
  const requests: Json[] = [];
  const reference = join(dir, "parity/reference_verify.jsonl");
  if (existsSync(reference)) {
    for (const { expected_reward: _reward, expected_extra: _extra, replay_tool_calls: _replay, ...request } of readJsonl(reference)) requests.push(withoutNullParams(request));
    return requests;
  }
  const rollouts = join(dir, "data/example_rollouts.jsonl");
  const dataset = join(dir, "data/example.jsonl");
  if (!existsSync(rollouts) || !existsSync(dataset)) return requests;
  const rowsByPrompt = new Map(readJsonl(dataset).map((row) => [lastUserText(row), row]));
  for (const rollout of readJsonl(rollouts)) {
    const row = rowsByPrompt.get(lastUserText(rollout));
    if (row) requests.push(withoutNullParams({ ...row, responses_create_params: rollout.responses_create_params, response: rollout.response }));
  }
  return requests;
}

/** The environment's instance from its own configs/<name>.yaml (its settings, e.g. math's judge off), alone. */
function resourcesServerInstance(folder: string, environment: string): { instance: string; config: ConfigDict } {
  const file = join(folder, "configs", `${environment}.yaml`);
  const parsed = (existsSync(file) ? parseYaml(readFileSync(file, "utf8")) : {}) as ConfigDict;
  for (const [instance, value] of Object.entries(parsed)) {
    const fields = (value as any)?.resources_servers?.[environment];
    if (fields) return { instance, config: { [instance]: { resources_servers: { [environment]: { ...fields, entrypoint: "app.ts" } } } } };
  }
  return { instance: environment, config: { [environment]: { resources_servers: { [environment]: { entrypoint: "app.ts", domain: "other" } } } } };
}

async function measureEnvironment(environment: string, calls: number): Promise<VerifyLatency | undefined> {
  const folder = join(PROJECT_ROOT, "resources_servers", environment);
  const appPath = join(folder, "app.ts");
  if (!existsSync(appPath)) return undefined;
  const definition = (await import(pathToFileURL(appPath).href)).default as ResourcesServerDefinition<unknown, unknown>;
  const casesPath = join(folder, "data/verifier_cases.jsonl");
  const own = existsSync(casesPath) ? readVerifierCases(casesPath, casesPath).cases.map(({ verifierCase }) => toolsFreeVerifyRequest(verifierCase)) : [];
  const shared = sharedRequests(environment);
  const { instance, config } = resourcesServerInstance(folder, environment);
  const graph = await startInProcess(config, { [instance]: definition });
  const http = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 30_000, maxRetries: 0 });
  try {
    const url = `${graph.url(instance)}/verify`;
    const context = { sessionId: "bench", config: graph.servers[instance]!.context.config, server: graph.servers[instance]!.context };
    const schema = BaseVerifyRequestSchema.and((definition.spec.verify.input ?? z.object({})) as z.ZodType);
    // Only requests the server scores (200) are timed; the others are counted.
    const scored: { body: Json; parsed: any }[] = [];
    let notScored = 0;
    for (const body of [...own, ...shared]) {
      const answer = await http.request(url, { method: "POST", json: body });
      if (answer.status === 200) scored.push({ body, parsed: schema.parse(body) });
      else notScored++;
    }
    if (scored.length === 0) throw new Error(`${environment}: no verify request answered 200`);
    const timeLoop = async (one: (request: { body: Json; parsed: any }) => Promise<unknown>) => {
      for (let i = 0; i < Math.min(100, calls); i++) await one(scored[i % scored.length]!);
      const latencies: number[] = [];
      for (let i = 0; i < calls; i++) {
        const request = scored[i % scored.length]!;
        const start = performance.now();
        await one(request);
        latencies.push(performance.now() - start);
      }
      return latencies.sort((a, b) => a - b);
    };
    const direct = await timeLoop(async ({ parsed }) => definition.spec.verify.run(undefined, structuredClone(parsed), context as never));
    const overHttp = await timeLoop(async ({ body }) => {
      const answer = await http.request(url, { method: "POST", json: body });
      if (answer.status !== 200) throw new Error(`${environment}: /verify answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    });
    return {
      environment,
      requests: scored.length,
      fromSharedData: shared.length,
      calls,
      functionMedianMs: percentile(direct, 50),
      functionP99Ms: percentile(direct, 99),
      httpMedianMs: percentile(overHttp, 50),
      httpP99Ms: percentile(overHttp, 99),
      notScored,
    };
  } finally {
    await http.close();
    await graph.close();
  }
}

export async function verifyBench(): Promise<VerifyLatency[]> {
  const calls = Number(process.env.BENCH_VERIFY_CALLS ?? 2000);
  const only = process.env.BENCH_VERIFY_ONLY?.split(",");
  const results: VerifyLatency[] = [];
  for (const environment of only ?? VERIFY_ENVIRONMENTS) {
    const result = await measureEnvironment(environment, calls);
    if (result) results.push(result);
  }
  return results;
}

export function formatVerify(results: VerifyLatency[]): string {
  const table = formatTable(
    ["environment", "requests (shared)", "calls", "verify() median ms", "verify() p99 ms", "POST /verify median ms", "POST /verify p99 ms", "not 200"],
    results.map((r) => [r.environment, `${r.requests} (${r.fromSharedData})`, r.calls, fixed(r.functionMedianMs, 3), fixed(r.functionP99Ms, 3), fixed(r.httpMedianMs, 3), fixed(r.httpP99Ms, 3), r.notScored]),
  );
  const math = results.find((r) => r.environment === "math_with_judge");
  const note = math
    ? `\nmath_with_judge: verify() median ${fixed(math.functionMedianMs, 3)} ms vs NeMo Gym's published 17.6 ms per math-verify call = ${fixed(17.6 / math.functionMedianMs, 0)}× faster (POST /verify round trip: ${fixed(17.6 / math.httpMedianMs, 0)}×)`
    : "";
  return table + note;
}
