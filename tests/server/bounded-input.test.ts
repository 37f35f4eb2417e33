// Input no server may fall over on, over real HTTP on loopback: bodies over the limit (a 413, and the server
// keeps serving), nesting past the depth limit (a 413 naming where), Python's JSON (NaN, Infinity) read as
// FastAPI reads it, FastAPI's answers to bodies that are empty or not JSON, odd bytes in cookies and tool names,
// and a small fuzz in which nothing may be a 500.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { z } from "zod";
import { createBaseApp, DEFAULT_MAX_BODY_BYTES, responsesApiModel, resourcesServer, tool, V8_MAX_STRING_LENGTH } from "../../src/server/index.ts";
import { http, serverDefinition, startServers, type InProcessGraph } from "../../src/testing/index.ts";
import { pathSegment } from "../../src/client/path-segment.ts";
import { TransportError } from "../../src/client/http-client.ts";
import { randomSessionSigning } from "../../src/server/session-cookie.ts";

type Item = Record<string, unknown>;
const SMALL_LIMIT = 64 * 1024;
const toolCalls: string[] = [];
const modelTurns: Item[][] = [];

const environment = resourcesServer({
  name: "EchoResourcesServer",
  tools: {
    echo: tool({
      input: z.object({ count: z.number().int().optional(), ratio: z.number().optional(), items: z.array(z.object({ a: z.unknown() })).optional(), metadata: z.unknown().optional() }),
      run: (_state, args) => {
        toolCalls.push("echo");
        return { count: args.count ?? null, ratio: args.ratio ?? null };
      },
    }),
  },
  verify: { input: z.object({}), run: () => ({ reward: 1 }) },
});

/** Answers each turn from the queue, else a plain message. */
const model = responsesApiModel({
  name: "QueueModel",
  config: z.looseObject({}),
  async responses({ params }) {
    const output = modelTurns.shift() ?? [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done", annotations: [] }] }];
    return {
      id: "resp_1", created_at: 1, error: null, incomplete_details: null, instructions: null, metadata: null, model: "queue", object: "response",
      output, parallel_tool_calls: params.parallel_tool_calls, temperature: null, tool_choice: "auto", tools: params.tools, top_p: null, usage: null,
    } as never;
  },
});

let graph: InProcessGraph;
const client = http();
let small: string;
let roomy: string;

before(async () => {
  graph = await startServers({
    small: [environment, { max_body_bytes: SMALL_LIMIT }],
    roomy: [environment],
    policy_model: [model],
    agent: [await serverDefinition("responses_api_agents/simple_agent"), { resources_server: { type: "resources_servers", name: "roomy" }, model_server: { type: "responses_api_models", name: "policy_model" } }],
  });
  small = graph.url("small");
  roomy = graph.url("roomy");
});
after(async () => {
  await graph.close();
  await client.close();
});

const post = (url: string, rawBody: string | Buffer, headers: Record<string, string> = {}) => client.request(url, { method: "POST", rawBody: rawBody as string, headers });
const stillServing = async (base: string) => assert.equal((await post(`${base}/echo`, '{"count": 1}')).status, 200, "the server still answers");
const detailOf = (text: string) => (JSON.parse(text) as { detail: unknown }).detail;
const nested = (depth: number, leaf = "1") => '{"a":'.repeat(depth) + leaf + "}".repeat(depth);

// ---- the body limit ----

test("the default body limit fits in a Node string, and a limit that would not is refused", () => {
  // UTF-8 never decodes to more UTF-16 units than it has bytes.
  assert.ok(DEFAULT_MAX_BODY_BYTES <= 256 * 1024 * 1024 && DEFAULT_MAX_BODY_BYTES < V8_MAX_STRING_LENGTH);
  assert.throws(() => createBaseApp({ sessionSigning: randomSessionSigning(), sessionCookieName: "X___x", bodyLimitBytes: 600_000_000 }), /max_body_bytes must be a positive integer below/);
});

test("a body over a server's max_body_bytes is a 413 saying so; the server keeps serving", async () => {
  const answer = await post(`${small}/echo`, JSON.stringify({ metadata: "x".repeat(SMALL_LIMIT) }));
  assert.equal(answer.status, 413);
  assert.deepEqual(detailOf(answer.text), `Request body is larger than ${SMALL_LIMIT} bytes (this server's max_body_bytes)`);
  await stillServing(small);
  // Just under the limit is read.
  assert.equal((await post(`${small}/echo`, JSON.stringify({ metadata: "x".repeat(SMALL_LIMIT - 100) }))).status, 200);
});

test("a 600 MB body (announced, streamed in part) is a 413 at the default limit; the server keeps serving", async () => {
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(`${roomy}/echo`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(600_000_000) } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk) => (text += chunk)).on("end", () => resolve({ status: res.statusCode!, text }));
    });
    req.on("error", reject);
    req.write('{"metadata": "' + "x".repeat(1 << 20));
  });
  assert.equal(status, 413);
  assert.match(String(detailOf(text)), new RegExp(`larger than ${DEFAULT_MAX_BODY_BYTES} bytes`));
  await stillServing(roomy);
});

test("max_body_bytes that is not a positive integer stops the server's start with a message naming it", async () => {
  await assert.rejects(startServers({ bad: [environment, { max_body_bytes: "lots" }] }), /max_body_bytes must be a positive integer/);
});

// ---- nesting ----

test("10,000 levels in an untyped field are a 413 naming the path where the limit was crossed", async () => {
  const answer = await post(`${roomy}/echo`, `{"metadata": ${nested(10_000)}}`);
  assert.equal(answer.status, 413);
  assert.equal(detailOf(answer.text), "Request body nests deeper than 1000 levels at body.metadata.a.a.a.a…a.a.a (1000 levels)");
  await stillServing(roomy);
});

test("10,000 levels in a typed field are the same 413 (the door is before validation)", async () => {
  const answer = await post(`${roomy}/echo`, `{"items": [${nested(10_000)}]}`);
  assert.equal(answer.status, 413);
  assert.match(String(detailOf(answer.text)), /^Request body nests deeper than 1000 levels at body\.items\.0\.a\.a/);
});

test("1,000 levels are read and validated (no stack overflow in the validators)", async () => {
  assert.equal((await post(`${roomy}/echo`, `{"metadata": ${nested(998)}}`)).status, 200);
  const typed = await post(`${roomy}/echo`, `{"items": [{"a": ${nested(997)}}], "count": "x"}`);
  assert.equal(typed.status, 422);
  assert.deepEqual((detailOf(typed.text) as { loc: unknown[] }[]).map((d) => d.loc), [["body", "count"]]);
});

test("the agent's /run: 10,000 levels in an extra row field are a 413 at its door, not a RangeError", async () => {
  const answer = await post(`${graph.url("agent")}/run`, `{"responses_create_params": {"input": "hi"}, "extra": ${nested(10_000)}}`);
  assert.equal(answer.status, 413);
  assert.match(String(detailOf(answer.text)), /^Request body nests deeper than 1000 levels at body\.extra\.a\.a/);
  assert.equal((await client.request(`${graph.url("agent")}/run`, { method: "POST", json: { responses_create_params: { input: "hi" } } })).status, 200);
});

// ---- Python's JSON ----

test("NaN, Infinity and -Infinity are read; a float field takes them, an int field answers pydantic's finite_number", async () => {
  for (const literal of ["NaN", "Infinity", "-Infinity"]) {
    const float = await post(`${roomy}/echo`, `{"ratio": ${literal}}`);
    assert.equal(float.status, 200, literal);
    // Written as NeMo Gym's servers write a non-finite float (pydantic's JSON mode): null.
    assert.equal(float.text, '{"count":null,"ratio":null}');
    const int = await post(`${roomy}/echo`, `{"count": ${literal}}`);
    assert.equal(int.status, 422, literal);
    assert.deepEqual(detailOf(int.text), [{ type: "finite_number", loc: ["body", "count"], msg: "Input should be a finite number", input: null }]);
  }
});

test("a body that is not JSON: FastAPI's json_invalid with Python's message and position", async () => {
  const cases: [string, number, string][] = [
    ['{"count": }', 10, "Expecting value"],
    ["{nope", 1, "Expecting property name enclosed in double quotes"],
    ['{"count" 1}', 9, "Expecting ':' delimiter"],
    ['{"count": 1,}', 12, "Expecting property name enclosed in double quotes"],
    ['{"count": 1} x', 13, "Extra data"],
    ['{"metadata": "abc', 13, "Unterminated string starting at"],
    ["   ", 3, "Expecting value"],
    ["-NaN", 0, "Expecting value"],
  ];
  for (const [body, pos, error] of cases) {
    const answer = await post(`${roomy}/echo`, body);
    assert.equal(answer.status, 422, body);
    assert.deepEqual(detailOf(answer.text), [{ type: "json_invalid", loc: ["body", pos], msg: "JSON decode error", input: {}, ctx: { error } }], body);
  }
});

test("an empty body is a tool without arguments (NeMo Gym's tools without a body model take it); bytes that are not UTF-8 are FastAPI's 400", async () => {
  assert.equal((await post(`${roomy}/echo`, "")).status, 200);
  assert.equal((await post(`${roomy}/seed_session`, "")).status, 200);
  // The agent's /run needs its row: the field is named.
  const run = await post(`${graph.url("agent")}/run`, "");
  assert.equal(run.status, 422);
  assert.deepEqual((detailOf(run.text) as { loc: unknown[] }[])[0]!.loc, ["body", "responses_create_params"]);
  const notUtf8 = await post(`${roomy}/echo`, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
  assert.equal(notUtf8.status, 400);
  assert.deepEqual(detailOf(notUtf8.text), "There was an error parsing the body");
});

// ---- odd bytes ----

test("a lone surrogate in a string is read (as Python reads it)", async () => {
  assert.equal((await post(`${roomy}/echo`, '{"metadata": "\\ud800 alone"}')).status, 200);
});

test("a tool name with a lone surrogate: the agent's call meets the resources server's 404, not a URIError 500", async () => {
  assert.equal(pathSegment("a\ud800b"), "a%EF%BF%BDb");
  assert.equal(pathSegment("\ud83d\ude00"), encodeURIComponent("\ud83d\ude00"));
  modelTurns.push([{ type: "function_call", name: "echo\ud800", arguments: "{}", call_id: "call_1", id: "fc_1", status: "completed" }]);
  const answer = await client.request(`${graph.url("agent")}/v1/responses`, { method: "POST", json: { input: "hi" } });
  assert.equal(answer.status, 200, answer.text);
  assert.doesNotMatch(answer.text, /URIError/);
});

test("cookies that are no valid header value are dropped at the door; the agent's calls on go through", async () => {
  const { status } = await new Promise<{ status: number }>((resolve, reject) => {
    const body = JSON.stringify({ input: "hi" });
    const req = httpRequest(`${graph.url("agent")}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), cookie: "good=1; bad=caf\u00e9; worse=\"\\012\"" },
    }, (res) => {
      res.resume().on("end", () => resolve({ status: res.statusCode! }));
    });
    req.on("error", reject);
    req.end(body);
  });
  assert.equal(status, 200);
  toolCalls.length = 0;
  modelTurns.push([{ type: "function_call", name: "echo", arguments: "{}", call_id: "call_2", id: "fc_2", status: "completed" }]);
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const body = JSON.stringify({ input: "hi" });
    const req = httpRequest(`${graph.url("agent")}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), cookie: "good=1; bad=caf\u00e9" },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c) => (text += c)).on("end", () => resolve({ status: res.statusCode!, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
  assert.equal(answer.status, 200, answer.text);
  assert.doesNotMatch(answer.text, /http:\/\//, "no internal address reaches the caller");
  assert.deepEqual(toolCalls, ["echo"]);
  // What every server keeps of such a header.
  const app = createBaseApp({ sessionSigning: randomSessionSigning(), sessionCookieName: "X___x" });
  app.get("/cookies", async (request) => request.cookies);
  const seen = await app.inject({ url: "/cookies", headers: { cookie: 'good=1; bad=caf\u00e9; worse="\\012"; "odd name"=2' } });
  assert.deepEqual(seen.json(), { good: "1" });
  await app.close();
});

// ---- fuzz ----

test("fuzz: no body of any shape is a 500, and the server answers afterwards", async () => {
  const huge = 2_000_000;
  const bodies: (string | Buffer)[] = [
    `{"metadata": [${"1,".repeat(huge)}1]}`,
    `{"items": [${'{"a":1},'.repeat(200_000)}{"a":2}]}`,
    `{"items": [${"1,".repeat(200_000)}1]}`,
    `{"metadata": "${"é".repeat(3_000_000)}"}`,
    `{"count": "${"9".repeat(100_000)}"}`,
    `{"count": 1e400, "ratio": -1e400}`,
    `{"count": 123456789012345678901234567890}`,
    '{"metadata": "\\udc00\\ud800"}',
    "[" .repeat(5_000),
    "{".repeat(5_000),
    '{"a":'.repeat(999) + "[" + "]" + "}".repeat(999),
    `[${nested(2_000)}]`,
    '"just a string"',
    "[]",
    "12",
    "true",
    '{"__proto__": {"count": 1}, "constructor": {"prototype": 1}}',
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from([0xc0, 0x80]),
    "\u0000",
    '{"metadata": "\u0001"}',
    '{"count": "NaN", "ratio": "inf"}',
    '{"items": [{"a": NaN}], "metadata": {"x": [Infinity, -Infinity]}}',
  ];
  for (const body of bodies) {
    const answer = await post(`${roomy}/echo`, body);
    const shown = String(body).slice(0, 40);
    assert.ok(answer.status < 500, `${shown}… answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  }
  await stillServing(roomy);
});

test("a 500 body names what failed, not the graph's addresses; public URLs (pydantic's error links) stay", async () => {
  const app = createBaseApp({ sessionSigning: randomSessionSigning(), sessionCookieName: "X___x" });
  app.get("/transport", async () => {
    throw new TransportError("http://10.0.0.7:8123/get_counter_value: socket hang up (ECONNRESET) after 1 attempt(s)", "http://10.0.0.7:8123/get_counter_value", "ECONNRESET", 1);
  });
  app.get("/named", async () => {
    throw new Error("calling http://resources_server:8000/step and http://localhost:9/x failed; see https://errors.pydantic.dev/2.13/v/int_type");
  });
  const transport = await app.inject({ url: "/transport" });
  assert.equal(transport.statusCode, 500);
  assert.doesNotMatch(transport.body, /10\.0\.0\.7|8123/);
  assert.match(transport.body, /<server>\/get_counter_value: socket hang up/);
  const named = await app.inject({ url: "/named" });
  assert.doesNotMatch(named.body, /resources_server:8000|localhost:9/);
  assert.match(named.body, /https:\/\/errors\.pydantic\.dev\/2\.13\/v\/int_type/);
  await app.close();
});
