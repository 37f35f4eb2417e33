// math_with_code's answer check, NeMo Gym's own (not math-verify): the last \boxed{} of the final answer, both sides
// stripped of a few math wrappers, then equal as text or as floats within 1e-6 relative.
import { pythonJsonLoads } from "../../src/python/json.ts";
import { PyJsonDecodeError } from "../../src/python/exception.ts";
import { pythonFloat } from "../../src/python/numbers.ts";
import { pythonStrip, splitWhitespace } from "../../src/python/str.ts";

const BOXED = "\\boxed{";

/**
 * The content of the LAST `\boxed{` in `text`, braces matched by depth (`\boxed{\frac{1}{2}}` → `\frac{1}{2}`),
 * stripped; null when there is none, its braces never close, or it is blank.
 */
export function lastBoxed(text: string): string | null {
  const at = text.lastIndexOf(BOXED);
  if (at === -1) return null;
  const start = at + BOXED.length;
  let depth = 1;
  let i = start;
  for (; i < text.length && depth > 0; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}") depth--;
  }
  if (depth !== 0) return null;
  const content = pythonStrip(text.slice(start, i - 1));
  return content === "" ? null : content;
}

/** Strips, then one outer `\(…\)`, then one outer `$…$`, then an outer `\text{…}`; whitespace runs become one space. */
export function normalizeAnswer(answer: string): string {
  let s = pythonStrip(answer);
  if (s.startsWith("\\(") && s.endsWith("\\)")) s = pythonStrip(s.slice(2, -2));
  if (s.startsWith("$") && s.endsWith("$") && s.length > 1) s = pythonStrip(s.slice(1, -1));
  if (s.startsWith("\\text{") && s.endsWith("}")) s = pythonStrip(s.slice(6, -1));
  return splitWhitespace(s).join(" ");
}

/** Equal after normalisation, or both Python floats with |a − e| < 1e-6 · max(1, |e|). */
export function answersMatch(actual: string | null, expected: string): boolean {
  if (actual === null) return false;
  const a = normalizeAnswer(actual);
  const e = normalizeAnswer(expected);
  if (a === e) return true;
  let fa: number;
  let fe: number;
  try {
    fa = pythonFloat(a);
    fe = pythonFloat(e);
  } catch {
    return false;
  }
  return Math.abs(fa - fe) < 1e-6 * Math.max(1, Math.abs(fe));
}

type Item = Record<string, unknown>;

/**
 * The answer: scanning the output from the end, the first assistant message whose output_text parts (joined) hold a
 * \boxed{}; failing that, the first function_call_output (from the end) whose `stdout` does (its whole text when
 * the output is not a JSON object). A model may print its boxed answer from its code.
 */
export function extractAnswer(output: readonly unknown[]): string | null {
  const items = output.filter((item): item is Item => item !== null && typeof item === "object").reverse();
  for (const item of items) {
    if (item.type !== "message" || item.role !== "assistant" || !Array.isArray(item.content)) continue;
    const text = item.content.map((part: Item) => (part?.type === "output_text" && typeof part.text === "string" ? part.text : "")).join("");
    const answer = lastBoxed(text);
    if (answer !== null) return answer;
  }
  for (const item of items) {
    if (item.type !== "function_call_output") continue;
    const answer = lastBoxed(toolStdout(item.output));
    if (answer !== null) return answer;
  }
  return null;
}

function toolStdout(output: unknown): string {
  // NeMo Gym: json.loads(output).get("stdout", ""); the raw text when that is not JSON or not an object.
  if (typeof output !== "string") throw new Error(`math_with_code: a function_call_output's output is ${output === null ? "null" : typeof output}, not the string NeMo Gym reads`);
  let parsed: unknown;
  try {
    parsed = pythonJsonLoads(output);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) return output;
    throw error;
  }
  if (!(parsed instanceof Map)) return output;
  const stdout = parsed.has("stdout") ? parsed.get("stdout") : "";
  if (typeof stdout !== "string") throw new Error(`math_with_code: a tool output's "stdout" is not a string (NeMo Gym fails on it too)`);
  return stdout;
}
