// ether0 chemistry benchmark (NeMo Gym's Ether0ResourcesServer): the answer in the model's last words — the last
// <answer>…</answer> (ether0's <|answer_start|> tokens read as tags), else the last \boxed{…}, else the last
// `Answer: X` line — scored by the ether0 reward function the row's `verifier_metadata.solution` names
// ("<function>!:!<answer_info>!:!<problem_type>"). A lone letter is first read through `verifier_metadata.choices`.
// The reward functions are rewards.ts; what they need that cannot be had here is a 501 naming it.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { isAlpha, pythonLen, pythonStrip } from "../../src/python/str.ts";
import { jsonTruthy, jsonTypeName } from "../../src/python/json-value.ts";
import { EVAL_FUNCTIONS, RewardFunctionError } from "./rewards.ts";

const SOLUTION_DELIMITER = "!:!";
const LOOSE_ANSWER = compilePythonRegex(String.raw`<answer>\s*(\S[\s\S]*?)\s*<\/answer>`);
const BOXED = compilePythonRegex(String.raw`\\boxed\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}`);
const ANSWER_LETTER = compilePythonRegex(String.raw`Answer\s*:\s*([A-Za-z])\s*$`, { multiline: true });

type Item = Record<string, unknown>;

/** The text of the assistant's messages: every string `text` of their content parts (or a string content), joined with newlines, stripped. */
function assistantText(response: { output: unknown[] }): string {
  const texts: string[] = [];
  for (const item of response.output as Item[]) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    if (Array.isArray(item.content)) {
      for (const part of item.content as Item[]) if (typeof part?.text === "string") texts.push(part.text);
    } else if (typeof item.content === "string") texts.push(item.content);
  }
  return pythonStrip(texts.join("\n"));
}

/** ether0's extract_answer_loose: the last <answer>…</answer>, unless it holds another <answer>. */
function looseAnswer(text: string): string {
  const answers = LOOSE_ANSWER.findall<string>(text);
  const last = answers.at(-1);
  return last === undefined || last.includes("<answer>") ? "" : last;
}

/** The answer: the loose <answer> tag, else the last \boxed{} (braces nested up to three deep), else the last `Answer: X`. */
export function extractAnswer(text: string): string | undefined {
  const tagged = pythonStrip(looseAnswer(text));
  if (tagged) return tagged;
  const boxes = BOXED.findall<string>(text);
  if (boxes.length > 0) return pythonStrip(boxes.at(-1)!) || undefined;
  const letters = ANSWER_LETTER.findall<string>(text);
  if (letters.length > 0) return pythonStrip(letters.at(-1)!) || undefined;
  return undefined;
}

/** RewardFunctionInfo.model_validate: "<fxn_name>!:!<answer_info>!:!<problem_type>", or an object of those three strings. */
function rewardFunctionInfo(solution: unknown): { fxnName: string; answerInfo: string } | undefined {
  if (typeof solution === "string") {
    const [fxnName, ...rest] = solution.split(SOLUTION_DELIMITER);
    if (rest.length < 2) return undefined;
    return { fxnName: fxnName!, answerInfo: rest[0]! };
  }
  if (typeof solution === "object" && solution !== null && !Array.isArray(solution)) {
    const { fxn_name, answer_info, problem_type } = solution as Item;
    if (typeof fxn_name === "string" && typeof answer_info === "string" && typeof problem_type === "string") return { fxnName: fxn_name, answerInfo: answer_info };
  }
  return undefined;
}

export default resourcesServer({
  name: "Ether0ResourcesServer",
  tools: {},
  verify: {
    input: z.object({ verifier_metadata: z.record(z.string(), z.unknown()).nullish() }),
    async run(_state, { response, verifier_metadata }) {
      const meta = verifier_metadata ?? {};
      const problemType = meta.problem_type ?? "";
      if (typeof problemType !== "string") throw new RequestValidationError([{ type: "string_type", loc: ["body", "verifier_metadata", "problem_type"], msg: "Input should be a valid string", input: problemType }]);
      const result = (reward: number, extracted: string | undefined, evalFunction: string | undefined) => ({ reward, extracted_answer: extracted ?? null, eval_function: evalFunction ?? null, problem_type: problemType });

      // A malformed solution scores 0 (NeMo Gym logs it).
      const info = rewardFunctionInfo(meta.solution ?? "");
      if (!info) return result(0, undefined, undefined);

      const text = assistantText(response).replaceAll("<|answer_start|>", "<answer>").replaceAll("<|answer_end|>", "</answer>");
      let answer = extractAnswer(text);
      if (answer === undefined) return result(0, undefined, info.fxnName);

      const choices = meta.choices;
      if (jsonTruthy(choices) && pythonLen(answer) === 1 && isAlpha(answer)) {
        if (typeof choices !== "object" || choices === null || Array.isArray(choices)) throw new Error(`AttributeError: '${jsonTypeName(choices)}' object has no attribute 'get'`);
        const choice = (choices as Item)[answer.toUpperCase()];
        if (choice !== undefined) {
          if (typeof choice !== "string") throw new RequestValidationError([{ type: "string_type", loc: ["body", "verifier_metadata", "choices", answer.toUpperCase()], msg: "Input should be a valid string", input: choice }]);
          answer = choice;
        }
      }

      const evalFunction = Object.hasOwn(EVAL_FUNCTIONS, info.fxnName) ? EVAL_FUNCTIONS[info.fxnName] : undefined;
      if (!evalFunction) return result(0, answer, info.fxnName);
      try {
        return result(await evalFunction(answer, info.answerInfo), answer, info.fxnName);
      } catch (error) {
        // NeMo Gym logs an exception inside a reward function and scores 0.
        if (error instanceof RewardFunctionError) return result(0, answer, info.fxnName);
        throw error;
      }
    },
  },
});
