// What a GenRM judge answers and what a compared response says, as NeMo Gym's genrm_compare reads them: the judge's
// JSON scores `{"score_1": <1-5>, "score_2": <1-5>, "ranking": <1-6>}` found in its text, and a Response's reasoning
// and final answer (the judge is shown only the answer).
import { pythonJsonLoads } from "../../src/python/json.ts";
import { pythonFloat } from "../../src/python/numbers.ts";
import { PyJsonDecodeError, ValueError as PyValueError } from "../../src/python/exception.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import type { PyValue } from "../../src/python/values.ts";

/** One pairwise judgement: each response's score and the relative ranking (1 = response 1 much better … 6). */
export interface PairScores {
  score1: number;
  score2: number;
  ranking: number;
}

/** The judge's text holds no usable score object (NeMo Gym asks again, then falls back to the defaults). */
export class GenRMOutputParseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GenRMOutputParseError";
  }
}

/** What an empty answer is shown to the judge as. */
export const EMPTY_OUTPUT_PLACEHOLDER = "None";

const FENCED_JSON = compilePythonRegex("```json\\s*([\\s\\S]*?)\\s*```", { ignoreCase: true });

/** Python's float(x) failing as Python fails: TypeError / ValueError, the only ones a candidate may fail with. */
const isConversionError = (error: unknown) => error instanceof TypeError || error instanceof PyValueError;

/** One candidate object: its scores, or undefined when it is no JSON object with a score key or a score is no number. */
function scoresOf(jsonText: string, defaultScore: number, defaultRanking: number): PairScores | undefined {
  let parsed: PyValue;
  try {
    parsed = pythonJsonLoads(jsonText);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) return undefined;
    throw error;
  }
  if (!(parsed instanceof Map)) return undefined;
  // A rubric answer nests its verdict: {"rubric_evaluations": [...], "overall": {...}}.
  const overall = parsed.get("overall");
  const scores = overall instanceof Map ? overall : parsed;
  if (!["score_1", "score_2", "ranking"].some((key) => scores.has(key))) return undefined;
  const field = (key: string, fallback: number) => (scores.has(key) ? pythonFloat(scores.get(key)) : fallback);
  try {
    return { score1: field("score_1", defaultScore), score2: field("score_2", defaultScore), ranking: field("ranking", defaultRanking) };
  } catch (error) {
    if (isConversionError(error)) return undefined;
    throw error;
  }
}

/** The top-level `{...}` spans of a text, by brace counting that skips braces inside JSON strings. */
export function topLevelJsonObjects(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "{") continue;
    let depth = 0;
    let inString = false;
    let escapeNext = false;
    for (let j = i; j < text.length; j++) {
      const ch = text[j];
      if (escapeNext) {
        escapeNext = false;
        continue;
      }
      if (ch === "\\" && inString) {
        escapeNext = true;
        continue;
      }
      if (ch === '"') {
        inString = !inString;
        continue;
      }
      if (inString) continue;
      if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) {
        found.push(text.slice(i, j + 1));
        i = j;
        break;
      }
    }
  }
  return found;
}

/**
 * The scores in a judge's text: the first usable object inside a ```json fence, else the last usable top-level
 * object anywhere. A usable object has at least one of the three keys; a missing key takes its default.
 */
export function parseGenRMOutput(output: string, defaultScore: number, defaultRanking: number): PairScores {
  const preview = output.length > 200 ? `${output.slice(0, 200)}...` : output;
  try {
    for (const fence of FENCED_JSON.finditer(output)) {
      for (const candidate of topLevelJsonObjects(fence.groups[1]!)) {
        const scores = scoresOf(candidate, defaultScore, defaultRanking);
        if (scores) return scores;
      }
    }
    let lastValid: PairScores | undefined;
    for (const candidate of topLevelJsonObjects(output)) lastValid = scoresOf(candidate, defaultScore, defaultRanking) ?? lastValid;
    if (lastValid) return lastValid;
  } catch (error) {
    throw new GenRMOutputParseError(`Error parsing GenRM output: ${(error as Error).message}. Output: ${preview}`, { cause: error });
  }
  throw new GenRMOutputParseError(`No parseable JSON found in GenRM output: ${preview}`);
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A Response's reasoning (its reasoning items' summary texts) and answer (its messages' output_text parts). */
export function reasoningAndAnswer(response: unknown): { reasoning: string; answer: string } {
  let reasoning = "";
  let answer = "";
  const output = isObject(response) ? response.output : undefined;
  if (!Array.isArray(output)) return { reasoning, answer };
  for (const item of output) {
    if (!isObject(item)) continue;
    if (item.type === "reasoning" && Array.isArray(item.summary)) {
      for (const part of item.summary) if (isObject(part) && "text" in part) reasoning += String(part.text ?? "");
    } else if (item.type === "message" && Array.isArray(item.content)) {
      for (const part of item.content) if (isObject(part) && part.type === "output_text") answer += String(part.text ?? "");
    }
  }
  return { reasoning, answer };
}

/** The answer the judge is shown: the output text, or "None" when it is empty or only whitespace. */
export function answerShownToJudge(response: unknown): string {
  const { answer } = reasoningAndAnswer(response);
  return answer.trim() === "" ? EMPTY_OUTPUT_PLACEHOLDER : answer;
}
