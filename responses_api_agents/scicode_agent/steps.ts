// What one SciCode sub-step's prompt is built from, and what is kept of the model's answer — NeMo Gym's
// step_utils, in its own words here: the earlier steps (description, optionally the scientist's background, and the
// code written for each), the next step (description, background, function header and return line), and the code
// block of the answer without its import lines (the problem's dependencies are put in front of every solution).
import { HttpError } from "../../src/protocol/errors.ts";

/** Stored for a sub-step that could not be generated (the context window ran out); the environment fails it unrun. */
export const OUT_OF_CONTEXT = "_ran_out_of_context_";

/** The fields of a sub-step the prompt reads (SciCode's dataset carries more: step_number, test_cases, …). */
export interface SubStep {
  step_description_prompt: string;
  step_background?: string;
  function_header: string;
  return_line: string;
}

/** The sub-step fields each prompt needs; absent ones are a 422 naming them (NeMo Gym: a KeyError, so a 500). */
export function requireSubSteps(subSteps: unknown[], withBackground: boolean): SubStep[] {
  const needed = ["step_description_prompt", "function_header", "return_line", ...(withBackground ? ["step_background"] : [])];
  const problems: string[] = [];
  subSteps.forEach((step, index) => {
    const fields = typeof step === "object" && step !== null && !Array.isArray(step) ? (step as Record<string, unknown>) : {};
    for (const field of needed) if (typeof fields[field] !== "string") problems.push(`sub_steps[${index}].${field}`);
  });
  if (problems.length > 0) {
    const why = withBackground ? " (with_background: true reads step_background)" : "";
    throw new HttpError(422, `each sub-step needs a string ${needed.join(", ")}${why}; missing or not a string: ${problems.join(", ")}`);
  }
  return subSteps as SubStep[];
}

const described = (step: SubStep, withBackground: boolean) => (withBackground ? `${step.step_description_prompt}\n${step.step_background}` : step.step_description_prompt);

export interface StepContext {
  /** `{problem_steps_str}`: each earlier step's description and its code, separated by `------` lines. */
  problemSteps: string;
  /** `{next_step_str}`: the step to write, with its function header and return line. */
  nextStep: string;
  /** The code of the earlier steps, one after another: the solution of this step starts with it. */
  previousCode: string;
}

/** The prompt context of sub-step `current` (0-based); `codeSoFar[i]` is what step i contributed (generated or prefilled). */
export function stepContext(subSteps: SubStep[], current: number, codeSoFar: readonly string[], withBackground: boolean): StepContext {
  const earlier: string[] = [];
  for (let i = 0; i < current; i++) earlier.push(described(subSteps[i]!, withBackground), codeSoFar[i]!, "------");
  earlier.pop(); // no separator after the last earlier step
  const next = subSteps[current]!;
  return {
    problemSteps: earlier.join("\n\n"),
    nextStep: [described(next, withBackground), `${next.function_header}\n\n${next.return_line}`].join("\n\n"),
    previousCode: codeSoFar.slice(0, current).join("\n"),
  };
}

/** The characters Python's `\s` matches in a str pattern (JavaScript's differ: \x1c-\x1f and \x85 are Python's, \ufeff is not). */
const PY_SPACE = "[\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
/** Python's `.` (anything but \n; JavaScript's also stops at \r, \u2028, \u2029). */
const PY_DOT = "[^\\n]";
/**
 * `re.sub(r"^\s*(import .*|from .*\s+import\s+.*)", "", code, flags=re.MULTILINE)`: a line start is the start of
 * the text or a position after \n only (JavaScript's `m` flag also takes \r and \u2028).
 */
const IMPORT_LINE = new RegExp(`(?:^|(?<=\\n))${PY_SPACE}*(?:import ${PY_DOT}*|from ${PY_DOT}*${PY_SPACE}+import${PY_SPACE}+${PY_DOT}*)`, "gu");

/** The answer's first ```python block (else its first ``` block, else all of it), without import lines. */
export function extractPythonCode(answer: string): string {
  let code = answer;
  if (answer.includes("```")) code = answer.includes("```python") ? answer.split("```python")[1]!.split("```")[0]! : answer.split("```")[1]!.split("```")[0]!;
  return code.replace(IMPORT_LINE, "");
}

/** Phrases of model servers refusing a prompt longer than the context window (NeMo Gym's list). */
const CONTEXT_WINDOW_MARKERS = [
  "Requested token count exceeds",
  "exceeds maximum input length",
  "should not exceed max_seq_len",
  "reduce the length of the input messages",
  "'max_completion_tokens' is too large",
  "max_tokens must be at least 1, got -",
];

export const isContextWindowMessage = (text: string) => CONTEXT_WINDOW_MARKERS.some((marker) => text.includes(marker));

/**
 * Sub-steps SciCode's protocol fills with its own reference code instead of asking the model (problem id, 0-based
 * step): context for the later steps, never scored. SciCode publishes that code as `<problem>.<step + 1>.txt`.
 */
export const PREFILLED_STEPS: ReadonlySet<string> = new Set(["13:5", "62:0", "76:2"]);
export const isPrefilled = (problemId: string, step: number) => PREFILLED_STEPS.has(`${problemId}:${step}`);
