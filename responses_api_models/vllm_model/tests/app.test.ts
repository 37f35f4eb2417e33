// vllm_model over real HTTP against a fake vLLM: the request vLLM receives for each Responses request
// (NeMo Gym's conversion and preprocessing rules), the Responses it answers, and the failures it reports.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { type FakeVllm, startFakeVllm } from "../../../src/testing/index.ts";
import { closedPort, startVllmModels, weatherTool, type Harness } from "./helpers.ts";

let vllm: FakeVllm;
let harness: Harness;
let deadPort: number;

const common = { api_key: "sk-vllm", model: "served-model", return_token_id_information: false };
const audioDir = mkdtempSync(join(tmpdir(), "vllm-audio-"));
writeFileSync(join(audioDir, "clip.wav"), Buffer.from("RIFFWAVE"));
writeFileSync(join(audioDir, "b.flac"), Buffer.from("BBBB"));
writeFileSync(join(audioDir, "clip.xyz"), Buffer.from("?"));
// Outside every allowed directory: a real audio file, a symlink to it from inside, and a directory named like audio.
const outsideDir = mkdtempSync(join(tmpdir(), "vllm-outside-"));
writeFileSync(join(outsideDir, "private.wav"), Buffer.from("PRIVATE"));
symlinkSync(join(outsideDir, "private.wav"), join(audioDir, "escape.wav"));
mkdirSync(join(audioDir, "folder.wav"));
const extraDir = mkdtempSync(join(tmpdir(), "vllm-extra-"));
writeFileSync(join(extraDir, "more.ogg"), Buffer.from("OGGS"));
writeFileSync(join(extraDir, "..dots.mp3"), Buffer.from("ID3"));

before(async () => {
  vllm = await startFakeVllm();
  deadPort = await closedPort();
  const at = { ...common, base_url: vllm.url };
  harness = await startVllmModels({
    parser: { ...at, uses_reasoning_parser: true },
    tuned: {
      ...at,
      base_url: `${vllm.url}/`,
      uses_reasoning_parser: true,
      chat_template_kwargs: { enable_thinking: true, some_other_param: "value1" },
      extra_body: { top_k: 20, min_tokens: 10, temperature: 0.1 },
      default_headers: { "x-team": "gym", Authorization: "Bearer overridden" },
      audio_root: audioDir,
    },
    more_dirs: { ...at, uses_reasoning_parser: true, audio_root: audioDir, allowed_audio_dirs: [extraDir] },
    no_parser: { ...at, uses_reasoning_parser: false },
    not_interleaved: { ...at, uses_reasoning_parser: "true", uses_interleaved_reasoning: "false" },
    developer_as_system: { ...at, uses_reasoning_parser: true, replace_developer_role_with_system: true },
    no_sequential: { ...at, uses_reasoning_parser: true, sequential_reasoning_allowed: false },
    unreachable: { ...common, base_url: `http://127.0.0.1:${deadPort}/v1`, uses_reasoning_parser: true },
    impatient: { ...at, uses_reasoning_parser: true, request_timeout_s: 0.2 },
    retrying: { ...at, uses_reasoning_parser: true, max_retries: 1 },
  });
});
after(async () => {
  await harness.close();
  await vllm.close();
});
beforeEach(async () => {
  // A request a timed-out test gave up on may still be in flight: let it land first.
  await new Promise((resolve) => setTimeout(resolve, 0));
  vllm.reset();
  vllm.setDefault({ content: "ok" });
});

const ok = (instance: string, body: unknown) => harness.ok(instance, body);
const lastBody = () => vllm.chatBodies().at(-1);

test("the spec's worked example (§5.4) reaches vLLM exactly as NeMo Gym sends it", async () => {
  const request = {
    input: [
      { role: "developer", content: "Be helpful." },
      { role: "user", content: "weather in sf?" },
      { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Need weather." }] },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"SF"}' },
      { type: "function_call_output", call_id: "call_1", output: '{"city":"SF","weather_description":"The weather in SF is cold."}' },
    ],
    tools: [weatherTool],
    max_output_tokens: 512,
    temperature: 0.7,
  };
  await ok("parser", request);
  assert.deepEqual(vllm.chatBodies(), [
    {
      messages: [
        { role: "developer", content: "Be helpful." },
        { role: "user", content: "weather in sf?" },
        {
          role: "assistant",
          content: "",
          reasoning_content: "Need weather.",
          reasoning: "Need weather.",
          tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"SF"}' } }],
        },
        { role: "tool", content: '{"city":"SF","weather_description":"The weather in SF is cold."}', tool_call_id: "call_1" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", description: "", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }],
      max_tokens: 512,
      temperature: 0.7,
      model: "served-model",
    },
  ]);
});

test("only the fields the caller set are forwarded: no tool_choice default, Responses-only fields dropped, null top_logprobs removed", async () => {
  await ok("parser", {
    input: "hi",
    model: "what-the-caller-says",
    reasoning: { effort: "low" },
    text: { format: { type: "text" } },
    truncation: "auto",
    include: ["reasoning.encrypted_content"],
    temperature: null,
    top_logprobs: null,
    tool_choice: "auto",
    parallel_tool_calls: true,
  });
  assert.deepEqual(lastBody(), { messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], model: "served-model", temperature: null });
});

test("chat_template_kwargs and extra_body: config values, metadata JSON overrides, the request over extra_body", async () => {
  await ok("tuned", {
    input: "hi",
    temperature: 0.9,
    metadata: { chat_template_kwargs: '{"enable_thinking": false, "new_param": "new"}', extra_body: '{"min_tokens": 20, "seed": 3}' },
  });
  assert.deepEqual(lastBody(), {
    top_k: 20,
    min_tokens: 20,
    temperature: 0.9,
    seed: 3,
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    model: "served-model",
    metadata: { chat_template_kwargs: '{"enable_thinking": false, "new_param": "new"}', extra_body: '{"min_tokens": 20, "seed": 3}' },
    chat_template_kwargs: { enable_thinking: false, some_other_param: "value1", new_param: "new" },
  });

  await ok("tuned", { input: "hi", metadata: null });
  assert.deepEqual(lastBody().chat_template_kwargs, { enable_thinking: true, some_other_param: "value1" });
  assert.equal(lastBody().temperature, 0.1, "extra_body fills what the request does not set");
  assert.equal(lastBody().metadata, null);
});

test("a metadata override that is not a JSON object string is a 400 naming the key, and nothing reaches vLLM", async () => {
  for (const metadata of [{ extra_body: "{seed: 3}" }, { chat_template_kwargs: "[1]" }]) {
    const answer = await harness.responses("tuned", { input: "hi", metadata });
    assert.equal(answer.status, 400);
    assert.match(answer.json<any>().detail, new RegExp(`metadata\\.${Object.keys(metadata)[0]} must be a JSON object string`));
  }
  assert.equal(vllm.requests.length, 0);
});

test("vLLM gets the bearer api_key (over a default header of the same name) and the default headers", async () => {
  await ok("tuned", { input: "hi" });
  assert.equal(vllm.requests[0]!.headers.authorization, "Bearer sk-vllm");
  assert.equal(vllm.requests[0]!.headers["x-team"], "gym");
});

test("replace_developer_role_with_system maps developer messages to system", async () => {
  await ok("developer_as_system", { input: [{ role: "developer", content: "rules" }, { role: "user", content: "hi" }] });
  assert.deepEqual(lastBody().messages.map((m: any) => m.role), ["system", "user"]);
});

test("reasoning parser: reasoning_content becomes a reasoning item, and goes back as reasoning_content + reasoning", async () => {
  vllm.script({
    content: " hello hello",
    reasoning_content: "Gathering order status...",
    tool_calls: [
      { id: "call_123", name: "get_order_status", arguments: '{"order_id": "123"}' },
      { id: "call_234", name: "get_delivery_date", arguments: '{"order_id": "234"}' },
    ],
  });
  const first = await ok("parser", { input: [{ role: "user", content: "Check my order" }] });
  assert.equal(first.output.length, 4);
  const [reasoning, message, call1, call2] = first.output;
  assert.match(reasoning.id, /^rs_[0-9a-f]{32}$/);
  assert.match(message.id, /^msg_[0-9a-f]{32}$/);
  assert.deepEqual(reasoning, { id: reasoning.id, summary: [{ text: "Gathering order status...", type: "summary_text" }], type: "reasoning", encrypted_content: null });
  assert.deepEqual(message, { id: message.id, content: [{ annotations: [], text: " hello hello", type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" });
  assert.deepEqual(call1, { arguments: '{"order_id": "123"}', call_id: "call_123", name: "get_order_status", type: "function_call", id: "call_123", status: "completed" });
  assert.equal(call2.call_id, "call_234");

  // vLLM ≥ 0.16 names the field `reasoning`; a reasoning-only generation has no message item.
  vllm.script({ content: null, reasoning: "None content test" });
  const input = [{ role: "user", content: "Check my order" }, ...first.output, { role: "user", content: "and?" }];
  const second = await ok("parser", { input });
  assert.deepEqual(second.output.map((i: any) => i.type), ["reasoning"]);
  assert.deepEqual(lastBody().messages, [
    { role: "user", content: "Check my order" },
    {
      role: "assistant",
      content: " hello hello",
      tool_calls: [
        { id: "call_123", function: { arguments: '{"order_id": "123"}', name: "get_order_status" }, type: "function" },
        { id: "call_234", function: { arguments: '{"order_id": "234"}', name: "get_delivery_date" }, type: "function" },
      ],
      reasoning_content: "Gathering order status...",
      reasoning: "Gathering order status...",
    },
    { role: "user", content: "and?" },
  ]);

  await ok("parser", { input: [...input, ...second.output, { role: "user", content: "well?" }] });
  assert.deepEqual(lastBody().messages.at(-2), { role: "assistant", content: "", tool_calls: [], reasoning_content: "None content test", reasoning: "None content test" });
});

test("uses_interleaved_reasoning: false cuts earlier reasoning out of the history without sending it", async () => {
  await ok("not_interleaved", {
    input: [
      { role: "user", content: "q" },
      { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "old thought" }] },
      { role: "assistant", content: "a" },
      { role: "user", content: "q2" },
    ],
  });
  assert.deepEqual(lastBody().messages[1], { role: "assistant", content: "a", tool_calls: [] });
});

test("without a reasoning parser <think> text stays inline both ways, and a reasoning field from vLLM is a 500 naming the config", async () => {
  vllm.script({ content: "<think>inline</think>answer" });
  const answer = await ok("no_parser", {
    input: [
      { role: "user", content: "q" },
      { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "old" }] },
      { role: "assistant", content: "a" },
      { role: "user", content: "q2" },
    ],
  });
  assert.deepEqual(lastBody().messages[1], { role: "assistant", content: "<think>old</think>a", tool_calls: [] });
  assert.deepEqual(answer.output.map((i: any) => i.type), ["message"]);
  assert.equal(answer.output[0].content[0].text, "<think>inline</think>answer");

  vllm.script({ content: "x", reasoning_content: "parsed by vLLM" });
  const mismatch = await harness.responses("no_parser", { input: "hi" });
  assert.equal(mismatch.status, 500);
  assert.match(mismatch.json<any>().detail, /uses_reasoning_parser: false/);
  assert.equal((await harness.responses("no_parser", { input: "hi" })).status, 200, "the server keeps serving");
});

test("multi-step: tool call → tool output → final answer, each call sending the whole conversation", async () => {
  const tools = [weatherTool];
  vllm.script({ reasoning_content: "Need the weather.", content: "", tool_calls: [{ id: "call_sf", name: "get_weather", arguments: '{"city": "SF"}' }] }, { content: "It is cold in SF." });
  const input: any[] = [{ role: "user", content: "weather in sf?" }];
  const step1 = await ok("parser", { input, tools });
  assert.deepEqual(step1.output.map((i: any) => i.type), ["reasoning", "function_call"]);
  assert.equal(step1.incomplete_details, null);

  input.push(...step1.output, { type: "function_call_output", call_id: "call_sf", output: '{"weather": "cold"}' });
  const step2 = await ok("parser", { input, tools });
  assert.deepEqual(step2.output.map((i: any) => i.type), ["message"]);
  assert.equal(step2.output[0].content[0].text, "It is cold in SF.");

  const [first, second] = vllm.chatBodies();
  assert.deepEqual(first.messages, [{ role: "user", content: "weather in sf?" }]);
  assert.deepEqual(second.messages, [
    { role: "user", content: "weather in sf?" },
    { role: "assistant", content: "", tool_calls: [{ id: "call_sf", function: { arguments: '{"city": "SF"}', name: "get_weather" }, type: "function" }], reasoning_content: "Need the weather.", reasoning: "Need the weather." },
    { content: '{"weather": "cold"}', role: "tool", tool_call_id: "call_sf" },
  ]);
  assert.deepEqual(second.tools, [{ type: "function", function: { name: "get_weather", description: "", parameters: weatherTool.parameters } }]);
});

test("multi-turn: earlier assistant turns (output messages with ids) go back as assistant messages between the users'", async () => {
  vllm.script({ content: "Hi, how can I help?" }, { content: "Which city?" });
  const first = await ok("parser", { input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Hello" }], status: "completed" }] });
  const second = await ok("parser", {
    input: [{ role: "user", content: [{ type: "input_text", text: "Hello" }] }, ...first.output, { role: "user", content: [{ type: "input_text", text: "What's the weather?" }] }],
  });
  assert.equal(second.output[0].content[0].text, "Which city?");
  assert.deepEqual(lastBody().messages, [
    { role: "user", content: [{ type: "text", text: "Hello" }] },
    { role: "assistant", content: "Hi, how can I help?", tool_calls: [] },
    { role: "user", content: [{ type: "text", text: "What's the weather?" }] },
  ]);
});

test("sequential_reasoning_allowed: false answers a trailing reasoning-only turn with an empty content_filter response, without vLLM", async () => {
  const answer = await ok("no_sequential", {
    input: [{ role: "user", content: "Check my order" }, { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "First reasoning item" }] }],
  });
  assert.equal(vllm.requests.length, 0);
  assert.deepEqual(answer.incomplete_details, { reason: "content_filter" });
  assert.deepEqual(answer.output, [{ id: answer.output[0].id, content: [{ annotations: [], text: "", type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" }]);
  assert.equal(answer.usage, null);

  await ok("no_sequential", { input: [{ role: "user", content: "q" }, { type: "function_call", call_id: "c", name: "n", arguments: "{}" }] });
  assert.equal(vllm.requests.length, 1, "a trailing tool call is not empty: vLLM is called");
  await ok("parser", { input: [{ role: "user", content: "q" }, { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "r" }] }] });
  assert.equal(vllm.requests.length, 2, "allowed by default");
});

test("a context-length 400 from vLLM is an empty response with incomplete_details max_output_tokens; other 400s keep their status", async () => {
  vllm.script({ error: "context_length" }, { status: 400, body: { object: "error", message: "max_tokens must be at least 1, got 0." } });
  for (let i = 0; i < 2; i++) {
    const answer = await ok("parser", { input: "a very long prompt" });
    assert.deepEqual(answer.incomplete_details, { reason: "max_output_tokens" });
    assert.deepEqual(answer.output.map((item: any) => [item.type, item.content[0].text]), [["message", ""]]);
    assert.equal(answer.model, "served-model");
  }
  vllm.script({ status: 400, body: { object: "error", message: "Unknown parameter: top_q" } });
  const other = await harness.responses("parser", { input: "hi" });
  assert.equal(other.status, 400);
  assert.match(other.json<any>().detail, /^upstream http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions answered 400: .*Unknown parameter: top_q/);
});

test("the response envelope: NeMo Gym's id, created_at from the completion, the configured model, the request echoed, usage mapped", async () => {
  vllm.script({ content: "hi", usage: { prompt_tokens: 215, completion_tokens: 38 }, finish_reason: "length" });
  const request = { input: "hi", instructions: "Be brief.", tools: [weatherTool], tool_choice: "auto", temperature: 0.5, top_p: 1, metadata: { row: "7" }, max_output_tokens: 64, parallel_tool_calls: false, user: "u1" };
  const answer = await harness.responses("parser", request);
  assert.equal(answer.status, 200, answer.text);
  const body = answer.json<any>();
  assert.match(body.id, /^resp_[0-9a-f]{32}$/);
  assert.match(answer.text, /"created_at":1753983920\.0,/, "created_at is a float, as Python writes it");
  assert.deepEqual(
    { ...body, id: "resp", output: body.output.map((i: any) => i.type) },
    {
      id: "resp",
      created_at: 1753983920,
      error: null,
      incomplete_details: { reason: "max_output_tokens" },
      instructions: "Be brief.",
      metadata: { row: "7" },
      model: "served-model",
      object: "response",
      output: ["message"],
      parallel_tool_calls: false,
      temperature: 0.5,
      tool_choice: "auto",
      tools: [weatherTool],
      top_p: 1,
      background: null,
      conversation: null,
      max_output_tokens: 64,
      max_tool_calls: null,
      previous_response_id: null,
      prompt: null,
      prompt_cache_key: null,
      reasoning: null,
      safety_identifier: null,
      service_tier: null,
      status: null,
      text: null,
      top_logprobs: null,
      truncation: null,
      usage: { input_tokens: 215, input_tokens_details: { cached_tokens: 0 }, output_tokens: 38, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 253 },
      user: "u1",
    },
  );
  assert.deepEqual(lastBody().messages[0], { role: "system", content: "Be brief." });
});

test("audio side channel: metadata.audio_data is spliced before the text of the last user message and removed from metadata", async () => {
  const audio = "data:audio/wav;base64,QUFB";
  await ok("tuned", { input: [{ role: "user", content: "first" }, { role: "assistant", content: "ok" }, { role: "user", content: "Transcribe." }], metadata: { audio_data: audio, other: "keep" } });
  const body = lastBody();
  assert.deepEqual(body.messages[0], { role: "user", content: "first" });
  assert.deepEqual(body.messages[2], { role: "user", content: [{ type: "audio_url", audio_url: { url: audio } }, { type: "text", text: "Transcribe." }] });
  assert.deepEqual(body.metadata, { other: "keep" });

  await ok("tuned", { input: [{ role: "system", content: "sys" }], metadata: { audio_data: audio } });
  assert.deepEqual(lastBody().messages.at(-1), { role: "user", content: [{ type: "audio_url", audio_url: { url: audio } }] }, "no user message: one is added");
  assert.ok(!("metadata" in lastBody()), "metadata emptied by the splice is dropped");

  await ok("tuned", { input: "hi", metadata: { audio_data: "" } });
  assert.deepEqual(lastBody().metadata, { audio_data: "" }, "an empty audio_data is no audio");
});

test("audio files: audio_path (relative to audio_root) and audio_paths are inlined as data URIs typed by extension", async () => {
  await ok("tuned", { input: "Transcribe.", metadata: { audio_path: "clip.wav" } });
  assert.deepEqual(lastBody().messages[0].content[0], { type: "audio_url", audio_url: { url: `data:audio/wav;base64,${Buffer.from("RIFFWAVE").toString("base64")}` } });

  await ok("tuned", { input: "Compare.", metadata: { audio_paths: JSON.stringify([join(audioDir, "clip.wav"), "b.flac"]) } });
  const content = lastBody().messages[0].content;
  assert.deepEqual(content.map((part: any) => part.type), ["audio_url", "audio_url", "text"]);
  assert.equal(content[1].audio_url.url, `data:audio/flac;base64,${Buffer.from("BBBB").toString("base64")}`);
});

test("audio mistakes are 400s that say what to fix", async () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ["tuned", { audio_data: "data:audio/wav;base64,QQ==", audio_path: "clip.wav" }, /mutually exclusive/],
    ["tuned", { audio_paths: "clip.wav" }, /audio_paths must be a list of paths/],
    ["parser", { audio_path: "clip.wav" }, /reads no audio files; set audio_root/],
  ];
  for (const [instance, metadata, message] of cases) {
    const answer = await harness.responses(instance, { input: "x", metadata });
    assert.equal(answer.status, 400, JSON.stringify(metadata));
    assert.match(answer.json<any>().detail, message);
  }
  assert.equal(vllm.requests.length, 0);
});

test("audio is read only inside audio_root and allowed_audio_dirs; every refused path is the same 400", async () => {
  const refused = { detail: "metadata.audio_path: not an allowed audio file" };
  const paths = [
    join(outsideDir, "private.wav"), // outside, exists
    "escape.wav", // a symlink inside that points outside
    join(audioDir, "escape.wav"),
    `../${basename(outsideDir)}/private.wav`, // a .. escape to a file that exists
    `${audioDir}/../${basename(outsideDir)}/private.wav`,
    "sub/../clip.wav", // `..` is refused even when it would stay inside
    "missing.wav",
    join(outsideDir, "missing.wav"),
    "folder.wav", // a directory
    "clip.xyz", // a bad extension, inside
    join(outsideDir, "private.xyz"),
    "/etc/passwd",
    "",
  ];
  for (const path of paths) {
    const answer = await harness.responses("tuned", { input: "x", metadata: { audio_path: path || " " } });
    assert.equal(answer.status, 400, path);
    assert.deepEqual(answer.json(), refused, path);
  }
  const listed = await harness.responses("tuned", { input: "x", metadata: { audio_paths: JSON.stringify(["clip.wav", join(outsideDir, "private.wav")]) } });
  assert.equal(listed.status, 400);
  assert.deepEqual(listed.json(), { detail: "metadata.audio_paths[1]: not an allowed audio file" });
  assert.equal(vllm.requests.length, 0, "nothing reached vLLM, so no file content left the server");

  // allowed_audio_dirs admits absolute paths into more directories; relative ones still resolve against audio_root.
  await ok("more_dirs", { input: "x", metadata: { audio_paths: JSON.stringify([join(extraDir, "more.ogg"), "clip.wav"]) } });
  assert.deepEqual(lastBody().messages[0].content.slice(0, 2).map((part: any) => part.audio_url.url), [`data:audio/ogg;base64,${Buffer.from("OGGS").toString("base64")}`, `data:audio/wav;base64,${Buffer.from("RIFFWAVE").toString("base64")}`]);
  await ok("more_dirs", { input: "x", metadata: { audio_path: join(extraDir, "..dots.mp3") } });
  assert.equal(lastBody().messages[0].content[0].audio_url.url, `data:audio/mpeg;base64,${Buffer.from("ID3").toString("base64")}`, "a name starting with .. is no escape");
  const notListed = await harness.responses("tuned", { input: "x", metadata: { audio_path: join(extraDir, "more.ogg") } });
  assert.deepEqual(notListed.json(), refused, "a directory another instance allows is not allowed here");
});

test("inputs a Chat Completions backend cannot take are 400s naming the item; invalid requests 422; the server keeps serving", async () => {
  const cases: [unknown, RegExp][] = [
    [{ input: [{ role: "user", content: [{ type: "input_file", file_id: "file_1" }] }] }, /input\[0\]\.content\[0\]: content part type "input_file"/],
    [{ input: "hi", tool_choice: "required" }, /tool_choice 'required' needs at least one tool/],
    [{ input: "hi", tools: [{ type: "web_search_preview" }] }, /tools\[0\]: tool type "web_search_preview"/],
    [{ input: [{ type: "mcp_list_tools", server_label: "s" }] }, /input\[0\]: item type "mcp_list_tools"/],
  ];
  for (const [request, message] of cases) {
    const answer = await harness.responses("parser", request);
    assert.equal(answer.status, 400, answer.text);
    assert.match(answer.json<any>().detail, message);
  }
  assert.equal((await harness.responses("parser", { input: "hi", seed: 1 })).status, 422);
  assert.equal(vllm.requests.length, 0);
  assert.equal((await harness.responses("parser", { input: "hi" })).status, 200);
});

test("an unreachable vLLM is a 502 naming it; a slow one a 504; overload is retried max_retries times, then a 502", async () => {
  const unreachable = await harness.responses("unreachable", { input: "hi" });
  assert.equal(unreachable.status, 502);
  assert.match(unreachable.json<any>().detail, new RegExp(`upstream http://127\\.0\\.0\\.1:${deadPort}/v1/chat/completions could not be reached`));

  vllm.script({ content: "late", delayMs: 400 });
  const slow = await harness.responses("impatient", { input: "hi" });
  assert.equal(slow.status, 504);
  assert.match(slow.json<any>().detail, /gave no complete answer within 0\.2 s \(request_timeout_s\)/);
  await new Promise((resolve) => setTimeout(resolve, 250));

  vllm.reset();
  vllm.script({ status: 503, body: "overloaded" }, { status: 503, body: "still overloaded" });
  const overloaded = await harness.responses("retrying", { input: "hi" });
  assert.equal(overloaded.status, 502);
  assert.equal(vllm.requests.length, 2);
  assert.match(overloaded.json<any>().detail, /answered 503: still overloaded/);

  vllm.script({ status: 429, body: "slow down", headers: { "retry-after": "0.05" } }, { content: "after retry" });
  const retried = await harness.responses("retrying", { input: "hi" });
  assert.equal(retried.status, 200);
  assert.equal(retried.json<any>().output[0].content[0].text, "after retry");
});

test("a vLLM answer that is not JSON or not a chat completion is a 502", async () => {
  vllm.script({ status: 200, body: "<html>proxy login</html>" });
  const notJson = await harness.responses("parser", { input: "hi" });
  assert.equal(notJson.status, 502);
  assert.match(notJson.json<any>().detail, /not JSON: <html>proxy login<\/html>/);

  vllm.script({ status: 200, body: { object: "chat.completion", choices: [] } });
  const noChoice = await harness.responses("parser", { input: "hi" });
  assert.equal(noChoice.status, 502);
  assert.match(noChoice.json<any>().detail, /without choices\[0\]\.message/);

  vllm.script({ content: "x", choice: { finish_reason: "weird" } });
  const badShape = await harness.responses("parser", { input: "hi" });
  assert.equal(badShape.status, 502);
  assert.match(badShape.json<any>().detail, /not a chat completion/);
});

test("/v1/chat/completions: preprocessed like /v1/responses, unknown top-level fields dropped, reasoning returned in <think> tags", async () => {
  vllm.script({ content: "answer", reasoning_content: "thought" });
  const answer = await harness.post("tuned", "/v1/chat/completions", {
    messages: [
      { role: "user", content: "q" },
      { role: "assistant", content: "<think>earlier</think>a", reasoning_content: "dropped by the message model" },
      { role: "user", content: "q2" },
    ],
    model: "caller-model",
    chat_template_kwargs: { ignored: true },
    top_logprobs: null,
    metadata: { extra_body: '{"seed": 5}' },
  });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(lastBody(), {
    top_k: 20,
    min_tokens: 10,
    temperature: 0.1,
    seed: 5,
    messages: [
      { role: "user", content: "q" },
      { role: "assistant", content: "a", reasoning_content: "earlier", reasoning: "earlier" },
      { role: "user", content: "q2" },
    ],
    model: "served-model",
    metadata: { extra_body: '{"seed": 5}' },
    chat_template_kwargs: { enable_thinking: true, some_other_param: "value1" },
  });
  const message = answer.json<any>().choices[0].message;
  assert.equal(message.content, "<think>thought</think>answer");
  assert.ok(!("reasoning_content" in message));
});

test("a call under /ng-rollout/<id>/v1/responses is served the same way", async () => {
  const answer = await harness.post("parser", "/ng-rollout/rollout-7/v1/responses", { input: "hi" });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(vllm.requests[0]!.path, "/v1/chat/completions");
});
