// The files of a zip archive (what Python's zipfile extracts for `datasets`' download_and_extract), read by
// src/client/zip.ts (yauzl: stored and deflated members, Zip64, UTF-8 or CP437 names, CRC-32 checked). Then the
// JSON rows `load_dataset("json", data_files=<archive>)` sees: the extracted files in the order datasets walks a
// folder (each folder's files sorted, then its subfolders sorted; names starting with "." or "__" skipped, e.g.
// __MACOSX/), each file JSON Lines, or else one JSON array of objects.
import { UserError } from "../../config/errors.ts";
import { readZipFiles, type ZipMember } from "../../client/zip.ts";
import type { Row } from "./define.ts";
import { parsePythonJson } from "./readers.ts";

export type { ZipMember };

/** Every regular file of the archive, in central-directory order. */
export const readZipMembers = (path: string): Promise<ZipMember[]> => readZipFiles(path);

const hidden = (part: string) => part.startsWith(".") || part.startsWith("__");
/** Python's str order (code points), which UTF-8 byte order is. */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

/** The members' names in the order `datasets` iterates the extracted folder (os.walk, top-down, sorted, hidden skipped). */
export function walkOrder(names: readonly string[]): string[] {
  interface Folder { files: string[]; folders: Map<string, Folder> }
  const root: Folder = { files: [], folders: new Map() };
  for (const name of names) {
    const parts = name.split("/").filter((part) => part !== "" && part !== ".");
    if (parts.length === 0 || parts.some(hidden)) continue;
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      if (!folder.folders.has(part)) folder.folders.set(part, { files: [], folders: new Map() });
      folder = folder.folders.get(part)!;
    }
    folder.files.push(name);
  }
  const order: string[] = [];
  const visit = (folder: Folder) => {
    order.push(...[...folder.files].sort((a, b) => byCodePoint(a.split("/").pop()!, b.split("/").pop()!)));
    for (const key of [...folder.folders.keys()].sort(byCodePoint)) visit(folder.folders.get(key)!);
  };
  visit(root);
  return order;
}

/** The rows of every JSON file of the archive, in `datasets`' order. */
export async function readJsonZipRows(path: string, label: string): Promise<Row[]> {
  const members = new Map((await readZipMembers(path)).map((member) => [member.name, member.data]));
  const rows: Row[] = [];
  for (const name of walkOrder([...members.keys()])) rows.push(...jsonFileRows(members.get(name)!.toString("utf8"), `${label}/${name}`));
  return unifyNumberColumns(rows);
}

/** JSON Lines (Arrow's read_json), else the whole file as one JSON array of objects (the json builder's fallback). */
function jsonFileRows(text: string, label: string): Row[] {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  try {
    const values = lines.map((line) => parsePythonJson(line));
    if (values.every((value) => value !== null && typeof value === "object" && !Array.isArray(value))) return values as Row[];
  } catch {
    // Not JSON Lines: the whole file may be one JSON document.
  }
  let whole: unknown;
  try {
    whole = parsePythonJson(text);
  } catch (error) {
    throw new UserError(`${label}: neither JSON Lines nor a JSON document (${(error as Error).message})`);
  }
  if (!Array.isArray(whole) || !whole.every((value) => value !== null && typeof value === "object" && !Array.isArray(value))) throw new UserError(`${label}: not a JSON array of objects`);
  return whole as Row[];
}

/** A column Arrow reads as double because some of its values are floats: its ints come out as floats too (1 → 1.0). */
function unifyNumberColumns(rows: Row[]): Row[] {
  const floatColumns = new Set<string>();
  for (const row of rows) for (const [key, value] of Object.entries(row)) if (typeof value === "number") floatColumns.add(key);
  if (floatColumns.size === 0) return rows;
  for (const row of rows) for (const key of floatColumns) if (typeof row[key] === "bigint") row[key] = Number(row[key]);
  return rows;
}
