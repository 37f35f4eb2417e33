// Tools over MCP (Streamable HTTP) with the SDK's own client, bound to the Gym session of the cookie the
// client sends: a call changes that session's state, which /verify then sees; other sessions are untouched.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cookieHeader } from "../../src/client/index.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";
import { http, startServers } from "../../src/testing/servers.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";

let graph: InProcessGraph;
const client = http();
const opened: Client[] = [];

before(async () => {
  graph = await startServers({ with_mcp: [counter, { expose_tools_over_mcp: true }], without_mcp: [counter] });
});
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await graph.close();
  await client.close();
});

const post = (instance: string, path: string, json: unknown, cookies?: Record<string, string>) =>
  client.request(`${graph.url(instance)}${path}`, { method: "POST", json, cookies });

const row = (initialCount: number, expectedCount: number) => ({
  responses_create_params: { input: "Add to the counter." },
  initial_count: initialCount,
  expected_count: expectedCount,
});
const emptyResponse = { id: "resp_1", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] };

async function seed(initialCount: number): Promise<Record<string, string>> {
  const seeded = await post("with_mcp", "/seed_session", row(initialCount, 0));
  assert.equal(seeded.status, 200);
  return seeded.cookies;
}

async function mcpClient(cookies: Record<string, string>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${graph.url("with_mcp")}/mcp`), { requestInit: { headers: { cookie: cookieHeader(cookies)! } } });
  const mcp = new Client({ name: "gym-test", version: "0.0.0" });
  await mcp.connect(transport);
  opened.push(mcp);
  return mcp;
}

const reward = async (cookies: Record<string, string>, initialCount: number, expectedCount: number) =>
  (await post("with_mcp", "/verify", { ...row(initialCount, expectedCount), response: emptyResponse }, cookies)).json<{ reward: number }>().reward;

test("tools/list gives the tools GET /tools serves: same names, descriptions and input schemas", async () => {
  const mcp = await mcpClient(await seed(0));
  const { tools } = await mcp.listTools();
  const served = (await client.request(`${graph.url("with_mcp")}/tools`)).json<{ name: string; description: string; parameters: unknown }[]>();
  assert.deepEqual(
    tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })),
    served.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
  );
});

test("a tool called over MCP changes the state of the cookie's session, which /verify sees; another session is untouched", async () => {
  const mine = await seed(2);
  const other = await seed(2);
  const mcp = await mcpClient(mine);

  const result = await mcp.callTool({ name: "increment_counter", arguments: { count: 5 } });
  assert.deepEqual(result.content, [{ type: "text", text: '{"success":true}' }]);
  assert.equal(result.isError, undefined);

  const read = await mcp.callTool({ name: "get_counter_value", arguments: {} });
  assert.deepEqual(read.content, [{ type: "text", text: '{"count":7}' }]);
  assert.deepEqual(read.structuredContent, { count: 7 });
  // The same state over the plain HTTP route.
  assert.deepEqual((await post("with_mcp", "/get_counter_value", {}, mine)).json(), { count: 7 });

  assert.equal(await reward(mine, 2, 7), 1);
  assert.equal(await reward(other, 2, 2), 1);
  assert.equal(await reward(other, 2, 7), 0);
});

test("invalid arguments over MCP are a tool error carrying the 422 detail POST /<tool> would answer", async () => {
  const cookies = await seed(0);
  const mcp = await mcpClient(cookies);
  const result = await mcp.callTool({ name: "increment_counter", arguments: { count: "five" } });
  assert.equal(result.isError, true);
  const http422 = await post("with_mcp", "/increment_counter", { count: "five" }, cookies);
  assert.equal(http422.status, 422);
  assert.deepEqual(result.content, [{ type: "text", text: http422.text }]);
  assert.equal(await reward(cookies, 0, 0), 1, "the rejected call left the counter alone");
});

test("without expose_tools_over_mcp, /mcp is 404", async () => {
  const answer = await post("without_mcp", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" });
  assert.equal(answer.status, 404);
  assert.deepEqual(answer.json(), { detail: "Not Found" });
});
