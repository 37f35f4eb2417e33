// How NeMo Gym's reasoning_gym server reads the model's answer from its response text.
import { PYTHON_SPACE_CHARS } from "../../python/chars.ts";
import { pythonStrip } from "../../python/str.ts";

// reasoning_gym.utils.extract_answer: `<answer>\s?(.*?)\s?</answer>`, DOTALL, with Python's `\s`.
const ANSWER_TAG = new RegExp(`<answer>[${PYTHON_SPACE_CHARS}]?([\\s\\S]*?)[${PYTHON_SPACE_CHARS}]?</answer>`, "gu");
const BOXED = /\\boxed\{([^}]+)\}/u;

/**
 * The last `<answer>…</answer>` (stripped); else the first `\boxed{…}` (no nested braces, stripped); else the
 * whole text stripped.
 */
export function extractAnswer(text: string): string {
  const tagged = [...text.matchAll(ANSWER_TAG)].at(-1);
  if (tagged) return pythonStrip(tagged[1]!);
  const boxed = BOXED.exec(text);
  if (boxed) return pythonStrip(boxed[1]!);
  return pythonStrip(text);
}
