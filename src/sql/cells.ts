// A result cell as Python's sqlite3 module hands it to NeMo Gym's comparison: None, int (any size: a bigint here),
// float, str, or bytes (a PyOpaque holding Python's repr, which is what `str()` of bytes prints). The sandboxed
// harness (harness.ts) sends each cell tagged, so 1 and 1.0 stay apart and a 64-bit int keeps every digit.
import { pythonBytesRepr } from "../python/repr.ts";
import { PyOpaque, type PyValue } from "../python/values.ts";

export type SqlCell = PyValue | PyOpaque;
export type SqlRow = SqlCell[];

/** `bytes` as Python holds it: equal to another bytes value exactly when their reprs are equal. */
export const sqlBytes = (data: Uint8Array): PyOpaque => new PyOpaque("bytes", pythonBytesRepr(data));
export const isBytes = (cell: SqlCell): cell is PyOpaque => cell instanceof PyOpaque && cell.typeName === "bytes";

/** Thrown for a cell the harness never writes: the frame did not come from it. */
export class CellFormatError extends Error {
  override name = "CellFormatError";
}

const NON_FINITE: Record<string, number> = { inf: Infinity, "-inf": -Infinity, nan: NaN };

/** One cell of the wire form: null, a string, or [tag, payload] for int ("i", decimal text), float ("f"), bytes ("b", base64). */
export function decodeCell(wire: unknown): SqlCell {
  if (wire === null || typeof wire === "string") return wire;
  if (!Array.isArray(wire) || wire.length !== 2) throw new CellFormatError(`not a result cell: ${JSON.stringify(wire)}`);
  const [tag, payload] = wire as [unknown, unknown];
  if (tag === "i" && typeof payload === "string" && /^-?\d+$/.test(payload)) return BigInt(payload);
  if (tag === "f" && typeof payload === "number") return payload;
  if (tag === "f" && typeof payload === "string" && payload in NON_FINITE) return NON_FINITE[payload]!;
  if (tag === "b" && typeof payload === "string") return sqlBytes(Buffer.from(payload, "base64"));
  throw new CellFormatError(`not a result cell: ${JSON.stringify(wire)}`);
}
