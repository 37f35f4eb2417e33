import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { extractText, gymnasiumServer, toolOutput } from "../../src/server/index.ts";
import { assistantMessage, injectServer, responseWith, type InjectedServer } from "../../src/testing/index.ts";

const disposed: number[] = [];
// Counts down from the row's `start`; the model's text "stop" truncates; reaching 0 terminates with reward 1.
const countdown = gymnasiumServer({
  name: "CountdownEnv",
  metadata: z.object({ start: z.number().int().min(1) }),
  reset: ({ start }) => ({ state: { left: start }, observation: `left: ${start}` }),
  step: (s, action) => {
    if (extractText(action) === "stop") return { truncated: true, info: { left: s.left } };
    s.left -= 1;
    return s.left === 0 ? { reward: 1, terminated: true } : { observation: `left: ${s.left}`, reward: 0.25 };
  },
  disposeState: (s) => void disposed.push(s.left),
});
const stateless = gymnasiumServer({ name: "EchoEnv", step: (_s, action) => ({ reward: extractText(action).length, terminated: true }) });

const params = { input: [{ role: "user", content: "count" }] };
const said = (text: string) => responseWith([assistantMessage(text)]);
let env: InjectedServer;
let echo: InjectedServer;
before(async () => {
  env = await injectServer(countdown, {}, { instanceName: "countdown" });
  echo = await injectServer(stateless, {}, { instanceName: "echo" });
});
after(async () => {
  await env.close();
  await echo.close();
});

test("reset answers the first observation and info; each step its five fields, in one session", async () => {
  const session = env.session();
  const reset = await session.post("/reset", { responses_create_params: params, start: 2 });
  assert.equal(reset.status, 200);
  assert.equal(reset.text, '{"observation":"left: 2","info":{}}');
  const first = await session.post("/step", { responses_create_params: params, response: said("go"), start: 2 });
  assert.equal(first.text, '{"observation":"left: 1","reward":0.25,"terminated":false,"truncated":false,"info":{}}');
  const last = await session.post("/step", { responses_create_params: params, response: said("go"), start: 2 });
  assert.equal(last.text, '{"observation":null,"reward":1.0,"terminated":true,"truncated":false,"info":{}}');
});

test("an ended episode's state is disposed, and a step after it is a 400 asking for /reset", async () => {
  const session = env.session();
  await session.post("/reset", { responses_create_params: params, start: 7 });
  const ended = await session.post("/step", { responses_create_params: params, response: said("stop"), start: 7 });
  assert.equal(ended.json<{ truncated: boolean }>().truncated, true);
  assert.ok(disposed.includes(7));
  const again = await session.post("/step", { responses_create_params: params, response: said("go"), start: 7 });
  assert.equal(again.status, 400);
  assert.match(again.text, /Call \/reset first/);
});

test("a bad row field, a missing response or missing responses_create_params is a 422 naming it", async () => {
  const badStart = await env.post("/reset", { responses_create_params: params, start: "many" });
  assert.equal(badStart.status, 422);
  assert.deepEqual(badStart.json<any>().detail[0].loc, ["body", "start"]);
  const noResponse = await env.post("/step", { responses_create_params: params, start: 1 });
  assert.equal(noResponse.status, 422);
  assert.deepEqual(noResponse.json<any>().detail[0].loc, ["body", "response"]);
  const noParams = await env.post("/reset", { start: 1 });
  assert.deepEqual(noParams.json<any>().detail[0].loc, ["body", "responses_create_params"]);
});

test("reset and step answer under an /ng-rollout/<id> prefix, as NeMo Gym's middleware strips it", async () => {
  const session = env.session();
  assert.equal((await session.post("/ng-rollout/4-2/reset", { responses_create_params: params, start: 1 })).status, 200);
  const step = await session.post("/ng-rollout/4-2/step", { responses_create_params: params, response: said("go"), start: 1 });
  assert.equal(step.json<{ terminated: boolean }>().terminated, true);
});

test("an environment without reset steps at once, with no state", async () => {
  const step = await echo.post("/step", { responses_create_params: params, response: said("abc") });
  assert.equal(step.json<{ reward: number }>().reward, 3);
  assert.equal((await echo.post("/reset", { responses_create_params: params })).text, '{"observation":null,"info":{}}');
});

test("/verify replays the rollout's turns on a fresh episode and sums their rewards", async () => {
  const output = [assistantMessage("a"), { role: "user", content: "left: 2", type: "message" }, assistantMessage("b"), { role: "user", content: "left: 1", type: "message" }, assistantMessage("c")];
  const verified = await env.post("/verify", { responses_create_params: params, response: responseWith(output), start: 3 });
  assert.equal(verified.status, 200);
  const body = verified.json<{ reward: number; terminated: boolean; truncated: boolean }>();
  assert.deepEqual([body.reward, body.terminated, body.truncated], [1.5, true, false]);
});

test("extractText joins every message's text; toolOutput JSON-encodes as Python does", () => {
  assert.equal(extractText(responseWith([assistantMessage("hello "), assistantMessage("world")]) as never), "hello world");
  assert.equal(extractText({ output: [] }), "");
  assert.deepEqual(toolOutput({ call_id: "c1" }, { a: 1, b: [1, 2] }), { call_id: "c1", output: '{"a": 1, "b": [1, 2]}' });
});
