// Source files → rows as Python saw them (define.ts): Parquet through hyparquet (int columns as bigint, as
// `datasets` gives Python ints), JSON Lines through Python's json.loads rules (int vs float kept).
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from "hyparquet";
import type { SchemaTree } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { UserError } from "../../config/errors.ts";
import { pythonJsonLoads } from "../../python/json.ts";
import { pandasCsvRecords } from "../../python/pandas-csv.ts";
import type { Row } from "./define.ts";

export async function readParquetRows(path: string): Promise<Row[]> {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  const intColumns = new Set(parquetSchema(metadata).children.filter(holdsOnlyInts).map((child) => child.element.name));
  const rows = await parquetReadObjects({ file, metadata, compressors });
  for (const row of rows) for (const column of intColumns) row[column] = asInts(row[column]);
  return rows;
}

/** A column whose every leaf is an integer (not a date, time or decimal): Python sees ints there. */
function holdsOnlyInts(tree: SchemaTree): boolean {
  if (tree.children.length > 0) return tree.children.every(holdsOnlyInts);
  const { type, converted_type, logical_type } = tree.element;
  if (type !== "INT32" && type !== "INT64") return false;
  if (logical_type && logical_type.type !== "INTEGER") return false;
  return converted_type === undefined || /^U?INT_/.test(converted_type);
}

function asInts(value: unknown): unknown {
  if (typeof value === "number") return BigInt(value);
  if (Array.isArray(value)) return value.map(asInts);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asInts(v)]));
  return value;
}

export function readJsonlRows(path: string, label: string, options: { gzip?: boolean } = {}): Row[] {
  const rows: Row[] = [];
  const bytes = readFileSync(path);
  let text: string;
  try {
    text = (options.gzip ? gunzipSync(bytes) : bytes).toString("utf8");
  } catch (error) {
    throw new UserError(`${label}: not a gzip file (${(error as Error).message})`);
  }
  text
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() === "") return;
      let value: unknown;
      try {
        value = parsePythonJson(line);
      } catch (error) {
        throw new UserError(`${label}: line ${i + 1} is not JSON (${(error as Error).message})`);
      }
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new UserError(`${label}: line ${i + 1} is not a JSON object`);
      rows.push(value as Row);
    });
  return rows;
}

/** One JSON text as Python's json.loads reads it, dicts as plain objects (ints bigint, floats number). */
export function parsePythonJson(text: string): unknown {
  return toPlain(pythonJsonLoads(text));
}

/** json.loads's dicts (Maps) as plain objects, keys in order, ints still bigint. */
function toPlain(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [k, toPlain(v)]));
  if (Array.isArray(value)) return value.map(toPlain);
  return value;
}

/** `[row.to_dict() for _, row in pandas.read_csv(path, index_col=0).iterrows()]`. */
export function readPandasCsvRows(path: string, label: string): Row[] {
  try {
    return pandasCsvRecords(readFileSync(path, "utf8"), { indexCol: 0 });
  } catch (error) {
    throw new UserError(`${label}: ${(error as Error).message}`);
  }
}
