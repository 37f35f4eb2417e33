// The grader's parts on their own: time parsing, the JSON list it finds, and the reason behind each reward
// (NeMo Gym computes the reason and drops it; here it shows which rule decided).
import { test } from "node:test";
import assert from "node:assert/strict";
import { extractJsonList, gradeAssistantResponse, timeToMinutes } from "../grading.ts";
import { pythonJsonLoads } from "../../../src/python/json.ts";
import { pythonStr, type PyValue } from "../../../src/python/values.ts";
import { pythonInt } from "../../../src/python/numbers.ts";

test("12-hour times: with or without minutes; 12am is midnight, 12pm is noon", () => {
  assert.equal(timeToMinutes("10am"), 600);
  assert.equal(timeToMinutes("2pm"), 840);
  assert.equal(timeToMinutes("2:15pm"), 855);
  assert.equal(timeToMinutes("12am"), 0);
  assert.equal(timeToMinutes("12:30am"), 30);
  assert.equal(timeToMinutes("12pm"), 720);
  assert.equal(timeToMinutes("12:45pm"), 765);
  assert.equal(timeToMinutes("11:30 am"), 690);
});

test("24-hour times are HH:MM, minutes unchecked; surrounding whitespace is stripped", () => {
  assert.equal(timeToMinutes("14:30"), 870);
  assert.equal(timeToMinutes("9:05"), 545);
  assert.equal(timeToMinutes(" 10:00\n"), 600);
  assert.equal(timeToMinutes("10:75"), 675);
});

test("times Python's int() cannot read are errors", () => {
  for (const bad of ["10 AM", "1400", "10:00:00", "ten am", "", "1:2:3pm", "10h"]) assert.throws(() => timeToMinutes(bad), Error, bad);
  assert.throws(() => timeToMinutes(600));
});

test("int() as Python reads it: whitespace, sign, underscores between digits, any Unicode digits", () => {
  assert.equal(pythonInt(" 07 "), 7);
  assert.equal(pythonInt("+1_0"), 10);
  assert.equal(pythonInt("١٢"), 12);
  assert.equal(pythonInt("１０\u202f"), 10);
  for (const bad of ["1__0", "_1", "1.0", "0x10", ""]) assert.throws(() => pythonInt(bad), Error, bad);
});

test("json.loads keeps ints and floats apart and reads NaN/Infinity", () => {
  const parsed = pythonJsonLoads('[{"event_id": 0, "x": 0.0, "y": 1e2, "z": NaN, "w": -Infinity}]') as Map<string, PyValue>[];
  assert.equal(parsed[0]!.get("event_id"), 0n);
  assert.deepEqual([pythonStr(parsed[0]!.get("x")!), pythonStr(parsed[0]!.get("y")!), pythonStr(parsed[0]!.get("z")!), pythonStr(parsed[0]!.get("w")!)], ["0.0", "100.0", "nan", "-inf"]);
  assert.equal(pythonStr(pythonJsonLoads("12345678901234567890123")), "12345678901234567890123");
  for (const bad of ["[1,]", "{'a': 1}", "[1] x", "[01]", '["\t"]']) assert.throws(() => pythonJsonLoads(bad), /JSONDecodeError|Expecting|Extra|Invalid/, bad);
});

test("the calendar is the first list holding an object; invalid JSON there reads as none", () => {
  assert.equal(extractJsonList("no list"), null);
  assert.equal(extractJsonList("[1, 2]"), null);
  assert.equal(extractJsonList('[{"a": 1,}]'), null);
  const found = extractJsonList('text [1] then [{"event_id": 3}] and [{"event_id": 4}]') as Map<string, unknown>[];
  assert.equal(found[0]!.get("event_id"), 3n);
});

const window = { min_time: "10:00", max_time: "16:00" };
const state = { "0": { event_id: 0, duration: 60, constraint: "after 2pm", ...window }, "1": { event_id: 1, duration: 30, constraint: null, ...window } };
const calendar = (...events: [unknown, string, unknown][]) => JSON.stringify(events.map(([event_id, start_time, duration]) => ({ event_id, start_time, duration })));

test("each outcome carries NeMo Gym's reason", () => {
  assert.deepEqual(gradeAssistantResponse(calendar([0, "14:00", 60], [1, "10:00", 30]), state), [1, "pass"]);
  assert.deepEqual(gradeAssistantResponse("<think>", state), [0, "think_found"]);
  assert.deepEqual(gradeAssistantResponse("anything", {}), [1, "pass"]);
  assert.deepEqual(gradeAssistantResponse("no calendar", state), [0, "no_json_list"]);
  assert.deepEqual(gradeAssistantResponse(calendar([0, "14:00", 60]), state), [0, "different_number_of_events"]);
  assert.deepEqual(gradeAssistantResponse(calendar([0, "14:00", 60], [1, "14:30", 30]), state), [0, "conflicting_events"]);
  assert.deepEqual(gradeAssistantResponse(calendar([0, "13:00", 60], [1, "10:00", 30]), state), [0, "constraint_violated"]);
  assert.deepEqual(gradeAssistantResponse(calendar([0, "14:00", 60], [2, "10:00", 30]), state), [0, "error_in_grading"]);
  assert.deepEqual(gradeAssistantResponse(calendar([0, "2 o'clock", 60], [1, "10:00", 30]), state), [0, "error_in_grading"]);
  assert.deepEqual(gradeAssistantResponse('[{"start_time": "14:00"}]', state), [0, "error_in_grading"]);
});

test("Python-behaviour pins from merging the calendar's helpers into src/ports", () => {
  // Two equal events holding NaN are equal in Python (json.loads' NaN is one object; dicts compare identity
  // first), so neither conflicts with the other and the NaN duration fails the constraint instead.
  const nanTwins = '[{"event_id": 0, "start_time": "14:00", "duration": NaN}, {"event_id": 0, "start_time": "14:00", "duration": NaN}, {"event_id": 1, "start_time": "10:00", "duration": 30}]';
  assert.deepEqual(gradeAssistantResponse(nanTwins, state), [0, "constraint_violated"]);
  // An int of more than 4300 digits is json.loads' ValueError (not a JSONDecodeError): an error in grading.
  const withNote = (digits: number) => `[{"event_id": 0, "start_time": "14:00", "duration": 60, "note": ${"9".repeat(digits)}}, {"event_id": 1, "start_time": "10:00", "duration": 30}]`;
  assert.deepEqual(gradeAssistantResponse(withNote(4300), state), [1, "pass"]);
  assert.deepEqual(gradeAssistantResponse(withNote(4301), state), [0, "error_in_grading"]);
  // int() does not strip \x1c–\x1f (str.strip() does): "10:\x1c00" is an error.
  assert.deepEqual(gradeAssistantResponse(calendar([0, "14:00", 60], [1, "10:\x1c00", 30]), state), [0, "error_in_grading"]);
  assert.deepEqual(gradeAssistantResponse(calendar([0, "14:00", 60], [1, "\x1c10:00", 30]), state), [1, "pass"]);
});
