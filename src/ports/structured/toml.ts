// TOML as Python's `tomllib.loads(text)` reads it (TOML 1.0, CPython 3.11–3.13): the same statement-by-statement
// reading, the same rules for redefining tables and keys, and the same `TOMLDecodeError` messages with their
// position (`Invalid statement (at line 1, column 1)`, columns from 1, or `at end of document`). Integers are ints
// of any size, dates and times are datetime values (none of the JSON types), tables are dicts.
import { pythonStringRepr } from "../../python/repr.ts";
import { pythonLen } from "../../python/str.ts";
import { pythonTemporal, type StructuredDict, type StructuredValue } from "./value.ts";
import { PyException } from "../../python/exception.ts";

type Key = string[];

const TOML_WS = " \t";
const TOML_WS_AND_NEWLINE = " \t\n";
const BARE_KEY_CHAR = /[A-Za-z0-9_-]/;
const KEY_INITIAL_CHAR = /[A-Za-z0-9_\-"']/;
const isAsciiControl = (ch: string) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127;
const illegalBasic = (ch: string) => isAsciiControl(ch) && ch !== "\t";
const illegalMultiline = (ch: string) => isAsciiControl(ch) && ch !== "\t" && ch !== "\n";
const ESCAPES: Record<string, string> = { "\\b": "\b", "\\t": "\t", "\\n": "\n", "\\f": "\f", "\\r": "\r", '\\"': '"', "\\\\": "\\" };

const TIME = "([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\\.([0-9]{1,6})[0-9]*)?";
const DATETIME = new RegExp(`([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(?:[Tt ]${TIME}(?:([Zz])|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))?)?`, "y");
const LOCAL_TIME = new RegExp(TIME, "y");
const NUMBER = /0(?:x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|b[01](?:_?[01])*|o[0-7](?:_?[0-7])*)|[+-]?(?:0|[1-9](?:_?[0-9])*)((?:\.[0-9](?:_?[0-9])*)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?)/y;

class TomlDecodeError extends PyException {
  constructor(src: string, pos: number, message: string) {
    super("TOMLDecodeError", `${message} (at ${coordinates(src, pos)})`);
  }
}

/** Python counts positions in code points; JS strings index UTF-16 units. */

function coordinates(src: string, pos: number): string {
  if (pos >= src.length) return "end of document";
  const before = src.slice(0, pos);
  const line = before.split("\n").length;
  const column = line === 1 ? pythonLen(before) + 1 : pythonLen(before.slice(before.lastIndexOf("\n")));
  return `line ${line}, column ${column}`;
}

const pyRepr = pythonStringRepr;
const keyRepr = (key: Key) => `(${key.map(pyRepr).join(", ")}${key.length === 1 ? "," : ""})`;

const FROZEN = 0;
const EXPLICIT_NEST = 1;

interface FlagNode {
  flags: Set<number>;
  recursive: Set<number>;
  nested: Map<string, FlagNode>;
}

/** Which keys are frozen (inline tables/arrays) or explicitly created (`[table]`). */
class Flags {
  private readonly root = new Map<string, FlagNode>();
  private pending: [Key, number][] = [];

  addPending(key: Key, flag: number) {
    this.pending.push([key, flag]);
  }

  finalizePending() {
    for (const [key, flag] of this.pending) this.set(key, flag, false);
    this.pending = [];
  }

  unsetAll(key: Key) {
    let container = this.root;
    for (const part of key.slice(0, -1)) {
      const node = container.get(part);
      if (!node) return;
      container = node.nested;
    }
    container.delete(key.at(-1)!);
  }

  set(key: Key, flag: number, recursive: boolean) {
    const container = this.containerOf(key);
    const stem = key.at(-1)!;
    if (!container.has(stem)) container.set(stem, { flags: new Set(), recursive: new Set(), nested: new Map() });
    const node = container.get(stem)!;
    (recursive ? node.recursive : node.flags).add(flag);
  }

  private containerOf(key: Key): Map<string, FlagNode> {
    let container = this.root;
    for (const part of key.slice(0, -1)) {
      if (!container.has(part)) container.set(part, { flags: new Set(), recursive: new Set(), nested: new Map() });
      container = container.get(part)!.nested;
    }
    return container;
  }

  is(key: Key, flag: number): boolean {
    if (key.length === 0) return false;
    let container = this.root;
    for (const part of key.slice(0, -1)) {
      const node = container.get(part);
      if (!node) return false;
      if (node.recursive.has(flag)) return true;
      container = node.nested;
    }
    const node = container.get(key.at(-1)!);
    return node !== undefined && (node.flags.has(flag) || node.recursive.has(flag));
  }
}

class NoNest extends Error {}

/** The table at `key`, created as needed; through an array of tables, its last table. */
function getOrCreateNest(root: StructuredDict, key: Key, accessLists = true): StructuredDict {
  let container: StructuredValue = root;
  for (const part of key) {
    const table = container as StructuredDict;
    if (!table.has(part)) table.set(part, new Map());
    container = table.get(part)!;
    if (accessLists && Array.isArray(container)) container = container.at(-1)!;
    if (!(container instanceof Map)) throw new NoNest();
  }
  return container as StructuredDict;
}

function appendNestToList(root: StructuredDict, key: Key) {
  const container = getOrCreateNest(root, key.slice(0, -1));
  const last = key.at(-1)!;
  if (container.has(last)) {
    const list = container.get(last);
    if (!Array.isArray(list)) throw new NoNest();
    list.push(new Map());
  } else container.set(last, [new Map()]);
}

function skipChars(src: string, pos: number, chars: string): number {
  while (pos < src.length && chars.includes(src[pos]!)) pos++;
  return pos;
}

function skipUntil(src: string, pos: number, expect: string, illegal: (ch: string) => boolean, errorOnEof: boolean): number {
  let end = src.indexOf(expect, pos);
  if (end === -1) {
    end = src.length;
    if (errorOnEof) throw new TomlDecodeError(src, end, `Expected ${pyRepr(expect)}`);
  }
  for (let i = pos; i < end; i++) if (illegal(src[i]!)) throw new TomlDecodeError(src, i, `Found invalid character ${charRepr(src[i]!)}`);
  return end;
}

const charRepr = pythonStringRepr;

const skipComment = (src: string, pos: number) => (src[pos] === "#" ? skipUntil(src, pos + 1, "\n", illegalBasic, false) : pos);

function skipCommentsAndArrayWs(src: string, pos: number): number {
  for (;;) {
    const before = pos;
    pos = skipComment(src, skipChars(src, pos, TOML_WS_AND_NEWLINE));
    if (pos === before) return pos;
  }
}

function parseKeyPart(src: string, pos: number): [number, string] {
  const ch = src[pos];
  if (ch !== undefined && BARE_KEY_CHAR.test(ch)) {
    const start = pos;
    while (pos < src.length && BARE_KEY_CHAR.test(src[pos]!)) pos++;
    return [pos, src.slice(start, pos)];
  }
  if (ch === "'") return parseLiteralString(src, pos);
  if (ch === '"') return parseBasicString(src, pos + 1, false);
  throw new TomlDecodeError(src, pos, "Invalid initial character for a key part");
}

function parseKey(src: string, pos: number): [number, Key] {
  let part: string;
  [pos, part] = parseKeyPart(src, pos);
  const key = [part];
  pos = skipChars(src, pos, TOML_WS);
  while (src[pos] === ".") {
    pos = skipChars(src, pos + 1, TOML_WS);
    [pos, part] = parseKeyPart(src, pos);
    key.push(part);
    pos = skipChars(src, pos, TOML_WS);
  }
  return [pos, key];
}

function parseKeyValuePair(src: string, pos: number): [number, Key, StructuredValue] {
  let key: Key;
  [pos, key] = parseKey(src, pos);
  if (src[pos] !== "=") throw new TomlDecodeError(src, pos, "Expected '=' after a key in a key/value pair");
  pos = skipChars(src, pos + 1, TOML_WS);
  const [end, value] = parseValue(src, pos);
  return [end, key, value];
}

function parseLiteralString(src: string, pos: number): [number, string] {
  const start = pos + 1;
  const end = skipUntil(src, start, "'", illegalBasic, true);
  return [end + 1, src.slice(start, end)];
}

function parseHexChar(src: string, pos: number, length: number): [number, string] {
  const hex = src.slice(pos, pos + length);
  if (hex.length !== length || !/^[0-9A-Fa-f]+$/.test(hex)) throw new TomlDecodeError(src, pos, "Invalid hex value");
  pos += length;
  const code = parseInt(hex, 16);
  if (!(code <= 0xd7ff || (code >= 0xe000 && code <= 0x10ffff))) throw new TomlDecodeError(src, pos, "Escaped character is not a Unicode scalar value");
  return [pos, String.fromCodePoint(code)];
}

function parseEscape(src: string, pos: number, multiline: boolean): [number, string] {
  const escape = src.slice(pos, pos + 2);
  pos += 2;
  if (multiline && (escape === "\\ " || escape === "\\\t" || escape === "\\\n")) {
    if (escape !== "\\\n") {
      pos = skipChars(src, pos, TOML_WS);
      if (pos >= src.length) return [pos, ""];
      if (src[pos] !== "\n") throw new TomlDecodeError(src, pos, "Unescaped '\\' in a string");
      pos++;
    }
    return [skipChars(src, pos, TOML_WS_AND_NEWLINE), ""];
  }
  if (escape === "\\u") return parseHexChar(src, pos, 4);
  if (escape === "\\U") return parseHexChar(src, pos, 8);
  const replacement = ESCAPES[escape];
  if (replacement === undefined) throw new TomlDecodeError(src, pos, "Unescaped '\\' in a string");
  return [pos, replacement];
}

function parseBasicString(src: string, pos: number, multiline: boolean): [number, string] {
  const illegal = multiline ? illegalMultiline : illegalBasic;
  let result = "";
  let start = pos;
  for (;;) {
    if (pos >= src.length) throw new TomlDecodeError(src, pos, "Unterminated string");
    const ch = src[pos]!;
    if (ch === '"') {
      if (!multiline) return [pos + 1, result + src.slice(start, pos)];
      if (src.startsWith('"""', pos)) return [pos + 3, result + src.slice(start, pos)];
      pos++;
      continue;
    }
    if (ch === "\\") {
      result += src.slice(start, pos);
      let escaped: string;
      [pos, escaped] = parseEscape(src, pos, multiline);
      result += escaped;
      start = pos;
      continue;
    }
    if (illegal(ch)) throw new TomlDecodeError(src, pos, `Illegal character ${charRepr(ch)}`);
    pos++;
  }
}

function parseMultilineString(src: string, pos: number, literal: boolean): [number, string] {
  pos += 3;
  if (src[pos] === "\n") pos++;
  let result: string;
  const delimiter = literal ? "'" : '"';
  if (literal) {
    const end = skipUntil(src, pos, "'''", illegalMultiline, true);
    result = src.slice(pos, end);
    pos = end + 3;
  } else [pos, result] = parseBasicString(src, pos, true);
  // Up to two quotes right before the closing delimiter belong to the string.
  if (src[pos] !== delimiter) return [pos, result];
  if (src[pos + 1] !== delimiter) return [pos + 1, result + delimiter];
  return [pos + 2, result + delimiter + delimiter];
}

function parseArray(src: string, pos: number): [number, StructuredValue[]] {
  const array: StructuredValue[] = [];
  pos = skipCommentsAndArrayWs(src, pos + 1);
  if (src[pos] === "]") return [pos + 1, array];
  for (;;) {
    let value: StructuredValue;
    [pos, value] = parseValue(src, pos);
    array.push(value);
    pos = skipCommentsAndArrayWs(src, pos);
    if (src[pos] === "]") return [pos + 1, array];
    if (src[pos] !== ",") throw new TomlDecodeError(src, pos, "Unclosed array");
    pos = skipCommentsAndArrayWs(src, pos + 1);
    if (src[pos] === "]") return [pos + 1, array];
  }
}

function parseInlineTable(src: string, pos: number): [number, StructuredDict] {
  const table: StructuredDict = new Map();
  const flags = new Flags();
  pos = skipChars(src, pos + 1, TOML_WS);
  if (src[pos] === "}") return [pos + 1, table];
  for (;;) {
    let key: Key;
    let value: StructuredValue;
    [pos, key, value] = parseKeyValuePair(src, pos);
    if (flags.is(key, FROZEN)) throw new TomlDecodeError(src, pos, `Cannot mutate immutable namespace ${keyRepr(key)}`);
    let nest: StructuredDict;
    try {
      nest = getOrCreateNest(table, key.slice(0, -1), false);
    } catch (error) {
      if (error instanceof NoNest) throw new TomlDecodeError(src, pos, "Cannot overwrite a value");
      throw error;
    }
    const stem = key.at(-1)!;
    if (nest.has(stem)) throw new TomlDecodeError(src, pos, `Duplicate inline table key ${pyRepr(stem)}`);
    nest.set(stem, value);
    pos = skipChars(src, pos, TOML_WS);
    if (src[pos] === "}") return [pos + 1, table];
    if (src[pos] !== ",") throw new TomlDecodeError(src, pos, "Unclosed inline table");
    if (value instanceof Map || Array.isArray(value)) flags.set(key, FROZEN, true);
    pos = skipChars(src, pos + 1, TOML_WS);
  }
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const validDate = (year: number, month: number, day: number) =>
  year >= 1 && day <= (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : DAYS_IN_MONTH[month - 1]!);
const micros = (text: string | undefined) => (text ? Number(text.padEnd(6, "0")) : 0);

function parseValue(src: string, pos: number): [number, StructuredValue] {
  const ch = src[pos];
  if (ch === '"') return src.startsWith('"""', pos) ? parseMultilineString(src, pos, false) : parseBasicString(src, pos + 1, false);
  if (ch === "'") return src.startsWith("'''", pos) ? parseMultilineString(src, pos, true) : parseLiteralString(src, pos);
  if (ch === "t" && src.startsWith("true", pos)) return [pos + 4, true];
  if (ch === "f" && src.startsWith("false", pos)) return [pos + 5, false];
  if (ch === "[") return parseArray(src, pos);
  if (ch === "{") return parseInlineTable(src, pos);
  DATETIME.lastIndex = pos;
  const datetime = DATETIME.exec(src);
  if (datetime) {
    const [year, month, day] = [Number(datetime[1]), Number(datetime[2]), Number(datetime[3])];
    if (!validDate(year, month, day)) throw new TomlDecodeError(src, pos, "Invalid date or datetime");
    const end = pos + datetime[0].length;
    if (datetime[4] === undefined) return [end, pythonTemporal({ date: [year, month, day] })];
    const offsetSeconds = datetime[9] ? (datetime[9] === "+" ? 1 : -1) * (Number(datetime[10]) * 3600 + Number(datetime[11]) * 60) : datetime[8] ? 0 : undefined;
    return [end, pythonTemporal({ date: [year, month, day], time: [Number(datetime[4]), Number(datetime[5]), Number(datetime[6]), micros(datetime[7])], offsetSeconds })];
  }
  LOCAL_TIME.lastIndex = pos;
  const time = LOCAL_TIME.exec(src);
  if (time) return [pos + time[0].length, pythonTemporal({ time: [Number(time[1]), Number(time[2]), Number(time[3]), micros(time[4])] })];
  NUMBER.lastIndex = pos;
  const number = NUMBER.exec(src);
  if (number) {
    const text = number[0].replaceAll("_", "");
    const end = pos + number[0].length;
    if (number[1]) return [end, Number(text)];
    const negative = text.startsWith("-");
    const magnitude = BigInt(text.replace(/^[+-]/, ""));
    return [end, negative ? -magnitude : magnitude];
  }
  const three = src.slice(pos, pos + 3);
  if (three === "inf" || three === "nan") return [pos + 3, three === "inf" ? Infinity : NaN];
  const four = src.slice(pos, pos + 4);
  if (["-inf", "+inf", "-nan", "+nan"].includes(four)) return [pos + 4, four.endsWith("inf") ? (four[0] === "-" ? -Infinity : Infinity) : NaN];
  throw new TomlDecodeError(src, pos, "Invalid value");
}

function createTable(src: string, pos: number, data: StructuredDict, flags: Flags): [number, Key] {
  let key: Key;
  [pos, key] = parseKey(src, skipChars(src, pos + 1, TOML_WS));
  if (flags.is(key, EXPLICIT_NEST) || flags.is(key, FROZEN)) throw new TomlDecodeError(src, pos, `Cannot declare ${keyRepr(key)} twice`);
  flags.set(key, EXPLICIT_NEST, false);
  try {
    getOrCreateNest(data, key);
  } catch (error) {
    if (error instanceof NoNest) throw new TomlDecodeError(src, pos, "Cannot overwrite a value");
    throw error;
  }
  if (src[pos] !== "]") throw new TomlDecodeError(src, pos, "Expected ']' at the end of a table declaration");
  return [pos + 1, key];
}

function createArrayTable(src: string, pos: number, data: StructuredDict, flags: Flags): [number, Key] {
  let key: Key;
  [pos, key] = parseKey(src, skipChars(src, pos + 2, TOML_WS));
  if (flags.is(key, FROZEN)) throw new TomlDecodeError(src, pos, `Cannot mutate immutable namespace ${keyRepr(key)}`);
  flags.unsetAll(key);
  flags.set(key, EXPLICIT_NEST, false);
  try {
    appendNestToList(data, key);
  } catch (error) {
    if (error instanceof NoNest) throw new TomlDecodeError(src, pos, "Cannot overwrite a value");
    throw error;
  }
  if (!src.startsWith("]]", pos)) throw new TomlDecodeError(src, pos, "Expected ']]' at the end of an array declaration");
  return [pos + 2, key];
}

function keyValue(src: string, pos: number, data: StructuredDict, flags: Flags, header: Key): number {
  let key: Key;
  let value: StructuredValue;
  [pos, key, value] = parseKeyValuePair(src, pos);
  const parent = [...header, ...key.slice(0, -1)];
  for (let i = 1; i < key.length; i++) {
    const containerKey = [...header, ...key.slice(0, i)];
    if (flags.is(containerKey, EXPLICIT_NEST)) throw new TomlDecodeError(src, pos, `Cannot redefine namespace ${keyRepr(containerKey)}`);
    flags.addPending(containerKey, EXPLICIT_NEST);
  }
  if (flags.is(parent, FROZEN)) throw new TomlDecodeError(src, pos, `Cannot mutate immutable namespace ${keyRepr(parent)}`);
  let nest: StructuredDict;
  try {
    nest = getOrCreateNest(data, parent);
  } catch (error) {
    if (error instanceof NoNest) throw new TomlDecodeError(src, pos, "Cannot overwrite a value");
    throw error;
  }
  const stem = key.at(-1)!;
  if (nest.has(stem)) throw new TomlDecodeError(src, pos, "Cannot overwrite a value");
  if (value instanceof Map || Array.isArray(value)) flags.set([...header, ...key], FROZEN, true);
  nest.set(stem, value);
  return pos;
}

/** `tomllib.loads(text)`; invalid TOML is a `TOMLDecodeError` with tomllib's message. */
export function parseToml(text: string): StructuredDict {
  const src = text.replaceAll("\r\n", "\n");
  const data: StructuredDict = new Map();
  const flags = new Flags();
  let header: Key = [];
  let pos = 0;
  for (;;) {
    pos = skipChars(src, pos, TOML_WS);
    if (pos >= src.length) break;
    const ch = src[pos]!;
    if (ch === "\n") {
      pos++;
      continue;
    }
    if (KEY_INITIAL_CHAR.test(ch)) {
      pos = skipChars(src, keyValue(src, pos, data, flags, header), TOML_WS);
    } else if (ch === "[") {
      flags.finalizePending();
      [pos, header] = src[pos + 1] === "[" ? createArrayTable(src, pos, data, flags) : createTable(src, pos, data, flags);
      pos = skipChars(src, pos, TOML_WS);
    } else if (ch !== "#") throw new TomlDecodeError(src, pos, "Invalid statement");
    pos = skipComment(src, pos);
    if (pos >= src.length) break;
    if (src[pos] !== "\n") throw new TomlDecodeError(src, pos, "Expected newline or end of document after a statement");
    pos++;
  }
  return data;
}
