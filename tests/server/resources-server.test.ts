// The resources-server surface over real HTTP: sessions, cookies, FastAPI-shaped errors, /tools.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { z } from "zod";
import { buildServer, resourcesServer, tool, type ServerDefinition } from "../../src/server/index.ts";
import { http, startServers } from "../../src/testing/servers.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";

const notes = resourcesServer({
  name: "NotesResourcesServer",
  seed: z.object({ owner: z.string().default("nobody") }),
  state: (seed) => ({ owner: seed?.owner ?? "unseeded", notes: [] as string[] }),
  tools: {
    add_note: tool({
      description: "Store a note.",
      input: z.object({ text: z.string().describe("The note."), priority: z.number().int().optional() }),
      run: (state: { notes: string[] }, { text }) => {
        state.notes.push(text);
        return { stored: state.notes.length };
      },
    }),
    list_notes: tool({ input: z.object({}), run: (state: { owner: string; notes: string[] }) => ({ owner: state.owner, notes: state.notes }) }),
    explode: tool({ input: z.object({}), run: () => { throw new TypeError("the tool broke"); } }),
  },
  verify: {
    input: z.object({ expected_notes: z.number().int() }),
    run: (state, { expected_notes }) => ({ reward: state?.notes.length === expected_notes ? 1 : 0, note_count: state?.notes.length ?? null }),
  },
});

const COOKIE = "NotesResourcesServer___notes";
let graph: InProcessGraph;
const client = http();
let base: string;

before(async () => {
  graph = await startServers({ notes: [notes] });
  base = graph.url("notes");
});
after(async () => {
  await graph.close();
  await client.close();
});

/** The server's own codec (it signs with the graph's secret). */
const codec = () => graph.servers.notes!.app.sessionCookies;
const post = (path: string, json: unknown, cookies?: Record<string, string>) => client.request(`${base}${path}`, { method: "POST", json, cookies });
const minimalParams = { input: "hi" };
const minimalResponse = { id: "resp_1", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] };

test("GET / answers liveness", async () => {
  const answer = await client.request(`${base}/`);
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.json(), { status: "ok" });
});

test("every response re-sets the signed session cookie; reusing it keeps the session", async () => {
  const seeded = await post("/seed_session", { owner: "ada", responses_create_params: minimalParams });
  assert.equal(seeded.status, 200);
  assert.deepEqual(seeded.json(), {});
  assert.match(String(seeded.headers["set-cookie"]), /path=\/; Max-Age=1209600; httponly; samesite=lax/);
  const cookies = seeded.cookies;
  assert.ok(cookies[COOKIE]);
  await post("/add_note", { text: "one" }, cookies);
  const again = await post("/add_note", { text: "two" }, cookies);
  assert.deepEqual(again.json(), { stored: 2 });
  assert.equal(codec().decode(again.cookies[COOKIE]), codec().decode(cookies[COOKIE]));
  assert.deepEqual((await post("/list_notes", {}, again.cookies)).json(), { owner: "ada", notes: ["one", "two"] });
});

test("two sessions never see each other's state", async () => {
  const a = (await post("/seed_session", { owner: "a" })).cookies;
  const b = (await post("/seed_session", { owner: "b" })).cookies;
  await Promise.all([post("/add_note", { text: "for a" }, a), post("/add_note", { text: "for b" }, b), post("/add_note", { text: "for b too" }, b)]);
  assert.deepEqual((await post("/list_notes", {}, a)).json(), { owner: "a", notes: ["for a"] });
  assert.deepEqual((await post("/list_notes", {}, b)).json(), { owner: "b", notes: ["for b", "for b too"] });
});

test("seeding twice keeps the first state", async () => {
  const cookies = (await post("/seed_session", { owner: "first" })).cookies;
  await post("/seed_session", { owner: "second" }, cookies);
  assert.equal((await post("/list_notes", {}, cookies)).json<{ owner: string }>().owner, "first");
});

test("a tampered or foreign cookie starts a fresh session", async () => {
  const cookies = (await post("/seed_session", { owner: "victim" })).cookies;
  await post("/add_note", { text: "secret" }, cookies);
  const [payload, ts] = cookies[COOKIE]!.split(".");
  const forged = Buffer.from('{"session_id": "someone-else"}').toString("base64");
  for (const value of [`${forged}.${ts}.AAAA`, `${payload}.${ts}.AAAA`, "nonsense"]) {
    const answer = await post("/list_notes", {}, { [COOKIE]: value });
    assert.deepEqual(answer.json(), { owner: "unseeded", notes: [] });
    assert.notEqual(codec().decode(answer.cookies[COOKIE]), undefined);
  }
});

test("a quoted cookie value (as Python clients send it) is accepted", async () => {
  const cookies = (await post("/seed_session", { owner: "quoted" })).cookies;
  const quoted = `"${cookies[COOKIE]!.replace(/=/g, "\\075")}"`;
  assert.equal((await post("/list_notes", {}, { [COOKIE]: quoted })).json<{ owner: string }>().owner, "quoted");
});

test("a missing tool argument is a FastAPI 422 naming the field", async () => {
  const answer = await post("/add_note", { priority: 1 });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json(), { detail: [{ type: "missing", loc: ["body", "text"], msg: "Field required", input: { priority: 1 } }] });
});

test("a wrongly typed argument is a 422 with pydantic's type and message", async () => {
  const answer = await post("/add_note", { text: 5 });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json(), { detail: [{ type: "string_type", loc: ["body", "text"], msg: "Input should be a valid string", input: 5 }] });
});

test("a body that is not JSON is a 422 json_invalid", async () => {
  const answer = await client.request(`${base}/add_note`, { method: "POST", rawBody: "{not json" });
  assert.equal(answer.status, 422);
  assert.equal(answer.json<{ detail: { type: string }[] }>().detail[0]!.type, "json_invalid");
});

test("an unknown tool is 404 {detail: Not Found}; a wrong method is 405", async () => {
  const missing = await post("/no_such_tool", {});
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.json(), { detail: "Not Found" });
  const wrongMethod = await client.request(`${base}/add_note`);
  assert.equal(wrongMethod.status, 405);
  assert.deepEqual(wrongMethod.json(), { detail: "Method Not Allowed" });
});

test("an exception in a tool is a 500 whose body is a JSON string naming it; the server keeps serving", async () => {
  const answer = await post("/explode", {});
  assert.equal(answer.status, 500);
  assert.equal(answer.json(), "TypeError('the tool broke')");
  assert.equal((await client.request(`${base}/`)).status, 200);
});

test("verify rejects unknown responses_create_params keys with extra_forbidden", async () => {
  const answer = await post("/verify", { responses_create_params: { input: "x", seed: 42 }, response: minimalResponse, expected_notes: 0 });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<{ detail: unknown[] }>().detail, [
    { type: "extra_forbidden", loc: ["body", "responses_create_params", "seed"], msg: "Extra inputs are not permitted", input: 42 },
  ]);
});

test("verify requires its declared dataset fields", async () => {
  const answer = await post("/verify", { responses_create_params: minimalParams, response: minimalResponse });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<{ detail: { loc: unknown[]; type: string }[] }>().detail.map((d) => [d.type, d.loc]), [["missing", ["body", "expected_notes"]]]);
});

test("verify answers the full params, the response, the reward as a float, then the extras", async () => {
  const cookies = (await post("/seed_session", {})).cookies;
  await post("/add_note", { text: "x" }, cookies);
  const answer = await post("/verify", { responses_create_params: minimalParams, response: minimalResponse, expected_notes: 1, undeclared: "dropped" }, cookies);
  assert.equal(answer.status, 200);
  const body = answer.json<Record<string, any>>();
  assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "note_count"]);
  assert.equal(body.responses_create_params.input, "hi");
  assert.equal(body.responses_create_params.tool_choice, "auto");
  assert.equal(body.responses_create_params.temperature, null);
  assert.match(answer.text, /"reward":1\.0,"note_count":1\}$/);
});

test("verify without a session (never seeded) sees no state", async () => {
  const answer = await post("/verify", { responses_create_params: minimalParams, response: minimalResponse, expected_notes: 0 });
  assert.equal(answer.json<{ reward: number; note_count: unknown }>().note_count, null);
});

test("GET /tools serves the OpenAI function tools generated from the input schemas", async () => {
  const tools = (await client.request(`${base}/tools`)).json<any[]>();
  assert.deepEqual(tools.map((t) => t.name), ["add_note", "list_notes", "explode"]);
  assert.deepEqual(tools[0], {
    type: "function",
    name: "add_note",
    description: "Store a note.",
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "The note." }, priority: { type: "integer" } },
      required: ["text"],
      additionalProperties: false,
    },
    strict: true,
  });
  assert.deepEqual(tools[1].parameters, { type: "object", properties: {}, required: [], additionalProperties: false });
});

test("GET /reverify_mode is NeMo Gym's: 'unknown' unless the environment declares it", async () => {
  const answer = await client.request(`${base}/reverify_mode`);
  assert.equal(answer.status, 200);
  assert.equal(answer.text, '"unknown"');
});

test("/aggregate_metrics requires verify_responses and summarises rewards", async () => {
  assert.equal((await post("/aggregate_metrics", {})).status, 422);
  const answer = await post("/aggregate_metrics", {
    verify_responses: [
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1 },
      { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0 },
    ],
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.json<{ key_metrics: Record<string, number> }>().key_metrics["mean/reward"], 0.5);
});

test("reserved names cannot be tools", () => {
  assert.throws(() => resourcesServer({ name: "X", tools: { verify: tool({ input: z.object({}), run: () => ({}) }) }, verify: { run: () => 0 } }), /reserved/);
});

// ---- Tool options, the unknown-name fallback and `routes`' scope (fastify inject unless a socket matters) ----

/** A built (not listening) server for `inject`; closed by the caller. */
async function injectable(definition: ServerDefinition, fields: Record<string, unknown> = {}) {
  const globalConfig = { env: { resources_servers: { test: { entrypoint: "app.ts", domain: "other", ...fields } } } };
  return (await buildServer(definition, { instanceName: "env", globalConfig })).app;
}

/** Resolves with the first value; rejects after `ms` (a signal that never fires fails the test instead of hanging it). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const options = resourcesServer({
  name: "OptionsResourcesServer",
  tools: {
    // Shown a strict two-field schema; enforced: any object with a numeric `a` (as a lax request model would).
    shown_apart: tool({
      description: "Shown one schema, enforcing another.",
      input: z.looseObject({ a: z.number() }),
      modelSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"], additionalProperties: false },
      run: (_state, { a }) => ({ a }),
    }),
    shown_as_zod: tool({ input: z.object({}), modelSchema: z.object({ q: z.string().describe("A query.") }), run: () => ({}) }),
    not_strict: tool({ input: z.object({ x: z.string() }), strict: false, run: (_state, { x }) => ({ x }) }),
    formatted: tool({
      input: z.object({ n: z.number() }),
      run: (_state, { n }) => ({ half: n / 2 }),
      formatOutput: ({ half }) => `{"half": ${Number.isInteger(half) ? `${half}.0` : String(half)}}`,
    }),
  },
  verify: { run: () => 0 },
});

test("modelSchema: GET /tools shows it (verbatim JSON Schema, or converted zod); POST validates `input`", async () => {
  const app = await injectable(options);
  try {
    const tools = (await app.inject({ method: "GET", url: "/tools" })).json<any[]>();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.shown_apart.parameters, {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false,
    });
    assert.deepEqual(byName.shown_as_zod.parameters, {
      type: "object",
      properties: { q: { type: "string", description: "A query." } },
      required: ["q"],
      additionalProperties: false,
    });
    // `b`, required by the shown schema, is not enforced; `a`'s type is.
    const accepted = await app.inject({ method: "POST", url: "/shown_apart", payload: { a: 1, extra: true } });
    assert.equal(accepted.statusCode, 200);
    assert.deepEqual(accepted.json(), { a: 1 });
    const refused = await app.inject({ method: "POST", url: "/shown_apart", payload: { a: "one", b: 2 } });
    assert.equal(refused.statusCode, 422);
    assert.deepEqual(refused.json(), { detail: [{ type: "float_parsing", loc: ["body", "a"], msg: "Input should be a valid number, unable to parse string as a number", input: "one" }] });
    // The shown zod schema is not enforced either: `input` is an empty object.
    assert.equal((await app.inject({ method: "POST", url: "/shown_as_zod", payload: {} })).statusCode, 200);
  } finally {
    await app.close();
  }
});

test("strict: GET /tools carries the tool's flag; true by default", async () => {
  const app = await injectable(options);
  try {
    const tools = (await app.inject({ method: "GET", url: "/tools" })).json<{ name: string; strict: boolean }[]>();
    assert.deepEqual(
      tools.map((t) => [t.name, t.strict]),
      [["shown_apart", true], ["shown_as_zod", true], ["not_strict", false], ["formatted", true]],
    );
  } finally {
    await app.close();
  }
});

test("formatOutput: its string is the reply body, byte for byte, as application/json", async () => {
  const app = await injectable(options);
  try {
    const answer = await app.inject({ method: "POST", url: "/formatted", payload: { n: 4 } });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.body, '{"half": 2.0}');
    assert.equal(answer.headers["content-type"], "application/json");
    assert.match(String(answer.headers["set-cookie"]), /^OptionsResourcesServer___env=/);
    // A refused input never reaches the formatter: the 422 is the usual one ("4" would be 4, as pydantic reads it).
    assert.equal((await app.inject({ method: "POST", url: "/formatted", payload: { n: "four" } })).statusCode, 422);
  } finally {
    await app.close();
  }
});

test("formatOutput is also the text of an MCP tools/call answer", async () => {
  const app = await injectable(options, { expose_tools_over_mcp: true });
  try {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "formatted", arguments: { n: 3 } } };
    const answer = await app.inject({ method: "POST", url: "/mcp", payload: call, headers: { accept: "application/json, text/event-stream" } });
    assert.equal(answer.statusCode, 200);
    const { result } = answer.json<{ result: { content: { type: string; text: string }[]; structuredContent: unknown } }>();
    assert.deepEqual(result.content, [{ type: "text", text: '{"half": 1.5}' }]);
    assert.deepEqual(result.structuredContent, { half: 1.5 });
  } finally {
    await app.close();
  }
});

/** A server whose `wait` tool reports that it started, then waits for its abort signal and reports its reason. */
function waitingServer() {
  let started!: () => void;
  let aborted!: (reason: unknown) => void;
  const events = {
    started: new Promise<void>((resolve) => (started = resolve)),
    aborted: new Promise<unknown>((resolve) => (aborted = resolve)),
  };
  const definition = resourcesServer({
    name: "WaitingResourcesServer",
    tools: {
      wait: tool({
        input: z.object({}),
        run: async (_state, _args, { signal }) => {
          started();
          await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
          aborted(signal.reason);
          return { stopped: true };
        },
      }),
    },
    verify: { run: () => 0 },
  });
  return { definition, events };
}

test("a tool's abort signal fires when its client disconnects mid-request (real HTTP)", async () => {
  const { definition, events } = waitingServer();
  const waiting = await startServers({ waiting: [definition] });
  try {
    const url = new URL(`${waiting.url("waiting")}/wait`);
    const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json" } });
    const requestClosed = new Promise<void>((resolve) => request.on("close", () => resolve()));
    request.on("error", () => {}); // the socket is destroyed on purpose
    request.end("{}");
    await within(events.started, 5000, "the tool starting");
    request.destroy();
    await requestClosed;
    const reason = await within(events.aborted, 5000, "the abort signal");
    assert.equal((reason as DOMException).name, "AbortError");
    assert.match((reason as DOMException).message, /client disconnected/);
  } finally {
    await waiting.close();
  }
});

test("a tool's abort signal fires when the server closes while it runs", async () => {
  const { definition, events } = waitingServer();
  const app = await injectable(definition);
  const answer = app.inject({ method: "POST", url: "/wait", payload: {} });
  await within(events.started, 5000, "the tool starting");
  const closed = app.close();
  const reason = await within(events.aborted, 5000, "the abort signal");
  assert.match((reason as DOMException).message, /server is closing/);
  assert.deepEqual((await answer).json(), { stopped: true });
  await closed;
});

test("a tool that is not aborted keeps an unfired signal", async () => {
  let seen: AbortSignal | undefined;
  const app = await injectable(
    resourcesServer({
      name: "SignalResourcesServer",
      tools: { quick: tool({ input: z.object({}), run: (_state, _args, { signal }) => ((seen = signal), { aborted: signal.aborted }) }) },
      verify: { run: () => 0 },
    }),
  );
  try {
    assert.deepEqual((await app.inject({ method: "POST", url: "/quick", payload: {} })).json(), { aborted: false });
    assert.equal(seen?.aborted, false);
  } finally {
    await app.close();
  }
});

const withFallback = resourcesServer({
  name: "FallbackResourcesServer",
  seed: z.object({ owner: z.string() }),
  state: (seed) => ({ owner: seed?.owner ?? "nobody", calls: [] as string[] }),
  tools: { known: tool({ input: z.object({ x: z.number() }), run: (_state, { x }) => ({ known: x }) }) },
  unknownTool: {
    input: z.object({ arg: z.string() }),
    run: (state, name, { arg }) => {
      state.calls.push(name);
      return { unknown: name, arg, owner: state.owner, calls: state.calls.length };
    },
  },
  verify: { run: (state) => state?.calls.length ?? 0 },
});

test("unknownTool answers POST /<name> for any other name, on the session's state, after validating its input", async () => {
  const app = await injectable(withFallback);
  try {
    const seeded = await app.inject({ method: "POST", url: "/seed_session", payload: { owner: "ada" } });
    const cookie = String(seeded.headers["set-cookie"]).split(";")[0]!;
    const first = await app.inject({ method: "POST", url: "/no_such_tool", payload: { arg: "a" }, headers: { cookie } });
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), { unknown: "no_such_tool", arg: "a", owner: "ada", calls: 1 });
    const second = await app.inject({ method: "POST", url: "/another.name", payload: { arg: "b" }, headers: { cookie } });
    assert.deepEqual(second.json(), { unknown: "another.name", arg: "b", owner: "ada", calls: 2 });
    const refused = await app.inject({ method: "POST", url: "/no_such_tool", payload: { arg: 1 }, headers: { cookie } });
    assert.equal(refused.statusCode, 422);
    assert.deepEqual(refused.json(), { detail: [{ type: "string_type", loc: ["body", "arg"], msg: "Input should be a valid string", input: 1 }] });
  } finally {
    await app.close();
  }
});

test("unknownTool leaves the tools, the library's routes and other paths alone", async () => {
  const app = await injectable(withFallback);
  try {
    assert.deepEqual((await app.inject({ method: "POST", url: "/known", payload: { x: 1 } })).json(), { known: 1 });
    assert.equal((await app.inject({ method: "POST", url: "/known", payload: { arg: "a" } })).statusCode, 422);
    assert.equal((await app.inject({ method: "POST", url: "/aggregate_metrics", payload: { verify_responses: [] } })).statusCode, 200);
    assert.deepEqual((await app.inject({ method: "POST", url: "/a/b", payload: { arg: "a" } })).json(), { detail: "Not Found" });
    const get = await app.inject({ method: "GET", url: "/no_such_tool" });
    assert.equal(get.statusCode, 404);
    assert.deepEqual(get.json(), { detail: "Not Found" });
  } finally {
    await app.close();
  }
});

test("routes are an encapsulated plugin: their hooks run for their routes only, never for tool routes", async () => {
  const hookSaw: string[] = [];
  const app = await injectable(
    resourcesServer({
      name: "RoutesResourcesServer",
      tools: { echo: tool({ input: z.object({ text: z.string() }), run: (_state, { text }) => ({ text }) }) },
      verify: { run: () => 0 },
      routes(scope) {
        scope.addHook("onRequest", async (request) => void hookSaw.push(request.url));
        scope.addHook("preSerialization", async () => ({ rewritten: true }));
        scope.get("/extra", async () => ({ extra: true }));
      },
    }),
  );
  try {
    const echo = await app.inject({ method: "POST", url: "/echo", payload: { text: "hi" } });
    assert.deepEqual(echo.json(), { text: "hi" });
    assert.equal((await app.inject({ method: "GET", url: "/tools" })).json<unknown[]>().length, 1);
    assert.deepEqual(hookSaw, []);
    assert.deepEqual((await app.inject({ method: "GET", url: "/extra" })).json(), { rewritten: true });
    assert.deepEqual(hookSaw, ["/extra"]);
  } finally {
    await app.close();
  }
});
