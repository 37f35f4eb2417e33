// The LLM judge NeMo Gym's math_with_judge (and polymath, which subclasses it) falls back to when math-verify says
// no: Arena-Hard's equivalence prompt, asked in both orders (positional bias), equal only if both verdicts say [[A=B]].
import type { NeMoGymResponse, ResponseCreateParams } from "../../protocol/index.ts";
import { askJudge, type JudgeCaller, type JudgeEndpoint } from "../../server/index.ts";
import { lastOutputPartText } from "../assistant-answer-text.ts";

export const JUDGE_SYSTEM_MESSAGE = `Please act as an impartial judge and evaluate the equivalence of the solutions given by two AI assistants to the mathematical problem displayed below. You will be given AI assistant A's answer and AI assistant B's answer. Your job is to evaluate whether assistant A's answer is equivalent to assistant B's answer.

Consider the mathematical equivalence of the AI assistants' answers above all other considerations. If the problem requests special formatting instructions, you may disregard any formatting considerations when evaluating the answers -- consider only mathematical equivalence.

After evaluating both answers for equivalence, you must output only one of the following choices as your final verdict with a label:

1.  The AI assistants' answers are equivalent: [[A=B]]
2.  The AI assistants' answers are different: [[A!=B]]

Example output: "My final verdict is different [[A!=B]]".`;

export const judgePrompt = (question: string, firstAnswer: string, secondAnswer: string) =>
  `<|Problem|>\n${question}\n\n<|Start of Assistant A's Answer|>\n${firstAnswer}\n<|End of Assistant A's Answer|>\n\n<|Start of Assistant B's Answer|>\n${secondAnswer}\n<|End of Assistant B's Answer|>`;

const EQUAL_LABEL = "[[A=B]]";
const NOT_EQUAL_LABEL = "[[A!=B]]";

export interface JudgeEvaluation {
  responses_create_params: ResponseCreateParams;
  response: NeMoGymResponse;
}

export interface JudgeSettings {
  caller: JudgeCaller;
  endpoint: JudgeEndpoint;
  /** The verify request: its rollout id goes on the judge call's path. */
  row: Record<string, unknown>;
}

/** The verdict in the judge's last output item's last content part; any other item or part counts as "different". */
export function judgeSaysEqual(response: NeMoGymResponse): boolean {
  const text = lastOutputPartText(response);
  if (text === undefined) return false;
  const equalAt = text.indexOf(EQUAL_LABEL);
  const notEqualAt = text.indexOf(NOT_EQUAL_LABEL);
  return equalAt >= 0 && (notEqualAt < 0 || equalAt < notEqualAt);
}

async function evaluate(judge: JudgeSettings, question: string, first: string, second: string): Promise<[boolean, JudgeEvaluation]> {
  const input = [
    { role: "system" as const, content: JUDGE_SYSTEM_MESSAGE },
    { role: "user" as const, content: judgePrompt(question, first, second) },
  ];
  // A failed call is a JudgeError from askJudge: /verify answers NeMo Gym's judge_failed row.
  const { params, response } = await askJudge(judge.caller, judge.endpoint, input, { row: judge.row });
  return [judgeSaysEqual(response), { responses_create_params: params, response }];
}

/** 1 only if the judge calls the answers equivalent with the expected answer as A, and again as B. */
export async function judgeEquivalence(judge: JudgeSettings, question: string, expected: string, generated: string): Promise<{ reward: number; evaluations: JudgeEvaluation[] }> {
  const [firstEqual, firstEvaluation] = await evaluate(judge, question, expected, generated);
  if (!firstEqual) return { reward: 0, evaluations: [firstEvaluation] };
  const [secondEqual, secondEvaluation] = await evaluate(judge, question, generated, expected);
  return { reward: secondEqual ? 1 : 0, evaluations: [firstEvaluation, secondEvaluation] };
}
