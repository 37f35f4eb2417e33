// vllm_model in training mode (return_token_id_information: true): the logprob flags vLLM gets, the token ids
// and log-probs on the last output item of each call (from /tokenize, vLLM's inline ids, or a bundle already
// on the message), their trip back to vLLM on the next turn, and every way a vLLM answer can fall short.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { fakePromptTokenIds, type FakeVllm, startFakeVllm } from "../../../src/testing/index.ts";
import { takeLogprobTokens } from "../token-ids.ts";
import { startVllmModels, weatherTool, type Harness } from "./helpers.ts";

let vllm: FakeVllm;
let noTokenize: FakeVllm;
let harness: Harness;

before(async () => {
  vllm = await startFakeVllm();
  noTokenize = await startFakeVllm({ serveTokenize: false });
  const training = { api_key: "k", model: "Qwen/Qwen3-8B", return_token_id_information: true, uses_reasoning_parser: true };
  harness = await startVllmModels({
    training: { ...training, base_url: vllm.url, chat_template_kwargs: { enable_thinking: true } },
    inline: { ...training, base_url: vllm.url, request_prompt_and_generation_token_ids: true },
    env_strings: { ...training, base_url: vllm.url, return_token_id_information: "True", uses_reasoning_parser: "false" },
    without_tokenize: { ...training, base_url: noTokenize.url },
    inference: { ...training, base_url: vllm.url, return_token_id_information: false },
  });
});
after(async () => {
  await harness.close();
  await vllm.close();
  await noTokenize.close();
});
beforeEach(() => {
  vllm.reset();
  vllm.setDefault({ content: "ok" });
});

const ok = (instance: string, body: unknown) => harness.ok(instance, body);
const chatBody = () => vllm.chatBodies().at(-1);
const tokenizeRequests = () => vllm.requests.filter((r) => r.path === "/tokenize");

test("training mode asks vLLM for logprobs: logprobs true, top_logprobs pinned to 0, token ids as tokens", async () => {
  for (const top_logprobs of [undefined, null, 5]) {
    await ok("training", { input: "hi", ...(top_logprobs === undefined ? {} : { top_logprobs }) });
    assert.equal(chatBody().logprobs, true);
    assert.equal(chatBody().top_logprobs, 0);
    assert.equal(chatBody().return_tokens_as_token_ids, true);
    assert.ok(!("return_token_ids" in chatBody()));
  }
  await ok("inline", { input: "hi" });
  assert.equal(chatBody().return_token_ids, true, "request_prompt_and_generation_token_ids asks for inline ids");
  await ok("inference", { input: "hi", top_logprobs: null });
  assert.deepEqual(chatBody(), { messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], model: "Qwen/Qwen3-8B" }, "off: no flags");
});

test("the last output item carries the exact generation ids (from token_id:N), log-probs and the /tokenize prompt ids", async () => {
  vllm.script({
    reasoning_content: "I should look up the weather.",
    content: "",
    tool_calls: [{ id: "chatcmpl-tool-7f3", name: "get_weather", arguments: '{"city": "San Francisco"}' }],
    token_ids: [151667, 40, 1265],
    logprobs: [-0.01, -0.2, -0.05],
  });
  const request = { input: [{ role: "user", content: "weather in SF?" }], tools: [weatherTool] };
  const answer = await ok("training", request);

  const sent = chatBody();
  assert.deepEqual(tokenizeRequests().map((r) => r.body), [{ model: "Qwen/Qwen3-8B", messages: sent.messages, tools: sent.tools, chat_template_kwargs: { enable_thinking: true } }]);
  assert.equal(tokenizeRequests()[0]!.headers.authorization, "Bearer k");

  const [reasoning, call] = answer.output;
  assert.deepEqual(Object.keys(reasoning), ["id", "summary", "type", "encrypted_content"], "only the last item has token fields");
  assert.deepEqual(call, {
    prompt_token_ids: fakePromptTokenIds(sent),
    generation_token_ids: [151667, 40, 1265],
    generation_log_probs: [-0.01, -0.2, -0.05],
    arguments: '{"city": "San Francisco"}',
    call_id: "chatcmpl-tool-7f3",
    name: "get_weather",
    type: "function_call",
    id: "chatcmpl-tool-7f3",
    status: "completed",
  });
});

test("next turn: the token fields travel back on the assistant message sent to vLLM", async () => {
  vllm.script(
    { reasoning_content: "plan", content: "", tool_calls: [{ id: "call_1", name: "get_weather", arguments: '{"city": "SF"}' }], token_ids: [7, 8, 9], logprobs: [-0.1, -0.2, -0.3] },
    { content: "cold", token_ids: [10, 11], logprobs: [-0.4, -0.5] },
    { content: "bye" },
  );
  const input: any[] = [{ role: "user", content: "weather?" }];
  const first = await ok("training", { input, tools: [weatherTool] });
  const firstPrompt = fakePromptTokenIds(chatBody());
  input.push(...first.output, { type: "function_call_output", call_id: "call_1", output: "cold" });
  const second = await ok("training", { input, tools: [weatherTool] });
  const secondPrompt = fakePromptTokenIds(chatBody());

  assert.deepEqual(chatBody().messages[1], {
    role: "assistant",
    content: "",
    tool_calls: [{ id: "call_1", function: { arguments: '{"city": "SF"}', name: "get_weather" }, type: "function" }],
    prompt_token_ids: firstPrompt,
    generation_token_ids: [7, 8, 9],
    generation_log_probs: [-0.1, -0.2, -0.3],
    reasoning_content: "plan",
    reasoning: "plan",
  });

  input.push(...second.output, { role: "user", content: "thanks" });
  await ok("training", { input, tools: [weatherTool] });
  const messages = chatBody().messages;
  assert.deepEqual(messages.map((m: any) => [m.role, m.generation_token_ids ?? null]), [
    ["user", null],
    ["assistant", [7, 8, 9]],
    ["tool", null],
    ["assistant", [10, 11]],
    ["user", null],
  ]);
  assert.deepEqual(messages[3].prompt_token_ids, secondPrompt);
});

test("vLLM's inline prompt_token_ids / choice.token_ids are used without /tokenize and removed from the answer", async () => {
  vllm.script({ content: "hello there", logprobs: [-0.5, -0.25] });
  const answer = await ok("inline", { input: "hi" });
  assert.equal(tokenizeRequests().length, 0);
  const item = answer.output[0];
  assert.deepEqual(item.prompt_token_ids, fakePromptTokenIds(chatBody()));
  assert.equal(item.generation_token_ids.length, 2);
  assert.deepEqual(item.generation_log_probs, [-0.5, -0.25]);

  vllm.script({ content: "hello there" });
  const chat = await harness.post("inline", "/v1/chat/completions", { messages: [{ role: "user", content: "hi" }] });
  assert.equal(chat.status, 200, chat.text);
  const completion = chat.json<any>();
  assert.ok(!("prompt_token_ids" in completion) && !("token_ids" in completion.choices[0]), "transport fields are removed");
  assert.equal(completion.choices[0].logprobs, null);
  assert.deepEqual(Object.keys(completion.choices[0].message).slice(0, 3), ["prompt_token_ids", "generation_token_ids", "generation_log_probs"]);
});

test("inline ids that disagree with the logprob tokens, or a partial inline source, are a 502", async () => {
  vllm.script({ content: "a b", choice: { token_ids: [1, 2] } });
  const disagree = await harness.responses("inline", { input: "hi" });
  assert.equal(disagree.status, 502);
  assert.match(disagree.json<any>().detail, /choice\.token_ids that disagree with the token ids of choice\.logprobs/);

  vllm.script({ content: "a", completion: { prompt_token_ids: [1] } });
  const partial = await harness.responses("training", { input: "hi" });
  assert.equal(partial.status, 502);
  assert.match(partial.json<any>().detail, /partial token metadata; missing: choice\.token_ids/);
});

test("a complete token bundle already on vLLM's message (a trainer-side server) is used as is; a partial one is a 502", async () => {
  const bundle = { prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5], generation_log_probs: [-1, -2], routed_experts: "nrlre1:int16:2x1x2:AAAA" };
  vllm.script({ content: "from trainer", message: bundle });
  const answer = await ok("training", { input: "hi" });
  assert.equal(tokenizeRequests().length, 0);
  assert.deepEqual(answer.output[0], { ...bundle, id: answer.output[0].id, content: [{ annotations: [], text: "from trainer", type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" });

  vllm.script({ content: "x", message: { prompt_token_ids: [1], generation_token_ids: [2] } });
  const partial = await harness.responses("training", { input: "hi" });
  assert.equal(partial.status, 502);
  assert.match(partial.json<any>().detail, /partial token metadata on choice\.message; missing: generation_log_probs/);
});

test("vLLM answering without logprobs is a 502 that says why, and /tokenize is not called", async () => {
  vllm.script({ content: "x", choice: { logprobs: null } });
  const answer = await harness.responses("training", { input: "hi" });
  assert.equal(answer.status, 502);
  assert.match(answer.json<any>().detail, /returned no per-token logprobs \(choice\.logprobs=null\)/);
  assert.equal(tokenizeRequests().length, 0);

  vllm.script({ content: "x", choice: { logprobs: { content: [{ token: "hello", logprob: -1, bytes: null, top_logprobs: [] }] } } });
  const textTokens = await harness.responses("training", { input: "hi" });
  assert.equal(textTokens.status, 502);
  assert.match(textTokens.json<any>().detail, /content\[0\]\.token "hello", not "token_id:<int>"/);
});

test("routed_experts pass through onto the last item, nested lists or an opaque string", async () => {
  for (const routed_experts of [[[[0, 1]], [[2, 3]]], "nrlre1:int16:2x1x2:AAABAAIAAwA="]) {
    vllm.script({ content: "a b", message: { routed_experts } });
    const answer = await ok("training", { input: "hi" });
    assert.deepEqual(answer.output.at(-1).routed_experts, routed_experts);
  }
  vllm.script({ content: "a b", message: { routed_experts: null } });
  assert.ok(!("routed_experts" in (await ok("training", { input: "hi" })).output[0]));
});

test("/v1/chat/completions in training mode returns the message with its token fields", async () => {
  vllm.script({ content: "hi there", token_ids: [5, 6], logprobs: [-0.1, -0.2] });
  const answer = await harness.post("training", "/v1/chat/completions", { messages: [{ role: "user", content: "hi" }], top_logprobs: null });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(chatBody().top_logprobs, 0);
  const { choices } = answer.json<any>();
  assert.equal(choices[0].logprobs, null);
  assert.deepEqual(choices[0].message.generation_token_ids, [5, 6]);
  assert.deepEqual(choices[0].message.generation_log_probs, [-0.1, -0.2]);
  assert.deepEqual(choices[0].message.prompt_token_ids, fakePromptTokenIds(chatBody()));
});

test("training mode refuses n > 1 (one choice per call) before calling vLLM", async () => {
  const answer = await harness.post("training", "/v1/chat/completions", { messages: [{ role: "user", content: "hi" }], n: 2 });
  assert.equal(answer.status, 400);
  assert.match(answer.json<any>().detail, /n=2/);
  assert.equal(vllm.requests.length, 0);
});

test("a context-length overflow in training mode is an empty message without token fields (as NeMo Gym)", async () => {
  vllm.script({ error: "context_length" });
  const answer = await ok("training", { input: "long" });
  assert.deepEqual(answer.incomplete_details, { reason: "max_output_tokens" });
  assert.ok(!("prompt_token_ids" in answer.output[0]));
});

test("an endpoint without /tokenize is a 502 naming the tokenize URL", async () => {
  const answer = await harness.responses("without_tokenize", { input: "hi" });
  assert.equal(answer.status, 502);
  assert.match(answer.json<any>().detail, new RegExp(`upstream ${noTokenize.origin.replace(/\./g, "\\.")}/tokenize answered 404`));
});

test("YAML strings for booleans are read ('True' → training on, 'false' → no reasoning parser)", async () => {
  vllm.script({ content: "<think>kept inline</think>x" });
  const answer = await ok("env_strings", { input: "hi" });
  assert.equal(answer.output[0].content[0].text, "<think>kept inline</think>x");
  assert.ok(Array.isArray(answer.output[0].generation_token_ids));
});

test("a 65,536-token generation with logprobs comes back whole and exact", async () => {
  const tokens = 65_536;
  vllm.script({ tokens });
  const answer = await ok("training", { input: "write a lot" });
  const item = answer.output[0];
  assert.equal(item.generation_token_ids.length, tokens);
  assert.equal(item.generation_log_probs.length, tokens);
  assert.equal(item.generation_token_ids[tokens - 1], 1000 + (((tokens - 1) * 7919) % 150_000));
  assert.equal(item.generation_log_probs[tokens - 1], -((tokens - 1) % 10 + 1) / 100);
  assert.equal(item.content[0].text.length, tokens);
});

test("the fast logprob reader gives exactly what JSON.parse gives, and declines layouts it does not know", () => {
  const entries = [
    { token: "token_id:151667", logprob: -1.5e-5, bytes: [116, 111], top_logprobs: [] },
    { token: "token_id:0", logprob: 0, bytes: null, top_logprobs: [] },
    { token: "token_id:42", logprob: -9999.0, bytes: [], top_logprobs: [] },
    { token: "token_id:7", logprob: -0.30000000000000004, bytes: [55], top_logprobs: [] },
  ];
  const completion = { id: "c", choices: [{ index: 0, message: { role: "assistant", content: "\"logprobs\":{\"content\":[" }, logprobs: { content: entries }, finish_reason: "stop" }] };
  const taken = takeLogprobTokens(JSON.stringify(completion))!;
  assert.deepEqual(taken.tokens, { ids: [151667, 0, 42, 7], logProbs: entries.map((e) => e.logprob) });
  const rest = JSON.parse(taken.text);
  assert.deepEqual(rest.choices[0].logprobs, { content: [] });
  assert.deepEqual(rest.choices[0].message, completion.choices[0]!.message);
  assert.deepEqual(takeLogprobTokens(JSON.stringify({ choices: [{ logprobs: { content: [] } }] }))!.tokens, { ids: [], logProbs: [] });

  const withTop = { choices: [{ logprobs: { content: [{ ...entries[0], top_logprobs: [{ token: "token_id:1", logprob: -2, bytes: null }] }] } }] };
  assert.equal(takeLogprobTokens(JSON.stringify(withTop)), undefined);
  assert.equal(takeLogprobTokens(JSON.stringify({ choices: [{ logprobs: { content: [{ token: "hi", logprob: -1, bytes: null, top_logprobs: [] }] } }] })), undefined);
  assert.equal(takeLogprobTokens(JSON.stringify({ choices: [{ logprobs: null }] })), undefined);
  const twoChoices = { choices: [{ logprobs: { content: [entries[0]] } }, { logprobs: { content: [entries[1]] } }] };
  assert.equal(takeLogprobTokens(JSON.stringify(twoChoices)), undefined);
});

test("logprobs vLLM writes in another layout (top logprobs included) are still read, through the full parse", async () => {
  vllm.script({
    content: "x",
    choice: { logprobs: { content: [{ token: "token_id:5", logprob: -0.5, bytes: null, top_logprobs: [{ token: "token_id:6", logprob: -1, bytes: null }] }] } },
  });
  const answer = await ok("training", { input: "hi" });
  assert.deepEqual(answer.output[0].generation_token_ids, [5]);
  assert.deepEqual(answer.output[0].generation_log_probs, [-0.5]);
});
