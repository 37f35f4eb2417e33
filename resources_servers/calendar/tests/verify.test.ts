// Verify (through fastify inject), one rule at a time: the calendar is the first JSON list of objects in the last output
// item's text, and it must hold exactly the expected events, without overlaps, with the right durations,
// inside the day's window and keeping every constraint. Also the example data and the verifier cases.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, type InjectedServer, injectServer, readRows } from "../../../src/testing/index.ts";
import calendar from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const cases = readRows(join(import.meta.dirname, "../data/verifier_cases.jsonl"));
let env: InjectedServer;
const post = (path: string, json: unknown) => env.post(path, json);

before(async () => (env = await injectServer(calendar, {}, { instanceName: "calendar" })));
after(() => env.close());

const message = (text: string) => ({ id: "msg", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const responseOf = (output: unknown[]) => ({ id: "r", created_at: 1, model: "m", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] });
const expected = (id: number, duration: number, constraint: string | null = null) => ({ event_id: id, duration, constraint, min_time: "10:00", max_time: "16:00" });
const state = (...events: ReturnType<typeof expected>[]) => Object.fromEntries(events.map((e) => [String(e.event_id), e]));
const events = (...list: [unknown, string, unknown][]) => JSON.stringify(list.map(([event_id, start_time, duration]) => ({ event_id, event_name: "x", start_time, duration })));

const verifyOutput = async (output: unknown[], expectedState: object) => {
  const verified = await post("/verify", { responses_create_params: { input: [] }, exp_cal_state: expectedState, response: responseOf(output) });
  assert.equal(verified.status, 200, verified.text);
  return verified.json<{ reward: number }>().reward;
};
const reward = (text: string, expectedState: object) => verifyOutput([message(text)], expectedState);

const ONE = state(expected(0, 60, "between 2pm and 4pm"));

test("a calendar that keeps every rule scores 1, in any event order", async () => {
  assert.equal(await reward(events([0, "2pm", 60]), ONE), 1);
  const two = state(expected(0, 60, "between 2pm and 4pm"), expected(1, 90, "between 12pm and 2pm"));
  assert.equal(await reward(`Sure, here it is:\n${events([1, "12:00", 90], [0, "14:00", 60])}\nAnything else?`, two), 1);
});

test("an answer containing <think> scores 0", async () => {
  assert.equal(await reward(`<think>plan</think>${events([0, "2pm", 60])}`, ONE), 0);
});

test("when nothing is expected, any answer scores 1, JSON or not; an empty answer scores 0", async () => {
  assert.equal(await reward("How about The Page Turners?", {}), 1);
  assert.equal(await reward("", {}), 0);
});

test("no JSON list, malformed JSON, an empty list or a list without objects score 0", async () => {
  assert.equal(await reward("I put it at 2pm.", ONE), 0);
  assert.equal(await reward('[{"event_id": 0, "start_time": "2pm", "duration": 60,}]', ONE), 0);
  assert.equal(await reward('[{"event_id": 0, "start_time": 2pm, "duration": 60}]', ONE), 0);
  assert.equal(await reward("[]", ONE), 0);
  assert.equal(await reward("[0, 60]", ONE), 0);
});

test("the first JSON list of objects in the text is the calendar", async () => {
  assert.equal(await reward(`Before: ${events([0, "9am", 60])} After: ${events([0, "2pm", 60])}`, ONE), 0);
  assert.equal(await reward(`Now: ${events([0, "2pm", 60])} Before: ${events([0, "9am", 60])}`, ONE), 1);
});

test("an extra or a missing event scores 0; a repeated id counts once", async () => {
  assert.equal(await reward(events([0, "2pm", 60], [1, "10:00", 30]), ONE), 0);
  const two = state(expected(0, 60), expected(1, 30));
  assert.equal(await reward(events([0, "2pm", 60]), two), 0);
  assert.equal(await reward(events([0, "10:00", 60], [0, "2pm", 60]), two), 0);
});

test("overlapping events score 0; back-to-back events do not overlap", async () => {
  const two = state(expected(0, 60), expected(1, 60));
  assert.equal(await reward(events([0, "2pm", 60], [1, "2:30pm", 60]), two), 0);
  assert.equal(await reward(events([0, "2pm", 60], [1, "3pm", 60]), two), 1);
  // Python's `existing == event` skips equal events, so an exact duplicate never conflicts with itself.
  assert.equal(await reward(events([0, "2pm", 60], [0, "2pm", 60]), state(expected(0, 60))), 1);
});

test("a wrong duration scores 0, also when it is the right number written as a string", async () => {
  assert.equal(await reward(events([0, "2pm", 90]), state(expected(0, 60))), 0);
  assert.equal(await reward(events([0, "2pm", "60"]), state(expected(0, 60))), 0);
  assert.equal(await reward(events([0, "2pm", 60.0]), state(expected(0, 60))), 1);
});

test("an event starting before min_time or ending after max_time scores 0", async () => {
  assert.equal(await reward(events([0, "9am", 60]), state(expected(0, 60))), 0);
  assert.equal(await reward(events([0, "3:30pm", 60]), state(expected(0, 60))), 0);
  assert.equal(await reward(events([0, "3pm", 60]), state(expected(0, 60))), 1);
});

test("'before X': the event ends at or before X", async () => {
  const before = state(expected(0, 45, "before 12:45pm"));
  assert.equal(await reward(events([0, "12:00", 45]), before), 1);
  assert.equal(await reward(events([0, "12:15pm", 45]), before), 0);
});

test("'after X': the event starts at or after X", async () => {
  const afterTwo = state(expected(0, 60, "after 2pm"));
  assert.equal(await reward(events([0, "14:00", 60]), afterTwo), 1);
  assert.equal(await reward(events([0, "1:30pm", 60]), afterTwo), 0);
});

test("'between X and Y': the event starts at or after X and ends at or before Y", async () => {
  const between = state(expected(0, 90, "between 2pm and 4pm"));
  assert.equal(await reward(events([0, "2:30pm", 90]), between), 1);
  assert.equal(await reward(events([0, "1:30pm", 90]), between), 0);
  assert.equal(await reward(events([0, "3pm", 90]), between), 0);
  // A 'between' without ' and ' is NeMo Gym's ValueError: 0.
  assert.equal(await reward(events([0, "2:30pm", 90]), state(expected(0, 90, "between 2pm"))), 0);
});

test("'at X': the event starts exactly at X; no constraint or an unknown one holds", async () => {
  assert.equal(await reward(events([0, "12:15pm", 30]), state(expected(0, 30, "at 12:15pm"))), 1);
  assert.equal(await reward(events([0, "12:30pm", 30]), state(expected(0, 30, "at 12:15pm"))), 0);
  assert.equal(await reward(events([0, "11:00", 30]), state(expected(0, 30, null))), 1);
  assert.equal(await reward(events([0, "11:00", 30]), state(expected(0, 30, "on Monday"))), 1);
});

test("time formats: 12-hour with or without minutes, 24-hour, 12am is midnight and 12pm noon", async () => {
  const at = (constraint: string) => state(expected(0, 30, constraint));
  assert.equal(await reward(events([0, "14:30", 30]), at("at 2:30pm")), 1);
  assert.equal(await reward(events([0, "12pm", 30]), at("at 12:00")), 1);
  assert.equal(await reward(events([0, " 10:00 ", 30]), at("at 10am")), 1);
  // Python's int() strips Unicode whitespace, like the narrow no-break space in "10:00 am".
  assert.equal(await reward(events([0, "10:00\u202fam", 30]), at("at 10am")), 1);
  assert.equal(await reward(events([0, "12am", 30]), { "0": { ...expected(0, 30, "at 00:00"), min_time: "0:00" } }), 1);
  // Upper-case AM is not 12-hour time, and "1400" is not HH:MM: both are grading errors, 0.
  assert.equal(await reward(events([0, "10 AM", 30]), at("at 10am")), 0);
  assert.equal(await reward(events([0, "1400", 30]), at("at 2pm")), 0);
});

test("event ids compare as Python's str() of the parsed id: 0 and \"0\" match the key \"0\", 0.0 does not", async () => {
  assert.equal(await reward(events(["0", "2pm", 60]), ONE), 1);
  assert.equal(await reward('[{"event_id": 0.0, "start_time": "2pm", "duration": 60}]', ONE), 0);
});

test("the JSON is read as Python's json.loads reads it (NaN is a value)", async () => {
  assert.equal(await reward('[{"event_id": 0, "start_time": "2pm", "duration": 60, "score": NaN}]', ONE), 1);
});

test("only the last output item is read; a reasoning item there (cut off while thinking) scores 0", async () => {
  const reasoning = { id: "rs", type: "reasoning", summary: [{ type: "summary_text", text: events([0, "2pm", 60]) }] };
  assert.equal(await verifyOutput([reasoning, message(events([0, "2pm", 60]))], ONE), 1);
  assert.equal(await verifyOutput([message(events([0, "2pm", 60])), reasoning], ONE), 0);
  assert.equal(await verifyOutput([], ONE), 0);
});

test("a refusal as the last item's first part fails verify (500), as NeMo Gym's AttributeError does", async () => {
  const refusal = { id: "msg", type: "message", role: "assistant", status: "completed", content: [{ type: "refusal", refusal: "no" }] };
  const verified = await post("/verify", { responses_create_params: { input: [] }, exp_cal_state: ONE, response: responseOf([refusal]) });
  assert.equal(verified.status, 500);
  assert.match(verified.json<string>(), /^AttributeError\(.*object has no attribute 'text'/);
});

test("the verify response is the params, the response and a float reward; exp_cal_state is required", async () => {
  const verified = await post("/verify", { responses_create_params: { input: [] }, exp_cal_state: ONE, response: responseOf([message(events([0, "2pm", 60]))]) });
  assert.deepEqual(Object.keys(verified.json<object>()), ["responses_create_params", "response", "reward"]);
  assert.match(verified.text, /"reward":1\.0/);
  const missing = await post("/verify", { responses_create_params: { input: [] }, response: responseOf([]) });
  assert.equal(missing.status, 422);
  assert.deepEqual(missing.json<any>().detail[0].loc, ["body", "exp_cal_state"]);
});

test("the environment has no tools and keeps no state", async () => {
  assert.deepEqual((await env.get("/tools")).json(), []);
  assert.equal((await post("/seed_session", rows[0])).status, 200);
});

test("the example data has 5 valid multi-turn rows ending with a user turn", () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  for (const row of rows) {
    const turns = row.responses_create_params.input as { role: string }[];
    assert.equal(turns[0]!.role, "system");
    assert.equal(turns.at(-1)!.role, "user");
    assert.equal(typeof row.exp_cal_state, "object");
  }
});

test("data/verifier_cases.jsonl: every case gets its expected reward", async () => {
  assert.deepEqual([...new Set(cases.map((c) => c.case))].sort(), ["full_reward", "malformed", "zero_reward"]);
  for (const [i, verifierCase] of cases.entries()) {
    const verified = await post("/verify", { ...verifierCase.row, response: responseOf([message(verifierCase.output_text)]) });
    assert.equal(verified.json<{ reward: number }>().reward, verifierCase.expected_reward, `case ${i + 1} (${verifierCase.case})`);
  }
});
