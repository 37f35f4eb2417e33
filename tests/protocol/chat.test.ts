import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatCompletionCreateParamsSchema, ChatCompletionSchema } from "../../src/protocol/index.ts";

const tokens = { prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-0.25] };

test("create params: unknown top-level keys are dropped, declared fields dumped in order", () => {
  const params = ChatCompletionCreateParamsSchema.parse({
    messages: [{ role: "user", content: "hi" }],
    seed: 3,
    chat_template_kwargs: { enable_thinking: false },
    zzz: 1,
  });
  assert.equal("chat_template_kwargs" in params, false);
  assert.equal("zzz" in params, false);
  assert.equal(params.seed, 3);
  assert.equal(params.parallel_tool_calls, true);
  assert.deepEqual(Object.keys(params), [
    "messages", "model", "audio", "frequency_penalty", "logit_bias", "logprobs", "max_completion_tokens",
    "max_tokens", "metadata", "modalities", "n", "parallel_tool_calls", "prediction", "presence_penalty",
    "reasoning_effort", "response_format", "seed", "service_tier", "stop", "store", "stream_options",
    "temperature", "tool_choice", "tools", "top_logprobs", "top_p", "user", "web_search_options", "stream",
  ]);
  assert.equal(params.model, null);
  assert.equal(params.tools, null);
});

test("create params: messages of every role, TypedDict-shaped", () => {
  const params = ChatCompletionCreateParamsSchema.parse({
    messages: [
      { role: "developer", content: "d", name: "n" },
      { role: "system", content: "s", extra: 1 },
      { role: "user", content: [{ type: "text", text: "x", extra: 1 }, { type: "image_url", image_url: { url: "u" } }] },
      {
        role: "assistant",
        content: null,
        reasoning_content: "dropped: not a TypedDict key",
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}", extra: 1 } }],
      },
      { role: "tool", content: "o", tool_call_id: "c" },
    ],
  });
  assert.equal(
    JSON.stringify(params.messages),
    '[{"content":"d","role":"developer","name":"n"},{"content":"s","role":"system"},' +
      '{"content":[{"text":"x","type":"text"},{"image_url":{"url":"u"},"type":"image_url"}],"role":"user"},' +
      '{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"arguments":"{}","name":"f"},"type":"function"}]},' +
      '{"content":"o","role":"tool","tool_call_id":"c"}]',
  );
});

test("create params: the deprecated function role and streaming are refused", () => {
  const fn = ChatCompletionCreateParamsSchema.safeParse({ messages: [{ role: "function", content: "x", name: "f" }] });
  assert.equal(fn.success, false);
  assert.deepEqual(fn.error!.issues[0].path, ["messages", 0, "role"]);
  const stream = ChatCompletionCreateParamsSchema.safeParse({ messages: [{ role: "user", content: "x" }], stream: true });
  assert.deepEqual(stream.error!.issues[0].path, ["stream"]);
});

test("create params: assistant messages may carry the token fields (after their own keys)", () => {
  const params = ChatCompletionCreateParamsSchema.parse({
    messages: [{ role: "assistant", content: "a", ...tokens }],
  });
  assert.equal(
    JSON.stringify(params.messages[0]),
    '{"role":"assistant","content":"a","prompt_token_ids":[1],"generation_token_ids":[2],"generation_log_probs":[-0.25]}',
  );
  const partial = ChatCompletionCreateParamsSchema.safeParse({ messages: [{ role: "assistant", content: "a", prompt_token_ids: [1] }] });
  assert.equal(partial.success, false);
  // Only assistant messages have a training variant.
  const user = ChatCompletionCreateParamsSchema.parse({ messages: [{ role: "user", content: "u", ...tokens }] });
  assert.equal(JSON.stringify(user.messages[0]), '{"content":"u","role":"user"}');
});

const completion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "Qwen/Qwen3-8B",
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        reasoning_content: "thinking",
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      logprobs: null,
      stop_reason: null,
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  prompt_logprobs: null,
};

test("ChatCompletion: unknown keys kept at every openai-model level, nulls filled", () => {
  const parsed = ChatCompletionSchema.parse(completion);
  assert.equal(
    JSON.stringify(parsed),
    '{"id":"chatcmpl-1","choices":[{"finish_reason":"tool_calls","index":0,"logprobs":null,' +
      '"message":{"content":null,"refusal":null,"role":"assistant","annotations":null,"audio":null,"function_call":null,' +
      '"tool_calls":[{"id":"c1","function":{"arguments":"{}","name":"f"},"type":"function"}],"reasoning_content":"thinking"},' +
      '"stop_reason":null}],"created":1,"model":"Qwen/Qwen3-8B","object":"chat.completion","service_tier":null,' +
      '"system_fingerprint":null,"usage":{"completion_tokens":5,"prompt_tokens":10,"total_tokens":15,' +
      '"completion_tokens_details":null,"prompt_tokens_details":null},"prompt_logprobs":null}',
  );
});

test("ChatCompletion: the choice message may be the training variant (token fields first)", () => {
  const withTokens = structuredClone(completion);
  Object.assign(withTokens.choices[0].message, tokens);
  const message = ChatCompletionSchema.parse(withTokens).choices[0].message;
  assert.deepEqual(Object.keys(message).slice(0, 4), ["prompt_token_ids", "generation_token_ids", "generation_log_probs", "content"]);
  assert.deepEqual(message.generation_token_ids, [2]);

  const partial = structuredClone(completion);
  Object.assign(partial.choices[0].message, { prompt_token_ids: [1] });
  assert.equal(ChatCompletionSchema.safeParse(partial).success, false);
});

test("ChatCompletion: finish_reason and object are checked", () => {
  const bad = structuredClone(completion);
  bad.choices[0].finish_reason = "exploded";
  assert.deepEqual(ChatCompletionSchema.safeParse(bad).error!.issues[0].path, ["choices", 0, "finish_reason"]);
  assert.equal(ChatCompletionSchema.safeParse({ ...completion, object: "response" }).success, false);
});
