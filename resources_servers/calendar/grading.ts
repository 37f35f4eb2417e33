// The calendar grader: the model's final text must hold the whole calendar as a JSON list whose events
// match the expected state: same ids, no overlaps, right durations, inside the day's window, every
// constraint kept. A port of NeMo Gym's `grade_assistant_response`; every Python exception inside it
// (a missing field, an unparsable time) scores 0.
import { pythonJsonLoads } from "../../src/python/json.ts";
import { jsonGetItem } from "../../src/python/json-value.ts";
import { fromJsonValue, pythonEquals, pythonTypeName, type PyValue, pythonGetItem, pythonStr } from "../../src/python/values.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { KeyError, ValueError } from "../../src/python/exception.ts";
import { pythonStringRepr } from "../../src/python/repr.ts";
import { pythonInt } from "../../src/python/numbers.ts";

export type GradeReason = "think_found" | "pass" | "no_json_list" | "different_number_of_events" | "conflicting_events" | "constraint_violated" | "error_in_grading";

/** `event[key]` on an event of the model's list (already Python values). */
const eventItem = (event: unknown, key: string): PyValue => pythonGetItem(event as PyValue, key);
/** `expected[key]` on the posted expected state (plain JSON), as Python holds it. */
const expectedItem = (expected: unknown, key: string): PyValue => fromJsonValue(jsonGetItem(expected, key));

/** `start + duration` needs a number (bools count); anything else is Python's TypeError. */
function durationNumber(value: PyValue): number {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  throw new TypeError(`unsupported operand type(s) for +: 'int' and '${pythonTypeName(value)}'`);
}

/** The first `[...]` holding at least one `{...}`, as NeMo Gym's regex finds it (DOTALL changes nothing here). */
const JSON_LIST = /\[(?:[^[\]]|\{[^}]*\})*\{(?:[^[\]]|\{[^}]*\})*\}(?:[^[\]]|\{[^}]*\})*\]/;

/** Minutes since midnight: "10am", "2:15pm" (12am = 0, 12pm = noon), or 24-hour "HH:MM". */
export function timeToMinutes(time: unknown): number {
  if (typeof time !== "string") throw new TypeError("time is not a string");
  const text = pythonStrip(time);
  const twelveHour = (marker: "am" | "pm") => {
    const rest = text.replaceAll(marker, "");
    const noon = marker === "pm" ? 12 * 60 : 0;
    if (!text.includes(":")) {
      const hour = pythonInt(rest);
      return (hour !== 12 ? hour * 60 : 0) + noon;
    }
    const [hour, minute] = twoInts(rest);
    return (hour !== 12 ? hour * 60 : 0) + noon + minute;
  };
  if (text.includes("am")) return twelveHour("am");
  if (text.includes("pm")) return twelveHour("pm");
  const [hours, minutes] = twoInts(text);
  return hours * 60 + minutes;
}

/** `a, b = map(int, text.split(":"))`. */
function twoInts(text: string): [number, number] {
  const parts = text.split(":");
  if (parts.length < 2) throw new ValueError(`not enough values to unpack (expected 2, got ${parts.length})`);
  if (parts.length > 2) throw new ValueError("too many values to unpack (expected 2)");
  return [pythonInt(parts[0]), pythonInt(parts[1])];
}

/** The first JSON list of objects in the text, or null when there is none or it is not valid JSON. */
export function extractJsonList(text: string): PyValue | null {
  const match = JSON_LIST.exec(text);
  if (!match) return null;
  try {
    return pythonJsonLoads(match[0]);
  } catch (error) {
    if ((error as Error).name === "JSONDecodeError") return null;
    throw error;
  }
}

/** Whether `event` overlaps any event of the list other than itself (and its equals, as Python's `==` skips them). */
function conflicts(events: PyValue[], event: PyValue): boolean {
  const start = timeToMinutes(pythonGetItem(event, "start_time"));
  const end = start + durationNumber(eventItem(event, "duration"));
  for (const other of events) {
    if (pythonEquals(other, event)) continue;
    const otherStart = timeToMinutes(pythonGetItem(other, "start_time"));
    const otherEnd = otherStart + durationNumber(eventItem(other, "duration"));
    if (!(end <= otherStart || start >= otherEnd)) return true;
  }
  return false;
}

/** Duration, the day's window, then the constraint: null, "before X", "after X", "between X and Y", "at X"; anything else holds. */
export function constraintSatisfied(event: unknown, expected: unknown): boolean {
  if (!pythonEquals(eventItem(event, "duration"), expectedItem(expected, "duration"))) return false;

  const minTime = timeToMinutes(jsonGetItem(expected, "min_time"));
  const maxTime = timeToMinutes(jsonGetItem(expected, "max_time"));
  const start = timeToMinutes(eventItem(event, "start_time"));
  const end = start + durationNumber(eventItem(event, "duration"));
  if (start < minTime || end > maxTime) return false;

  const constraint = jsonGetItem(expected, "constraint");
  if (constraint === null) return true;
  if (typeof constraint !== "string") throw new TypeError("constraint is not a string");
  if (constraint.startsWith("before ")) return end <= timeToMinutes(constraint.replaceAll("before ", ""));
  if (constraint.startsWith("after ")) return start >= timeToMinutes(constraint.replaceAll("after ", ""));
  if (constraint.startsWith("between ")) {
    const bounds = constraint.replaceAll("between ", "").split(" and ");
    if (bounds.length !== 2) throw new ValueError(`Invalid 'between' constraint format: ${constraint}`);
    return start >= timeToMinutes(bounds[0]) && end <= timeToMinutes(bounds[1]);
  }
  if (constraint.startsWith("at ")) return start === timeToMinutes(constraint.replaceAll("at ", ""));
  return true;
}

/** The reward (0 or 1) and why. `expectedState` maps event ids to {event_id, duration, constraint, min_time, max_time}. */
export function gradeAssistantResponse(text: string, expectedState: Record<string, unknown>): [0 | 1, GradeReason] {
  if (text.includes("<think>")) return [0, "think_found"];
  const expectedIds = Object.keys(expectedState);
  if (expectedIds.length === 0) return [1, "pass"];
  try {
    const calendar = extractJsonList(text);
    if (!Array.isArray(calendar) || calendar.length === 0) return [0, "no_json_list"];

    // Later events with the same id replace earlier ones; ids compare as Python's str() of them.
    const byId = new Map<string, PyValue>();
    for (const event of calendar) byId.set(pythonStr(pythonGetItem(event, "event_id")), event);
    if (byId.size !== expectedIds.length) return [0, "different_number_of_events"];

    for (const event of calendar) if (conflicts(calendar, event)) return [0, "conflicting_events"];

    for (const id of expectedIds) {
      if (!byId.has(id)) throw new KeyError(pythonStringRepr(id));
      if (!constraintSatisfied(byId.get(id), expectedState[id])) return [0, "constraint_violated"];
    }
  } catch {
    return [0, "error_in_grading"];
  }
  return [1, "pass"];
}
