import { test } from "node:test";
import assert from "node:assert/strict";
import { ResponseCreateParamsSchema } from "../../src/protocol/index.ts";

/** The pydantic dump order of NeMoGymResponseCreateParamsNonStreaming. */
const FIELD_ORDER = [
  "background",
  "include",
  "input",
  "instructions",
  "max_output_tokens",
  "max_tool_calls",
  "metadata",
  "model",
  "parallel_tool_calls",
  "previous_response_id",
  "prompt",
  "reasoning",
  "service_tier",
  "store",
  "temperature",
  "text",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "truncation",
  "user",
  "stream",
];

const weatherTool = {
  type: "function",
  name: "get_weather",
  description: "",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: true,
};

function issuesOf(input: unknown) {
  const result = ResponseCreateParamsSchema.safeParse(input);
  assert.equal(result.success, false, "expected a validation error");
  return result.error!.issues;
}

test("seed at top level is an unrecognized key naming seed", () => {
  const issues = issuesOf({ input: "hello", seed: 42 });
  assert.equal(issues.length, 1);
  assert.equal(issues[0].code, "unrecognized_keys");
  assert.deepEqual((issues[0] as { keys: string[] }).keys, ["seed"]);
  assert.deepEqual(issues[0].path, []);
});

test("other unknown top-level params are forbidden too", () => {
  for (const key of ["conversation", "prompt_cache_key", "chat_template_kwargs", "not_a_real_field"]) {
    const issues = issuesOf({ input: "hello", [key]: 1 });
    assert.deepEqual(
      issues.map((i) => [i.code, (i as { keys?: string[] }).keys]),
      [["unrecognized_keys", [key]]],
      key,
    );
  }
});

test("seed travels as a JSON string in metadata.extra_body", () => {
  const params = ResponseCreateParamsSchema.parse({ input: "hello", metadata: { extra_body: '{"seed": 42}' } });
  assert.deepEqual(params.metadata, { extra_body: '{"seed": 42}' });
});

test("metadata values must be strings", () => {
  const issues = issuesOf({ input: "hello", metadata: { extra_body: { seed: 42 } } });
  assert.deepEqual(issues[0].path, ["metadata", "extra_body"]);
  issuesOf({ input: "hello", metadata: { n: 3 } });
});

test("input may be a plain string", () => {
  const params = ResponseCreateParamsSchema.parse({ input: "what's the weather?" });
  assert.equal(params.input, "what's the weather?");
});

test("input is required", () => {
  const issues = issuesOf({});
  assert.deepEqual(issues[0].path, ["input"]);
});

test("parse yields the full dump: declared order, nulls and defaults", () => {
  const params = ResponseCreateParamsSchema.parse({ tools: [weatherTool], input: [{ role: "user", content: "hi" }] });
  assert.deepEqual(Object.keys(params), FIELD_ORDER);
  assert.equal(params.parallel_tool_calls, true);
  assert.equal(params.tool_choice, "auto");
  assert.equal(params.stream, null);
  for (const key of FIELD_ORDER) {
    if (!["input", "parallel_tool_calls", "tool_choice", "tools"].includes(key)) {
      assert.equal(params[key as keyof typeof params], null, key);
    }
  }
  assert.deepEqual(ResponseCreateParamsSchema.parse({ input: "x" }).tools, []);
  // Exactly the bytes FastAPI would send back.
  assert.equal(
    JSON.stringify(params),
    '{"background":null,"include":null,"input":[{"content":"hi","role":"user","type":"message"}],' +
      '"instructions":null,"max_output_tokens":null,"max_tool_calls":null,"metadata":null,"model":null,' +
      '"parallel_tool_calls":true,"previous_response_id":null,"prompt":null,"reasoning":null,"service_tier":null,' +
      '"store":null,"temperature":null,"text":null,"tool_choice":"auto",' +
      '"tools":[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true,"type":"function","description":""}],' +
      '"top_logprobs":null,"top_p":null,"truncation":null,"user":null,"stream":null}',
  );
});

test("defaults are not applied over explicit values", () => {
  const params = ResponseCreateParamsSchema.parse({
    input: "x",
    parallel_tool_calls: false,
    tool_choice: "required",
    temperature: 0.7,
    max_output_tokens: 512,
    reasoning: { effort: "low" },
  });
  assert.equal(params.parallel_tool_calls, false);
  assert.equal(params.tool_choice, "required");
  assert.equal(params.temperature, 0.7);
  assert.equal(params.max_output_tokens, 512);
  assert.deepEqual(params.reasoning, { effort: "low" });
});

test("parallel_tool_calls and tool_choice are not nullable (pydantic rejects null)", () => {
  assert.deepEqual(issuesOf({ input: "x", parallel_tool_calls: null })[0].path, ["parallel_tool_calls"]);
  assert.deepEqual(issuesOf({ input: "x", tool_choice: null })[0].path, ["tool_choice"]);
});

test("stream accepts only false or null", () => {
  assert.equal(ResponseCreateParamsSchema.parse({ input: "x", stream: false }).stream, false);
  assert.equal(ResponseCreateParamsSchema.parse({ input: "x", stream: null }).stream, null);
  assert.deepEqual(issuesOf({ input: "x", stream: true })[0].path, ["stream"]);
});

test("enumerated fields reject unknown values", () => {
  assert.deepEqual(issuesOf({ input: "x", service_tier: "turbo" })[0].path, ["service_tier"]);
  assert.deepEqual(issuesOf({ input: "x", truncation: "sometimes" })[0].path, ["truncation"]);
  assert.deepEqual(issuesOf({ input: "x", include: ["everything"] })[0].path, ["include", 0]);
  assert.deepEqual(issuesOf({ input: "x", max_output_tokens: 1.5 })[0].path, ["max_output_tokens"]);
});

test("function tools need parameters and strict keys, which may be null", () => {
  const { parameters: _p, ...noParameters } = weatherTool;
  const { strict: _s, ...noStrict } = weatherTool;
  assert.deepEqual(issuesOf({ input: "x", tools: [noParameters] })[0].path, ["tools", 0, "parameters"]);
  assert.deepEqual(issuesOf({ input: "x", tools: [noStrict] })[0].path, ["tools", 0, "strict"]);

  const nullable = ResponseCreateParamsSchema.parse({
    input: "x",
    tools: [{ type: "function", name: "f", parameters: null, strict: null }],
  });
  // TypedDict semantics: declaration order, and the optional description stays absent.
  assert.equal(JSON.stringify(nullable.tools), '[{"name":"f","parameters":null,"strict":null,"type":"function"}]');
});

test("function tool keys are re-ordered and unknown keys dropped", () => {
  const params = ResponseCreateParamsSchema.parse({ input: "x", tools: [{ ...weatherTool, extra: 1 }] });
  assert.deepEqual(Object.keys(params.tools[0]), ["name", "parameters", "strict", "type", "description"]);
});

test("hosted tools pass through; unknown tool types are rejected", () => {
  const params = ResponseCreateParamsSchema.parse({ input: "x", tools: [{ type: "web_search", search_context_size: "low" }] });
  assert.deepEqual(params.tools, [{ type: "web_search", search_context_size: "low" }]);
  assert.deepEqual(issuesOf({ input: "x", tools: [{ type: "teleport" }] })[0].path, ["tools", 0, "type"]);
});

test("tool_choice accepts the option strings and the object forms", () => {
  for (const choice of [
    "none",
    "required",
    { type: "function", name: "get_weather" },
    { type: "mcp", server_label: "deepwiki" },
    { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "f" }] },
    { type: "file_search" },
  ]) {
    assert.deepEqual(ResponseCreateParamsSchema.parse({ input: "x", tool_choice: choice }).tool_choice, choice);
  }
  issuesOf({ input: "x", tool_choice: "sometimes" });
  issuesOf({ input: "x", tool_choice: { type: "function" } });
});

test("nested item errors keep their path", () => {
  const issues = issuesOf({ input: [{ role: "user", content: "ok" }, { type: "function_call", name: "f", call_id: "c" }] });
  assert.deepEqual(
    issues.map((i) => i.path),
    [["input", 1, "arguments"]],
  );
});

test("text and reasoning params are validated", () => {
  const params = ResponseCreateParamsSchema.parse({
    input: "x",
    text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true }, verbosity: "low" },
    reasoning: { effort: "high", summary: "auto" },
  });
  assert.deepEqual(params.text, {
    format: { name: "answer", schema: { type: "object" }, type: "json_schema", strict: true },
    verbosity: "low",
  });
  assert.deepEqual(issuesOf({ input: "x", reasoning: { effort: "extreme" } })[0].path, ["reasoning", "effort"]);
});
