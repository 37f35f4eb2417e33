// What the parsers of structured output produce: Python values, as the libraries NeMo Gym calls build them.
// A superset of python-json's PyValue: PyYAML may key a dict by an int, a bool, None or a date, csv.DictReader
// keys surplus fields by None, and PyYAML/tomllib build dates, times, bytes and sets — values that are none
// of the JSON types, which a schema validator rejects for every `type` and that a path walk treats as leaves.
import type { PyValue } from "../../python/values.ts";
import { PyOpaque } from "../../python/values.ts";
import { pythonSlice } from "../../python/str.ts";

export type PyKey = string | bigint | number | boolean | null | PyOpaque;
export type StructuredValue = PyValue | PyOpaque | StructuredValue[] | StructuredDict;
export type StructuredDict = Map<PyKey, StructuredValue>;

export const isDict = (value: unknown): value is StructuredDict => value instanceof Map;

/** `f"{type(e).__name__}: {str(e)[:200]}"`, the error_message NeMo Gym reports (200 code points, not UTF-16 units). */
export function pythonErrorMessage(error: { name: string; message: string }): string {
  return `${error.name}: ${pythonSlice(error.message, 0, 200)}`;
}

export interface TemporalParts {
  date?: [year: number, month: number, day: number];
  time?: [hour: number, minute: number, second: number, microsecond: number];
  /** Offset east of UTC in seconds; undefined for a naive value. */
  offsetSeconds?: number;
}

/** Python's timedelta repr: `datetime.timedelta(days=-1, seconds=68400)`. */
function timedeltaRepr(totalSeconds: number): string {
  const days = Math.floor(totalSeconds / 86400);
  const seconds = totalSeconds - days * 86400;
  const parts = [...(days !== 0 ? [`days=${days}`] : []), ...(seconds !== 0 ? [`seconds=${seconds}`] : [])];
  return `datetime.timedelta(${parts.join(", ")})`;
}

/** A date, time or datetime as Python builds it (PyYAML timestamps, tomllib dates), with Python's repr. */
export function pythonTemporal(parts: TemporalParts): PyOpaque {
  const time = parts.time ? [parts.time[0], parts.time[1], ...(parts.time[2] || parts.time[3] ? [parts.time[2]] : []), ...(parts.time[3] ? [parts.time[3]] : [])] : [];
  const tz = parts.offsetSeconds === undefined ? "" : `, tzinfo=${parts.offsetSeconds === 0 ? "datetime.timezone.utc" : `datetime.timezone(${timedeltaRepr(parts.offsetSeconds)})`}`;
  if (parts.date && parts.time) return new PyOpaque("datetime", `datetime.datetime(${[...parts.date, ...time].join(", ")}${tz})`);
  if (parts.date) return new PyOpaque("date", `datetime.date(${parts.date.join(", ")})`);
  return new PyOpaque("time", `datetime.time(${time.join(", ")}${tz})`);
}
