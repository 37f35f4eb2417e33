// NeMo Gym's structured_outputs scoring: does the answer — the whole text parsed in the row's format, or the
// single tool call's arguments — satisfy the strictified schema? Content is never compared, only the schema.
import { pythonJsonLoads } from "../../python/json.ts";
import { PyJsonDecodeError } from "../../python/exception.ts";
import { isPyDict, type PyValue } from "../../python/values.ts";
import type { NeMoGymResponse } from "../../protocol/index.ts";
import { readCsvDicts } from "./csv.ts";
import { parseJson } from "./json.ts";
import { coerceCsvTypes, coerceXmlTypes, strictifySchema } from "./schema.ts";
import { parseToml } from "./toml.ts";
import { validateAgainstSchema } from "./validate.ts";
import { pythonErrorMessage, type StructuredDict, type StructuredValue } from "./value.ts";
import { parseXml } from "./xml.ts";
import { parseYaml } from "./yaml.ts";
import { jsonRepr } from "../../python/json-value.ts";
import { pythonSlice, pythonStrip } from "../../python/str.ts";

export const SCHEMA_TYPES = ["json", "yaml", "xml", "toml", "csv"] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

export interface Evaluation {
  reward: number;
  error_type: string | null;
  error_message: string | null;
}

const pass: Evaluation = { reward: 1, error_type: null, error_message: null };
const failure = (error_type: string, error_message: string): Evaluation => ({ reward: 0, error_type, error_message });

/** The whole text in the row's format: json.loads, yaml.safe_load, xmltodict.parse, tomllib.loads, csv.DictReader. */
export function parseStructured(schemaType: SchemaType, text: string): StructuredValue {
  switch (schemaType) {
    case "json":
      return parseJson(text);
    case "yaml":
      return parseYaml(text);
    case "xml":
      return parseXml(text);
    case "toml":
      return parseToml(text);
    case "csv":
      return readCsvDicts(text).rows;
  }
}

/** `str(e)[:200]` of the exception json.loads raises on a bad schema. */
function loadSchema(schemaText: string): { schema: PyValue } | { error: Evaluation } {
  try {
    return { schema: pythonJsonLoads(schemaText) };
  } catch (error) {
    return { error: failure("schema_error", pythonSlice((error as Error).message, 0, 200)) };
  }
}

function validated(instance: StructuredValue, schema: PyValue, schemaText: string): Evaluation {
  try {
    validateAgainstSchema(instance, schema, schemaText);
    return pass;
  } catch (error) {
    return failure("validation_error", pythonErrorMessage(error as Error));
  }
}

/** Text mode: blank → empty_response; bad schema → schema_error; unparsable → parse_error; else validation. */
export function evaluateText(schemaType: SchemaType, schemaText: string, text: string, options: { xmlCoerceTypes: boolean }): Evaluation {
  if (pythonStrip(text) === "") return failure("empty_response", "No assistant response text");
  const loaded = loadSchema(schemaText);
  if ("error" in loaded) return loaded.error;
  strictifySchema(loaded.schema);
  let parsed: StructuredValue;
  try {
    parsed = parseStructured(schemaType, text);
  } catch (error) {
    return failure("parse_error", pythonErrorMessage(error as Error));
  }
  try {
    if (schemaType === "xml" && options.xmlCoerceTypes) parsed = coerceXmlTypes(parsed, loaded.schema);
    if (schemaType === "csv") parsed = coerceCsvTypes(parsed as StructuredDict[], loaded.schema);
  } catch (error) {
    return failure("validation_error", pythonErrorMessage(error as Error));
  }
  return validated(parsed, loaded.schema, schemaText);
}

export interface ToolCallExpectation {
  toolName: string | null;
  toolPayloadKey: string | null;
}

/** The payload of the one function call, or the error NeMo Gym reports for the response. */
export function extractToolCallPayload(response: NeMoGymResponse, expected: ToolCallExpectation): { payload: StructuredValue } | { error: Evaluation } {
  if (response.error !== null && response.error !== undefined) {
    return { error: failure("api_error", pythonSlice(pydanticModelStr(response.error), 0, 200)) };
  }
  const calls = response.output.filter((item) => item.type === "function_call") as { name: string; arguments: unknown }[];
  if (calls.length === 0) return { error: failure("missing_tool_call", "No function_call item found in assistant response") };
  const names = calls.map((call) => call.name).join(", ");
  if (calls.length > 1) return { error: failure("multiple_tool_calls", `Expected exactly one function_call, got: ${names}`) };
  const call = calls[0]!;
  if (expected.toolName && call.name !== expected.toolName) {
    return { error: failure("wrong_tool_name", `Expected tool '${expected.toolName}', got: ${names}`) };
  }
  let args: PyValue;
  try {
    args = pythonJsonLoads(String(call.arguments));
  } catch (error) {
    if (!(error instanceof PyJsonDecodeError)) throw error;
    return { error: failure("tool_arguments_parse_error", `JSONDecodeError: ${pythonSlice(error.message, 0, 200)}`) };
  }
  if (expected.toolPayloadKey) {
    if (!isPyDict(args) || !args.has(expected.toolPayloadKey)) {
      return { error: failure("missing_tool_payload_key", `Missing tool payload key: ${expected.toolPayloadKey}`) };
    }
    return { payload: args.get(expected.toolPayloadKey)! };
  }
  return { payload: args };
}

/** Tool-call mode: the single call's (payload) arguments validated against the strictified schema. */
export function evaluateToolCall(response: NeMoGymResponse, schemaText: string, expected: ToolCallExpectation): Evaluation {
  const extracted = extractToolCallPayload(response, expected);
  if ("error" in extracted) return extracted.error;
  const loaded = loadSchema(schemaText);
  if ("error" in loaded) return loaded.error;
  strictifySchema(loaded.schema);
  return validated(extracted.payload, loaded.schema, schemaText);
}

/** `str(response.error)`: a pydantic model's str is `field=value` pairs of reprs (`code='…' message='…'`). */
function pydanticModelStr(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error);
  return Object.entries(error as Record<string, unknown>)
    .map(([key, value]) => `${key}=${jsonRepr(value)}`)
    .join(" ");
}
