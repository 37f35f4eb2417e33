// A resources server honours x-ng-idempotency-key on tool routes: per session, the first call with a key runs and its
// answer (status and bytes) is stored; a replay — later or concurrent — gets that answer without running the tool.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { resourcesServer, tool } from "../../src/server/index.ts";
import { injectServer, type InjectedServer } from "../../src/testing/index.ts";
import { IDEMPOTENCY_KEY_HEADER } from "../../src/protocol/failures.ts";

let runs = 0;
const counter = resourcesServer({
  name: "SlowCounterResourcesServer",
  seed: z.object({ initial_count: z.number().int() }),
  state: (seed): { count: number } => ({ count: seed?.initial_count ?? 0 }),
  tools: {
    increment_counter: tool({
      input: z.object({ count: z.number().int(), delay_ms: z.number().default(0) }),
      run: async (state: { count: number }, { count, delay_ms }) => {
        runs++;
        await new Promise((resolve) => setTimeout(resolve, delay_ms));
        state.count += count;
        return { count: state.count };
      },
    }),
  },
  unknownTool: { run: (state: { count: number }, name) => ({ name, count: state.count }) },
  verify: { run: () => 0 },
});

let env: InjectedServer;
before(async () => (env = await injectServer(counter)));
after(() => env.close());
const key = (value: string) => ({ headers: { [IDEMPOTENCY_KEY_HEADER]: value } });

test("a replayed key returns the stored answer byte for byte, and the tool ran once", async () => {
  const session = env.session();
  await session.post("/seed_session", { initial_count: 10 });
  runs = 0;
  const first = await session.post("/increment_counter", { count: 1 }, key("loop-1:1.0:call_a"));
  const replay = await session.post("/increment_counter", { count: 1 }, key("loop-1:1.0:call_a"));
  assert.equal(first.status, 200);
  assert.equal(replay.status, 200);
  assert.equal(replay.text, first.text);
  assert.deepEqual(first.json(), { count: 11 });
  assert.equal(runs, 1);
  // Another key is another call; a call without a key always runs.
  assert.deepEqual((await session.post("/increment_counter", { count: 1 }, key("loop-1:1.1:call_a"))).json(), { count: 12 });
  assert.deepEqual((await session.post("/increment_counter", { count: 1 })).json(), { count: 13 });
  assert.equal(runs, 3);
});

test("a duplicate that arrives while the first is running waits for it and gets its answer", async () => {
  const session = env.session();
  await session.post("/seed_session", { initial_count: 0 });
  runs = 0;
  const answers = await Promise.all([1, 2, 3].map(() => session.post("/increment_counter", { count: 5, delay_ms: 100 }, key("k"))));
  assert.deepEqual(answers.map((answer) => answer.json()), [{ count: 5 }, { count: 5 }, { count: 5 }]);
  assert.equal(runs, 1);
});

test("an error answer is stored too (the replay does not re-validate or re-run), and keys are per session", async () => {
  const a = env.session();
  const b = env.session();
  await a.post("/seed_session", { initial_count: 0 });
  await b.post("/seed_session", { initial_count: 100 });
  const invalid = await a.post("/increment_counter", { count: "x" }, key("bad"));
  assert.equal(invalid.status, 422);
  const replayed = await a.post("/increment_counter", { count: 1 }, key("bad"));
  assert.equal(replayed.status, 422);
  assert.equal(replayed.text, invalid.text);
  assert.deepEqual((await b.post("/increment_counter", { count: 1 }, key("bad"))).json(), { count: 101 }, "another session's key is its own");
});

test("the unknown-tool route honours the key as the tool routes do", async () => {
  const session = env.session();
  await session.post("/seed_session", { initial_count: 3 });
  const first = await session.post("/no_such_tool", {}, key("u"));
  await session.post("/increment_counter", { count: 1 });
  const replay = await session.post("/no_such_tool", {}, key("u"));
  assert.deepEqual(first.json(), { name: "no_such_tool", count: 3 });
  assert.equal(replay.text, first.text, "the stored answer, not a fresh run (which would read count 4)");
});

test("a keyed call without the session cookie is not remembered (each such call is its own new session)", async () => {
  runs = 0;
  const first = await env.post("/increment_counter", { count: 1 }, key("no-session"));
  const second = await env.post("/increment_counter", { count: 1 }, key("no-session"));
  assert.deepEqual([first.json(), second.json()], [{ count: 1 }, { count: 1 }]);
  assert.equal(runs, 2);
});
