// StructEval's non-renderable scoring (TIGER-Lab StructEval, as NeMo Gym's structeval server adapts it): the
// code block is cut out of the answer, parsed in the task's format (render score), and each expected path
// (`novel.characters[0].name`, `recipe.steps.*.order`, `csv::Header`, `item.@id`) is looked up in the result
// (key validation score).
import { pythonInt } from "../../python/numbers.ts";
import { pythonStrip } from "../../python/str.ts";
import { readCsvDicts } from "./csv.ts";
import { parseJson } from "./json.ts";
import { parseToml } from "./toml.ts";
import { decodeUnicodeEscape } from "./unicode-escape.ts";
import { isDict, pythonErrorMessage, type StructuredValue } from "./value.ts";
import { pythonTruthy } from "../../python/values.ts";
import { parseXml } from "./xml.ts";
import { parseYaml } from "./yaml.ts";

// Python's `$` without MULTILINE: the very end, or just before a final newline.
const END = "(?=\\n?(?![\\s\\S]))";
const BEGIN_END = `<\\|BEGIN_CODE\\|>[ \\t]*\\n?(?<payload1>[\\s\\S]*?)(?:<\\|END_CODE\\|>|${END})`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
const fencePattern = (outputType: string) => `\`\`\`(?:${escapeRegExp(outputType)}|[^\\n]*)[ \\t]*\\n(?<payload2>[\\s\\S]*?)(?:\`\`\`|${END})`;

/**
 * The code of an answer: HTML-escaped angle brackets restored, an empty think block dropped, escapes decoded
 * (`codecs.decode(…, "unicode_escape")`, kept undecoded when Python would raise), then the first
 * `<|BEGIN_CODE|>…<|END_CODE|>` or fenced block — a fenced block anywhere winning — stripped, else the whole
 * text stripped.
 */
export function extractCode(answer: string, outputType: string): string {
  let text = answer.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("<think>\n\n</think>\n\n", "");
  try {
    text = decodeUnicodeEscape(text);
  } catch {
    // Python's except keeps the text as it was before decoding.
  }
  const fence = fencePattern(outputType);
  let code: string;
  const first = new RegExp(`(?:${BEGIN_END})|(?:${fence})`, "i").exec(text);
  if (first) {
    const payload1 = first.groups!.payload1;
    const payload = payload1 ? payload1 : first.groups!.payload2;
    // `m.group("payload1") or m.group("payload2")` is None for an empty BEGIN_CODE block: Python's .strip() fails.
    if (payload === undefined) throw new TypeError("'NoneType' object has no attribute 'strip'");
    code = pythonStrip(payload);
  } else code = pythonStrip(text);
  const second = new RegExp(fence, "i").exec(text);
  if (second) code = pythonStrip(second.groups!.payload2!);
  return code;
}

/** Share of the expected keywords found (case-insensitively) anywhere in the answer; diagnostic only. */
export function rawOutputScore(answer: string, keywords: string[]): number {
  if (keywords.length === 0) return 0;
  const haystack = answer.toLowerCase();
  return keywords.filter((keyword) => haystack.includes(keyword.toLowerCase())).length / keywords.length;
}

export interface RenderResult {
  parsed: StructuredValue;
  renderScore: number;
  errorType: string | null;
  errorMessage: string | null;
}

/** Parses the code in the task's format; a failure or an empty result renders 0. */
export function renderCode(code: string, outputType: string): RenderResult {
  let result: StructuredValue;
  try {
    if (outputType === "json") result = parseJson(code);
    else if (outputType === "yaml") result = parseYaml(code);
    else if (outputType === "toml") result = parseToml(code);
    else if (outputType === "xml") result = parseXml(code);
    else if (outputType === "csv") {
      const { fieldnames, rows } = readCsvDicts(code);
      result = new Map<string, StructuredValue>([
        ["csv_headers", fieldnames],
        ["csv_rows", rows],
      ]);
    } else return { parsed: null, renderScore: 0, errorType: "unsupported_type", errorMessage: `Unsupported output type: ${outputType}` };
  } catch (error) {
    return { parsed: null, renderScore: 0, errorType: "parse_error", errorMessage: pythonErrorMessage(error as Error) };
  }
  if (!pythonTruthy(result)) return { parsed: null, renderScore: 0, errorType: "parse_error", errorMessage: "Parsed result is empty" };
  return { parsed: result, renderScore: 1, errorType: null, errorMessage: null };
}

/** Path tokens: `.` splits outside backticks, `[n]` is its own token, a `csv::` path is one token. */
export function tokenizePath(path: string): string[] {
  if (path.startsWith("csv::")) return [path];
  const tokens: string[] = [];
  let buffer = "";
  let inBackticks = false;
  for (let i = 0; i < path.length; ) {
    const ch = path[i]!;
    if (ch === "`") {
      inBackticks = !inBackticks;
      i++;
    } else if (ch === "." && !inBackticks) {
      if (buffer) tokens.push(buffer);
      buffer = "";
      i++;
    } else if (ch === "[" && !inBackticks) {
      if (buffer) tokens.push(buffer);
      buffer = "";
      const close = path.indexOf("]", i);
      // Python raises here: NeMo Gym's verify fails (a 500) on such a path.
      if (close === -1) throw new Error(`Unclosed '[' in path: ${path}`);
      tokens.push(path.slice(i, close + 1));
      i = close + 1;
    } else {
      buffer += ch;
      i++;
    }
  }
  if (buffer) tokens.push(buffer);
  return tokens;
}

/** Python's `header in value` for whatever `csv_headers` holds. */
function contains(container: StructuredValue, header: string): boolean {
  if (container === null || !pythonTruthy(container)) return false;
  if (Array.isArray(container)) return container.some((item) => item === header);
  if (typeof container === "string") return container.includes(header);
  if (isDict(container)) return container.has(header);
  throw new TypeError("argument of type is not iterable");
}

function indexOf(token: string): number | undefined {
  try {
    return pythonInt(token.slice(1, -1));
  } catch {
    return undefined;
  }
}

function walk(node: StructuredValue, tokens: string[]): boolean {
  if (tokens.length === 0) return true;
  const [token, ...rest] = tokens as [string, ...string[]];
  if (isDict(node) && node.has("csv_headers") && token.startsWith("csv::")) return contains(node.get("csv_headers")!, token.slice(5)) && rest.length === 0;
  if (token === "*") return Array.isArray(node) && node.some((item) => walk(item, rest));
  if (token.startsWith("[") && token.endsWith("]")) {
    const index = indexOf(token);
    return index !== undefined && Array.isArray(node) && index >= 0 && index < node.length && walk(node[index]!, rest);
  }
  if (isDict(node)) {
    if (node.has(token)) return walk(node.get(token)!, rest);
    if (token.startsWith("@") && node.has(token.slice(1))) return walk(node.get(token.slice(1))!, rest);
  }
  return false;
}

/** Whether a dot-notation path exists in the parsed structure. */
export const pathExists = (parsed: StructuredValue, path: string): boolean => walk(parsed, tokenizePath(path));
