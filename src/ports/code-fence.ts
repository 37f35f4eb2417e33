// The code block NeMo-Skills' `preprocess_code` takes from a model's answer, as NeMo Gym's code servers (evalplus,
// code_fim, bigcodebench) port it: the LAST "```python" fence (else the last bare "```"), up to the next "```"; no
// closing fence means no code (strict mode).
import { pythonStrip } from "../python/str.ts";

export interface FenceOptions {
  /** The fence's language tag (default "python"). */
  language?: string;
  /** Drop everything up to the first "</think>" first (code_fim, bigcodebench; evalplus leaves that to vLLM). */
  afterThink?: boolean;
  /** Python's str.strip() on the result (evalplus, bigcodebench; code_fim keeps indentation). */
  strip?: boolean;
  /** An answer with no fence at all: no code (evalplus, code_fim), or the whole answer (bigcodebench's port). */
  withoutFence?: "empty" | "whole";
}

export function extractLastFence(text: string, options: FenceOptions = {}): string {
  let completion = text.replaceAll("\r", "");
  if (options.afterThink) {
    const end = completion.indexOf("</think>");
    if (end !== -1) completion = completion.slice(end + "</think>".length);
  }
  const specific = "```" + (options.language ?? "python");
  let start = completion.lastIndexOf(specific);
  let fenceLength = specific.length;
  if (start === -1) {
    start = completion.lastIndexOf("```");
    fenceLength = 3;
  }
  if (start === -1) {
    const whole = options.withoutFence === "whole" ? completion : "";
    return options.strip ? pythonStrip(whole) : whole;
  }
  const rest = completion.slice(start + fenceLength);
  const end = rest.indexOf("```");
  const code = end === -1 ? "" : rest.slice(0, end);
  return options.strip ? pythonStrip(code) : code;
}
