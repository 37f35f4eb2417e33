// Python builtins whose exact results the scorers depend on: `<` between parsed values (with the TypeErrors of
// mixed types), `sorted()`, and the equality of two `json.dumps` texts. (`sum()` of floats is in python-float.ts.)
import { asNumber, pythonEquals, pythonTypeName, type PyValue } from "../python-json.ts";
import { floatRepr } from "../python-values.ts";
import { compareStrings } from "../python-str.ts";

/** `a < b` of an int and a float, exactly (no rounding of the int). */
function numberLess(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === "number" && typeof b === "number") return a < b;
  if (typeof a === "bigint" && typeof b === "bigint") return a < b;
  const float = (typeof a === "number" ? a : b) as number;
  const integer = (typeof a === "bigint" ? a : b) as bigint;
  if (Number.isNaN(float)) return false;
  if (!Number.isFinite(float)) return typeof a === "number" ? float < 0 : float > 0;
  // Compare against the float's floor: exact for every finite double.
  const floor = BigInt(Math.floor(float));
  const fractional = float !== Math.floor(float);
  return typeof a === "bigint" ? integer < floor || (integer === floor && fractional) : floor < integer;
}

/** Python's `a < b`; a comparison Python refuses (None, dicts, mixed types) throws its TypeError. */
export function pythonLess(a: PyValue, b: PyValue): boolean {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return numberLess(x, y);
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b) < 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (!pythonEquals(a[i]!, b[i]!)) return pythonLess(a[i]!, b[i]!);
    return a.length < b.length;
  }
  throw new TypeError(`'<' not supported between instances of '${pythonTypeName(a)}' and '${pythonTypeName(b)}'`);
}

/** `sorted(values, key=key)`: stable, ordered by `<`. */
export function pythonSorted<T>(values: readonly T[], key: (value: T) => PyValue = (value) => value as PyValue): T[] {
  const keyed = values.map((value) => ({ value, key: key(value) }));
  keyed.sort((a, b) => (pythonLess(b.key, a.key) ? 1 : pythonLess(a.key, b.key) ? -1 : 0));
  return keyed.map(({ value }) => value);
}

/**
 * A text equal for two values exactly when their `json.dumps` texts are equal: ints and floats apart (`1` vs
 * `1.0`), dict keys in order, every NaN alike.
 */
export function dumpsKey(value: PyValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return floatRepr(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(dumpsKey).join(",")}]`;
  return `{${[...value].map(([k, v]) => `${JSON.stringify(k)}:${dumpsKey(v)}`).join(",")}}`;
}
