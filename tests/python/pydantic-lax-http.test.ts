// Lax mode over real HTTP: a resources server's int tool argument sent as a string counts, as under FastAPI.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { http, startServers, type InProcessGraph } from "../../src/testing/index.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";

let graph: InProcessGraph;
const client = http();
const post = (path: string, json: unknown, cookies?: Record<string, string>) => client.request(`${graph.url("counter")}${path}`, { method: "POST", json, cookies });
const emptyResponse = { id: "r", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] };

before(async () => (graph = await startServers({ counter: [counter] })));
after(async () => {
  await graph.close();
  await client.close();
});

test('{"count":"14"} adds 14; seed and verify bodies take numeric strings too', async () => {
  let cookies = (await post("/seed_session", { initial_count: " 1 " })).cookies;
  const added = await post("/increment_counter", { count: "14" }, cookies);
  assert.equal(added.status, 200);
  cookies = added.cookies;
  cookies = (await post("/increment_counter", { count: 2.0 }, cookies)).cookies;
  const read = await post("/get_counter_value", {}, cookies);
  assert.equal(read.text, '{"count":17}');
  const verified = await post("/verify", { responses_create_params: { input: "x" }, response: emptyResponse, expected_count: "17" }, read.cookies);
  assert.equal(verified.status, 200, verified.text);
  assert.equal(verified.json<{ reward: number }>().reward, 1);
});

test("a value pydantic cannot read as an int is FastAPI's exact 422 body", async () => {
  const text = await post("/increment_counter", { count: "five" });
  assert.equal(text.status, 422);
  assert.equal(text.text, '{"detail":[{"type":"int_parsing","loc":["body","count"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"five"}]}');
  const fraction = await post("/increment_counter", { count: 1.5 });
  assert.equal(fraction.status, 422);
  assert.equal(fraction.text, '{"detail":[{"type":"int_from_float","loc":["body","count"],"msg":"Input should be a valid integer, got a number with a fractional part","input":1.5}]}');
});
