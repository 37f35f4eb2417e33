// aviary's GSM8K environment (aviary.envs.gsm8k): CalculatorEnv, one grade-school maths problem with two tools,
// `calculator` (a safe Python-expression evaluator, safe-math.ts) and `submit_answer` (terminal: the reward is
// correct_reward when the float answer is within rel_tol of the gold one), and GSM8kDataset, whose splits are
// derived from the Hugging Face `openai/gsm8k` (`main`) train split as aviary derives them (train: index % 5 != 0,
// val: index % 5 == 0, train_full: all; test is the test split).
import { readFileSync } from "node:fs";
import { PyException, ValueError } from "../../python/exception.ts";
import { HttpError } from "../../protocol/errors.ts";
import { pythonFloat } from "../../python/numbers.ts";
import { jsonTypeName } from "../../python/json-value.ts";
import { calculatorResultText, evaluateSafeMath, IntStrLimitError } from "./safe-math.ts";
import { stringParameter, type AviaryEnvironment, type Observation, type StepResult, type TaskDataset, type ToolCall, type ToolInfo } from "./environment.ts";

/** aviary's CalculatorEnvConfig, at its defaults (NeMo Gym's GSM8K server never sets it). */
export interface CalculatorEnvConfig {
  correct_reward: number;
  incorrect_reward: number;
  tool_failure_reward: number;
  tool_success_reward: number;
  rel_tol: number;
  done_on_failure: boolean;
}

export const DEFAULT_CALCULATOR_CONFIG: Readonly<CalculatorEnvConfig> = Object.freeze({
  correct_reward: 1.0,
  incorrect_reward: 0.0,
  tool_failure_reward: -1.0,
  tool_success_reward: 0.0,
  rel_tol: 1e-4,
  done_on_failure: true,
});

export const GSM8K_TOOLS: readonly ToolInfo[] = Object.freeze([
  {
    name: "calculator",
    description: "Calculate a mathematical expression.",
    parameters: { type: "object", properties: stringParameter("expr", "A valid Python expression."), required: ["expr"] },
  },
  {
    name: "submit_answer",
    description: "Submit the proposed answer and check if it is correct. This action is terminal.",
    parameters: { type: "object", properties: stringParameter("answer", "Proposed answer."), required: ["answer"] },
  },
]);

/** What a tool function returns in aviary: (response, reward, done). */
type ToolOutcome = [response: string, reward: number, done: boolean];

/** Python calling `tool_fn(**arguments)` with the wrong keywords: the TypeError aviary does not catch. */
function checkKeywords(method: string, parameter: string, args: Record<string, unknown>): void {
  for (const key of Object.keys(args)) {
    if (key !== parameter) throw new PyException("TypeError", `CalculatorEnv.${method}() got an unexpected keyword argument '${key}'`);
  }
  if (!Object.hasOwn(args, parameter)) throw new PyException("TypeError", `CalculatorEnv.${method}() missing 1 required positional argument: '${parameter}'`);
}

export class CalculatorEnv implements AviaryEnvironment {
  readonly answer: number;

  constructor(
    readonly problemId: string | null,
    readonly problem: string,
    answer: number,
    readonly config: CalculatorEnvConfig = DEFAULT_CALCULATOR_CONFIG,
  ) {
    this.answer = answer;
  }

  async reset(): Promise<{ obs: Observation[]; tools: ToolInfo[] }> {
    return { obs: [{ kind: "message", role: "user", content: this.problem }], tools: GSM8K_TOOLS.map((t) => structuredClone(t)) };
  }

  calculator(expr: unknown): ToolOutcome {
    let text: string;
    try {
      if (typeof expr !== "string") throw new PyException("AttributeError", `'${jsonTypeName(expr)}' object has no attribute 'strip'`);
      // Python's str.strip(): whitespace.
      text = calculatorResultText(evaluateSafeMath(expr.replace(/^\s+|\s+$/gu, "")));
    } catch (error) {
      // json.dumps of the result, outside the tool's own try: the step fails.
      if (error instanceof IntStrLimitError) throw error;
      if (!(error instanceof PyException)) throw error;
      return [`Error using calculator: ${error.repr()}.`, this.config.tool_failure_reward, this.config.done_on_failure];
    }
    return [text, this.config.tool_success_reward, false];
  }

  submitAnswer(answer: unknown): ToolOutcome {
    let value: number;
    try {
      value = pythonFloat(answer);
    } catch (error) {
      if (error instanceof ValueError) return ["False", this.config.tool_failure_reward, true];
      throw error;
    }
    const correct = Math.abs(value - this.answer) / (Math.abs(this.answer) + this.config.rel_tol) < this.config.rel_tol;
    return [correct ? "True" : "False", correct ? this.config.correct_reward : this.config.incorrect_reward, true];
  }

  async step(calls: ToolCall[]): Promise<StepResult> {
    if (calls.length === 0) {
      return {
        obs: [{ kind: "message", role: "user", content: "Must call one of the provided tools (calculator or submit_answer)." }],
        reward: this.config.tool_failure_reward,
        done: this.config.done_on_failure,
      };
    }
    const valid = calls.filter((call) => call.name === "calculator" || call.name === "submit_answer");
    const invalid = calls.filter((call) => !valid.includes(call));
    const invalidObs: Observation[] = invalid.map((call) => ({ kind: "tool_response", toolCallId: call.id, content: "" }));
    if (valid.length === 0) {
      return { obs: invalidObs, reward: this.config.tool_failure_reward * invalid.length, done: this.config.done_on_failure };
    }
    const obs: Observation[] = [];
    let reward = 0;
    let done = false;
    for (const call of valid) {
      const parameter = call.name === "calculator" ? "expr" : "answer";
      checkKeywords(call.name, parameter, call.arguments);
      const [response, callReward, callDone] = call.name === "calculator" ? this.calculator(call.arguments.expr) : this.submitAnswer(call.arguments.answer);
      obs.push({ kind: "tool_response", toolCallId: call.id, content: response });
      reward += callReward;
      done ||= callDone;
    }
    return { obs: [...obs, ...invalidObs], reward, done };
  }

  async close(): Promise<void> {}
}

export const GSM8K_SPLITS = ["train_full", "train", "val", "test"] as const;
export type Gsm8kSplit = (typeof GSM8K_SPLITS)[number];

/** One problem of the source file: Hugging Face openai/gsm8k's fields. */
export interface Gsm8kRow {
  question: string;
  answer: string;
}

/** `float(answer.split("#### ")[1].replace(",", ""))`: the number after the final `#### `. */
export function gsm8kAnswerNumber(answer: string): number {
  const parts = answer.split("#### ");
  if (parts.length < 2) throw new Error("Failed to extract numerical answer from 'answer' column: no '#### '");
  return pythonFloat(parts[1]!.replace(/,/g, ""));
}

/**
 * GSM8kDataset over the rows of the source split (openai/gsm8k `main` train for train_full/train/val, test for
 * test), as JSONL with `question` and `answer`. Task i of a derived split is the i-th row that split keeps.
 */
export class Gsm8kDataset implements TaskDataset {
  private readonly problems: { problemId: string; question: string; answer: number }[];

  constructor(rows: Gsm8kRow[], readonly split: Gsm8kSplit, readonly config: CalculatorEnvConfig = DEFAULT_CALCULATOR_CONFIG) {
    this.problems = [];
    rows.forEach((row, index) => {
      if (split === "train" && index % 5 === 0) return;
      if (split === "val" && index % 5 !== 0) return;
      let answer: number;
      try {
        answer = gsm8kAnswerNumber(row.answer);
      } catch (error) {
        throw new Error(`GSM8K row ${index + 1}: failed to extract the numerical answer from 'answer': ${(error as Error).message}`);
      }
      this.problems.push({ problemId: `${split}_${index}`, question: row.question, answer });
    });
  }

  static fromJsonl(path: string, split: Gsm8kSplit): Gsm8kDataset {
    const rows: Gsm8kRow[] = [];
    readFileSync(path, "utf8")
      .split("\n")
      .forEach((line, index) => {
        if (line.trim() === "") return;
        let row: unknown;
        try {
          row = JSON.parse(line);
        } catch (error) {
          throw new Error(`${path}:${index + 1}: not JSON (${(error as Error).message})`);
        }
        const { question, answer } = (row ?? {}) as Record<string, unknown>;
        if (typeof question !== "string" || typeof answer !== "string") throw new Error(`${path}:${index + 1}: a GSM8K row needs string fields 'question' and 'answer'`);
        rows.push({ question, answer });
      });
    return new Gsm8kDataset(rows, split);
  }

  get size(): number {
    return this.problems.length;
  }

  newEnvironment(taskIndex: number): CalculatorEnv {
    // pandas' iloc: a negative index counts from the end; out of range is an IndexError.
    const index = taskIndex < 0 ? this.problems.length + taskIndex : taskIndex;
    const problem = this.problems[index];
    // pandas raises IndexError (a 500 in NeMo Gym); the index is the caller's input, so here it is a 422 naming it.
    if (!problem) throw new HttpError(422, `task_idx ${taskIndex} is out of range: the ${this.split} split has ${this.problems.length} tasks`);
    return new CalculatorEnv(problem.problemId, problem.question, problem.answer, this.config);
  }
}
