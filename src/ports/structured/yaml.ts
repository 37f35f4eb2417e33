// YAML as PyYAML's `yaml.safe_load(text)` reads it. The `yaml` package parses the syntax; every scalar is then
// typed here by PyYAML's YAML 1.1 resolver, not by a YAML 1.2 schema: `yes/no/on/off` are booleans, `0755`
// is octal and `1:30` sexagesimal, `1e5` (no dot, no exponent sign) stays a string, `2024-01-15` is a
// datetime.date. Merge keys (`<<`) merge, a repeated key keeps its first position and last value, a tag
// SafeConstructor does not know fails, and a stream of several documents fails.
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from "yaml";
import { pyYamlScannerError } from "./yaml-errors.ts";
import { pyYamlReaderError } from "./yaml-reader.ts";
import { PyOpaque } from "../../python/values.ts";
import { pythonTemporal, isDict, type PyKey, type StructuredDict, type StructuredValue } from "./value.ts";
import { PyException } from "../../python/exception.ts";

const TAG = "tag:yaml.org,2002:";

// PyYAML's implicit resolvers (yaml/resolver.py), tried in its order for a plain scalar.
const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const FLOAT = /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const MERGE = /^<<$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const TIMESTAMP = /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;
const VALUE = /^=$/;

// Python's regex `$` also matches before a final newline; a plain scalar never ends with one.
function resolvePlain(text: string): string {
  const first = text[0] ?? "";
  if ("yYnNtTfFoO".includes(first) && first !== "" && BOOL.test(text)) return "bool";
  if ("-+0123456789.".includes(first) && first !== "" && FLOAT.test(text)) return "float";
  if ("-+0123456789".includes(first) && first !== "" && INT.test(text)) return "int";
  if (first === "<" && MERGE.test(text)) return "merge";
  if ("~nN".includes(first) && NULL.test(text)) return "null";
  if (first === "") return "null";
  if ("0123456789".includes(first) && TIMESTAMP.test(text)) return "timestamp";
  if (first === "=" && VALUE.test(text)) return "value";
  return "str";
}

const constructorError = (message: string) => new PyException("ConstructorError", message);

function sexagesimal(text: string): bigint {
  let value = 0n;
  for (const part of text.split(":")) value = value * 60n + BigInt(part);
  return value;
}

function constructInt(raw: string): bigint {
  let text = raw.replace(/_/g, "");
  let sign = 1n;
  if (text[0] === "-") sign = -1n;
  if (text[0] === "-" || text[0] === "+") text = text.slice(1);
  if (text === "0") return 0n;
  if (text.startsWith("0b")) return sign * BigInt(text);
  if (text.startsWith("0x")) return sign * BigInt(text);
  if (text.includes(":")) return sign * sexagesimal(text);
  if (text[0] === "0") return sign * BigInt(`0o${text.slice(1)}`);
  if (!/^[0-9]+$/.test(text)) throw new PyException("ValueError", `invalid literal for int() with base 10: '${raw}'`);
  return sign * BigInt(text);
}

function constructFloat(raw: string): number {
  let text = raw.replace(/_/g, "").toLowerCase();
  let sign = 1;
  if (text[0] === "-") sign = -1;
  if (text[0] === "-" || text[0] === "+") text = text.slice(1);
  if (text === ".inf") return sign * Infinity;
  if (text === ".nan") return NaN;
  if (text.includes(":")) {
    let value = 0;
    for (const part of text.split(":")) value = value * 60 + Number(part);
    return sign * value;
  }
  const value = Number(text);
  if (Number.isNaN(value)) throw new PyException("ValueError", `could not convert string to float: '${raw}'`);
  return sign * value;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** datetime.date / datetime.datetime, with the range checks that make Python raise. */
function constructTimestamp(text: string): PyOpaque {
  const match = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/.exec(text)!;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1) throw new PyException("ValueError", `year ${year} is out of range`);
  if (month < 1 || month > 12) throw new PyException("ValueError", "month must be in 1..12");
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day < 1 || day > days) throw new PyException("ValueError", "day is out of range for month");
  if (match[4] === undefined) return pythonTemporal({ date: [year, month, day] });
  if (Number(match[4]) > 23) throw new PyException("ValueError", "hour must be in 0..23");
  if (Number(match[5]) > 59) throw new PyException("ValueError", "minute must be in 0..59");
  if (Number(match[6]) > 59) throw new PyException("ValueError", "second must be in 0..59");
  if (match[10] !== undefined && (Number(match[10]) > 23 || Number(match[11] ?? 0) > 59)) {
    throw new PyException("ValueError", "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24).");
  }
  const microsecond = Number((match[7] ?? "").slice(0, 6).padEnd(6, "0"));
  const offsetSeconds = match[8] === undefined ? undefined : match[8] === "Z" ? 0 : (match[9] === "-" ? -1 : 1) * (Number(match[10]) * 3600 + Number(match[11] ?? 0) * 60);
  return pythonTemporal({ date: [year, month, day], time: [Number(match[4]), Number(match[5]), Number(match[6]), microsecond], offsetSeconds });
}

function constructScalar(value: string, tag: string): StructuredValue {
  switch (tag) {
    case "str":
      return value;
    case "null":
      return null;
    case "bool":
      return ["yes", "true", "on"].includes(value.toLowerCase());
    case "int":
      return constructInt(value);
    case "float":
      return constructFloat(value);
    case "timestamp":
      return constructTimestamp(value);
    case "binary":
      return new PyOpaque("bytes", "b'...'");
    default:
      throw constructorError(`could not determine a constructor for the tag '${tag.startsWith("!") ? tag : TAG + tag}'`);
  }
}

function canonicalKey(key: PyKey): unknown {
  if (typeof key === "boolean") return key ? 1n : 0n;
  if (typeof key === "number" && Number.isInteger(key)) return BigInt(key);
  if (key instanceof PyOpaque) return key.repr;
  return key;
}

const hashable = (value: StructuredValue): value is PyKey => !Array.isArray(value) && !isDict(value);

/** `yaml.safe_load(text)`. */
export function parseYaml(text: string): StructuredValue {
  const readerError = pyYamlReaderError(text);
  if (readerError) throw new PyException(readerError.name, readerError.message);
  let document: Document.Parsed;
  try {
    document = parseDocument(text, { version: "1.1", schema: "failsafe", uniqueKeys: false, merge: false, strict: false, prettyErrors: false });
  } catch (error) {
    throw new PyException("YAMLError", (error as Error).message);
  }
  const [firstError] = document.errors;
  if (firstError) {
    const scannerError = pyYamlScannerError(text);
    if (scannerError) throw new PyException(scannerError.name, scannerError.message);
    const name = firstError.code === "MULTIPLE_DOCS" ? "ComposerError" : firstError.code === "BAD_ALIAS" ? "ComposerError" : "ParserError";
    const message = firstError.code === "MULTIPLE_DOCS" ? "expected a single document in the stream" : firstError.message;
    throw new PyException(name, message);
  }

  const anchors = new Map<string, StructuredValue>();
  const construct = (node: Node | null | undefined): StructuredValue => {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      if (!anchors.has(node.source)) throw new PyException("ComposerError", `found undefined alias '${node.source}'`);
      return anchors.get(node.source)!;
    }
    const tag = node.tag === undefined ? undefined : node.tag.startsWith(TAG) ? node.tag.slice(TAG.length) : node.tag;
    let value: StructuredValue;
    if (isScalar(node)) {
      const source = node.value === null || node.value === undefined ? "" : String(node.value);
      if (tag === undefined) value = node.type === "PLAIN" ? constructScalar(source, resolvePlain(source)) : source;
      else value = constructScalar(source, tag === "!" ? "str" : tag);
    } else if (isSeq(node)) {
      if (tag !== undefined && tag !== "seq" && tag !== "!") throw constructorError(`could not determine a constructor for the tag '${node.tag}'`);
      const items: StructuredValue[] = [];
      if (node.anchor) anchors.set(node.anchor, items);
      for (const item of node.items) items.push(construct(item as Node));
      value = items;
    } else if (isMap(node)) {
      if (tag !== undefined && tag !== "map" && tag !== "!") throw constructorError(`could not determine a constructor for the tag '${node.tag}'`);
      value = constructMapping(node.items as { key: Node | null; value: Node | null }[], node.anchor);
    } else throw new PyException("YAMLError", "unsupported YAML node");
    if (node.anchor) anchors.set(node.anchor, value);
    return value;
  };

  // PyYAML's flatten_mapping: merged mappings come first, later `<<` sources before earlier ones, and the
  // mapping's own keys override them.
  const constructMapping = (pairs: { key: Node | null; value: Node | null }[], anchor: string | undefined | null): StructuredDict => {
    const result: StructuredDict = new Map();
    if (anchor) anchors.set(anchor, result);
    const merged: [PyKey, StructuredValue][] = [];
    const own: [PyKey, StructuredValue][] = [];
    for (const pair of pairs) {
      const isMergeKey = isScalar(pair.key) && pair.key.type === "PLAIN" && pair.key.tag === undefined && pair.key.value === "<<";
      if (isMergeKey) {
        const source = construct(pair.value);
        if (isDict(source)) merged.push(...source);
        else if (Array.isArray(source)) {
          const sources = source.map((item) => {
            if (!isDict(item)) throw constructorError("while constructing a mapping expected a mapping for merging, but found " + describe(item));
            return [...item];
          });
          for (const entries of sources.reverse()) merged.push(...entries);
        } else throw constructorError("while constructing a mapping expected a mapping or list of mappings for merging, but found " + describe(source));
        continue;
      }
      const key = construct(pair.key);
      if (!hashable(key)) throw constructorError("while constructing a mapping found unhashable key");
      own.push([key, construct(pair.value)]);
    }
    // Python's dict: 1, 1.0 and True are one key; the first spelling stays, the last value wins.
    const keys = new Map<unknown, PyKey>();
    for (const [key, value] of [...merged, ...own]) {
      const canonical = canonicalKey(key);
      if (!keys.has(canonical)) keys.set(canonical, key);
      result.set(keys.get(canonical)!, value);
    }
    return result;
  };

  return construct(document.contents as Node | null);
}

const describe = (value: StructuredValue): string => (Array.isArray(value) ? "sequence" : isDict(value) ? "mapping" : "scalar");
