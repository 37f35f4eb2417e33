// What τ²-bench's pydantic models make of a tool's result when it is written into the tool message
// (Environment.to_json_str: json.dumps(model.model_dump())): fields in the model's order, absent Optionals as null,
// a float field's integral value as "47.0" and an int field's as "47". A value is given its model's shape here and
// then written by pythonJsonDumpsTyped (bigint = int, number = float).
import { pythonJsonDumpsTyped } from "../../python/json-dumps.ts";

export type Shape = "str" | "int" | "float" | "bool" | "any" | { model: [string, Shape][] } | { list: Shape } | { dict: Shape } | { opt: Shape } | { union: (value: any) => Shape };

export function shaped(value: unknown, shape: Shape): unknown {
  if (value === null || value === undefined) return null;
  if (shape === "int") return typeof value === "number" && Number.isInteger(value) ? BigInt(value) : value;
  if (shape === "float") return typeof value === "number" ? value : value;
  if (shape === "str" || shape === "bool") return value;
  if (shape === "any") return asPlainJson(value);
  if ("opt" in shape) return shaped(value, shape.opt);
  if ("union" in shape) return shaped(value, shape.union(value));
  if ("list" in shape) return Array.isArray(value) ? value.map((v) => shaped(v, shape.list)) : value;
  if ("dict" in shape) return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, shaped(v, shape.dict)]));
  const obj = value as Record<string, unknown>;
  return Object.fromEntries(shape.model.map(([k, s]) => [k, shaped(obj[k], s)]));
}

/** JSON numbers as Python's json.loads reads them back: whole numbers are ints. */
function asPlainJson(value: unknown): unknown {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(asPlainJson);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asPlainJson(v)]));
  return value;
}

export const dumpShaped = (value: unknown, shape: Shape): string => pythonJsonDumpsTyped(shaped(value, shape));

/** A pydantic model instance inside a plain value a tool returns (a dict's "line": Line): dumped by its shape. */
export class ModelValue {
  constructor(
    readonly value: unknown,
    readonly shape: Shape,
  ) {}
}
export const model = (value: unknown, shape: Shape) => new ModelValue(value, shape);
