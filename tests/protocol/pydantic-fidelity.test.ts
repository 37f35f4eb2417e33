// Request and response params as NeMo Gym's pydantic models (nemo_gym/openai_utils.py at 07d6b0d) validate them,
// through the lax validator every body goes through (parseBody → laxValidate).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ResponseCreateParamsSchema, ResponseSchema } from "../../src/protocol/index.ts";
import { laxValidate } from "../../src/python/pydantic/index.ts";

const response = { id: "r", created_at: 1, model: "m", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [] };

test("parallel_tool_calls takes pydantic's bool coercions", () => {
  for (const [sent, read] of [[0, false], [1, true], ["false", false], ["yes", true], ["OFF", false], ["t", true]] as const) {
    const result = laxValidate(ResponseCreateParamsSchema, { input: "x", parallel_tool_calls: sent });
    assert.equal(result.success && result.data.parallel_tool_calls, read, String(sent));
  }
  const refused = laxValidate(ResponseCreateParamsSchema, { input: "x", parallel_tool_calls: 2 });
  assert.deepEqual(refused, {
    success: false,
    errors: [{ type: "bool_parsing", loc: ["parallel_tool_calls"], msg: "Input should be a valid boolean, unable to interpret input", input: 2 }],
  });
});

test("function_call_output.output is a string or a list of input parts (Union[str, ResponseFunctionCallOutputItemListParam])", () => {
  const parts = [{ type: "input_text", text: "42" }, { type: "input_image", image_url: "data:," }];
  const result = laxValidate(ResponseCreateParamsSchema, { input: [{ type: "function_call_output", call_id: "c", output: parts }] });
  assert.equal(result.success, true);
  if (result.success) assert.deepEqual((result.data.input as { output: unknown }[])[0]!.output, parts);
  const text = laxValidate(ResponseCreateParamsSchema, { input: [{ type: "function_call_output", call_id: "c", output: "42" }] });
  assert.equal(text.success && (text.data.input as { output: unknown }[])[0]!.output, "42");
  assert.equal(laxValidate(ResponseCreateParamsSchema, { input: [{ type: "function_call_output", call_id: "c", output: [{ type: "output_text", text: "x" }] }] }).success, false);
});

test("an output item without type is NeMo Gym's BeforeValidator ValueError", () => {
  const item = { role: "assistant", content: "hi" };
  assert.deepEqual(laxValidate(ResponseSchema, { ...response, output: [item] }), {
    success: false,
    errors: [{ type: "value_error", loc: ["output", 0], msg: "Value error, Responses API output items must include a type discriminator", input: item, ctx: { error: {} } }],
  });
});

test("an output_text part without annotations is refused (annotations: List[Annotation] has no default)", () => {
  const message = (part: object) => ({ ...response, output: [{ type: "message", id: "m", role: "assistant", status: "completed", content: [part] }] });
  assert.equal(laxValidate(ResponseSchema, message({ type: "output_text", text: "hi" })).success, false);
  assert.equal(laxValidate(ResponseSchema, message({ type: "output_text", text: "hi", annotations: [] })).success, true);
});

// Union fall-through, checked against pydantic 2.13 with stand-ins of NeMo Gym's item models: NeMoGymResponseMcpListTools
// defaults every field (type, id, server_label, tools, error) and keeps extra keys (openai's BaseModel is extra="allow"),
// so an untyped item that no other member accepts validates as it and dumps its fields first, the item's keys after.
const listTools = { id: null, server_label: null, tools: [], type: "mcp_list_tools", error: null };
const firstInput = (item: unknown) => {
  const result = laxValidate(ResponseCreateParamsSchema, { input: [item] });
  return result.success ? (result.data.input as unknown[])[0] : result.errors;
};

test("an untyped message with a role in the wrong case is an mcp_list_tools item", () => {
  assert.deepEqual(firstInput({ role: "USER", content: "hi" }), { ...listTools, role: "USER", content: "hi" });
});

test("an untyped message with bad content, or an assistant message without id, is an mcp_list_tools item", () => {
  assert.deepEqual(firstInput({ role: "user", content: 5 }), { ...listTools, role: "user", content: 5 });
  const assistant = { role: "assistant", content: [{ type: "output_text", text: "x", annotations: [] }] };
  assert.deepEqual(firstInput(assistant), { ...listTools, ...assistant });
  assert.deepEqual(firstInput({ content: "hi" }), { ...listTools, content: "hi" });
});

test("a valid untyped message stays an EasyInputMessage: it sets more of that member's fields", () => {
  assert.deepEqual(firstInput({ role: "user", content: "hi" }), { content: "hi", role: "user", type: "message" });
});

test("with type: message, or an unknown type, nothing falls through: the item is refused", () => {
  for (const item of [{ type: "message", role: "USER", content: "hi" }, { type: "teleport" }]) {
    assert.equal(laxValidate(ResponseCreateParamsSchema, { input: [item] }).success, false, JSON.stringify(item));
  }
});

test("half a set of token ids is refused before the union (NeMo Gym's _validate_atomic_token_metadata), typed or not", () => {
  for (const item of [{ role: "user", content: "hi", prompt_token_ids: [1] }, { type: "function_call", call_id: "c", name: "f", arguments: "{}", prompt_token_ids: [1] }]) {
    const errors = firstInput(item) as { type: string; msg: string }[];
    assert.deepEqual(errors.map((e) => [e.type, e.msg]), [["value_error", "Value error, Token metadata must include all required fields; missing: generation_log_probs, generation_token_ids"]]);
  }
});
