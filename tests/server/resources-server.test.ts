// The resources-server surface over real HTTP: sessions, cookies, FastAPI-shaped errors, /tools.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { resourcesServer, tool, sessionCookieCodec } from "../../src/server/index.ts";
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
  assert.equal(sessionCookieCodec(COOKIE).decode(again.cookies[COOKIE]), sessionCookieCodec(COOKIE).decode(cookies[COOKIE]));
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
    assert.notEqual(sessionCookieCodec(COOKIE).decode(answer.cookies[COOKIE]), undefined);
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
