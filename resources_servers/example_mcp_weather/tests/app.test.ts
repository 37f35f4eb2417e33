// NeMo Gym's example_mcp_weather tests, over real HTTP: the tool as a plain route and over MCP (the SDK's own
// client), each recording against the caller's Gym session, which /verify then reads.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cookieHeader } from "../../../src/client/index.ts";
import { assertRowsAreRunRequests, assistantMessage, functionCallItem, readRows, responseWith } from "../../../src/testing/index.ts";
import type { InProcessGraph } from "../../../src/testing/in-process.ts";
import { http, startServers } from "../../../src/testing/servers.ts";
import weather from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
let graph: InProcessGraph;
const client = http();
const opened: Client[] = [];

before(async () => (graph = await startServers({ example_mcp_weather: [weather, { expose_tools_over_mcp: true }] })));
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await graph.close();
  await client.close();
});

const post = (path: string, json: unknown, cookies?: Record<string, string>) => client.request(`${graph.url("example_mcp_weather")}${path}`, { method: "POST", json, cookies });
const row = (city?: string) => ({ responses_create_params: { input: [{ role: "user", content: "use the weather tool" }] }, ...(city === undefined ? {} : { verifier_metadata: { expected_city: city } }) });

type Verified = { reward: number; expected_weather: string; tool_call_seen: boolean; final_response_mentions_weather: boolean; verifier_metadata: unknown };
async function verify(cookies: Record<string, string> | undefined, city: string | undefined, answerText: string, extra: Record<string, unknown> = {}) {
  const answer = await post("/verify", { ...row(city), ...extra, response: responseWith([assistantMessage(answerText)]) }, cookies);
  assert.equal(answer.status, 200, answer.text);
  return answer;
}
const seed = async (city?: string) => (await post("/seed_session", row(city))).cookies;

test("a tool call and a final answer repeating its sentence, in the same session, score 1", async () => {
  const cookies = await seed("Lagos");
  const called = await post("/get_weather", { city: "Lagos" }, cookies);
  assert.equal(called.text, '{"weather":"The weather in Lagos is sunny and 72 F."}');
  const result = (await verify(called.cookies, "Lagos", "The weather in Lagos is sunny and 72 F.")).json<Verified>();
  assert.deepEqual([result.reward, result.tool_call_seen, result.final_response_mentions_weather], [1, true, true]);
  assert.equal(result.expected_weather, "The weather in Lagos is sunny and 72 F.");
});

test("the city and the sentence match case-insensitively (Python's casefold)", async () => {
  const cookies = (await post("/get_weather", { city: "HANOI" }, await seed("Hanoi"))).cookies;
  const result = (await verify(cookies, "Hanoi", "THE WEATHER IN HANOI IS SUNNY AND 72 F. Have fun.")).json<Verified>();
  assert.deepEqual([result.reward, result.tool_call_seen, result.final_response_mentions_weather], [1, true, true]);
  // casefold folds ß to ss, which lower-casing alone does not.
  const street = (await post("/get_weather", { city: "STRASSE" }, await seed("Straße"))).cookies;
  assert.equal((await verify(street, "Straße", "the weather in strasse is sunny and 72 f.")).json<Verified>().reward, 1);
});

test("a tool call made in another session is not seen", async () => {
  await post("/get_weather", { city: "Perth" }, await seed("Perth"));
  const result = (await verify(await seed("Perth"), "Perth", "The weather in Perth is sunny and 72 F.")).json<Verified>();
  assert.deepEqual([result.reward, result.tool_call_seen, result.final_response_mentions_weather], [0, false, true]);
});

test("a call for another city is not the expected one", async () => {
  const cookies = (await post("/get_weather", { city: "Buenos Aires" }, await seed("Montevideo"))).cookies;
  assert.equal((await verify(cookies, "Montevideo", "The weather in Montevideo is sunny and 72 F.")).json<Verified>().tool_call_seen, false);
});

test("an answer that does not repeat the sentence scores 0 even after the call", async () => {
  const cookies = (await post("/get_weather", { city: "Tallinn" }, await seed("Tallinn"))).cookies;
  const result = (await verify(cookies, "Tallinn", "Sunny in Tallinn!")).json<Verified>();
  assert.deepEqual([result.reward, result.tool_call_seen, result.final_response_mentions_weather], [0, true, false]);
});

test("only assistant message text counts: a function call's output repeating the sentence does not", async () => {
  const cookies = (await post("/get_weather", { city: "Lagos" }, await seed("Lagos"))).cookies;
  const response = responseWith([functionCallItem("get_weather", { city: "Lagos" }), { type: "function_call_output", call_id: "call_get_weather", output: "The weather in Lagos is sunny and 72 F." }]);
  const answer = await post("/verify", { ...row("Lagos"), response }, cookies);
  assert.equal(answer.json<Verified>().final_response_mentions_weather, false);
});

test("text split over two assistant messages is joined by a newline before matching", async () => {
  const cookies = (await post("/get_weather", { city: "Lagos" }, await seed("Lagos"))).cookies;
  const response = responseWith([assistantMessage("The weather in Lagos"), assistantMessage("is sunny and 72 F.")]);
  assert.equal((await post("/verify", { ...row("Lagos"), response }, cookies)).json<Verified>().final_response_mentions_weather, false);
});

test("without verifier_metadata the expected city is Paris, and verifier_metadata is echoed as null", async () => {
  const cookies = (await post("/get_weather", { city: "Paris" })).cookies;
  const answer = await verify(cookies, undefined, "The weather in Paris is sunny and 72 F.");
  assert.equal(answer.json<Verified>().reward, 1);
  assert.equal(answer.json<Verified>().verifier_metadata, null);
});

test("the response has NeMo Gym's fields in its order, then the request's other fields", async () => {
  const answer = await verify(await seed("Lagos"), "Lagos", "hi", { task_id: 7 });
  assert.deepEqual(Object.keys(answer.json<object>()), ["responses_create_params", "response", "reward", "expected_weather", "tool_call_seen", "final_response_mentions_weather", "verifier_metadata", "task_id"]);
  assert.match(answer.text, /"reward":0\.0,/);
});

test("an expected_city that is not a string is a 422 naming it", async () => {
  const answer = await post("/verify", { ...row(), verifier_metadata: { expected_city: 3 }, response: responseWith([]) });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "verifier_metadata", "expected_city"]);
});

async function mcpClient(cookies: Record<string, string> | undefined): Promise<Client> {
  const headers: Record<string, string> = cookies === undefined ? {} : { cookie: cookieHeader(cookies)! };
  const transport = new StreamableHTTPClientTransport(new URL(`${graph.url("example_mcp_weather")}/mcp`), { requestInit: { headers } });
  const mcp = new Client({ name: "weather-test", version: "0.0.0" });
  await mcp.connect(transport);
  opened.push(mcp);
  return mcp;
}

test("get_weather over MCP records against the caller's session, which /verify then rewards", async () => {
  const cookies = await seed("Lagos");
  const mcp = await mcpClient(cookies);
  assert.deepEqual((await mcp.listTools()).tools.map((t) => t.name), ["get_weather"]);
  const result = (await mcp.callTool({ name: "get_weather", arguments: { city: "Lagos" } })) as { isError?: boolean; content: { text: string }[] };
  assert.notEqual(result.isError, true);
  assert.equal(JSON.parse(result.content[0]!.text).weather, "The weather in Lagos is sunny and 72 F.");
  assert.equal((await verify(cookies, "Lagos", "The weather in Lagos is sunny and 72 F.")).json<Verified>().reward, 1);
});

test("an MCP call without the session's cookie lands in another session: the seeded one sees no call", async () => {
  const cookies = await seed("Lagos");
  await (await mcpClient(undefined)).callTool({ name: "get_weather", arguments: { city: "Lagos" } });
  assert.equal((await verify(cookies, "Lagos", "The weather in Lagos is sunny and 72 F.")).json<Verified>().tool_call_seen, false);
});

test("an MCP call without a city is an error result naming the field", async () => {
  const result = (await (await mcpClient(await seed("Lagos"))).callTool({ name: "get_weather", arguments: {} })) as { isError?: boolean; content: { text: string }[] };
  assert.equal(result.isError, true);
  assert.deepEqual(JSON.parse(result.content[0]!.text).detail[0].loc, ["body", "city"]);
});

test("the seed answer carries NeMo Gym's MCP metadata: server name, /mcp, http, and the signed session token header", async () => {
  const seeded = await post("/seed_session", row("Lagos"));
  const { mcp } = seeded.json<{ mcp: { server_name: string; url_path: string; transport: string; headers: Record<string, string> } }>();
  assert.deepEqual([mcp.server_name, mcp.url_path, mcp.transport, Object.keys(mcp.headers)], ["example_mcp_weather", "/mcp", "http", ["X-NeMo-Gym-Session-Token"]]);
  // itsdangerous' URLSafeSerializer: base64url compact JSON of {sid, tools} and its signature.
  assert.match(mcp.headers["X-NeMo-Gym-Session-Token"]!, /^[\w-]+\.[\w-]+$/);
  assert.match(Buffer.from(mcp.headers["X-NeMo-Gym-Session-Token"]!.split(".")[0]!, "base64url").toString(), /^\{"sid":"[^"]+","tools":null\}$/);
});

test("an MCP client sending only the seed answer's token (no cookie) calls the tool in that session", async () => {
  const seeded = await post("/seed_session", row("Lagos"));
  const headers = seeded.json<{ mcp: { headers: Record<string, string> } }>().mcp.headers;
  const transport = new StreamableHTTPClientTransport(new URL(`${graph.url("example_mcp_weather")}/mcp`), { requestInit: { headers } });
  const mcp = new Client({ name: "weather-token", version: "0.0.0" });
  await mcp.connect(transport);
  opened.push(mcp);
  await mcp.callTool({ name: "get_weather", arguments: { city: "Lagos" } });
  assert.equal((await verify(seeded.cookies, "Lagos", "The weather in Lagos is sunny and 72 F.")).json<Verified>().reward, 1);
});

test("a token not signed by this graph is NeMo Gym's error result, and runs nothing", async () => {
  const cookies = await seed("Lagos");
  const transport = new StreamableHTTPClientTransport(new URL(`${graph.url("example_mcp_weather")}/mcp`), { requestInit: { headers: { cookie: cookieHeader(cookies)!, "X-NeMo-Gym-Session-Token": "eyJzaWQiOiJ4In0.forged" } } });
  const mcp = new Client({ name: "weather-forged", version: "0.0.0" });
  await mcp.connect(transport);
  opened.push(mcp);
  const result = (await mcp.callTool({ name: "get_weather", arguments: { city: "Lagos" } })) as { isError?: boolean; content: { text: string }[] };
  assert.deepEqual([result.isError, result.content[0]!.text], [true, "Invalid Gym MCP session token."]);
  assert.equal((await verify(cookies, "Lagos", "x")).json<Verified>().tool_call_seen, false);
});

test("verify scores an MCP-namespaced call name as the bare tool and echoes the name as emitted", async () => {
  const { withBareToolNames } = await import("../../../src/server/mcp.ts");
  const body = { response: { output: [functionCallItem("mcp__example_mcp_weather__get_weather", { city: "Lagos" }), functionCallItem("mcp__other__get_weather", {}), functionCallItem("get_weather", {})] } };
  assert.deepEqual(withBareToolNames(body, "example_mcp_weather").response.output.map((item) => (item as { name: string }).name), ["get_weather", "mcp__other__get_weather", "get_weather"]);
  assert.equal((body.response.output[0] as { name: string }).name, "mcp__example_mcp_weather__get_weather", "the request is not changed");
  const cookies = (await post("/get_weather", { city: "Lagos" }, await seed("Lagos"))).cookies;
  const answer = await post("/verify", { ...row("Lagos"), response: responseWith([functionCallItem("mcp__example_mcp_weather__get_weather", { city: "Lagos" }), assistantMessage("The weather in Lagos is sunny and 72 F.")]) }, cookies);
  assert.equal(answer.json<{ response: { output: { name?: string }[] } }>().response.output[0]!.name, "mcp__example_mcp_weather__get_weather");
});

test("the example data has 5 valid rows, each naming its expected city", () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  for (const r of rows) assert.equal(typeof r.verifier_metadata.expected_city, "string");
});
