// `pd.Timestamp(text)`: whether pandas accepts a date string (calendar tools refuse what it refuses, which decides
// whether an event is written) and the instant it names (searches filter and sort by it). pandas reads ISO 8601
// itself and hands anything else to dateutil; this covers ISO 8601 and dateutil's usual forms (month names,
// weekday names, am/pm, `/` `.` `-` separated dates, `at`/`on`/`of` fillers, UTC offsets).
import { isStr } from "./python.ts";
import { jsonTypeName } from "../../../src/python/json-value.ts";
import { PyException } from "../../../src/python/exception.ts";

/** Milliseconds since the epoch as a naive wall-clock time (UTC fields), or NaT. `aware` marks a zone given. */
export type Timestamp = { ms: number; aware: boolean } | "NaT";

const NAT_STRINGS = new Set(["NaT", "nat", "NAT", "nan", "NaN", "NAN"]);
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "tues", "thur", "thurs"];
const JUMP = new Set(["at", "on", "and", "ad", "m", "t", "of", "st", "nd", "rd", "th", ",", ".", "-", "/", ";", "'"]);
const ZONES = new Set(["utc", "gmt", "z"]);

const unknownFormat = (text: string) => new PyException("ValueError", `Unknown datetime string format, unable to parse: ${text}`);

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function build(text: string, year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millis = 0, aware = false): Timestamp {
  if (month < 1 || month > 12) throw new PyException("ValueError", `month must be in 1..12: ${text}`);
  if (day < 1 || day > daysInMonth(year, month)) throw new PyException("ValueError", `day is out of range for month: ${text}`);
  if (hour > 23 || minute > 59 || second > 59) throw new PyException("ValueError", `hour must be in 0..23: ${text}`);
  if (year < 1 || year > 9999) throw new PyException("ValueError", `year ${year} is out of range: ${text}`);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return { ms: date.getTime(), aware };
}

const ISO = /^(\d{4})(?:-?(\d{1,2})(?:-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)? ?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function parseIso(text: string): Timestamp | undefined {
  const basic = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (basic) return build(text, Number(basic[1]), Number(basic[2]), Number(basic[3]));
  const m = ISO.exec(text);
  if (!m || /^\d{5,}$/.test(text)) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  if (h !== undefined && mi === undefined && zone === undefined) return undefined; // "2023-12-01 10" is dateutil's
  return build(text, Number(y), Number(mo ?? 1), Number(d ?? 1), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), frac ? Number(frac.slice(0, 3).padEnd(3, "0")) : 0, zone !== undefined);
}

const TOKEN = /\d+(?:[:.]\d+)*|[a-z]+|[+-]\d{2}:?\d{2}|[^\s\da-z]/gi;

/** dateutil's parser, for the forms a model writes: "Dec 1, 2023 10:00 AM", "12/01/2023", "1 December 2023 at 3pm". */
function parseDateutil(text: string): Timestamp {
  const tokens = text.match(TOKEN) ?? [];
  const numbers: { value: number; digits: number }[] = [];
  let month: number | undefined;
  let hour: number | undefined;
  let minute = 0;
  let second = 0;
  let meridiem: "am" | "pm" | undefined;
  let aware = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const lowered = token.toLowerCase();
    if (/^\d+:\d+(?::\d+)?(?:\.\d+)?$/.test(token)) {
      if (hour !== undefined) throw unknownFormat(text);
      const [h, mi, s] = token.split(":");
      hour = Number(h);
      minute = Number(mi);
      second = Math.trunc(Number(s ?? 0));
    } else if (/^\d+$/.test(token)) {
      const next = tokens[i + 1]?.toLowerCase();
      if ((next === "am" || next === "pm" || next === "a" || next === "p") && hour === undefined) hour = Number(token);
      // A number after a full date is its hour ("2023-12-01 10").
      else if (numbers.length === 3 && hour === undefined && Number(token) < 24) hour = Number(token);
      else numbers.push({ value: Number(token), digits: token.length });
    } else if (/^\d+(?:[./-]\d+)+$/.test(token) || /^\d+\.\d+$/.test(token)) {
      for (const part of token.split(/[./-]/)) numbers.push({ value: Number(part), digits: part.length });
    } else if (/^[+-]\d{2}:?\d{2}$/.test(token)) aware = true;
    else if (MONTHS.includes(lowered.slice(0, 3)) && (MONTH_NAMES.includes(lowered) || MONTHS.includes(lowered) || lowered === "sept")) {
      if (month !== undefined) throw unknownFormat(text);
      month = MONTHS.indexOf(lowered.slice(0, 3)) + 1;
    } else if (WEEKDAYS.includes(lowered)) continue;
    else if (lowered === "am" || lowered === "pm" || lowered === "a" || lowered === "p") meridiem = lowered.startsWith("a") ? "am" : "pm";
    else if (ZONES.has(lowered)) aware = true;
    // dateutil ignores a time zone name it does not know ("EST") after a time: the result is naive.
    else if (hour !== undefined && /^[A-Z]{3,5}$/.test(token)) continue;
    else if (JUMP.has(lowered) || lowered === "-" || lowered === "+") continue;
    else throw unknownFormat(text);
  }
  // pandas refuses a bare month ("December") and a bare time of day with am/pm ("3pm").
  if (numbers.length === 0 && (meridiem !== undefined || hour === undefined)) throw unknownFormat(text);
  if (meridiem !== undefined) {
    if (hour === undefined || hour < 1 || hour > 12) throw unknownFormat(text);
    hour = (hour % 12) + (meridiem === "pm" ? 12 : 0);
  }
  const now = new Date();
  let year: number | undefined;
  let day: number | undefined;
  const parts = [...numbers];
  if (parts.length > 3 || (parts.length === 0 && month === undefined && hour === undefined)) throw unknownFormat(text);
  if (month !== undefined) {
    for (const part of parts) {
      if (part.digits === 4 || part.value > 31 || day !== undefined) {
        if (year !== undefined) throw unknownFormat(text);
        year = part.value;
      } else day = part.value;
    }
  } else if (parts.length === 3) {
    const [a, b, c] = parts as [typeof parts[0], typeof parts[0], typeof parts[0]];
    if (a.digits === 4 || a.value > 31) [year, month, day] = [a.value, b.value, c.value];
    else if (a.value > 12) [day, month, year] = [a.value, b.value, c.value];
    else [month, day, year] = [a.value, b.value, c.value];
  } else if (parts.length === 2) {
    const [a, b] = parts as [typeof parts[0], typeof parts[0]];
    if (a.digits === 4 || a.value > 31) [year, month] = [a.value, b.value];
    else if (b.digits === 4 || b.value > 31) [month, year] = [a.value, b.value];
    else if (a.value > 12) [day, month] = [a.value, b.value];
    else [month, day] = [a.value, b.value];
  } else if (parts.length === 1) {
    const [a] = parts as [typeof parts[0]];
    if (a.digits === 4 || a.value > 31) year = a.value;
    else day = a.value;
  }
  if (year !== undefined && year < 100 && parts.find((p) => p.value === year)?.digits === 2) year += year < 69 ? 2000 : 1900;
  return build(text, year ?? now.getUTCFullYear(), month ?? now.getUTCMonth() + 1, day ?? now.getUTCDate(), hour ?? 0, minute, second, 0, aware);
}

/** `pd.Timestamp(value)`: a ValueError (pandas' parse failure) or TypeError for a value it cannot take. */
export function pdTimestamp(value: unknown): Timestamp {
  if (typeof value === "number") return Number.isNaN(value) ? "NaT" : { ms: Math.trunc(value / 1e6), aware: false };
  if (!isStr(value)) throw new PyException("TypeError", `Cannot convert input [${String(value)}] of type <class '${jsonTypeName(value)}'> to Timestamp`);
  const text = value.trim();
  if (text === "" || NAT_STRINGS.has(text)) return "NaT";
  if (text.toLowerCase() === "now" || text.toLowerCase() === "today") return { ms: Date.now(), aware: false };
  // pandas: a plain number below 1000 (not starting with 0) does not look like a date.
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(text) && !text.startsWith("0") && Number(text) < 1000) {
    throw new PyException("ValueError", `Given date string ${text} not likely a datetime`);
  }
  return parseIso(text) ?? parseDateutil(text);
}

/** `a >= b` / `a <= b` between timestamps: NaT compares false; naive against aware is a TypeError. */
export function compareTimestamps(a: Timestamp, b: Timestamp, op: ">=" | "<="): boolean {
  if (a === "NaT" || b === "NaT") return false;
  if (a.aware !== b.aware) throw new PyException("TypeError", "Cannot compare tz-naive and tz-aware timestamps");
  return op === ">=" ? a.ms >= b.ms : a.ms <= b.ms;
}

/** `pd.Timestamp(value).date()` as days since the epoch (NaT has no date: pandas raises). */
export function timestampDate(value: unknown): number {
  const timestamp = pdTimestamp(value);
  if (timestamp === "NaT") throw new PyException("ValueError", "NaTType does not support date");
  return Math.floor(timestamp.ms / 86_400_000);
}
