// Python's repr and `pprint.pformat(value, width=72, sort_dicts=False)` for parsed values: the text of
// jsonschema's error messages (`'x' is not of type 'integer'` and the pretty-printed schema and instance).
import { pythonRepr } from "../../python/values.ts";
import { pythonStringRepr } from "../../python/repr.ts";
import { PYTHON_SPACE_CHARS } from "../../python/chars.ts";
import { pythonLen } from "../../python/str.ts";
import { isDict, type StructuredValue } from "./value.ts";

const WIDTH = 72;
// pprint's `re.findall(r'\S*\s*', line)`, with Python's `\s`.
const WORD_AND_SPACE = new RegExp(`[^${PYTHON_SPACE_CHARS}]*[${PYTHON_SPACE_CHARS}]*`, "gu");

/** `pprint.pformat(value, width=72, sort_dicts=False)`. */
export function pformat(value: StructuredValue): string {
  const out: string[] = [];
  format(value, out, 0, 0, 0);
  return out.join("");
}

function format(value: StructuredValue, out: string[], indent: number, allowance: number, level: number): void {
  const rep = pythonRepr(value);
  if (pythonLen(rep) > WIDTH - indent - allowance) {
    if (isDict(value)) return formatDict(value, out, indent, allowance, level + 1);
    if (Array.isArray(value)) return formatList(value, out, indent, allowance, level + 1);
    if (typeof value === "string") return formatString(value, out, indent, allowance, level + 1);
  }
  out.push(rep);
}

function formatDict(value: Map<unknown, StructuredValue>, out: string[], indent: number, allowance: number, level: number): void {
  out.push("{");
  const entries = [...value];
  const itemIndent = indent + 1;
  entries.forEach(([key, item], i) => {
    const last = i === entries.length - 1;
    const keyRep = pythonRepr(key as StructuredValue);
    out.push(keyRep, ": ");
    format(item, out, itemIndent + pythonLen(keyRep) + 2, last ? allowance + 1 : 1, level);
    if (!last) out.push(",\n" + " ".repeat(itemIndent));
  });
  out.push("}");
}

function formatList(value: StructuredValue[], out: string[], indent: number, allowance: number, level: number): void {
  out.push("[");
  const itemIndent = indent + 1;
  value.forEach((item, i) => {
    const last = i === value.length - 1;
    if (i > 0) out.push(",\n" + " ".repeat(itemIndent));
    format(item, out, itemIndent, last ? allowance + 1 : 1, level);
  });
  out.push("]");
}

/** Python's `str.splitlines(True)`. */
function splitLinesKeepEnds(text: string): string[] {
  const lines: string[] = [];
  const pattern = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;
  let start = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    lines.push(text.slice(start, match.index + match[0].length));
    start = match.index + match[0].length;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function formatString(value: string, out: string[], indent: number, allowance: number, level: number): void {
  if (value.length === 0) {
    out.push(pythonRepr(value));
    return;
  }
  const chunks: string[] = [];
  const lines = splitLinesKeepEnds(value);
  if (level === 1) {
    indent += 1;
    allowance += 1;
  }
  let maxWidth1 = WIDTH - indent;
  const maxWidth = WIDTH - indent;
  let rep = "";
  lines.forEach((line, i) => {
    rep = pythonStringRepr(line);
    if (i === lines.length - 1) maxWidth1 -= allowance;
    if (pythonLen(rep) <= maxWidth1) {
      chunks.push(rep);
      return;
    }
    const parts = line.match(WORD_AND_SPACE)!.filter((part, j, all) => !(j === all.length - 1 && part === ""));
    let maxWidth2 = maxWidth;
    let current = "";
    parts.forEach((part, j) => {
      const candidate = current + part;
      if (j === parts.length - 1 && i === lines.length - 1) maxWidth2 -= allowance;
      if (pythonLen(pythonStringRepr(candidate)) > maxWidth2) {
        if (current) chunks.push(pythonStringRepr(current));
        current = part;
      } else current = candidate;
    });
    if (current) chunks.push(pythonStringRepr(current));
  });
  if (chunks.length === 1) {
    out.push(rep);
    return;
  }
  if (level === 1) out.push("(");
  chunks.forEach((chunk, i) => {
    if (i > 0) out.push("\n" + " ".repeat(indent));
    out.push(chunk);
  });
  if (level === 1) out.push(")");
}
