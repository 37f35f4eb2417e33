// The wire encodings: NeMo Gym's JSON (floats keep ".0") by default, and the opt-in packed-v1 training
// arrays, negotiated per origin so a peer that never offered it (a Python NeMo Gym server) never sees it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { z } from "zod";
import { HttpClient } from "../../src/client/index.ts";
import { parseWire, stringifyWire, unpackArrays } from "../../src/protocol/wire-json.ts";
import { resourcesServer, responsesApiModel, tool } from "../../src/server/index.ts";
import { responseEnvelope, usageOf } from "../../src/models/response-envelope.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";
import { startServers } from "../../src/testing/servers.ts";
import scriptedModel from "../../responses_api_models/scripted_model/app.ts";
import simpleAgent from "../../responses_api_agents/simple_agent/app.ts";
import weatherEnvironment from "../../resources_servers/example_single_tool_call/app.ts";

const N = 4096;
const ids = Array.from({ length: N }, (_, i) => (i * 7919) % 151_936);
const logprobs = Array.from({ length: N }, (_, i) => -Math.abs(Math.sin(i + 1)) * 7.123456789012345);
logprobs[4] = -1e-300;
const training = { prompt_token_ids: ids.slice(0, 100), generation_token_ids: ids, generation_log_probs: logprobs };

test("json encoding is plain JSON with Python-float fields written 1.0, and never mutates its input", () => {
  const value = { reward: 1, temperature: 0, top_p: 0.5, count: 1, nested: [{ reward: 0, n: 2 }], ...training };
  const snapshot = structuredClone(value);
  const text = stringifyWire(value);
  assert.deepEqual(value, snapshot);
  assert.ok(text.startsWith('{"reward":1.0,"temperature":0.0,"top_p":0.5,"count":1,"nested":[{"reward":0.0,"n":2}]'), text.slice(0, 80));
  assert.deepEqual(JSON.parse(text), snapshot);
  assert.equal(stringifyWire({ a: "x" }), '{"a":"x"}');
});

test("packed-v1 carries token ids and log-probs bit-exactly and leaves everything else as JSON", () => {
  const value = { output: [{ type: "message", text: "hi", ...training, generation_log_probs: [-0, ...logprobs] }], short: { generation_token_ids: [1, 2, 3] }, big: { prompt_token_ids: [2 ** 40, 1, ...ids.slice(0, 20)] }, other_ids: ids.slice(0, 50) };
  const snapshot = structuredClone(value);
  const text = stringifyWire(value, { encoding: "packed-v1" });
  assert.deepEqual(value, snapshot, "the caller's value is restored");
  const raw = JSON.parse(text);
  assert.match(raw.output[0].generation_token_ids, /^ng-packed:i32:/);
  assert.match(raw.output[0].generation_log_probs, /^ng-packed:f64:/);
  assert.match(raw.big.prompt_token_ids, /^ng-packed:f64:/, "ids beyond int32 fall back to exact float64");
  assert.deepEqual(raw.short.generation_token_ids, [1, 2, 3], "short lists stay JSON");
  assert.ok(Array.isArray(raw.other_ids), "only the training keys are packed");
  const back = parseWire(text, "packed-v1") as typeof value;
  assert.deepEqual(back, snapshot);
  assert.ok(Object.is(back.output[0]!.generation_log_probs[0], -0), "even the sign of zero survives");
  assert.ok(text.length < JSON.stringify(value).length * 0.75, `packed ${text.length} vs json ${JSON.stringify(value).length}`);
  assert.throws(() => unpackArrays({ generation_token_ids: "ng-packed:i32:AAA" }), /generation_token_ids: malformed/);
});

// --- over HTTP -------------------------------------------------------------------------------------------

const received: { items: unknown[] }[] = [];
/** Echoes the training fields of the last input item onto its single output message. */
const EchoModel = responsesApiModel({
  name: "EchoModel",
  config: z.looseObject({}),
  async responses({ params }) {
    const last = (params.input as Record<string, unknown>[]).at(-1)!;
    received.push({ items: params.input as unknown[] });
    const output = [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }], ...training, prompt_token_ids: last.prompt_token_ids ?? training.prompt_token_ids }];
    return responseEnvelope({ params, model: "echo", output: output as unknown as NeMoGymResponse["output"], usage: usageOf(1, N), id: "resp_echo", createdAt: 1_753_983_920 });
  },
});

/** An environment whose tool happens to answer with a training-named list, and whose verify echoes the response. */
const Environment = resourcesServer({
  name: "PackedProbe",
  tools: { ids: tool({ input: z.object({}), run: () => ({ prompt_token_ids: ids.slice(0, 64) }) }) },
  verify: { run: () => 1 },
});

let graph: InProcessGraph;
let pythonPeer: Server;
let pythonPeerUrl: string;
const pythonPeerBodies: string[] = [];

before(async () => {
  graph = await startServers({ model: [EchoModel], env: [Environment] });
  // A peer that knows nothing of packed-v1, as a NeMo Gym Python server: it ignores the offer.
  pythonPeer = createServer(async (request: IncomingMessage, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    pythonPeerBodies.push(body);
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, ...training }));
  });
  await new Promise<void>((resolve) => pythonPeer.listen(0, "127.0.0.1", resolve));
  pythonPeerUrl = `http://127.0.0.1:${(pythonPeer.address() as { port: number }).port}`;
});
after(async () => {
  await graph.close();
  await new Promise((resolve) => pythonPeer.close(resolve));
});

test("a packed-v1 client gets a packed reply from our servers, sends packed bodies once confirmed, and reads identical values", async () => {
  const plain = new HttpClient({ maxRetries: 0 });
  const packed = new HttpClient({ maxRetries: 0, arrayEncoding: "packed-v1" });
  try {
    const turn = { input: [{ role: "user", content: "hi" }, { id: "msg_0", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "x", annotations: [] }], ...training, prompt_token_ids: ids }] };
    const url = `${graph.url("model")}/v1/responses`;
    const viaJson = await plain.request(url, { method: "POST", json: turn });
    assert.equal(viaJson.headers["x-ng-array-encoding"], undefined, "no offer, no packing");
    assert.ok(Array.isArray(JSON.parse(viaJson.text).output[0].generation_log_probs));

    const first = await packed.request(url, { method: "POST", json: turn });
    assert.equal(first.status, 200, first.text.slice(0, 300));
    assert.equal(first.headers["x-ng-array-encoding"], "packed-v1");
    assert.ok(first.text.length < viaJson.text.length * 0.75, `packed reply ${first.text.length} bytes vs JSON ${viaJson.text.length}`);
    assert.deepEqual(first.json(), viaJson.json());

    // Now the origin is known to read packed-v1: this body goes packed and must arrive exact.
    const second = await packed.request(url, { method: "POST", json: turn });
    assert.equal(second.status, 200, second.text.slice(0, 300));
    assert.deepEqual((second.json() as any).output[0].prompt_token_ids, ids);
    assert.deepEqual((received.at(-1)!.items.at(-1) as any).prompt_token_ids, ids);
    assert.deepEqual((received.at(-1)!.items.at(-1) as any).generation_log_probs, logprobs);
  } finally {
    await plain.close();
    await packed.close();
  }
});

test("a peer that never answers packed (NeMo Gym in Python) only ever receives plain JSON", async () => {
  const packed = new HttpClient({ maxRetries: 0, arrayEncoding: "packed-v1" });
  try {
    for (let i = 0; i < 3; i++) {
      const answer = await packed.request(pythonPeerUrl, { method: "POST", json: { input: [training] } });
      assert.deepEqual((answer.json() as any).generation_token_ids, ids);
    }
    assert.equal(pythonPeerBodies.length, 3);
    for (const body of pythonPeerBodies) {
      assert.equal(body.includes("ng-packed:"), false);
      assert.deepEqual(JSON.parse(body).input[0].generation_log_probs, logprobs);
    }
  } finally {
    await packed.close();
  }
});

test("a malformed packed body is a 422 naming the field; the server keeps serving", async () => {
  const client = new HttpClient({ maxRetries: 0 });
  try {
    const url = `${graph.url("model")}/v1/responses`;
    const bad = await client.request(url, {
      method: "POST",
      rawBody: JSON.stringify({ input: [{ role: "assistant", content: "x", type: "message", prompt_token_ids: "ng-packed:i32:AAA", generation_token_ids: [], generation_log_probs: [] }] }),
      headers: { "x-ng-array-encoding": "packed-v1" },
    });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /prompt_token_ids: malformed/);
    assert.equal((await client.request(url, { method: "POST", json: { input: "hi" } })).status, 200);
  } finally {
    await client.close();
  }
});

test("a tool's reply stays plain JSON even to a packed-v1 caller (agents relay it verbatim to the model); /verify is packed", async () => {
  const packed = new HttpClient({ maxRetries: 0, arrayEncoding: "packed-v1" });
  try {
    const toolReply = await packed.request(`${graph.url("env")}/ids`, { method: "POST", json: {} });
    assert.equal(toolReply.headers["x-ng-array-encoding"], undefined);
    assert.deepEqual(JSON.parse(toolReply.text).prompt_token_ids, ids.slice(0, 64));

    const response = { id: "resp_1", created_at: 1, model: "m", object: "response", output: [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }], ...training }], parallel_tool_calls: true, tool_choice: "auto", tools: [] };
    const verified = await packed.request(`${graph.url("env")}/verify`, { method: "POST", json: { responses_create_params: { input: "hi" }, response } });
    assert.equal(verified.status, 200, verified.text.slice(0, 300));
    assert.equal(verified.headers["x-ng-array-encoding"], "packed-v1");
    assert.match(verified.text, /"reward":1\.0/);
    assert.deepEqual((verified.json() as any).response.output[0].generation_log_probs, logprobs);
  } finally {
    await packed.close();
  }
});

test("a whole /run with wire_array_encoding: packed-v1 returns exactly what the JSON graph returns", async () => {
  const servers = {
    env: [weatherEnvironment],
    policy: [scriptedModel, { return_token_id_information: true, seed: 3 }],
    agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy" } }],
  } as const;
  const plainGraph = await startServers(servers as never);
  const packedGraph = await startServers(servers as never, { wire_array_encoding: "packed-v1" });
  const plain = new HttpClient({ maxRetries: 0 });
  const packed = new HttpClient({ maxRetries: 0, arrayEncoding: "packed-v1" });
  try {
    const row = { responses_create_params: { input: [{ role: "user", content: 'What is the weather in "Paris"?' }], tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: true }] } };
    const viaJson = await plain.request(`${plainGraph.url("agent")}/run`, { method: "POST", json: row });
    const viaPacked = await packed.request(`${packedGraph.url("agent")}/run`, { method: "POST", json: row });
    assert.equal(viaPacked.status, 200, viaPacked.text.slice(0, 300));
    assert.equal(viaPacked.headers["x-ng-array-encoding"], "packed-v1");
    const withoutTimestamps = (value: any) => ({ ...value, response: { ...value.response, created_at: 0 } });
    const expected = withoutTimestamps(viaJson.json());
    assert.ok(expected.response.output.some((item: any) => Array.isArray(item.generation_token_ids)), "the rollout carries training fields");
    assert.deepEqual(withoutTimestamps(viaPacked.json()), expected);
  } finally {
    await Promise.all([plain.close(), packed.close(), plainGraph.close(), packedGraph.close()]);
  }
});
