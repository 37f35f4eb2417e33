import { test } from "node:test";
import assert from "node:assert/strict";
import { ResponseSchema, UsageSchema, responseOutputText } from "../../src/protocol/index.ts";

/** openai-python 2.7.2 `Response` field order (what NeMoGymResponse dumps at the pinned commit). */
const DECLARED = [
  "id",
  "created_at",
  "error",
  "incomplete_details",
  "instructions",
  "metadata",
  "model",
  "object",
  "output",
  "parallel_tool_calls",
  "temperature",
  "tool_choice",
  "tools",
  "top_p",
  "background",
  "conversation",
  "max_output_tokens",
  "max_tool_calls",
  "previous_response_id",
  "prompt",
  "prompt_cache_key",
  "reasoning",
  "safety_identifier",
  "service_tier",
  "status",
  "text",
  "top_logprobs",
  "truncation",
  "usage",
  "user",
];

const minimal = {
  id: "resp_1",
  created_at: 0,
  model: "gpt-oss-120b",
  object: "response",
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  output: [],
};

const usage = {
  input_tokens: 160,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 45,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 205,
};

test("a minimal response is filled to the full dump in declared order", () => {
  const response = ResponseSchema.parse(minimal);
  assert.deepEqual(Object.keys(response), DECLARED);
  for (const key of DECLARED) {
    if (!(key in minimal)) assert.equal(response[key as keyof typeof response], null, key);
  }
});

test("unknown top-level keys are preserved after the declared ones, in input order", () => {
  const response = ResponseSchema.parse({ store: true, ...minimal, billing: { payer: "openai" }, env_id: 7 });
  assert.deepEqual(Object.keys(response), [...DECLARED, "store", "billing", "env_id"]);
  assert.equal(response.store, true);
  assert.deepEqual(response.billing, { payer: "openai" });
});

test("required envelope fields are enforced", () => {
  for (const key of ["id", "created_at", "model", "object", "output", "parallel_tool_calls", "tool_choice", "tools"]) {
    const { [key as keyof typeof minimal]: _drop, ...rest } = minimal;
    const result = ResponseSchema.safeParse(rest);
    assert.equal(result.success, false, key);
    assert.deepEqual(result.error!.issues[0].path, [key]);
  }
  assert.equal(ResponseSchema.safeParse({ ...minimal, object: "chat.completion" }).success, false);
});

test("usage requires the token detail objects", () => {
  assert.deepEqual(UsageSchema.parse(usage), usage);
  const { input_tokens_details: _d, ...noDetails } = usage;
  assert.equal(UsageSchema.safeParse(noDetails).success, false);
  const withExtra = ResponseSchema.parse({ ...minimal, usage: { ...usage, cost: 1 } });
  assert.equal(withExtra.usage?.cost, 1, "usage is an openai model: unknown keys kept");
});

test("echoed function tools get the openai model's null defaults", () => {
  const response = ResponseSchema.parse({ ...minimal, tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: true }] });
  assert.equal(JSON.stringify(response.tools), '[{"name":"f","parameters":{"type":"object"},"strict":true,"type":"function","description":null}]');
});

test("nested envelope objects are filled like the openai models", () => {
  const response = ResponseSchema.parse({
    ...minimal,
    reasoning: { effort: "low" },
    incomplete_details: { reason: "max_output_tokens" },
    text: { format: { type: "text" } },
  });
  assert.equal(JSON.stringify(response.reasoning), '{"effort":"low","generate_summary":null,"summary":null}');
  assert.equal(JSON.stringify(response.incomplete_details), '{"reason":"max_output_tokens"}');
  assert.equal(JSON.stringify(response.text), '{"format":{"type":"text"},"verbosity":null}');
});

test("output items are validated with the NeMo Gym item union", () => {
  const response = ResponseSchema.parse({
    ...minimal,
    output: [
      { type: "reasoning", id: "r1", summary: [], status: "completed" },
      { type: "mcp_call", id: "mcp_1", name: "python", server_label: "exec", arguments: "{}", output: "42\n", status: "completed" },
      { type: "message", id: "m1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "(Answer: 42)", annotations: [] }] },
    ],
  });
  assert.deepEqual(
    response.output.map((o) => o.type),
    ["reasoning", "mcp_call", "message"],
  );
  assert.equal("status" in response.output[0], false);
  const bad = ResponseSchema.safeParse({ ...minimal, output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "x" }] }] });
  assert.equal(bad.success, false);
  assert.deepEqual(bad.error!.issues[0].path, ["output", 0]);
});

test("responseOutputText concatenates output_text parts of message items only", () => {
  const response = ResponseSchema.parse({
    ...minimal,
    output: [
      { type: "reasoning", id: "r1", summary: [{ type: "summary_text", text: "thinking" }] },
      { type: "message", id: "m1", role: "assistant", content: [{ type: "output_text", text: "Hello, ", annotations: [] }, { type: "refusal", refusal: "no" }] },
      { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
      { type: "message", id: "m2", role: "assistant", content: [{ type: "output_text", text: "world", annotations: [] }] },
    ],
  });
  assert.equal(responseOutputText(response), "Hello, world");
  assert.equal(responseOutputText(ResponseSchema.parse(minimal)), "");
});
