// The Responses ⇄ Chat Completions converter (src/models/chat-conversion) as pure functions: every mapping
// rule of NeMo Gym's responses_converter.py, without HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ChatConversionError,
  assistantMessageToOutputItems,
  chatCompletionToResponse,
  chatMessagesToResponseItems,
  chatRequestToResponsesParams,
  moveThinkTagsToReasoningFields,
  reasoningFieldsToThinkTags,
  responsesToChatRequest,
  splitThinkTags,
  wrapInThinkTags,
} from "../../../src/models/chat-conversion/index.ts";
import { ChatCompletionCreateParamsSchema, ChatCompletionSchema, ResponseCreateParamsSchema } from "../../../src/protocol/index.ts";

const fixedIds = { newId: (prefix: string) => `${prefix}_123` };
const tool = { type: "function", name: "get_weather", description: "Get weather", parameters: { type: "object", properties: {} }, strict: true };
const chatTool = { type: "function", function: { name: "get_weather", description: "Get weather", parameters: { type: "object", properties: {} } } };
const messagesOf = (input: unknown, extra: Record<string, unknown> = {}, options = {}) => responsesToChatRequest({ input, ...extra }, options).messages;

// ---- <think> tags ----

test("wrapInThinkTags wraps each text and skips empty ones", () => {
  assert.equal(wrapInThinkTags(["a", "", "b"]), "<think>a</think><think>b</think>");
  assert.equal(wrapInThinkTags([]), "");
});

test("splitThinkTags returns every block in order and the content without them, whitespace kept", () => {
  assert.deepEqual(splitThinkTags("before<think>thought 1</think>middle<think>thought\n2</think>after"), { reasoning: ["thought 1", "thought\n2"], content: "beforemiddleafter" });
  assert.deepEqual(splitThinkTags("no reasoning here"), { reasoning: [], content: "no reasoning here" });
  assert.deepEqual(splitThinkTags("<think> \n I'm thinking \n </think> \n chatting \n"), { reasoning: [" \n I'm thinking \n "], content: " \n chatting \n" });
});

test("moveThinkTagsToReasoningFields sends the first block as reasoning_content and reasoning, or drops it", () => {
  const messages = [
    { role: "user", content: "<think>not touched</think>" },
    { role: "assistant", content: "<think>r1</think>text<think>r2</think>", tool_calls: [] },
    { role: "assistant", content: [{ type: "text", text: "<think>from a part</think>part" }] },
    { role: "assistant", content: null },
  ];
  assert.deepEqual(moveThinkTagsToReasoningFields(messages, { keepReasoning: true }), [
    messages[0],
    { role: "assistant", content: "text", tool_calls: [], reasoning_content: "r1", reasoning: "r1" },
    { role: "assistant", content: [{ type: "text", text: "part" }], reasoning_content: "from a part", reasoning: "from a part" },
    { role: "assistant", content: null },
  ]);
  assert.deepEqual(moveThinkTagsToReasoningFields(messages, { keepReasoning: false })[1], { role: "assistant", content: "text", tool_calls: [] });
  assert.equal(messages[1]!.content, "<think>r1</think>text<think>r2</think>", "the input is not mutated");
});

test("reasoningFieldsToThinkTags puts a parser's reasoning back in front of the content", () => {
  assert.deepEqual(reasoningFieldsToThinkTags({ role: "assistant", content: " hi", reasoning_content: "r", reasoning: null }), { role: "assistant", content: "<think>r</think> hi" });
  assert.deepEqual(reasoningFieldsToThinkTags({ role: "assistant", content: null, reasoning: "r" }), { role: "assistant", content: "<think>r</think>" });
  const plain = { role: "assistant", content: "hi", reasoning_content: null };
  assert.equal(reasoningFieldsToThinkTags(plain), plain);
});

// ---- Responses request → Chat request ----

test("a string input is one user message with one text part", () => {
  assert.deepEqual(messagesOf("just a string"), [{ role: "user", content: [{ type: "text", text: "just a string" }] }]);
});

test("every role maps; an item without type but with a role is a message; string content stays a string", () => {
  const messages = messagesOf([
    { role: "system", content: "sys", type: "message" },
    { role: "developer", content: [{ type: "input_text", text: "dev" }] },
    { role: "user", content: "usr" },
    { role: "assistant", content: [{ type: "input_text", text: "assistant " }, { type: "output_text", text: "content" }] },
  ]);
  assert.deepEqual(messages, [
    { role: "system", content: "sys" },
    { role: "developer", content: [{ type: "text", text: "dev" }] },
    { role: "user", content: "usr" },
    { role: "assistant", content: "assistant content", tool_calls: [] },
  ]);
});

test("instructions become one leading system message that absorbs the leading system/developer run", () => {
  assert.deepEqual(messagesOf([{ role: "user", content: "usr" }], { instructions: "you are a coding agent" }), [
    { role: "system", content: "you are a coding agent" },
    { role: "user", content: "usr" },
  ]);
  const folded = messagesOf(
    [
      { role: "system", content: "sys" },
      { role: "developer", content: [{ type: "input_text", text: "dev " }, { type: "input_text", text: "parts" }] },
      { role: "user", content: "usr" },
      { role: "system", content: "late system" },
    ],
    { instructions: "you are a coding agent" },
  );
  assert.deepEqual(folded, [
    { role: "system", content: "you are a coding agent\n\nsys\n\ndev parts" },
    { role: "user", content: "usr" },
    { role: "system", content: "late system" },
  ]);
  assert.deepEqual(messagesOf([{ role: "user", content: "usr" }], { instructions: "" }), [{ role: "user", content: "usr" }], "empty instructions add nothing");
});

test("input_image becomes image_url with detail (auto by default)", () => {
  const messages = messagesOf([
    {
      role: "user",
      content: [
        { type: "input_text", text: "what is this?" },
        { type: "input_image", image_url: "http://img", detail: "high" },
        { type: "input_image", image_url: "data:image/png;base64,AAAA" },
      ],
    },
  ]);
  assert.deepEqual(messages[0]!.content, [
    { type: "text", text: "what is this?" },
    { type: "image_url", image_url: { url: "http://img", detail: "high" } },
    { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "auto" } },
  ]);
});

test("an unknown content part, an image without URL, an unknown item type or role is a ChatConversionError naming it", () => {
  assert.throws(() => messagesOf([{ role: "user", content: [{ type: "input_file", file_id: "f" }] }]), (e: Error) => e instanceof ChatConversionError && /input\[0\]\.content\[0\].*"input_file"/.test(e.message));
  assert.throws(() => messagesOf([{ role: "user", content: [{ type: "input_image", file_id: "f", detail: "auto" }] }]), /input\[0\]\.content\[0\]: an input_image needs an image_url/);
  assert.throws(() => messagesOf([{ role: "user", content: "x" }, { type: "mcp_call", name: "n", arguments: "{}" }]), /input\[1\]: item type "mcp_call" cannot be sent/);
  assert.throws(() => messagesOf([{ role: "narrator", content: "x" }]), /input\[0\]\.role: unknown message role "narrator"/);
  assert.throws(() => messagesOf([{ role: "assistant", content: 42 }]), /input\[0\]\.content: an assistant message's content must be a string or a list/);
});

test("reasoning summaries become <think> blocks in front of the assistant text; an empty summary adds nothing", () => {
  const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "first" }, { type: "summary_text", text: "second" }] };
  assert.deepEqual(messagesOf([reasoning, { role: "assistant", content: "the answer" }]), [
    { role: "assistant", content: "<think>first</think><think>second</think>the answer", tool_calls: [] },
  ]);
  assert.deepEqual(messagesOf([{ ...reasoning, summary: [] }, { role: "assistant", content: "the answer" }]), [{ role: "assistant", content: "the answer", tool_calls: [] }]);
  assert.deepEqual(messagesOf([{ ...reasoning, summary: [] }]), [], "nothing buffered: no assistant message");
});

test("function calls join the buffered assistant message; a function_call_output flushes it and becomes a tool message", () => {
  const messages = messagesOf([
    { role: "user", content: "call a tool" },
    { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "plan" }] },
    { type: "function_call", call_id: "call_1", name: "a", arguments: '{"x": 1}', id: "fc_1", status: "completed" },
    { type: "function_call", call_id: "call_2", name: "b", arguments: "{}" },
    { type: "function_call_output", call_id: "call_1", output: "one" },
    { type: "function_call_output", call_id: "call_2", output: "two" },
    { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done", annotations: [] }] },
  ]);
  assert.deepEqual(messages, [
    { role: "user", content: "call a tool" },
    {
      role: "assistant",
      content: "<think>plan</think>",
      tool_calls: [
        { id: "call_1", function: { arguments: '{"x": 1}', name: "a" }, type: "function" },
        { id: "call_2", function: { arguments: "{}", name: "b" }, type: "function" },
      ],
    },
    { content: "one", role: "tool", tool_call_id: "call_1" },
    { content: "two", role: "tool", tool_call_id: "call_2" },
    { role: "assistant", content: "done", tool_calls: [] },
  ]);
});

test("a function call alone gives an assistant message with content null", () => {
  assert.deepEqual(messagesOf([{ type: "function_call", call_id: "c", name: "n", arguments: "{}" }]), [
    { role: "assistant", content: null, tool_calls: [{ id: "c", function: { arguments: "{}", name: "n" }, type: "function" }] },
  ]);
});

test("consecutive assistant texts merge into one message until a user message flushes", () => {
  assert.deepEqual(
    messagesOf([
      { role: "assistant", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "u" },
      { role: "assistant", content: "c" },
    ]),
    [
      { role: "assistant", content: "ab", tool_calls: [] },
      { role: "user", content: "u" },
      { role: "assistant", content: "c", tool_calls: [] },
    ],
  );
});

test("tools lose type and strict, max_output_tokens becomes max_tokens, model and chat-known fields pass", () => {
  const body = responsesToChatRequest({
    input: "hi",
    model: "my-model",
    max_output_tokens: 128,
    tools: [tool, { type: "function", name: "bare", parameters: null, strict: null }],
    tool_choice: "auto",
    parallel_tool_calls: false,
    temperature: 0.3,
    top_p: 0.9,
    top_logprobs: 2,
    metadata: { k: "v" },
    store: false,
    service_tier: "auto",
    user: "u",
    // Responses-only fields are dropped.
    reasoning: { effort: "low" },
    text: { format: { type: "text" } },
    include: ["reasoning.encrypted_content"],
    truncation: "auto",
    background: false,
    max_tool_calls: 3,
    previous_response_id: "resp_1",
  });
  assert.deepEqual(body, {
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    model: "my-model",
    max_tokens: 128,
    metadata: { k: "v" },
    parallel_tool_calls: false,
    service_tier: "auto",
    store: false,
    temperature: 0.3,
    tool_choice: "auto",
    tools: [chatTool, { type: "function", function: { name: "bare" } }],
    top_logprobs: 2,
    top_p: 0.9,
    user: "u",
  });
  assert.deepEqual(Object.keys(body), ["messages", "model", "max_tokens", "metadata", "parallel_tool_calls", "service_tier", "store", "temperature", "tool_choice", "tools", "top_logprobs", "top_p", "user"]);
  assert.ok(ChatCompletionCreateParamsSchema.safeParse(body).success, "the result is a valid chat request");
});

test("without tools, tool_choice and parallel_tool_calls are removed; tool_choice 'required' is an error", () => {
  for (const tools of [undefined, []]) {
    const body = responsesToChatRequest({ input: "hi", tool_choice: "auto", parallel_tool_calls: true, ...(tools ? { tools } : {}) });
    assert.deepEqual(Object.keys(body), ["messages"]);
    assert.throws(() => responsesToChatRequest({ input: "hi", tool_choice: "required", ...(tools ? { tools } : {}) }), (e: Error) => e instanceof ChatConversionError && /'required' needs at least one tool/.test(e.message));
  }
  assert.equal(responsesToChatRequest({ input: "hi", tools: [tool], tool_choice: "required" }).tool_choice, "required");
});

test("a Responses function tool_choice is nested the Chat way; a hosted tool or tool type is an error", () => {
  assert.deepEqual(responsesToChatRequest({ input: "hi", tools: [tool], tool_choice: { type: "function", name: "get_weather" } }).tool_choice, { type: "function", function: { name: "get_weather" } });
  assert.throws(() => responsesToChatRequest({ input: "hi", tools: [tool], tool_choice: { type: "file_search" } }), /hosted tool "file_search"/);
  assert.throws(() => responsesToChatRequest({ input: "hi", tools: [{ type: "web_search" }] }), /tools\[0\]: tool type "web_search"/);
});

test("training mode: token fields of an item ride on the next assistant message flushed; off, they are dropped", () => {
  const tokens = { prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5], generation_log_probs: [-0.1, -0.2] };
  const input = [
    { role: "user", content: "q" },
    { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "r" }] },
    { type: "function_call", call_id: "c", name: "n", arguments: "{}", ...tokens, routed_experts: "nrlre1:int16:2x1x2:AAAA" },
    { type: "function_call_output", call_id: "c", output: "out" },
  ];
  const trained = messagesOf(input, {}, { returnTokenIdInformation: true });
  assert.deepEqual(trained[1], {
    role: "assistant",
    content: "<think>r</think>",
    tool_calls: [{ id: "c", function: { arguments: "{}", name: "n" }, type: "function" }],
    ...tokens,
    routed_experts: "nrlre1:int16:2x1x2:AAAA",
  });
  assert.deepEqual(messagesOf(input)[1], { role: "assistant", content: "<think>r</think>", tool_calls: [{ id: "c", function: { arguments: "{}", name: "n" }, type: "function" }] });
  const noExperts = messagesOf([{ role: "assistant", content: "a", ...tokens, routed_experts: null }], {}, { returnTokenIdInformation: true });
  assert.deepEqual(noExperts, [{ role: "assistant", content: "a", tool_calls: [], ...tokens }], "a null routed_experts is not sent");
});

// ---- generated message → output items ----

test("a message with <think> blocks: one reasoning item with one summary per block, then the message", () => {
  const items = assistantMessageToOutputItems({ role: "assistant", content: "<think>a</think><think>b</think>Your order shipped." }, fixedIds);
  assert.deepEqual(items, [
    { id: "rs_123", summary: [{ text: "a", type: "summary_text" }, { text: "b", type: "summary_text" }], type: "reasoning", encrypted_content: null },
    { id: "msg_123", content: [{ annotations: [], text: "Your order shipped.", type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" },
  ]);
});

test("without reasoning parsing the <think> text stays in the message", () => {
  const items = assistantMessageToOutputItems({ role: "assistant", content: "<think>r</think>answer" }, { ...fixedIds, usesReasoningParser: false });
  assert.equal(items.length, 1);
  assert.equal((items[0] as any).content[0].text, "<think>r</think>answer");
});

test("an empty generation is one empty message; reasoning-only or tool-only output has no message", () => {
  assert.deepEqual(assistantMessageToOutputItems({ role: "assistant", content: null }, fixedIds).map((i) => i.type), ["message"]);
  assert.equal((assistantMessageToOutputItems({ role: "assistant", content: "" }, fixedIds)[0] as any).content[0].text, "");
  assert.deepEqual(assistantMessageToOutputItems({ role: "assistant", content: "<think>r</think>" }, fixedIds).map((i) => i.type), ["reasoning"]);
  const calls = assistantMessageToOutputItems(
    { role: "assistant", content: "", tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
    fixedIds,
  );
  assert.deepEqual(calls, [{ arguments: "{}", call_id: "call_1", name: "get_weather", type: "function_call", id: "call_1", status: "completed" }]);
});

test("training mode: only the last item carries the token fields (routed_experts only when present)", () => {
  const message = {
    role: "assistant",
    content: "<think>r</think>text",
    tool_calls: [{ id: "c", type: "function", function: { name: "n", arguments: "{}" } }],
    prompt_token_ids: [1, 2],
    generation_token_ids: [3],
    generation_log_probs: [-0.1],
    routed_experts: [[[0, 1]]],
  };
  const items = assistantMessageToOutputItems(message, { ...fixedIds, returnTokenIdInformation: true });
  assert.deepEqual(items.map((i) => "prompt_token_ids" in i), [false, false, true]);
  assert.deepEqual(items[2], { prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.1], routed_experts: [[[0, 1]]], arguments: "{}", call_id: "c", name: "n", type: "function_call", id: "c", status: "completed" });
  assert.ok(!("prompt_token_ids" in assistantMessageToOutputItems(message, fixedIds).at(-1)!), "not in training mode: no token fields");
});

test("chatCompletionToResponse builds NeMo Gym's envelope: echoes, usage, created_at, incomplete_details", () => {
  const params = ResponseCreateParamsSchema.parse({ input: "hello", model: "served-model", temperature: 0.5, max_output_tokens: 10, metadata: { a: "b" }, instructions: "be brief" });
  const completion = ChatCompletionSchema.parse({
    id: "x",
    created: 1691418000,
    model: "upstream",
    object: "chat.completion",
    choices: [{ index: 0, finish_reason: "length", message: { role: "assistant", content: "hi" } }],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 99 },
  });
  const response = chatCompletionToResponse(params, completion, fixedIds);
  assert.match(response.id, /^resp_[0-9a-f]{32}$/);
  const { id: _id, ...rest } = response;
  assert.deepEqual(rest, {
    created_at: 1691418000,
    error: null,
    incomplete_details: { reason: "max_output_tokens" },
    instructions: "be brief",
    metadata: { a: "b" },
    model: "served-model",
    object: "response",
    output: [{ id: "msg_123", content: [{ annotations: [], text: "hi", type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" }],
    parallel_tool_calls: true,
    temperature: 0.5,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    background: null,
    conversation: null,
    max_output_tokens: 10,
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
    usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 3 },
    user: null,
  });
  const filtered = chatCompletionToResponse(params, { ...completion, choices: [{ ...completion.choices[0]!, finish_reason: "content_filter" }], usage: null }, fixedIds);
  assert.deepEqual(filtered.incomplete_details, { reason: "content_filter" });
  assert.equal(filtered.usage, null);
});

test("chat messages map back to Responses items, and a generated turn round-trips to the same chat message", () => {
  const items = chatMessagesToResponseItems(
    [
      { role: "system", content: "sys" },
      { role: "user", content: null },
      { role: "assistant", content: "<think>thinking</think>chatting", tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city": "nyc"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "result" },
    ],
    fixedIds,
  );
  assert.deepEqual(items.map((i) => i.type), ["message", "message", "reasoning", "message", "function_call", "function_call_output"]);
  assert.equal(items[1]!.content, "");
  assert.throws(() => chatMessagesToResponseItems([{ role: "alien", content: "x" }]), /messages\[0\]\.role: unknown role "alien"/);

  const back = responsesToChatRequest({ input: items.slice(2, 5) }).messages;
  assert.deepEqual(back, [
    { role: "assistant", content: "<think>thinking</think>chatting", tool_calls: [{ id: "call_1", function: { arguments: '{"city": "nyc"}', name: "get_weather" }, type: "function" }] },
  ]);
});

test("a chat request maps to valid Responses params", () => {
  const chat = ChatCompletionCreateParamsSchema.parse({
    messages: [{ role: "user", content: "hi" }],
    model: "m",
    max_completion_tokens: 5,
    reasoning_effort: "low",
    tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
  });
  const params = chatRequestToResponsesParams(chat);
  const parsed = ResponseCreateParamsSchema.safeParse(params);
  assert.ok(parsed.success, parsed.error?.message);
  assert.deepEqual(parsed.data.tools, [{ name: "f", parameters: { type: "object" }, strict: null, type: "function" }]);
  assert.deepEqual(parsed.data.reasoning, { effort: "low" });
  assert.equal(parsed.data.max_output_tokens, 5);
});
