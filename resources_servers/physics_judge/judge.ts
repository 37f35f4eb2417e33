// NeMo Skills' physics judge as NeMo Gym's physics_judge asks it: one call (fixed roles, no A/B swap) with the
// prompt YAML filled from {problem} / {generation} / {expected_answer}; the verdict is "[Correct]" anywhere in the
// answer, case-insensitively (Skills' PhysicsMetrics.is_correct_judgement: "[Incorrect]" and no label both count
// as not correct). Over /v1/chat/completions when `use_chat_completions_for_judge`, the chat answer is recorded
// as a one-message Response, as NeMo Gym synthesizes it.
import {
  ResponseCreateParamsSchema,
  type NeMoGymResponse,
  type ResponseCreateParams,
} from "../../src/protocol/index.ts";
import { askJudge, askJudgeChat, chatAnswerAsResponse, chatJudgeSamplingParams, readServerPromptConfig, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { lastOutputPartText } from "../../src/ports/assistant-answer-text.ts";

export interface JudgeEvaluation {
  responses_create_params: ResponseCreateParams;
  response: NeMoGymResponse;
}

export interface PhysicsJudge {
  caller: JudgeCaller;
  endpoint: JudgeEndpoint;
  promptPath: string;
  useChatCompletions: boolean;
  /** The verify request: its rollout id goes on the judge call's path. */
  row: Record<string, unknown>;
}

const CORRECT = /\[correct\]/i;

/** True when the judge's text holds a [Correct] label (any case); everything else is not correct. */
export const judgeSaysCorrect = (text: string): boolean => CORRECT.test(text);

/** The verdict of a Responses answer: the last output item's last part, when it is a message's output_text. */
export function responseSaysCorrect(response: NeMoGymResponse): boolean {
  const text = lastOutputPartText(response);
  return text !== undefined && judgeSaysCorrect(text);
}

/** Python's `x or default` for the three sampling values NeMo Gym carries over to the chat request. */

export async function judgePhysics(judge: PhysicsJudge, problem: string, generation: string, expectedAnswer: string): Promise<{ correct: boolean; evaluation: JudgeEvaluation }> {
  const prompt = await readServerPromptConfig(judge.promptPath);
  const fill = { problem, generation, expected_answer: expectedAnswer };
  const messages = [
    ...(prompt.system != null ? [{ role: "system" as const, content: pythonFormat(prompt.system, [], fill) }] : []),
    { role: "user" as const, content: pythonFormat(prompt.user, [], fill) },
  ];
  const responsesParams = ResponseCreateParamsSchema.parse({ ...structuredClone(judge.endpoint.params), input: messages.map((m) => ({ ...m, type: "message" })) });
  if (judge.useChatCompletions) {
    // Only these three sampling values reach the chat request, with NeMo Gym's fallbacks.
    const chatParams = chatJudgeSamplingParams(responsesParams, 2048);
    const { completion, text } = await askJudgeChat(judge.caller, { ...judge.endpoint, params: chatParams }, messages, { row: judge.row });
    const response = chatAnswerAsResponse(completion, text);
    const evaluation = { responses_create_params: responsesParams, response };
    return { correct: text !== "" && judgeSaysCorrect(text), evaluation };
  }
  const { response } = await askJudge(judge.caller, judge.endpoint, responsesParams.input, { row: judge.row });
  return { correct: responseSaysCorrect(response), evaluation: { responses_create_params: responsesParams, response } };
}
