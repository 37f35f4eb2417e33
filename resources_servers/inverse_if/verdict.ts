// How NeMo Gym's inverse_if reads a PASS/FAIL verdict from a judge answer (its app.py's _extract_verdict), in three
// tries: the first fenced block holding a JSON object, then the first flat JSON object with a "result" of PASS or
// FAIL anywhere, then PASS / FAIL words in the last five lines; anything else is FAIL. Python's json.loads and re
// (src/python) read the text, so what parses, and where, is what Python finds.
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { PyJsonDecodeError } from "../../src/python/exception.ts";
import { isPyDict, type PyValue } from "../../src/python/values.ts";
import { pythonStrip } from "../../src/python/str.ts";

export type Verdict = "PASS" | "FAIL";

export interface VerdictReading {
  verdict: Verdict;
  /**
   * The JSON's "explanation" as parsed ("" when absent or from the keyword fallback). NeMo Gym puts it in a str
   * field, so a non-string explanation fails verify there; the caller decides.
   */
  explanation: PyValue;
}

const FENCED_OBJECT = compilePythonRegex("```(?:json)?\\s*(\\{.*?\\})\\s*```", { dotAll: true });
const RESULT_OBJECT = compilePythonRegex('\\{[^{}]*\\"result\\"\\s*:\\s*\\"(PASS|FAIL)\\"[^{}]*\\}', { ignoreCase: true });

/** A parsed object's verdict: its "result" upper-cased and stripped, when that is PASS or FAIL. */
function verdictOf(jsonText: string): VerdictReading | undefined {
  let parsed: PyValue;
  try {
    parsed = pythonJsonLoads(jsonText);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) return undefined;
    throw error;
  }
  // `parsed.get(...)` on a non-dict, or `.upper()` on a non-str result: Python's AttributeError, caught there too.
  if (!isPyDict(parsed)) return undefined;
  const result = parsed.has("result") ? parsed.get("result")! : "";
  if (typeof result !== "string") return undefined;
  const normalised = pythonStrip(result.toUpperCase());
  if (normalised !== "PASS" && normalised !== "FAIL") return undefined;
  return { verdict: normalised, explanation: parsed.has("explanation") ? parsed.get("explanation")! : "" };
}

export function extractVerdict(judgeText: string): VerdictReading {
  const fenced = FENCED_OBJECT.search(judgeText);
  if (fenced) {
    const reading = verdictOf(fenced.groups[1]!);
    if (reading) return reading;
  }
  const object = RESULT_OBJECT.search(judgeText);
  if (object) {
    const reading = verdictOf(object.groups[0]!);
    if (reading) return reading;
  }
  const lines = pythonStrip(judgeText).split("\n");
  for (const line of lines.slice(-5).reverse()) {
    const upper = pythonStrip(line).toUpperCase();
    if (upper.includes("PASS")) return { verdict: "PASS", explanation: "" };
    if (upper.includes("FAIL")) return { verdict: "FAIL", explanation: "" };
  }
  return { verdict: "FAIL", explanation: "" };
}
