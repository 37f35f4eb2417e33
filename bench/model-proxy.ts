// Per-hop cost of the model proxy. A fake vLLM answers on loopback; the same request is timed directly
// against it and through `vllm_model` (and through `simple_agent` in front of it), so the difference is
// what each hop adds: a plain small request, and a 65,536-token training response with token ids and
// log-probs, in NeMo Gym's JSON and in the negotiated packed-v1 encoding.
import { HttpClient } from "../src/client/index.ts";
import { ResponseSchema } from "../src/protocol/index.ts";
import { parseWire, stringifyWire } from "../src/protocol/wire-json.ts";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { startServers } from "../src/testing/servers.ts";
import vllmModel from "../responses_api_models/vllm_model/app.ts";
import simpleAgent from "../responses_api_agents/simple_agent/app.ts";
import weatherEnvironment from "../resources_servers/example_single_tool_call/app.ts";
import { fixed, formatTable, measureInterleaved, type Measurement } from "./measure.ts";

export const LARGE_TOKENS = 65_536;

export interface ModelProxyResult {
  rows: { scenario: string; path: string; measurement: Measurement; overheadMs: number | null }[];
  breakdown: { step: string; ms: number }[];
}

/** The fake vLLM runs in a child process: its JSON generation must not count as the proxy's CPU. */
async function startFakeVllmProcess(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./fake-vllm-child.ts", import.meta.url))], {
    env: { ...process.env, FAKE_VLLM_TOKENS: String(LARGE_TOKENS) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.setEncoding("utf8");
  while (!output.includes("\n")) {
    const [chunk] = (await Promise.race([once(child.stdout, "data"), once(child, "exit").then(() => { throw new Error("the fake vLLM process exited before listening"); })])) as [string];
    output += chunk;
  }
  return { url: output.trim(), stop: () => child.kill() };
}

function graphConfig(fake: { url: string }, training: boolean) {
  return {
    env: [weatherEnvironment] as const,
    policy: [vllmModel, { base_url: fake.url, api_key: "bench", model: "bench-model", return_token_id_information: training, uses_reasoning_parser: false }] as const,
    agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy" } }] as const,
  };
}

export async function modelProxyBench(options: { plainCalls?: number; largeCalls?: number } = {}): Promise<ModelProxyResult> {
  const plainCalls = options.plainCalls ?? 300;
  const largeCalls = options.largeCalls ?? 30;
  const fake = await startFakeVllmProcess();
  const plainGraph = await startServers(graphConfig(fake, false) as never);
  const trainingGraph = await startServers(graphConfig(fake, true) as never);
  const packedGraph = await startServers(graphConfig(fake, true) as never, { wire_array_encoding: "packed-v1" });
  const json = new HttpClient({ maxRetries: 0, deadlineMs: 120_000 });
  const packed = new HttpClient({ maxRetries: 0, deadlineMs: 120_000, arrayEncoding: "packed-v1" });
  const rows: ModelProxyResult["rows"] = [];
  // The direct baseline only receives vLLM's bytes; every proxied path also parses what it gets, so a hop's
  // figure includes the parse its caller pays.
  const post = async (client: HttpClient, url: string, body: unknown, parse = true) => {
    const answer = await client.request(url, { method: "POST", json: body });
    if (!answer.ok) throw new Error(`${url} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    if (parse) answer.json();
  };
  const chatBody = (extra: Record<string, unknown> = {}) => ({ model: "bench-model", messages: [{ role: "user", content: "What is the weather in SF?" }], ...extra });
  const responsesBody = { input: [{ role: "user", content: "What is the weather in SF?" }] };

  try {
    const plainPaths = [
      { path: "client → fake vLLM /chat/completions (direct, bytes only)", run: () => post(json, `${fake.url}/chat/completions`, chatBody(), false), base: null },
      { path: "client → vllm_model /v1/responses → vLLM", run: () => post(json, `${plainGraph.url("policy")}/v1/responses`, responsesBody), base: 0 },
      { path: "client → simple_agent → vllm_model → vLLM", run: () => post(json, `${plainGraph.url("agent")}/v1/responses`, responsesBody), base: 1 },
    ];
    // One 65,536-token generation in training mode (the fake answers logprobs requests with it).
    const trainingChat = chatBody({ logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true });
    const largePaths = [
      { path: "client → fake vLLM /chat/completions (direct, bytes only)", run: () => post(json, `${fake.url}/chat/completions`, trainingChat, false), base: null },
      { path: "client → vllm_model → vLLM (JSON)", run: () => post(json, `${trainingGraph.url("policy")}/v1/responses`, responsesBody), base: 0 },
      { path: "client → vllm_model → vLLM (packed-v1)", run: () => post(packed, `${packedGraph.url("policy")}/v1/responses`, responsesBody), base: 0 },
      { path: "client → simple_agent → vllm_model → vLLM (JSON)", run: () => post(json, `${trainingGraph.url("agent")}/v1/responses`, responsesBody), base: 1 },
      { path: "client → simple_agent → vllm_model → vLLM (packed-v1)", run: () => post(packed, `${packedGraph.url("agent")}/v1/responses`, responsesBody), base: 2 },
    ];
    for (const [scenario, paths, calls] of [["plain", plainPaths, plainCalls], ["65k training", largePaths, largeCalls]] as const) {
      const measured = await measureInterleaved(calls, paths.map((p) => p.run));
      paths.forEach((p, i) => {
        const overheadMs = p.base === null ? null : measured[i]!.medianMs - measured[p.base]!.medianMs;
        rows.push({ scenario, path: p.path, measurement: measured[i]!, overheadMs });
      });
    }

    // Where one hop's time goes, for the 65k response.
    const sample = await json.request(`${trainingGraph.url("policy")}/v1/responses`, { method: "POST", json: responsesBody });
    const response = sample.json();
    const chat = await json.request(`${fake.url}/chat/completions`, { method: "POST", json: chatBody({ logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true }) });
    const packedText = stringifyWire(response, { encoding: "packed-v1" });
    const time = (fn: () => unknown, n = 10) => {
      fn();
      const start = performance.now();
      for (let i = 0; i < n; i++) fn();
      return (performance.now() - start) / n;
    };
    const breakdown = [
      { step: `parse vLLM's chat completion (${(chat.text.length / 1e6).toFixed(1)} MB JSON, logprobs)`, ms: time(() => JSON.parse(chat.text)) },
      { step: `serialize the response, JSON (${(sample.text.length / 1e6).toFixed(1)} MB)`, ms: time(() => stringifyWire(response)) },
      { step: `serialize the response, packed-v1 (${(packedText.length / 1e6).toFixed(1)} MB)`, ms: time(() => stringifyWire(response, { encoding: "packed-v1" })) },
      { step: "parse the response, JSON", ms: time(() => JSON.parse(sample.text)) },
      { step: "parse the response, packed-v1", ms: time(() => parseWire(packedText, "packed-v1")) },
      { step: "validate the response (zod, agent side)", ms: time(() => ResponseSchema.parse(response)) },
    ];
    return { rows, breakdown };
  } finally {
    await json.close();
    await packed.close();
    await Promise.all([plainGraph.close(), trainingGraph.close(), packedGraph.close()]);
    fake.stop();
  }
}

export function formatModelProxy(result: ModelProxyResult): string {
  const table = formatTable(
    ["scenario", "path", "calls", "median ms", "p99 ms", "CPU ms/call", "hop adds (median ms)"],
    result.rows.map((r) => [r.scenario, r.path, r.measurement.calls, fixed(r.measurement.medianMs), fixed(r.measurement.p99Ms), fixed(r.measurement.cpuMsPerCall), r.overheadMs === null ? "—" : fixed(r.overheadMs)]),
  );
  const breakdown = formatTable(["65k-token training response: one step", "ms"], result.breakdown.map((b) => [b.step, fixed(b.ms)]));
  return `${table}\n\n${breakdown}`;
}
