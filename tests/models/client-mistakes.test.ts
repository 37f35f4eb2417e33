// A model server's answer to a caller's mistake is a 4xx naming the field, over real HTTP: a tool schema whose
// keywords have the wrong shape (a TypeError deep in the scripted model before), an Anthropic Messages request
// without what Anthropic's API requires, and Python's non-finite numbers in typed fields.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { http, serverDefinition, startServers, type InProcessGraph } from "../../src/testing/index.ts";
import { toolSchemaProblems } from "../../src/models/tool-parameters.ts";

let graph: InProcessGraph;
const client = http();
let base: string;

before(async () => {
  graph = await startServers({ model: [await serverDefinition("responses_api_models/scripted_model")] });
  base = graph.url("model");
});
after(async () => {
  await graph.close();
  await client.close();
});

type Detail = { type: string; loc: (string | number)[]; msg: string };
const post = (path: string, json: unknown) => client.request(`${base}${path}`, { method: "POST", json });
const locsOf = (text: string) => (JSON.parse(text) as { detail: Detail[] }).detail.map((d) => d.loc);
const schema = (required: unknown) => ({ type: "object", properties: { x: { type: "integer" } }, required });

test('"required": 1 in a tool schema is a 422 naming tools.N.parameters.required on every dialect; the server keeps serving', async () => {
  const responses = await post("/v1/responses", { input: "add 2", tools: [{ type: "function", name: "ok", strict: true, parameters: schema(["x"]) }, { type: "function", name: "add", strict: true, parameters: schema(1) }] });
  assert.equal(responses.status, 422, responses.text);
  assert.deepEqual(locsOf(responses.text), [["body", "tools", 1, "parameters", "required"]]);
  assert.match(responses.text, /'required' must be a list of property names/);

  const chat = await post("/v1/chat/completions", { messages: [{ role: "user", content: "add 2" }], tools: [{ type: "function", function: { name: "add", parameters: schema(1) } }] });
  assert.equal(chat.status, 422, chat.text);
  assert.deepEqual(locsOf(chat.text), [["body", "tools", 0, "function", "parameters", "required"]]);

  const messages = await post("/v1/messages", { model: "m", max_tokens: 16, messages: [{ role: "user", content: "add 2" }], tools: [{ name: "add", input_schema: schema(1) }] });
  assert.equal(messages.status, 422, messages.text);
  assert.deepEqual(locsOf(messages.text), [["body", "tools", 0, "input_schema", "required"]]);

  const streamed = await post("/v1/responses", { input: "add 2", stream: true, tools: [{ type: "function", name: "add", strict: true, parameters: schema("x") }] });
  assert.equal(streamed.status, 422, streamed.text);

  assert.equal((await post("/v1/responses", { input: "add 2", tools: [{ type: "function", name: "add", strict: true, parameters: schema(["x"]) }] })).status, 200);
});

test("nested schema keywords are checked where they are, without recursion", () => {
  const deep: Record<string, unknown> = { type: "object" };
  let node = deep;
  for (let i = 0; i < 5_000; i++) node = (node.properties = { p: { type: "object" } }).p as Record<string, unknown>;
  node.required = "p";
  const problems = toolSchemaProblems(deep, ["body"]);
  assert.equal(problems.length, 1);
  assert.equal(problems[0]!.loc.length, 1 + 5_000 * 2 + 1);
  assert.deepEqual(
    toolSchemaProblems({ type: 3, enum: "a", anyOf: {}, items: [{ required: [1] }], properties: { a: 5 }, additionalProperties: "no" }, []).map((p) => p.loc.join(".")).sort(),
    ["additionalProperties", "anyOf", "enum", "items.0.required", "properties.a", "type"],
  );
  assert.deepEqual(toolSchemaProblems({ type: ["string", "null"], items: true, properties: { a: true }, additionalProperties: false }, []), []);
});

test("/v1/messages: a message without content, a missing model or max_tokens are 422s naming each field", async () => {
  const answer = await post("/v1/messages", { messages: [{ role: "user", content: "hi" }, { role: "assistant" }] });
  assert.equal(answer.status, 422, answer.text);
  const detail = (JSON.parse(answer.text) as { detail: Detail[] }).detail;
  assert.deepEqual(detail.map((d) => [d.type, d.loc, d.msg]), [
    ["missing", ["body", "model"], "Field required"],
    ["missing", ["body", "messages", 1, "content"], "Field required"],
    ["missing", ["body", "max_tokens"], "Field required"],
  ]);
  const onlyContent = await post("/v1/messages", { model: "m", max_tokens: 8, messages: [{ role: "user" }] });
  assert.equal(onlyContent.status, 422);
  assert.deepEqual(locsOf(onlyContent.text), [["body", "messages", 0, "content"]]);
  // A numeric string is still pydantic's to coerce; a complete request is answered.
  assert.equal((await post("/v1/messages", { model: "m", max_tokens: "16", messages: [{ role: "user", content: "hi" }] })).status, 200);
});

test("Python's NaN in an int field is pydantic's finite_number; in a float field it is taken", async () => {
  const int = await client.request(`${base}/v1/responses`, { method: "POST", rawBody: '{"input": "hi", "max_output_tokens": NaN}' });
  assert.equal(int.status, 422, int.text);
  assert.deepEqual((JSON.parse(int.text) as { detail: Detail[] }).detail.map((d) => [d.type, d.loc]), [["finite_number", ["body", "max_output_tokens"]]]);
  const float = await client.request(`${base}/v1/responses`, { method: "POST", rawBody: '{"input": "hi", "temperature": Infinity}' });
  assert.equal(float.status, 200, float.text);
  // Echoed as NeMo Gym's servers write a non-finite float (pydantic's JSON mode): null.
  assert.equal((JSON.parse(float.text) as { temperature: unknown }).temperature, null);
});

test("an empty body to a model route is FastAPI's missing body", async () => {
  const answer = await client.request(`${base}/v1/responses`, { method: "POST", rawBody: "" });
  assert.equal(answer.status, 422);
  assert.deepEqual(JSON.parse(answer.text), { detail: [{ type: "missing", loc: ["body"], msg: "Field required", input: null }] });
});
