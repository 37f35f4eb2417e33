// The dialects every model server gets from `responsesApiModel`: strict JSON /v1/responses, its
// replayed SSE twin for streaming harnesses, streamed chat completions, and the /ng-rollout prefix.
// A tiny in-test model records what its responses() received, over real HTTP.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { responsesApiModel } from "../../src/server/index.ts";
import { responseEnvelope, usageOf } from "../../src/models/response-envelope.ts";
import type { ChatCompletion, NeMoGymResponse } from "../../src/protocol/index.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";
import { http, startServers } from "../../src/testing/servers.ts";

interface Seen {
  /** What the server's handler was given after validation (chat handlers: the validated chat params). */
  params: Record<string, unknown>;
  rawParams: Record<string, unknown>;
  rolloutId: string | undefined;
}
const seen: Seen[] = [];
const lastSeen = () => seen[seen.length - 1]!;

const RecordingModel = responsesApiModel({
  name: "RecordingModel",
  config: z.looseObject({}),
  async responses({ params, rawParams, rolloutId }) {
    seen.push({ params: params as Record<string, unknown>, rawParams: rawParams as Record<string, unknown>, rolloutId });
    if (params.instructions === "fail") throw new Error("backend exploded");
    const output = [
      { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "hello", annotations: [] }] },
      ...(params.tools ?? []).map((tool, i) => ({ type: "function_call", name: (tool as { name: string }).name, arguments: "{}", call_id: `call_${i}`, id: `fc_${i}`, status: "completed" })),
    ];
    return responseEnvelope({ params, model: "recording", output: output as NeMoGymResponse["output"], usage: usageOf(7, 3), id: "resp_fixed", createdAt: 1_753_983_920 });
  },
  async chatCompletions({ params, rawParams, rolloutId }) {
    seen.push({ params: params as Record<string, unknown>, rawParams, rolloutId });
    return {
      id: "chatcmpl_1",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "recording",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          logprobs: null,
          message: { role: "assistant", content: "hi there", reasoning_content: "think", tool_calls: [{ id: "call_a", type: "function", function: { name: "f", arguments: '{"x":1}' } }] },
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    } as unknown as ChatCompletion;
  },
});

const responsesOnlySeen: unknown[] = [];
const responsesOnlyParams: Record<string, unknown>[] = [];
const ResponsesOnlyModel = responsesApiModel({
  name: "ResponsesOnlyModel",
  config: z.looseObject({}),
  async responses({ params, rawParams }) {
    responsesOnlySeen.push(rawParams);
    responsesOnlyParams.push(params);
    const output = [
      { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "hello", annotations: [] }] },
      ...(params.tools ?? []).map((tool, i) => ({ type: "function_call", name: (tool as { name: string }).name, arguments: "{}", call_id: `call_${i}`, id: `fc_${i}`, status: "completed" })),
    ];
    return responseEnvelope({ params, model: "responses-only", output: output as NeMoGymResponse["output"], usage: usageOf(7, 3), id: "resp_fixed", createdAt: 1_753_983_920 });
  },
});

let graph: InProcessGraph;
let base: string;
let responsesOnlyBase: string;
const client = http();

before(async () => {
  graph = await startServers({ model: [RecordingModel], responsesOnly: [ResponsesOnlyModel] });
  base = graph.url("model");
  responsesOnlyBase = graph.url("responsesOnly");
});
after(async () => {
  await graph.close();
  await client.close();
});

/** Parses `event:`/`data:` frames; every frame must be well formed. */
function parseSse(text: string): { event: string | undefined; data: string }[] {
  assert.ok(text.endsWith("\n\n"), "the stream ends with a complete frame");
  return text
    .trimEnd()
    .split("\n\n")
    .map((frame) => {
      const lines = frame.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
      const data = lines.find((l) => l.startsWith("data: "));
      assert.ok(data, `frame has data: ${frame}`);
      return { event, data: data.slice(6) };
    });
}

const post = (path: string, json: unknown) => client.request(`${base}${path}`, { method: "POST", json });

test("non-streaming /v1/responses stays strict: an unknown field is a 422 naming it", async () => {
  const answer = await post("/v1/responses", { input: "hi", client_metadata: {} });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "client_metadata"]);
  const ok = await post("/v1/responses", { input: "hi", stream: false });
  assert.equal(ok.status, 200);
  assert.match(String(ok.headers["content-type"]), /application\/json/);
});

test("stream:true replays the finished response as response.created → output_item.added/done per item → response.completed", async () => {
  const json = (await post("/v1/responses", { input: "hi", tools: [{ type: "function", name: "get_weather", parameters: {}, strict: true }] })).json<any>();
  const answer = await post("/v1/responses", { input: "hi", stream: true, tools: [{ type: "function", name: "get_weather", parameters: {}, strict: true }] });
  assert.equal(answer.status, 200);
  assert.match(String(answer.headers["content-type"]), /^text\/event-stream/);
  const frames = parseSse(answer.text);
  const events = frames.map((f) => JSON.parse(f.data));
  assert.deepEqual(
    frames.map((f) => f.event),
    ["response.created", "response.output_item.added", "response.output_item.done", "response.output_item.added", "response.output_item.done", "response.completed"],
  );
  assert.deepEqual(events.map((e) => e.type), frames.map((f) => f.event), "each frame's event name equals its payload type");
  assert.deepEqual(events.map((e) => e.sequence_number), [0, 1, 2, 3, 4, 5]);
  assert.equal(events[0].response.status, "in_progress");
  assert.deepEqual(events[0].response.output, []);
  assert.deepEqual(events.slice(1, 5).map((e) => e.output_index), [0, 0, 1, 1]);
  assert.equal(events[4].item.name, "get_weather");
  assert.deepEqual(events[2].item, json.output[0]);
  const { sequence_number: _n, ...completed } = events[5];
  assert.deepEqual(completed.response, json, "response.completed carries exactly what the JSON path returns");
  assert.equal(lastSeen().rawParams.stream, undefined, "the stream flag never reaches responses()");
});

test("streaming bodies are sanitized: unknown fields dropped, namespace tools flattened and restored, developer run hoisted", async () => {
  const answer = await post("/v1/responses", {
    stream: true,
    client_metadata: { harness: "codex" },
    prompt_cache_key: "abc",
    reasoning: { effort: "medium", context: "new-field" },
    tools: [
      { type: "function", name: "exec_command", parameters: { type: "object", properties: {} }, strict: false },
      { type: "namespace", name: "mcp__weather", tools: [{ name: "get_weather", parameters: { type: "object", properties: {} }, strict: false }] },
      { type: "unheard_of_tool" },
    ],
    input: [
      { role: "developer", content: "You are Codex." },
      { type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions>" }] },
      { role: "user", content: "weather?" },
      { type: "function_call", namespace: "mcp__weather", name: "get_weather", arguments: "{}", call_id: "c1" },
      { type: "function_call_output", call_id: "c1", output: "sunny" },
      { type: "ghost_snapshot", ghost_commit: {} },
      { type: "additional_tools", tools: [{ type: "function", name: "wait", parameters: {}, strict: false }, { type: "freeform", name: "exec" }] },
      { role: "developer", content: "mid-conversation stays" },
    ],
  });
  assert.equal(answer.status, 200);
  const received = lastSeen().rawParams as any;
  assert.equal(received.instructions, "You are Codex.\n\n<permissions>");
  assert.deepEqual(
    received.input.map((item: any) => item.role ?? item.type),
    ["user", "function_call", "function_call_output", "developer"],
  );
  assert.equal(received.input[1].name, "mcp__weather__get_weather");
  assert.equal("namespace" in received.input[1], false);
  assert.deepEqual(received.tools.map((t: any) => t.name), ["exec_command", "mcp__weather__get_weather", "wait"]);
  assert.deepEqual(received.reasoning, { effort: "medium" }, "a nested field newer than the pinned types is pruned");
  assert.equal("client_metadata" in received, false);
  assert.equal("prompt_cache_key" in received, false);

  const events = parseSse(answer.text).map((f) => JSON.parse(f.data));
  const namespaced = events.find((e) => e.type === "response.output_item.done" && e.item.type === "function_call" && e.item.namespace);
  assert.deepEqual([namespaced.item.namespace, namespaced.item.name], ["mcp__weather", "get_weather"]);
  const plain = events.find((e) => e.type === "response.output_item.done" && e.item.name === "exec_command");
  assert.equal("namespace" in plain.item, false);
  const completedNames = events.at(-1).response.output.filter((i: any) => i.type === "function_call").map((i: any) => i.name);
  assert.deepEqual(completedNames, ["exec_command", "get_weather", "wait"]);
});

test("a streaming request that cannot be fixed by pruning is a 422 before any stream starts", async () => {
  const answer = await post("/v1/responses", { stream: true, temperature: "hot" });
  assert.equal(answer.status, 422);
  const locs = answer.json<any>().detail.map((d: any) => d.loc.join("."));
  assert.ok(locs.includes("body.input"), `missing input is named: ${locs}`);
  assert.ok(locs.includes("body.temperature"), `bad temperature is named: ${locs}`);
});

test("a backend failure after the stream began is HTTP 200 with response.created then response.failed", async () => {
  const answer = await post("/v1/responses", { stream: true, input: "hi", instructions: "fail" });
  assert.equal(answer.status, 200);
  const events = parseSse(answer.text).map((f) => JSON.parse(f.data));
  assert.deepEqual(events.map((e) => e.type), ["response.created", "response.failed"]);
  assert.equal(events[1].response.status, "failed");
  assert.deepEqual(events[1].response.error, { code: "server_error", message: "backend exploded" });
  assert.deepEqual(events[1].response.output, []);
  assert.equal(events[0].response.id, events[1].response.id);
  // The server keeps serving.
  assert.equal((await post("/v1/responses", { input: "hi" })).status, 200);
});

test("stream:true on /v1/chat/completions replays chat.completion.chunk frames, usage only when asked, then [DONE]", async () => {
  const body = { messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true }, bookkeeping: 1 };
  const answer = await post("/v1/chat/completions", body);
  assert.equal(answer.status, 200);
  assert.match(String(answer.headers["content-type"]), /^text\/event-stream/);
  const frames = parseSse(answer.text);
  assert.equal(frames.at(-1)!.data, "[DONE]");
  const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.data));
  assert.ok(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === "chatcmpl_1" && c.model === "recording"));
  assert.deepEqual(
    chunks.map((c) => (c.choices[0] ? Object.keys(c.choices[0].delta).join(",") || `finish:${c.choices[0].finish_reason}` : "usage")),
    ["role", "reasoning_content", "content", "tool_calls", "finish:tool_calls", "usage"],
  );
  assert.deepEqual(chunks[3].choices[0].delta.tool_calls, [{ index: 0, id: "call_a", type: "function", function: { name: "f", arguments: '{"x":1}' } }]);
  assert.deepEqual(chunks.at(-1).usage, { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  assert.deepEqual(Object.keys(lastSeen().rawParams), ["messages"], "stream, stream_options and unknown fields never reach the backend");

  const withoutUsage = parseSse((await post("/v1/chat/completions", { ...body, stream_options: undefined })).text);
  assert.equal(withoutUsage.some((f) => f.data.includes('"usage"')), false);
  // Only a real boolean streams; a string is the strict schema's 422.
  assert.equal((await post("/v1/chat/completions", { ...body, stream: "true" })).status, 422);
});

test("an /ng-rollout/<id> prefix is stripped before routing and handed to the server; a malformed id is a 404", async () => {
  for (const path of ["/v1/responses", "/v1/chat/completions"]) {
    const json = path === "/v1/responses" ? { input: "hi" } : { messages: [{ role: "user", content: "hi" }] };
    assert.equal((await post(`/ng-rollout/12-3-a1${path}`, json)).status, 200);
    assert.equal(lastSeen().rolloutId, "12-3-a1");
    assert.equal((await post(path, json)).status, 200);
    assert.equal(lastSeen().rolloutId, undefined);
  }
  assert.equal((await post("/ng-rollout/bad id/v1/responses", { input: "hi" })).status, 404);
});

test("a body that is not a JSON object is a 422, and the server keeps serving", async () => {
  for (const path of ["/v1/responses", "/v1/chat/completions", "/v1/messages"]) {
    const answer = await client.request(`${base}${path}`, { method: "POST", rawBody: "[1,2]" });
    assert.equal(answer.status, 422, path);
    const garbled = await client.request(`${base}${path}`, { method: "POST", rawBody: "{not json" });
    assert.equal(garbled.status, 422, path);
  }
  assert.equal((await post("/v1/responses", { input: "hi" })).status, 200);
});

test("/v1/messages maps Anthropic Messages through responses() and back, as JSON or as Anthropic SSE", async () => {
  const request = {
    model: "claude-like",
    max_tokens: 64,
    system: "Be brief.",
    messages: [{ role: "user", content: [{ type: "text", text: "weather?" }] }],
    tools: [{ name: "get_weather", description: "look it up", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
  };
  const answer = await post("/v1/messages", request);
  assert.equal(answer.status, 200);
  const message = answer.json<any>();
  const received = lastSeen().rawParams as any;
  assert.equal(received.instructions, "Be brief.");
  assert.equal(received.max_output_tokens, 64);
  assert.equal(received.tools[0].name, "get_weather");
  assert.equal(message.type, "message");
  assert.equal(message.role, "assistant");
  assert.equal(message.model, "claude-like");
  assert.deepEqual(message.content.map((b: any) => b.type), ["text", "tool_use"]);
  assert.equal(message.content[0].text, "hello");
  assert.deepEqual(message.content[1].input, {});
  assert.equal(message.stop_reason, "tool_use");
  assert.deepEqual(message.usage, { input_tokens: 7, output_tokens: 3 });

  const streamed = await post("/v1/messages", { ...request, stream: true });
  assert.equal(streamed.status, 200);
  assert.match(String(streamed.headers["content-type"]), /^text\/event-stream/);
  const frames = parseSse(streamed.text);
  assert.equal(frames[0]!.event, "message_start");
  assert.equal(frames.at(-1)!.event, "message_stop");
  const delta = JSON.parse(frames.find((f) => f.event === "message_delta")!.data);
  assert.equal(delta.delta.stop_reason, "tool_use");

  const bad = await post("/v1/messages", { max_tokens: 5, messages: [{ role: "user", content: [{ type: "hologram" }] }] });
  assert.equal(bad.status, 422);
  assert.match(JSON.stringify(bad.json()), /messages.*content/);
});

test("a model server without its own chat path answers /v1/chat/completions through responses()", async () => {
  const post = (path: string, json: unknown) => client.request(`${responsesOnlyBase}${path}`, { method: "POST", json });
  const answer = await post("/v1/chat/completions", {
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "hi" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
    ],
    max_tokens: 32,
    temperature: 0.5,
    tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }],
    tool_choice: { type: "function", function: { name: "f" } },
  });
  assert.equal(answer.status, 200, answer.text);
  const completion = answer.json<any>();
  assert.equal(completion.object, "chat.completion");
  assert.equal(completion.choices[0].finish_reason, "tool_calls");
  assert.equal(completion.choices[0].message.content, "hello");
  assert.deepEqual(completion.choices[0].message.tool_calls, [{ id: "call_0", type: "function", function: { name: "f", arguments: "{}" } }]);
  assert.deepEqual(completion.usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  const received = responsesOnlySeen.at(-1) as any;
  assert.equal(received.max_output_tokens, 32);
  assert.equal(received.temperature, 0.5);
  assert.deepEqual(received.tool_choice, { type: "function", name: "f" });
  assert.deepEqual(received.input[1].content, [
    { type: "input_text", text: "hi" },
    { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" },
  ]);
  assert.equal(received.tools[0].name, "f");

  const unsupported = await post("/v1/chat/completions", { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] });
  assert.equal(unsupported.status, 422, "the chat schema rejects it before conversion");
});

// NeMo Gym validates every model route's body with `Model.model_validate(body)`: pydantic lax mode,
// so one input gets one answer whichever path (JSON, streamed, converted) it takes.
const sampling = (params: Record<string, unknown>) => [params.temperature, params.parallel_tool_calls, params.max_output_tokens];

test("string scalars are coerced as pydantic coerces them on every /v1/responses path", async () => {
  const body = { input: "hi", temperature: "0.5", parallel_tool_calls: "false", max_output_tokens: "16" };
  assert.equal((await post("/v1/responses", body)).status, 200);
  assert.deepEqual(sampling(lastSeen().params), [0.5, false, 16]);
  const streamed = await post("/v1/responses", { ...body, stream: true });
  assert.equal(streamed.status, 200);
  assert.match(String(streamed.headers["content-type"]), /^text\/event-stream/);
  assert.deepEqual(sampling(lastSeen().params), [0.5, false, 16]);
  // `if not body.get("stream")`: a truthy 1 streams too.
  const truthy = await post("/v1/responses", { ...body, stream: 1 });
  assert.match(String(truthy.headers["content-type"]), /^text\/event-stream/);
});

test("a bad scalar is FastAPI's 422 with pydantic's error, alike on the JSON and the streamed path", async () => {
  const expected = { detail: [{ type: "float_parsing", loc: ["body", "temperature"], msg: "Input should be a valid number, unable to parse string as a number", input: "warm" }] };
  for (const stream of [undefined, true]) {
    const answer = await post("/v1/responses", { input: "hi", temperature: "warm", stream });
    assert.equal(answer.status, 422, String(stream));
    assert.deepEqual(answer.json(), expected, String(stream));
  }
});

test("chat completions validate in lax mode, streamed or not, natively or through responses()", async () => {
  const body = { messages: [{ role: "user", content: "hi" }], temperature: "0.5", parallel_tool_calls: "false", max_tokens: "16" };
  for (const stream of [undefined, true]) {
    assert.equal((await post("/v1/chat/completions", { ...body, stream })).status, 200);
    const params = lastSeen().params;
    assert.deepEqual([params.temperature, params.parallel_tool_calls, params.max_tokens], [0.5, false, 16], String(stream));
  }
  const converted = await client.request(`${responsesOnlyBase}/v1/chat/completions`, { method: "POST", json: body });
  assert.equal(converted.status, 200, converted.text);
  assert.deepEqual(sampling(responsesOnlyParams.at(-1)!), [0.5, false, 16]);
  const bad = await post("/v1/chat/completions", { ...body, max_tokens: "many" });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.json(), {
    detail: [{ type: "int_parsing", loc: ["body", "max_tokens"], msg: "Input should be a valid integer, unable to parse string as an integer", input: "many" }],
  });
});

test("/v1/messages copies sampling fields into the Responses params, which validate them in lax mode", async () => {
  // `model` is required at the door, as Anthropic requires it.
  const body = { model: "claude-like", max_tokens: "16", temperature: "0.5", messages: [{ role: "user", content: "hi" }] };
  assert.equal((await post("/v1/messages", body)).status, 200);
  assert.deepEqual([lastSeen().params.temperature, lastSeen().params.max_output_tokens], [0.5, 16]);
});
