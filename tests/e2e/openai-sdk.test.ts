// The official `openai` npm client (pinned 6.49.0) against our servers over real HTTP: every answer it
// gets — JSON, streamed Responses events, streamed chat chunks — must parse without error and carry
// what the server meant. scripted_model and vllm_model (over a fake vLLM) as model servers, and
// simple_agent's /v1/responses.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { startFakeVllm, type FakeVllm } from "../../src/testing/fake-vllm.ts";
import { startServers } from "../../src/testing/servers.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";
import scriptedModel from "../../responses_api_models/scripted_model/app.ts";
import vllmModel from "../../responses_api_models/vllm_model/app.ts";
import simpleAgent from "../../responses_api_agents/simple_agent/app.ts";
import weatherEnvironment from "../../resources_servers/example_single_tool_call/app.ts";

let fake: FakeVllm;
let graph: InProcessGraph;
const sdk = (instance: string) => new OpenAI({ baseURL: `${graph.url(instance)}/v1`, apiKey: "not-needed", maxRetries: 0, timeout: 15_000 });

const weatherTool = {
  type: "function" as const,
  name: "get_weather",
  description: "Get the weather of a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};

before(async () => {
  fake = await startFakeVllm({ defaultReply: { content: "It is sunny.", reasoning_content: "The user wants weather." } });
  graph = await startServers({
    env: [weatherEnvironment],
    scripted: [scriptedModel],
    vllm: [vllmModel, { base_url: fake.url, api_key: "k", model: "fake-model", return_token_id_information: false, uses_reasoning_parser: true }],
    agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "scripted" } }],
  });
});
after(async () => {
  await graph.close();
  await fake.close();
});

test("responses.create (JSON) on scripted_model and vllm_model parses, with output_text and usage", async () => {
  const scripted = await sdk("scripted").responses.create({ model: "any", input: "What's the weather in SF?", tools: [weatherTool] });
  assert.equal(scripted.object, "response");
  const call = scripted.output.find((item) => item.type === "function_call");
  assert.ok(call && call.type === "function_call" && call.name === "get_weather", JSON.stringify(scripted.output));

  const vllm = await sdk("vllm").responses.create({ model: "any", input: [{ role: "user", content: "Weather?" }], max_output_tokens: 64 });
  assert.equal(vllm.output_text, "It is sunny.");
  assert.deepEqual(vllm.output.map((item) => item.type), ["reasoning", "message"]);
  assert.equal(vllm.model, "fake-model");
  assert.ok((vllm.usage?.total_tokens ?? 0) > 0);
  assert.equal(fake.chatBodies().at(-1).max_tokens, 64);
});

test("responses.create with stream: true yields created → output_item.added/done per item → completed, and the final response parses", async () => {
  for (const instance of ["scripted", "vllm"]) {
    const stream = await sdk(instance).responses.create({ model: "any", input: "Say hi", stream: true });
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.completed") completed = event.response;
    }
    assert.equal(types[0], "response.created", instance);
    assert.equal(types.at(-1), "response.completed", instance);
    const itemEvents = types.slice(1, -1);
    assert.ok(itemEvents.length >= 2 && itemEvents.every((t, i) => t === (i % 2 === 0 ? "response.output_item.added" : "response.output_item.done")), `${instance}: ${types}`);
    assert.ok(completed && completed.output.length === itemEvents.length / 2, instance);
  }
});

test("the SDK's responses.stream() helper assembles the final response from our events", async () => {
  const stream = sdk("vllm").responses.stream({ model: "any", input: "Say hi" });
  const final = await stream.finalResponse();
  assert.equal(final.output_text, "It is sunny.");
});

test("a backend failure on a streamed responses call reaches the SDK as a response.failed event", async () => {
  fake.script({ status: 503, body: "overloaded" }, { status: 503, body: "overloaded" }, { status: 503, body: "overloaded" }, { status: 503, body: "overloaded" });
  const stream = await sdk("vllm").responses.create({ model: "any", input: "Say hi", stream: true });
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  assert.deepEqual(events.map((e) => e.type), ["response.created", "response.failed"]);
  const failed = events[1] as OpenAI.Responses.ResponseFailedEvent;
  assert.equal(failed.response.error?.code, "server_error");
  fake.reset();
});

test("chat.completions.create on vllm_model parses, JSON and streamed", async () => {
  const chat = sdk("vllm").chat.completions;
  const completion = await chat.create({ model: "any", messages: [{ role: "user", content: "Weather?" }] });
  // As NeMo Gym's vllm_model: with a reasoning parser, chat answers carry the reasoning back inline.
  const expected = "<think>The user wants weather.</think>It is sunny.";
  assert.equal(completion.choices[0]!.message.content, expected);
  assert.equal(completion.choices[0]!.finish_reason, "stop");

  const stream = await chat.create({ model: "any", messages: [{ role: "user", content: "Weather?" }], stream: true, stream_options: { include_usage: true } });
  let content = "";
  let usage: OpenAI.CompletionUsage | undefined | null;
  let finish: string | null = null;
  for await (const chunk of stream) {
    content += chunk.choices[0]?.delta.content ?? "";
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  assert.equal(content, expected);
  assert.equal(finish, "stop");
  assert.ok(usage && usage.total_tokens > 0);
  assert.equal("stream" in fake.chatBodies().at(-1), false, "vLLM is called without streaming");
});

test("responses.create against simple_agent's /v1/responses runs the tool loop and parses", async () => {
  const response = await sdk("agent").responses.create({ model: "any", input: "What's the weather in San Francisco?", tools: [weatherTool] });
  assert.deepEqual(response.output.map((item) => item.type), ["function_call", "function_call_output", "message"]);
  const toolOutput = response.output[1] as unknown as { output: string };
  assert.match(toolOutput.output, /cold/);
  assert.ok(response.output_text.length > 0);
});

test("chat.completions.create on scripted_model (which only implements responses()) runs a whole tool-calling exchange", async () => {
  const chat = sdk("scripted").chat.completions;
  const tools = [{ type: "function" as const, function: { name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.parameters } }];
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: [{ type: "text", text: 'What is the weather in "San Francisco"?' }] }];
  const first = await chat.create({ model: "any", messages, tools });
  const call = first.choices[0]!.message.tool_calls?.[0];
  assert.equal(first.choices[0]!.finish_reason, "tool_calls");
  assert.ok(call && call.type === "function" && call.function.name === "get_weather", JSON.stringify(first.choices[0]));
  assert.deepEqual(JSON.parse(call.function.arguments), { city: "San Francisco" });

  messages.push(first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: '{"city": "San Francisco", "weather_description": "cold"}' });
  const streamed = await chat.create({ model: "any", messages, tools, stream: true });
  let content = "";
  for await (const chunk of streamed) content += chunk.choices[0]?.delta.content ?? "";
  assert.match(content, /cold/);
});
