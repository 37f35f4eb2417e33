// The image-tool call surface of NeMo Gym's resources_servers/image_tools/base.py, shared by the image_tools pivot
// verifier and image_tools_agent (as NeMo Gym shares base.py): tool calls written in the model's text, in Qwen's XML
// form (`<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>`) or as JSON
// (`<tool_call>{"name": …, "arguments": {…}}</tool_call>`); the markup checks; the bbox helpers. Values are Python's
// (`json.loads` into the PyValue model, int and float kept apart), so what is printed back is what Python prints.
import { compilePythonRegex } from "../../python/re/index.ts";
import { pythonJsonLoads } from "../../python/json.ts";
import { OverflowError, PyException, PyJsonDecodeError, ValueError } from "../../python/exception.ts";
import { pythonFloat, pythonIntBig } from "../../python/numbers.ts";
import { isPyDict, pythonStr, type PyDict, type PyValue } from "../../python/values.ts";

export const IMAGE_TOOL_NAMES: ReadonlySet<string> = new Set([
  "image_zoom_in_tool",
  "image_crop_tool",
  "image_rotate_tool",
  "image_flip_tool",
  "image_diff_tool",
  "image_side_by_side_tool",
  "image_overlay_tool",
  "count_objects_tool",
  "find_color_tool",
  "color_at_tool",
]);

const XML_TOOL_CALL = compilePythonRegex(String.raw`<tool_call>\s*<function=([^>\s]+)>\s*(.*?)\s*</function>\s*</tool_call>`, { dotAll: true });
const JSON_TOOL_CALL = compilePythonRegex(String.raw`<tool_call>\s*(\{.*?\})\s*</tool_call>`, { dotAll: true });
const XML_PARAMETER = compilePythonRegex(String.raw`<parameter=([^>\s]+)>\s*(.*?)\s*</parameter>`, { dotAll: true });
export const NUMBER_PATTERN = compilePythonRegex(String.raw`[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?`);

export interface ImageToolCall {
  /** `xml_call_<i>` / `json_call_<i>`: the i-th match of its form. */
  id: string;
  /** `str(name)`: how both readers use it. */
  name: string;
  /** A dict from XML parameters; from JSON, whatever `arguments` held (a non-dict is refused by the tool runner). */
  arguments: PyValue;
  source: "xml" | "json";
}

/** `json.loads(value)`, or the text itself when it is not JSON. */
function parameterValue(text: string): PyValue {
  try {
    return pythonJsonLoads(text);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) return text;
    throw error;
  }
}

/** Python's truthiness of a parsed value (`x or default`). */
const truthy = (value: PyValue | undefined): boolean =>
  !(value === undefined || value === null || value === false || value === 0 || value === 0n || value === "" || (Array.isArray(value) && value.length === 0) || (isPyDict(value) && value.size === 0));

/** parse_image_tool_calls: every XML call, then every JSON call that parses and names a tool. */
export function parseImageToolCalls(text: string): ImageToolCall[] {
  const calls: ImageToolCall[] = [];
  [...XML_TOOL_CALL.finditer(text)].forEach((match, index) => {
    const args: PyDict = new Map();
    for (const parameter of XML_PARAMETER.finditer(match.groups[2]!)) args.set(parameter.groups[1]!.trim(), parameterValue(parameter.groups[2]!.trim()));
    calls.push({ id: `xml_call_${index}`, name: match.groups[1]!.trim(), arguments: args, source: "xml" });
  });
  [...JSON_TOOL_CALL.finditer(text)].forEach((match, index) => {
    let payload: PyValue;
    try {
      payload = pythonJsonLoads(match.groups[1]!);
    } catch (error) {
      if (error instanceof PyJsonDecodeError) return;
      throw error;
    }
    // The match is `{…}`, so a payload that parses is a dict.
    const dict = payload as PyDict;
    const name = truthy(dict.get("name")) ? dict.get("name")! : dict.get("tool_name");
    const args = truthy(dict.get("arguments")) ? dict.get("arguments")! : new Map();
    if (truthy(name)) calls.push({ id: `json_call_${index}`, name: pythonStr(name!), arguments: args, source: "json" });
  });
  return calls;
}

const count = (text: string, part: string) => text.split(part).length - 1;

/** has_malformed_image_tool_markup: tool-call markup present, but not exactly the calls that parsed (or a think tag). */
export function hasMalformedImageToolMarkup(text: string): boolean {
  if (!["<tool_call>", "</tool_call>", "<function=", "</function>"].some((marker) => text.includes(marker))) return false;
  const calls = parseImageToolCalls(text);
  if (calls.length === 0) return true;
  const xmlCalls = calls.filter((call) => call.source === "xml").length;
  if (count(text, "<tool_call>") !== calls.length || count(text, "</tool_call>") !== calls.length) return true;
  if (count(text, "<function=") !== xmlCalls || count(text, "</function>") !== xmlCalls) return true;
  return text.includes("</think>") || text.includes("<think>");
}

/** has_malformed_image_tool_raw_generation: a raw continuation closes thinking exactly once, before any tool call. */
export function hasMalformedImageToolRawGeneration(text: string): boolean {
  if (text.includes("<think>")) return true;
  const closes: number[] = [];
  for (let at = text.indexOf("</think>"); at >= 0; at = text.indexOf("</think>", at + 1)) closes.push(at);
  const firstToolCall = text.indexOf("<tool_call>");
  let cut: number;
  if (firstToolCall >= 0) {
    const before = closes.filter((at) => at < firstToolCall);
    if (before.length !== 1 || closes.some((at) => at > firstToolCall)) return true;
    cut = before[0]!;
  } else {
    if (closes.length !== 1) return true;
    cut = closes[0]!;
  }
  return hasMalformedImageToolMarkup(text.slice(0, cut) + text.slice(cut + "</think>".length));
}

/** Python's `int(value)` of a parsed value: bool 0/1, float truncated (nan ValueError, inf OverflowError), str read. */
export function pyInt(value: PyValue | undefined): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number") {
    if (Number.isNaN(value)) throw new ValueError("cannot convert float NaN to integer");
    if (!Number.isFinite(value)) throw new OverflowError("cannot convert float infinity to integer");
    return Math.trunc(value) + 0;
  }
  if (typeof value === "string") return Number(pythonIntBig(value));
  throw new PyException("TypeError", `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`);
}

/** Python's `float(value)` of a parsed value. */
export function pyFloat(value: PyValue | undefined): number {
  if (value === null || value === undefined || Array.isArray(value) || isPyDict(value)) throw new PyException("TypeError", `float() argument must be a string or a real number, not '${pyTypeName(value)}'`);
  return pythonFloat(value);
}

export const pyTypeName = (value: PyValue | undefined): string =>
  value === null || value === undefined ? "NoneType" : typeof value === "boolean" ? "bool" : typeof value === "bigint" ? "int" : typeof value === "number" ? "float" : typeof value === "string" ? "str" : Array.isArray(value) ? "list" : "dict";

/** `dict.get(key)` on a parsed value that is a dict (undefined otherwise or when absent). */
export const pyGet = (value: PyValue | undefined, key: string): PyValue | undefined => (isPyDict(value) ? value.get(key) : undefined);

/** coerce_bbox: four numbers (a list, or a string of JSON or of numbers) as [x1, y1, x2, y2] with min/max ordered. */
export function coerceBbox(value: PyValue | undefined): [number, number, number, number] | null {
  let candidate: PyValue | undefined = value;
  if (typeof value === "string") {
    try {
      candidate = pythonJsonLoads(value);
    } catch (error) {
      if (!(error instanceof PyJsonDecodeError)) throw error;
      candidate = NUMBER_PATTERN.findall<string>(value).slice(0, 4);
    }
  }
  if (!Array.isArray(candidate) || candidate.length !== 4) return null;
  let numbers: number[];
  try {
    numbers = candidate.map((v) => pyFloat(v));
  } catch (error) {
    if (error instanceof PyException) return null;
    throw error;
  }
  const [x1, y1, x2, y2] = numbers as [number, number, number, number];
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

/** bbox_iou: intersection over union of two [x1, y1, x2, y2] boxes (0 without overlap or area). */
export function bboxIou(a: readonly number[], b: readonly number[]): number {
  const [ax1, ay1, ax2, ay2] = a as [number, number, number, number];
  const [bx1, by1, bx2, by2] = b as [number, number, number, number];
  const interW = Math.max(0, Math.min(ax2, bx2) - Math.max(ax1, bx1));
  const interH = Math.max(0, Math.min(ay2, by2) - Math.max(ay1, by1));
  const inter = interW * interH;
  if (inter <= 0) return 0;
  const union = Math.max(0, ax2 - ax1) * Math.max(0, ay2 - ay1) + Math.max(0, bx2 - bx1) * Math.max(0, by2 - by1) - inter;
  return union > 0 ? inter / union : 0;
}
