// The files of a zip archive (what Python's zipfile extracts for `datasets`' download_and_extract), read from its
// central directory: stored and deflated members (node:zlib inflates), Zip64 sizes and offsets, UTF-8 or CP437
// names. Then the JSON rows `load_dataset("json", data_files=<archive>)` sees: the extracted files in the order
// datasets walks a folder (each folder's files sorted, then its subfolders sorted; names starting with "." or "__"
// skipped, e.g. __MACOSX/), each file JSON Lines, or else one JSON array of objects.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import { UserError } from "../../config/errors.ts";
import type { Row } from "./define.ts";
import { parsePythonJson } from "./readers.ts";

export interface ZipMember {
  name: string;
  data: Buffer;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Every regular file of the archive, in central-directory order. */
export function readZipMembers(path: string): ZipMember[] {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const read = (offset: number, length: number) => {
      const buffer = Buffer.alloc(length);
      const got = readSync(fd, buffer, 0, length, offset);
      if (got !== length) throw new UserError(`${path}: not a complete zip archive (cut at byte ${offset + got})`);
      return buffer;
    };
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = read(size - tailLength, tailLength);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) if (tail.readUInt32LE(i) === EOCD) { at = i; break; }
    if (at < 0) throw new UserError(`${path}: not a zip archive (no end of central directory)`);
    let entries = tail.readUInt16LE(at + 10);
    let dirSize = tail.readUInt32LE(at + 12);
    let dirOffset = tail.readUInt32LE(at + 16);
    if (entries === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
      const locatorAt = size - tailLength + at - 20;
      const locator = read(locatorAt, 20);
      if (locator.readUInt32LE(0) !== ZIP64_LOCATOR) throw new UserError(`${path}: a Zip64 archive without its locator`);
      const record = read(Number(locator.readBigUInt64LE(8)), 56);
      if (record.readUInt32LE(0) !== ZIP64_EOCD) throw new UserError(`${path}: a Zip64 archive without its end record`);
      entries = Number(record.readBigUInt64LE(32));
      dirSize = Number(record.readBigUInt64LE(40));
      dirOffset = Number(record.readBigUInt64LE(48));
    }
    const dir = read(dirOffset, dirSize);
    const members: ZipMember[] = [];
    for (let p = 0, n = 0; n < entries; n++) {
      if (dir.readUInt32LE(p) !== CENTRAL) throw new UserError(`${path}: a broken central directory (entry ${n + 1})`);
      const flags = dir.readUInt16LE(p + 8);
      const method = dir.readUInt16LE(p + 10);
      let compressed = dir.readUInt32LE(p + 20);
      let uncompressed = dir.readUInt32LE(p + 24);
      const nameLength = dir.readUInt16LE(p + 28);
      const extraLength = dir.readUInt16LE(p + 30);
      const commentLength = dir.readUInt16LE(p + 32);
      let localOffset = dir.readUInt32LE(p + 42);
      const nameBytes = dir.subarray(p + 46, p + 46 + nameLength);
      // Bit 11: the name is UTF-8; else CP437, which is ASCII for every name a dataset uses (latin1 stands in).
      const name = nameBytes.toString(flags & 0x800 ? "utf8" : "latin1");
      const extra = dir.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
      for (let e = 0; e + 4 <= extra.length; e += 4 + extra.readUInt16LE(e + 2)) {
        if (extra.readUInt16LE(e) !== 0x0001) continue;
        let q = e + 4;
        if (uncompressed === 0xffffffff) (uncompressed = Number(extra.readBigUInt64LE(q))), (q += 8);
        if (compressed === 0xffffffff) (compressed = Number(extra.readBigUInt64LE(q))), (q += 8);
        if (localOffset === 0xffffffff) localOffset = Number(extra.readBigUInt64LE(q));
      }
      p += 46 + nameLength + extraLength + commentLength;
      if (name.endsWith("/")) continue;
      if (flags & 0x1) throw new UserError(`${path}: ${name} is encrypted`);
      const local = read(localOffset, 30);
      if (local.readUInt32LE(0) !== LOCAL) throw new UserError(`${path}: ${name} has no local header`);
      const raw = read(localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28), compressed);
      let data: Buffer;
      if (method === 0) data = raw;
      else if (method === 8) data = inflateRawSync(raw);
      else throw new UserError(`${path}: ${name} uses compression method ${method} (only stored and deflated are read)`);
      if (data.length !== uncompressed) throw new UserError(`${path}: ${name} inflates to ${data.length} bytes, not ${uncompressed}`);
      members.push({ name, data });
    }
    return members;
  } finally {
    closeSync(fd);
  }
}

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
export function readJsonZipRows(path: string, label: string): Row[] {
  const members = new Map(readZipMembers(path).map((member) => [member.name, member.data]));
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
