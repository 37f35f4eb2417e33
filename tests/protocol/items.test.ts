import { test } from "node:test";
import assert from "node:assert/strict";
import {
  FunctionCallOutputSchema,
  FunctionCallSchema,
  OutputMessageSchema,
  ResponseInputItemSchema,
  ResponseOutputItemSchema,
} from "../../src/protocol/index.ts";

const parse = (item: unknown) => ResponseInputItemSchema.parse(item);
/** Compact JSON of the parse output: pins values and key order at once. */
const dump = (item: unknown) => JSON.stringify(parse(item));

function rejects(item: unknown) {
  const result = ResponseInputItemSchema.safeParse(item);
  assert.equal(result.success, false, `expected rejection of ${JSON.stringify(item)}`);
  return result.error!.issues;
}

const outputText = { type: "output_text", text: "hi", annotations: [] };
const tokens = { prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5] };

test("a role/content message becomes an EasyInputMessage with type filled in", () => {
  assert.equal(dump({ role: "user", content: "hi" }), '{"content":"hi","role":"user","type":"message"}');
  assert.equal(dump({ content: "sys", role: "developer", type: "message" }), '{"content":"sys","role":"developer","type":"message"}');
});

test("input parts are re-ordered like TypedDicts and unknown keys dropped", () => {
  assert.equal(
    dump({ role: "user", content: [{ type: "input_text", text: "hi", extra: 1 }] }),
    '{"content":[{"text":"hi","type":"input_text"}],"role":"user","type":"message"}',
  );
  assert.equal(
    dump({ role: "user", content: [{ image_url: "data:x", type: "input_image", detail: "auto" }] }),
    '{"content":[{"detail":"auto","type":"input_image","image_url":"data:x"}],"role":"user","type":"message"}',
  );
  // `detail` is required on image parts at the pinned openai version.
  rejects({ type: "message", role: "user", content: [{ type: "input_image", image_url: "data:x" }] });
  // Untyped, the same item falls through to mcp_list_tools (every field defaulted), as in NeMo Gym.
  assert.equal(parse({ role: "user", content: [{ type: "input_image", image_url: "data:x" }] }).type, "mcp_list_tools");
});

test("a user message carrying status is a Message (status kept); without status an EasyInputMessage", () => {
  const parts = [{ type: "input_text", text: "hi" }];
  assert.equal(
    dump({ role: "user", content: parts, status: "completed" }),
    '{"content":[{"text":"hi","type":"input_text"}],"role":"user","status":"completed","type":"message"}',
  );
  assert.equal(
    dump({ role: "user", content: parts, type: "message" }),
    '{"content":[{"text":"hi","type":"input_text"}],"role":"user","type":"message"}',
  );
});

test("an assistant message with id and output_text parts is an OutputMessage, filled to its full dump", () => {
  assert.equal(
    dump({ type: "message", role: "assistant", id: "msg_1", content: [{ type: "output_text", text: "hi", annotations: [] }] }),
    '{"id":"msg_1","content":[{"annotations":[],"text":"hi","type":"output_text","logprobs":null}],' +
      '"role":"assistant","status":"completed","type":"message"}',
  );
  assert.equal(
    dump({ id: "m", content: [{ refusal: "no", extra: 1 }] }),
    '{"id":"m","content":[{"refusal":"no","type":"refusal"}],"role":"assistant","status":"completed","type":"message"}',
  );
});

test("an assistant message with output_text parts requires an id", () => {
  const issues = rejects({ role: "assistant", content: [outputText], type: "message" });
  assert.equal(issues.length, 1);
  assert.equal(issues[0].code, "invalid_union");
  assert.match(issues[0].message, /NeMoGymResponseOutputMessage \(id: /);
  assert.throws(() => OutputMessageSchema.parse({ role: "assistant", content: [outputText] }));
});

test("assistant text content stays an EasyInputMessage (id and status are dropped)", () => {
  assert.equal(
    dump({ id: "msg_1", role: "assistant", content: "hi", status: "completed" }),
    '{"content":"hi","role":"assistant","type":"message"}',
  );
});

test("function_call and function_call_output are filled with null id/status", () => {
  assert.equal(
    dump({ type: "function_call", call_id: "c1", name: "f", arguments: "{}" }),
    '{"arguments":"{}","call_id":"c1","name":"f","type":"function_call","id":null,"status":null}',
  );
  assert.equal(
    dump({ type: "function_call_output", call_id: "c1", output: "{\"ok\":true}" }),
    '{"call_id":"c1","output":"{\\"ok\\":true}","type":"function_call_output","id":null,"status":null}',
  );
  // pydantic's type default: a typeless call is still a function_call.
  assert.equal(parse({ call_id: "c1", name: "f", arguments: "{}" }).type, "function_call");
});

test("function_call_output output is a string or a list of input parts at the pinned commit, nothing else", () => {
  // NeMo Gym's model: `output: Union[str, ResponseFunctionCallOutputItemListParam]`.
  assert.deepEqual(JSON.parse(dump({ type: "function_call_output", call_id: "c", output: [{ type: "input_text", text: "o" }] })).output, [{ type: "input_text", text: "o" }]);
  rejects({ type: "function_call_output", call_id: "c", output: { ok: true } });
});

test("reasoning status is dropped; summary parts keep unknown keys; id is required", () => {
  assert.equal(
    dump({ type: "reasoning", id: "rs_1", status: "completed", summary: [{ type: "summary_text", text: "t", extra: 1 }] }),
    '{"id":"rs_1","summary":[{"text":"t","type":"summary_text","extra":1}],"type":"reasoning","encrypted_content":null}',
  );
  const issues = rejects({ type: "reasoning", summary: [] });
  assert.deepEqual(issues.map((i) => i.path), [["id"]]);
});

test("unknown keys on NeMo Gym items are ignored", () => {
  assert.equal(
    dump({ type: "function_call", call_id: "c", name: "f", arguments: "{}", foo: 1 }),
    '{"arguments":"{}","call_id":"c","name":"f","type":"function_call","id":null,"status":null}',
  );
});

test("unknown item types and non-objects are rejected", () => {
  const issues = rejects({ type: "teleport" });
  assert.deepEqual(issues[0].path, ["type"]);
  rejects("just a string");
  // `{}` is an mcp_list_tools item upstream: all its fields have defaults.
  assert.equal(dump({}), '{"id":null,"server_label":null,"tools":[],"type":"mcp_list_tools","error":null}');
});

test("hosted MCP output items validate and keep unknown keys", () => {
  assert.equal(
    dump({ type: "mcp_call", id: "mcp_1", name: "python", server_label: "exec", arguments: "{}", output: "42\n", status: "completed" }),
    '{"id":"mcp_1","arguments":"{}","name":"python","server_label":"exec","type":"mcp_call",' +
      '"approval_request_id":null,"error":null,"output":"42\\n","status":"completed"}',
  );
  assert.equal(
    dump({ type: "mcp_call", name: "python", arguments: "{}" }),
    '{"id":null,"arguments":"{}","name":"python","server_label":null,"type":"mcp_call","approval_request_id":null,"error":null,"output":null,"status":null}',
  );
  assert.equal(
    dump({ type: "mcp_list_tools", id: "l1", server_label: "s", tools: [{ name: "python" }], vendor: "x" }),
    '{"id":"l1","server_label":"s","tools":[{"name":"python"}],"type":"mcp_list_tools","error":null,"vendor":"x"}',
  );
  assert.equal(
    dump({ type: "mcp_approval_request", id: "a1", name: "python", arguments: "{}", server_label: "s" }),
    '{"id":"a1","arguments":"{}","name":"python","server_label":"s","type":"mcp_approval_request"}',
  );
});

test("training fields pass through on the five training-capable kinds, token fields first", () => {
  const cases: [unknown, string][] = [
    [{ role: "user", content: "hi" }, '"content":"hi","role":"user","type":"message"'],
    [
      { role: "system", content: [{ type: "input_text", text: "s" }], status: "completed" },
      '"content":[{"text":"s","type":"input_text"}],"role":"system","status":"completed","type":"message"',
    ],
    [
      { id: "m", role: "assistant", content: [outputText] },
      '"id":"m","content":[{"annotations":[],"text":"hi","type":"output_text","logprobs":null}],"role":"assistant","status":"completed","type":"message"',
    ],
    [
      { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
      '"arguments":"{}","call_id":"c","name":"f","type":"function_call","id":null,"status":null',
    ],
    [{ type: "reasoning", id: "r", summary: [] }, '"id":"r","summary":[],"type":"reasoning","encrypted_content":null'],
  ];
  const tokenJson = '"prompt_token_ids":[1,2],"generation_token_ids":[3],"generation_log_probs":[-0.5]';
  for (const [item, body] of cases) {
    assert.equal(dump({ ...(item as object), ...tokens }), `{${tokenJson},${body}}`);
    assert.equal(dump(item), `{${body}}`, "no training keys appear when none are given");
  }
});

test("the standalone kind schemas accept training fields too", () => {
  const call = FunctionCallSchema.parse({ type: "function_call", call_id: "c", name: "f", arguments: "{}", ...tokens });
  assert.deepEqual(call.generation_token_ids, [3]);
  assert.equal(FunctionCallSchema.parse({ call_id: "c", name: "f", arguments: "{}" }).prompt_token_ids, undefined);
});

test("a partial set of training fields is rejected", () => {
  const base = { type: "function_call", call_id: "c", name: "f", arguments: "{}" };
  for (const partial of [
    { prompt_token_ids: [1] },
    { prompt_token_ids: [1], generation_token_ids: [2] },
    { generation_log_probs: [-1] },
    { routed_experts: "nrlre1:int16:1x1x1:AAA=" },
  ]) {
    const issues = rejects({ ...base, ...partial });
    // NeMo Gym's _validate_atomic_token_metadata: one ValueError on the item naming the missing lists.
    const missing = ["generation_log_probs", "generation_token_ids", "prompt_token_ids"].filter((key) => !(key in partial));
    assert.deepEqual(
      issues.map((i) => [i.path, i.message]),
      [[[], `Value error, Token metadata must include all required fields; missing: ${missing.join(", ")}`]],
    );
  }
  rejects({ id: "m", role: "assistant", content: [outputText], prompt_token_ids: [1] });
  rejects({ role: "user", content: "hi", prompt_token_ids: [1], generation_token_ids: [2] });
});

test("token fields must be integer / numeric lists", () => {
  const base = { type: "function_call", call_id: "c", name: "f", arguments: "{}" };
  rejects({ ...base, ...tokens, prompt_token_ids: [1.5] });
  rejects({ ...base, ...tokens, generation_log_probs: ["x"] });
});

test("routed_experts accepts a string envelope or [tokens][layers][topk] int lists, nothing else", () => {
  const base = { type: "function_call", call_id: "c", name: "f", arguments: "{}", ...tokens };
  const envelope = "nrlre1:int16:2x1x2:AAABAAIAAwA=";
  assert.equal(FunctionCallSchema.parse({ ...base, routed_experts: envelope }).routed_experts, envelope);
  assert.deepEqual(FunctionCallSchema.parse({ ...base, routed_experts: [[[0, 1]], [[2, 3]]] }).routed_experts, [[[0, 1]], [[2, 3]]]);
  // Placed right after the token lists, before the item's own fields.
  assert.deepEqual(Object.keys(parse({ ...base, routed_experts: envelope })).slice(0, 5), [
    "prompt_token_ids",
    "generation_token_ids",
    "generation_log_probs",
    "routed_experts",
    "arguments",
  ]);
  for (const bad of [42, [0, 1], [[0, 1]], [[[0.5]]], { a: 1 }, true]) {
    const issues = rejects({ ...base, routed_experts: bad });
    assert.deepEqual(issues[0].path.slice(0, 1), ["routed_experts"], JSON.stringify(bad));
  }
});

test("function_call_output has no training variant: token fields are dropped, as in pydantic", () => {
  assert.equal(
    JSON.stringify(FunctionCallOutputSchema.parse({ type: "function_call_output", call_id: "c", output: "o", ...tokens })),
    '{"call_id":"c","output":"o","type":"function_call_output","id":null,"status":null}',
  );
});

test("output items use the same union as input items", () => {
  assert.equal(ResponseOutputItemSchema, ResponseInputItemSchema);
});
