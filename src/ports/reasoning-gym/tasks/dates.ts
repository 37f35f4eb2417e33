// Scorers of reasoning-gym's calendar and clock tasks: calendar_arithmetic (weekday names, day counts with
// exp-decaying credit, leap years) and time_intervals (durations with linear credit by distance).
import { ValueError, IndexError } from "../../../python/exception.ts";
import { pythonIntBig } from "../../../python/numbers.ts";
import { codePoints, pythonLower, pythonStrip, splitWhitespace } from "../../../python/str.ts";
import { pythonExp, trueDivide } from "../../../python/math.ts";
import { item, oracleText, type Entry } from "../types.ts";

const WEEKDAYS = new Set(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);
const WEEKDAY_TASKS = new Set(["weekday_offset", "weekday_of_date_from_first_date", "weekday_of_date"]);
const COUNT_TASKS = new Set(["count_business_days", "count_days", "recurring_event_day"]);

const CASED = /[\p{Lu}\p{Ll}\p{Lt}]/u;

/**
 * Python's `str.title()`: a cased character after an uncased one is upper-cased (title-cased), the others
 * lower-cased. Used only to test membership among the ASCII weekday names, where title case and upper case of
 * the first letter agree.
 */
function pythonTitle(text: string): string {
  let previousCased = false;
  return codePoints(text)
    .map((ch) => {
      const out = previousCased ? ch.toLowerCase() : ch.toUpperCase();
      previousCased = CASED.test(ch);
      return out;
    })
    .join("");
}

/**
 * calendar_arithmetic by `metadata.task`: a weekday → 1.0 for the oracle (answer stripped), 0.1 for another
 * weekday name, 0.05 for a weekday name in other case; a count → 1.0 exact, else exp(-5·|a-o|/o) (a zero
 * oracle needs 0); is_leap_year → 1.0 when equal ignoring case; unreadable → 0.0.
 */
export function calendarArithmetic(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || answer.length === 0) return 0;
  const oracle = entry.answer;
  const task = item(entry.metadata, "task");
  if (typeof task === "string" && WEEKDAY_TASKS.has(task)) {
    const given = pythonStrip(answer);
    if (given === oracle) return 1;
    if (WEEKDAYS.has(given)) return 0.1;
    return WEEKDAYS.has(pythonTitle(given)) ? 0.05 : 0;
  }
  if (typeof task === "string" && COUNT_TASKS.has(task)) {
    let given: bigint, expected: bigint;
    try {
      given = pythonIntBig(pythonStrip(answer));
      expected = pythonIntBig(pythonStrip(oracleText(entry)));
    } catch (error) {
      if (error instanceof ValueError || error instanceof TypeError) return 0; // ValueError, AttributeError
      throw error;
    }
    if (expected === 0n) return given === 0n ? 1 : 0;
    const difference = given > expected ? given - expected : expected - given;
    const relativeError = trueDivide(difference, expected);
    return Math.max(0, pythonExp(-5 * relativeError));
  }
  if (task === "is_leap_year") return pythonLower(pythonStrip(answer)) === pythonLower(oracleText(entry)) ? 1 : 0;
  return 0;
}

// TimeIntervalsConfig's defaults, which get_score_answer_fn's dataset instance uses.
const MAX_TIME_DIFFERENCE_SECONDS = 24n * 60n * 60n;
const MAX_DATE_DIFFERENCE_DAYS = 100n;

/** A Python number: an int stays exact, a float is a double. */
type Num = bigint | number;
const add = (a: Num, b: Num): Num => (typeof a === "bigint" && typeof b === "bigint" ? a + b : Number(a) + Number(b));
const sub = (a: Num, b: Num): Num => (typeof a === "bigint" && typeof b === "bigint" ? a - b : Number(a) - Number(b));
const abs = (a: Num): Num => (typeof a === "bigint" ? (a < 0n ? -a : a) : Math.abs(a));
const equal = (a: Num, b: Num): boolean => (typeof a === "bigint" && typeof b === "bigint" ? a === b : Number(a) === Number(b));
/** `a / b` for an int b: exact ratio for ints, float division otherwise. */
const divide = (a: Num, b: bigint): number => (typeof a === "bigint" ? trueDivide(a, b) : a / Number(b));

/** `text.split(sep)[i]`: past the end is IndexError. */
function piece(pieces: string[], i: number): string {
  if (i >= pieces.length) throw new IndexError("list index out of range");
  return pieces[i]!;
}

/** "HH:MM", "HH:MM:SS" or "HH:MM:SS.mmm" → seconds (a float once milliseconds appear). */
function parseTime(text: string): Num {
  const parts = pythonStrip(text).split(":");
  let seconds: Num = pythonIntBig(piece(parts, 0)) * 3600n + pythonIntBig(piece(parts, 1)) * 60n;
  if (parts.length > 2) {
    if (parts[2]!.includes(".")) {
      const halves = parts[2]!.split(".");
      if (halves.length !== 2) throw new ValueError("too many values to unpack");
      seconds = add(seconds, add(pythonIntBig(halves[0]), trueDivide(pythonIntBig(halves[1]), 1000n)));
    } else seconds = add(seconds, pythonIntBig(parts[2]));
  }
  return seconds;
}

/** "X days, HH:MM[:SS]" → seconds. */
function parseDuration(text: string): bigint {
  const days = pythonIntBig(text.split(" days,")[0]);
  const parts = pythonStrip(piece(text.split(","), 1)).split(":");
  let seconds = pythonIntBig(piece(parts, 0)) * 3600n + pythonIntBig(piece(parts, 1)) * 60n;
  if (parts.length > 2) seconds += pythonIntBig(parts[2]);
  return days * 86400n + seconds;
}

const credit = (actual: Num, expected: Num, maxDifference: bigint): number => {
  if (equal(actual, expected)) return 1;
  return Math.max(0, 1 - divide(abs(sub(actual, expected)), maxDifference));
};

/**
 * time_intervals by `metadata.task_type`: "date" compares the leading day counts (1 − diff/100 days); "time…"
 * compares HH:MM[:SS[.mmm]] in seconds (1 − diff/86400); otherwise "X days, HH:MM[:SS]" in seconds
 * (1 − diff/(100 days)). Exact → 1.0, never below 0.0; unreadable → 0.0.
 */
export function timeIntervals(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  const taskType = item(entry.metadata, "task_type");
  try {
    if (taskType === "date") {
      const first = (text: string) => pythonIntBig(piece(splitWhitespace(pythonStrip(text)), 0));
      const actual = first(answer);
      return credit(actual, first(oracleText(entry)), MAX_DATE_DIFFERENCE_DAYS);
    }
    if (typeof taskType !== "string") throw new TypeError("task_type has no startswith");
    if (taskType.startsWith("time")) return credit(parseTime(answer), parseTime(oracleText(entry)), MAX_TIME_DIFFERENCE_SECONDS);
    return credit(parseDuration(answer), parseDuration(oracleText(entry)), MAX_DATE_DIFFERENCE_DAYS * 86400n);
  } catch (error) {
    if (error instanceof ValueError || error instanceof IndexError) return 0;
    throw error;
  }
}
