// laxValidate hands the zod parses its walk made on to the zod parse that ends the call (walk-parses.ts): the
// output must be exactly what zod alone makes of a body that needs no coercion, with no object shared between two
// places of the output, none with the input that zod's own output does not share (token lists pass as they are), and a body whose items fit no member still fails where it did.
import { test } from "node:test";
import assert from "node:assert/strict";
import { laxValidate } from "../../src/python/pydantic/index.ts";
import { BaseVerifyRequestSchema, ResponseCreateParamsSchema } from "../../src/protocol/index.ts";

const tool = () => ({ type: "function", name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } }, strict: false, description: "Look a word up." });
const tokens = () => ({ prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5], generation_log_probs: [-0.5, -0.25] });
const items = [
  { role: "system", content: "Answer briefly." },
  { role: "user", content: "Define 'gym'.", type: "message" },
  { role: "user", content: [{ type: "input_text", text: "and 'rollout'" }], type: "message", status: "completed" },
  { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "look it up" }], ...tokens() },
  { type: "function_call", call_id: "call_1", name: "lookup", arguments: '{"q": "gym"}', id: "fc_1", status: "completed", ...tokens() },
  { type: "function_call_output", call_id: "call_1", output: "a place to exercise" },
  { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "A place to exercise.", annotations: [] }] },
];
const params = { input: items, tools: [tool()], tool_choice: "auto", parallel_tool_calls: true };
const response = {
  id: "resp_1",
  created_at: 1_700_000_000,
  model: "m",
  object: "response",
  output: structuredClone(items.slice(3)),
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [tool()],
};
const verifyBody = { responses_create_params: params, response, expected: "exercise", _ng_task_index: 3 };

/** Every object of `value`, each once; throws when one is reached twice. */
function objectsOf(value: unknown, seen = new Set<object>()): Set<object> {
  if (typeof value !== "object" || value === null) return seen;
  assert.ok(!seen.has(value), "an object appears twice in the output");
  seen.add(value);
  for (const child of Object.values(value)) objectsOf(child, seen);
  return seen;
}

for (const [name, schema, body] of [
  ["create params", ResponseCreateParamsSchema, params],
  ["verify request", BaseVerifyRequestSchema, verifyBody],
] as const) {
  test(`${name}: the output is zod's own, key order included, and shares no object`, () => {
    const lax = laxValidate(schema, structuredClone(body));
    const zod = schema.safeParse(structuredClone(body));
    assert.ok(lax.success && zod.success);
    assert.equal(JSON.stringify(lax.data), JSON.stringify(zod.data));
    assert.deepEqual(lax.data, zod.data);
    // The objects each output shares with its input: the same (token lists are passed through as they are).
    const shared = (output: unknown, input: unknown) => [...objectsOf(output)].filter((object) => objectsOf(input).has(object)).length;
    const laxInput = structuredClone(body);
    const zodInput = structuredClone(body);
    assert.equal(shared((laxValidate(schema, laxInput) as { data: unknown }).data, laxInput), shared(schema.parse(zodInput), zodInput));
  });

  test(`${name}: the same body twice in a row validates the same (nothing is kept between calls)`, () => {
    const input = structuredClone(body);
    const first = laxValidate(schema, input);
    const second = laxValidate(schema, input);
    assert.ok(first.success && second.success);
    assert.equal(JSON.stringify(first.data), JSON.stringify(second.data));
    assert.notEqual(first.data, second.data);
  });
}

test("an item that fits no member still fails at its place, with the report it had", () => {
  const broken = structuredClone(params);
  (broken.input[4] as Record<string, unknown>).arguments = 12;
  const lax = laxValidate(ResponseCreateParamsSchema, broken);
  assert.ok(!lax.success);
  assert.ok(lax.errors.length > 0);
  assert.ok(lax.errors.every((error) => error.loc[0] === "input" && error.loc[1] === 4), JSON.stringify(lax.errors));
  // Once more with the item fixed: a failure in one call leaves nothing behind for the next.
  (broken.input[4] as Record<string, unknown>).arguments = "{}";
  assert.ok(laxValidate(ResponseCreateParamsSchema, broken).success);
});
