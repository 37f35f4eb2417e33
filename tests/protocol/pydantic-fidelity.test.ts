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
