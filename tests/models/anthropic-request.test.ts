import { test } from "node:test";
import assert from "node:assert/strict";
import { anthropicRequestToResponses } from "../../src/models/anthropic/index.ts";
import { ResponseCreateParamsSchema } from "../../src/protocol/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { laxValidate } from "../../src/python/pydantic/index.ts";

/** Converts a request whose only messages are `messages` (plus any extra top-level fields). */
function convert(messages: unknown[], extra: Record<string, unknown> = {}) {
  return anthropicRequestToResponses({ max_tokens: 64, messages, ...extra }) as Record<string, any>;
}

/** The 422 a bad request produces, as its FastAPI detail entries. */
function rejection(body: unknown) {
  try {
    anthropicRequestToResponses(body);
  } catch (error) {
    assert.ok(error instanceof RequestValidationError, `expected a RequestValidationError, got ${error}`);
    assert.equal(error.statusCode, 422);
    return error.detail;
  }
  assert.fail(`expected ${JSON.stringify(body)} to be rejected`);
}

const HEX32 = /^[0-9a-f]{32}$/;

// ---- top-level fields ----

test("model, max_tokens, temperature and top_p map onto the Responses sampling fields", () => {
  const params = anthropicRequestToResponses({
    model: "claude-haiku",
    system: "Answer in one word.",
    max_tokens: 128,
    temperature: 0.25,
    top_p: 0.75,
    messages: [{ role: "user", content: "Capital of Peru?" }],
  });
  // Only the fields that were set, in the order NeMo Gym's params model declares them.
  assert.equal(
    JSON.stringify(params),
    JSON.stringify({
      input: [{ content: "Capital of Peru?", role: "user", type: "message" }],
      instructions: "Answer in one word.",
      max_output_tokens: 128,
      model: "claude-haiku",
      temperature: 0.25,
      top_p: 0.75,
    }),
  );
});

test("null sampling fields count as absent", () => {
  const params = convert([{ role: "user", content: "x" }], { model: null, max_tokens: null, temperature: null, top_p: null, tools: null, tool_choice: null, system: null });
  assert.deepEqual(Object.keys(params), ["input"]);
});

test("fields NeMo Gym does not map are accepted and dropped", () => {
  const params = convert([{ role: "user", content: "x" }], {
    stop_sequences: ["END"],
    metadata: { user_id: "u-7" },
    top_k: 5,
    thinking: { type: "enabled", budget_tokens: 1024 },
    service_tier: "auto",
    stream: true,
    anthropic_beta_field: { anything: 1 },
  });
  assert.deepEqual(Object.keys(params), ["input", "max_output_tokens"]);
});

test("the converted request satisfies the strict Responses params schema", () => {
  const params = convert(
    [
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image", source: { type: "base64", media_type: "image/gif", data: "R0lG" } }] },
      { role: "assistant", content: [{ type: "thinking", thinking: "plan", signature: "sig" }, { type: "tool_use", id: "toolu_9", name: "zoom", input: { level: 2 } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "zoomed" }] },
    ],
    { system: "be brief", tools: [{ name: "zoom", input_schema: { type: "object", properties: { level: { type: "integer" } } } }], tool_choice: { type: "any" } },
  );
  const parsed = ResponseCreateParamsSchema.safeParse(params);
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
});

// ---- system prompt ----

test("a system string becomes the instructions", () => {
  assert.equal(convert([{ role: "user", content: "hi" }], { system: "You are terse." }).instructions, "You are terse.");
});

test("system text blocks are joined with newlines, skipping empty and non-text blocks", () => {
  const params = convert([{ role: "user", content: "hi" }], {
    system: [
      { type: "text", text: "Rule one." },
      { type: "text", text: "" },
      { type: "image", source: {} },
      { type: "text", text: "Rule two.", cache_control: { type: "ephemeral" } },
    ],
  });
  assert.equal(params.instructions, "Rule one.\nRule two.");
});

test("no system, or a system without any text, leaves instructions unset", () => {
  assert.equal("instructions" in convert([{ role: "user", content: "hi" }]), false);
  assert.equal("instructions" in convert([{ role: "user", content: "hi" }], { system: [{ type: "text", text: "" }] }), false);
  assert.equal("instructions" in convert([{ role: "user", content: "hi" }], { system: "" }), false);
});

test("a system-role message inside messages is forwarded as a system item, not merged", () => {
  const { input } = convert([
    { role: "system", content: "Prefer metric units." },
    { role: "user", content: "How far is it?" },
  ]);
  assert.deepEqual(input, [
    { content: "Prefer metric units.", role: "system", type: "message" },
    { content: "How far is it?", role: "user", type: "message" },
  ]);
});

// ---- message content ----

test("a message without content becomes an empty string message", () => {
  assert.deepEqual(convert([{ role: "assistant" }]).input, [{ content: "", role: "assistant", type: "message" }]);
});

test("a lone text block becomes a plain string message; several become input_text parts", () => {
  assert.deepEqual(convert([{ role: "user", content: [{ type: "text", text: "only me" }] }]).input, [
    { content: "only me", role: "user", type: "message" },
  ]);
  assert.deepEqual(convert([{ role: "user", content: [{ type: "text", text: "one" }, { type: "text" }] }]).input, [
    { content: [{ text: "one", type: "input_text" }, { text: "", type: "input_text" }], role: "user", type: "message" },
  ]);
});

test("an empty block list produces no items", () => {
  assert.deepEqual(convert([{ role: "user", content: [] }]).input, []);
});

test("text and base64 image blocks group into one message with a data-URL image part", () => {
  const { input } = convert([
    {
      role: "user",
      content: [
        { type: "text", text: "Which animal is this?" },
        { type: "image", source: { type: "base64", media_type: "image/webp", data: "UklGRg==" } },
      ],
    },
  ]);
  assert.equal(
    JSON.stringify(input),
    JSON.stringify([
      {
        content: [
          { text: "Which animal is this?", type: "input_text" },
          { detail: "auto", type: "input_image", image_url: "data:image/webp;base64,UklGRg==" },
        ],
        role: "user",
        type: "message",
      },
    ]),
  );
});

test("an assistant tool_use becomes a function_call after the text before it", () => {
  const { input } = convert([
    {
      role: "assistant",
      content: [
        { type: "text", text: "Checking the forecast." },
        { type: "tool_use", id: "toolu_abc", name: "forecast", input: { city: "Lima", days: 3 } },
      ],
    },
  ]);
  assert.equal(input.length, 2);
  assert.deepEqual(input[0], { content: "Checking the forecast.", role: "assistant", type: "message" });
  assert.equal(
    JSON.stringify(input[1]),
    JSON.stringify({
      arguments: '{"city": "Lima", "days": 3}',
      call_id: "toolu_abc",
      name: "forecast",
      type: "function_call",
      id: "toolu_abc",
      status: "completed",
    }),
  );
  assert.deepEqual(JSON.parse(input[1].arguments), { city: "Lima", days: 3 });
});

test("tool_use arguments are written the way Python's json.dumps writes them", () => {
  const { input } = convert([
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "greet", input: { name: "Zoë", tags: ["a", "b"], nested: {} } }] },
  ]);
  assert.equal(input[0].arguments, '{"name": "Zo\\u00eb", "tags": ["a", "b"], "nested": {}}');
});

test("a tool_use without input gets empty-object arguments", () => {
  const { input } = convert([{ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "now" }] }]);
  assert.equal(input[0].arguments, "{}");
});

test("blocks keep their order: text, call, text become message, function_call, message", () => {
  const { input } = convert([
    {
      role: "assistant",
      content: [
        { type: "text", text: "before" },
        { type: "tool_use", id: "t1", name: "f", input: {} },
        { type: "text", text: "after" },
      ],
    },
  ]);
  assert.deepEqual(
    input.map((item: { type: string }) => item.type),
    ["message", "function_call", "message"],
  );
  assert.equal(input[2].content, "after");
});

test("a tool_result with string content becomes a function_call_output", () => {
  const { input } = convert([{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_abc", content: "18°C, cloudy" }] }]);
  assert.deepEqual(input, [{ call_id: "toolu_abc", output: "18°C, cloudy", type: "function_call_output" }]);
});

test("tool_result text blocks are joined with newlines; missing content is an empty output", () => {
  const { input } = convert([
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "line 1" }, { type: "text", text: "line 2" }], is_error: false },
        { type: "tool_result", tool_use_id: "t2" },
      ],
    },
  ]);
  assert.equal(input[0].output, "line 1\nline 2");
  assert.equal(input[1].output, "");
});

test("text after a tool_result in the same user turn becomes its own message", () => {
  const { input } = convert([
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: "42" },
        { type: "text", text: "Now double it." },
      ],
    },
  ]);
  assert.deepEqual(input[1], { content: "Now double it.", role: "user", type: "message" });
});

test("a thinking block becomes a reasoning item carrying the signature as encrypted_content", () => {
  const { input } = convert([{ role: "assistant", content: [{ type: "thinking", thinking: "Two cases to check.", signature: "sig-xyz" }] }]);
  assert.equal(input.length, 1);
  const [reasoning] = input;
  assert.deepEqual(Object.keys(reasoning), ["id", "summary", "type", "encrypted_content"]);
  assert.match(reasoning.id, /^rs_[0-9a-f]{32}$/);
  assert.deepEqual(reasoning.summary, [{ text: "Two cases to check.", type: "summary_text" }]);
  assert.equal(reasoning.type, "reasoning");
  assert.equal(reasoning.encrypted_content, "sig-xyz");
});

test("a thinking block without a signature has null encrypted_content", () => {
  const [reasoning] = convert([{ role: "assistant", content: [{ type: "thinking", thinking: "hmm" }] }]).input;
  assert.equal(reasoning.encrypted_content, null);
  assert.match(reasoning.id.slice(3), HEX32);
});

// ---- tools and tool_choice ----

test("tools become non-strict function tools with input_schema as parameters", () => {
  const schema = { type: "object", properties: { query: { type: "string" } }, required: ["query"] };
  const params = convert([{ role: "user", content: "x" }], {
    tools: [
      { name: "search", description: "Search the docs.", input_schema: schema },
      { name: "ping", input_schema: {} },
      { type: "bash_20250124", name: "bash" },
    ],
  });
  assert.equal(
    JSON.stringify(params.tools),
    JSON.stringify([
      { name: "search", parameters: schema, strict: false, type: "function", description: "Search the docs." },
      { name: "ping", parameters: { type: "object", properties: {} }, strict: false, type: "function", description: null },
      { name: "bash", parameters: { type: "object", properties: {} }, strict: false, type: "function", description: null },
    ]),
  );
});

test("an empty tools list sets no tools", () => {
  assert.equal("tools" in convert([{ role: "user", content: "x" }], { tools: [] }), false);
});

test("tool_choice auto, none, any and tool map to auto, none, required and a function choice", () => {
  const choose = (toolChoice: unknown) => convert([{ role: "user", content: "x" }], { tool_choice: toolChoice }).tool_choice;
  assert.equal(choose({ type: "auto" }), "auto");
  assert.equal(choose({ type: "none" }), "none");
  assert.equal(choose({ type: "any", disable_parallel_tool_use: true }), "required");
  assert.deepEqual(choose({ type: "tool", name: "search" }), { name: "search", type: "function" });
  assert.equal("tool_choice" in convert([{ role: "user", content: "x" }]), false);
});

// ---- bad requests: 422 naming the field ----

test("a request without messages is rejected at body.messages", () => {
  const [detail] = rejection({ model: "m", max_tokens: 10 });
  assert.deepEqual(detail.loc, ["body", "messages"]);
  assert.equal(detail.type, "missing");
});

test("messages that are not a list are rejected", () => {
  const [detail] = rejection({ messages: "hello" });
  assert.deepEqual(detail.loc, ["body", "messages"]);
  assert.equal(detail.msg, "Input should be a valid list");
});

test("a body that is not an object is rejected at body", () => {
  assert.deepEqual(rejection(["not", "an", "object"])[0].loc, ["body"]);
  assert.deepEqual(rejection(null)[0].loc, ["body"]);
});

test("an unknown role is rejected at the message's role", () => {
  const [detail] = rejection({ messages: [{ role: "user", content: "a" }, { role: "tool", content: "b" }] });
  assert.deepEqual(detail.loc, ["body", "messages", 1, "role"]);
  assert.equal(detail.input, "tool");
  assert.match(detail.msg, /'user', 'assistant', 'system' or 'developer'/);
});

test("a missing role is rejected as a missing field", () => {
  const [detail] = rejection({ messages: [{ content: "a" }] });
  assert.deepEqual(detail.loc, ["body", "messages", 0, "role"]);
  assert.equal(detail.type, "missing");
});

test("an unknown content block type is rejected at the block's type, listing the supported ones", () => {
  const [detail] = rejection({ messages: [{ role: "user", content: [{ type: "text", text: "a" }, { type: "document", source: {} }] }] });
  assert.deepEqual(detail.loc, ["body", "messages", 0, "content", 1, "type"]);
  assert.equal(detail.type, "union_tag_invalid");
  assert.equal(detail.input, "document");
  assert.match(detail.msg, /'document'.*'text', 'image', 'tool_use', 'tool_result', 'thinking'/);
});

test("a content block without a type is rejected at its type", () => {
  const [detail] = rejection({ messages: [{ role: "user", content: [{ text: "a" }] }] });
  assert.deepEqual(detail.loc, ["body", "messages", 0, "content", 0, "type"]);
  assert.equal(detail.type, "missing");
});

test("content that is neither a string nor a list is rejected at content", () => {
  const [detail] = rejection({ messages: [{ role: "user", content: null }] });
  assert.deepEqual(detail.loc, ["body", "messages", 0, "content"]);
});

test("a tool_use block without an id is rejected at its id", () => {
  const [detail] = rejection({ messages: [{ role: "assistant", content: [{ type: "tool_use", name: "f", input: {} }] }] });
  assert.deepEqual(detail.loc, ["body", "messages", 0, "content", 0, "id"]);
  assert.equal(detail.type, "missing");
});

test("URL image sources are rejected: only base64 images are supported", () => {
  const [detail] = rejection({ messages: [{ role: "user", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }] }] });
  assert.deepEqual(detail.loc, ["body", "messages", 0, "content", 0, "source", "type"]);
  assert.match(detail.msg, /'url'.*'base64'/);
});

test("unsupported image media types are rejected at media_type", () => {
  const [detail] = rejection({
    messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/bmp", data: "Qk0=" } }] }],
  });
  assert.deepEqual(detail.loc, ["body", "messages", 0, "content", 0, "source", "media_type"]);
  assert.match(detail.msg, /'image\/jpeg', 'image\/png', 'image\/gif' or 'image\/webp'/);
});

test("non-text blocks inside a tool_result are rejected", () => {
  const [detail] = rejection({
    messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "image", source: {} }] }] }],
  });
  assert.deepEqual(detail.loc, ["body", "messages", 0, "content", 0, "content", 0, "type"]);
});

test("an unknown tool_choice type is rejected at tool_choice.type", () => {
  const [detail] = rejection({ messages: [], tool_choice: { type: "sometimes" } });
  assert.deepEqual(detail.loc, ["body", "tool_choice", "type"]);
  assert.match(detail.msg, /'auto', 'any', 'tool', 'none'/);
});

test("a tool choice of type tool needs a name", () => {
  const [detail] = rejection({ messages: [], tool_choice: { type: "tool" } });
  assert.deepEqual(detail.loc, ["body", "tool_choice", "name"]);
});

test("a tool without a name, or with a non-object input_schema, is rejected at that field", () => {
  assert.deepEqual(rejection({ messages: [], tools: [{ description: "nameless" }] })[0].loc, ["body", "tools", 0, "name"]);
  assert.deepEqual(rejection({ messages: [], tools: [{ name: "f", input_schema: "object" }] })[0].loc, ["body", "tools", 0, "input_schema"]);
});

test("max_tokens, temperature and top_p travel as sent: the params model coerces or refuses them, as NeMo Gym's does", () => {
  // NeMo Gym copies them with `.get` and validates `NeMoGymResponseCreateParamsNonStreaming(**params)` in lax mode.
  const params = convert([{ role: "user", content: "x" }], { max_tokens: "16", temperature: "0.5", top_p: 1 });
  assert.deepEqual([params.max_output_tokens, params.temperature, params.top_p], ["16", "0.5", 1]);
  const validated = laxValidate(ResponseCreateParamsSchema, params);
  assert.ok(validated.success);
  assert.deepEqual([validated.data.max_output_tokens, validated.data.temperature], [16, 0.5]);
  const fractional = laxValidate(ResponseCreateParamsSchema, convert([{ role: "user", content: "x" }], { max_tokens: 12.5 }));
  assert.deepEqual(fractional.success ? [] : fractional.errors.map((e) => [e.loc.join("."), e.type]), [["max_output_tokens", "int_from_float"]]);
  const hot = laxValidate(ResponseCreateParamsSchema, convert([{ role: "user", content: "x" }], { temperature: "hot" }));
  assert.deepEqual(hot.success ? [] : hot.errors.map((e) => [e.loc.join("."), e.type]), [["temperature", "float_parsing"]]);
});

test("every problem in a request is reported, each at its own field", () => {
  const detail = rejection({ messages: [{ role: "bot", content: [{ type: "video" }] }], tools: [{ description: "nameless" }] });
  assert.deepEqual(
    detail.map((entry) => entry.loc.join(".")),
    ["body.messages.0.role", "body.messages.0.content.0.type", "body.tools.0.name"],
  );
});
