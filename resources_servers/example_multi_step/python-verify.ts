// NeMo Gym's verify for this environment as Python runs it on whatever the model submitted. The submission is
// json.loads'd, so it may hold floats, strings, bools, null or nested values, and every step below either
// follows Python's rules for them or raises what Python raises (a 500): `set(actual)`, `x in actual`, the
// division by len(expected), and last pydantic validating the response's `parsed_synonym_values: List[int]`.
import { PydanticValidationError } from "../../src/python/exception.ts";
import { isPyDict, pythonEquals, pythonIterate, pythonRepr, pythonTypeName, type PyValue } from "../../src/python/values.ts";
import { codePoints } from "../../src/python/str.ts";

/** The pydantic-core version NeMo Gym's uv.lock pins (pydantic 2.13.4): its errors link to this docs version. */
const PYDANTIC_DOCS_VERSION = "2.13";
const RESPONSE_MODEL = "ExampleMultiStepVerifyResponse";

interface LineError {
  loc: string;
  type: string;
  message: string;
  input: PyValue;
}

/** Python's `set(value)`: the members it holds, or the TypeError an unhashable or non-iterable value raises. */
export function pythonSetMembers(value: PyValue): PyValue[] {
  const members = pythonIterate(value);
  for (const item of members) if (Array.isArray(item) || isPyDict(item)) throw new TypeError(`unhashable type: '${pythonTypeName(item)}'`);
  return members;
}

/** `len(set(actual) & set(expected))`: the distinct expected values some member equals (1 == 1.0 == True). */
export function overlapCount(members: PyValue[], expected: bigint[]): number {
  const distinct = expected.filter((value, i) => expected.indexOf(value) === i);
  return distinct.filter((value) => members.some((member) => pythonEquals(member, value))).length;
}

const TWO_TO_63 = 2 ** 63;
// pydantic-core trims with Rust's char::is_whitespace (Unicode White_Space), then reads an optional sign,
// ASCII digits with single underscores between them, and an optional fraction of zeros only.
const INT_STRING = /^[+-]?[0-9](?:_?[0-9])*(?:\.0+)?$/;
const trimWhiteSpace = (text: string) => text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");

/** pydantic's lax-mode `int` of one value: the int, or the error type and message pydantic reports. */
export function laxInt(value: PyValue): { value: bigint } | { type: string; message: string } {
  if (typeof value === "boolean") return { value: value ? 1n : 0n };
  if (typeof value === "bigint") return { value };
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return { type: "finite_number", message: "Input should be a finite number" };
    if (!Number.isInteger(value)) return { type: "int_from_float", message: "Input should be a valid integer, got a number with a fractional part" };
    // Floats convert through a 64-bit int: both ends are out, -2**63 too.
    if (Math.abs(value) >= TWO_TO_63) return { type: "int_parsing_size", message: "Unable to parse input string as an integer, exceeded maximum size" };
    return { value: BigInt(value) };
  }
  if (typeof value === "string") {
    const text = trimWhiteSpace(value);
    if (!INT_STRING.test(text)) return { type: "int_parsing", message: "Input should be a valid integer, unable to parse string as an integer" };
    return { value: BigInt(text.split(".")[0]!.replaceAll("_", "")) };
  }
  return { type: "int_type", message: "Input should be a valid integer" };
}

/** pydantic's repr of an input value in an error line: cut to its first 25 and last 24 characters past 50. */
function inputRepr(value: PyValue): string {
  const repr = codePoints(pythonRepr(value));
  return repr.length > 50 ? `${repr.slice(0, 25).join("")}...${repr.slice(-24).join("")}` : repr.join("");
}

function validationError(errors: LineError[]): PydanticValidationError {
  const lines = [`${errors.length} validation error${errors.length === 1 ? "" : "s"} for ${RESPONSE_MODEL}`];
  for (const error of errors) {
    lines.push(error.loc, `  ${error.message} [type=${error.type}, input_value=${inputRepr(error.input)}, input_type=${pythonTypeName(error.input)}]`);
    lines.push(`    For further information visit https://errors.pydantic.dev/${PYDANTIC_DOCS_VERSION}/v/${error.type}`);
  }
  return new PydanticValidationError(lines.join("\n"));
}

/** `parsed_synonym_values: List[int]` validating the submission: the ints, or pydantic's ValidationError. */
export function validateIntList(actual: PyValue): bigint[] {
  const field = "parsed_synonym_values";
  if (!Array.isArray(actual)) throw validationError([{ loc: field, type: "list_type", message: "Input should be a valid list", input: actual }]);
  const ints: bigint[] = [];
  const errors: LineError[] = [];
  actual.forEach((item, i) => {
    const result = laxInt(item);
    if ("value" in result) ints.push(result.value);
    else errors.push({ loc: `${field}.${i}`, type: result.type, message: result.message, input: item });
  });
  if (errors.length > 0) throw validationError(errors);
  return ints;
}
