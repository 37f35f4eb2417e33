// The UGPhysics judge as NeMo Gym's ugphysics_judge asks it (NeMo Skills' judge/ugphysics.yaml and
// UGPhysicsMetrics.is_correct_judgement): one call, student against reference (no A/B swap), with the prompt YAML
// filled from {problem} / {solution} / {expected_answer} / {generation}. The verdict is the "## Equivalence
// Judgement" header's TRUE/FALSE, else the last standalone TRUE/FALSE word (any case), else none. Python regex
// semantics (Unicode \s and \b) via src/python/re.
import { ResponseCreateParamsSchema, type NeMoGymResponse, type ResponseCreateParams } from "../../src/protocol/index.ts";
import { askJudge, askJudgeChat, chatAnswerAsResponse, chatJudgeSamplingParams, readServerPromptConfig, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";

export interface JudgeEvaluation {
  responses_create_params: ResponseCreateParams;
  response: NeMoGymResponse;
}

export type VerdictLabel = "TRUE" | "FALSE";

const EQUIVALENCE_HEADER = compilePythonRegex(String.raw`##\s*Equivalence\s*Judgement\s*\n\s*(TRUE|FALSE)`, { ignoreCase: true });
const TRUE_OR_FALSE = compilePythonRegex(String.raw`\b(TRUE|FALSE)\b`, { ignoreCase: true });

/** NeMo Gym's parse_judgement: true / false, or null for an answer with no verdict (scored as not correct). */
export function parseJudgement(text: string | null | undefined): boolean | null {
  if (!text) return null;
  const header = EQUIVALENCE_HEADER.search(text);
  if (header) return header.groups[1]!.toUpperCase() === "TRUE";
  const words = [...TRUE_OR_FALSE.finditer(text)];
  if (words.length > 0) return words.at(-1)!.groups[1]!.toUpperCase() === "TRUE";
  return null;
}

/** The text a Responses answer is judged on: the last item's last part, when it is a message's output_text. */
export function responseVerdictText(response: NeMoGymResponse): string | undefined {
  const last = response.output.at(-1);
  if (last === undefined || last.type !== "message" || !Array.isArray(last.content)) return undefined;
  const part = last.content.at(-1);
  return part !== undefined && part.type === "output_text" ? part.text : undefined;
}

export interface UGPhysicsJudge {
  caller: JudgeCaller;
  endpoint: JudgeEndpoint;
  promptPath: string;
  useChatCompletions: boolean;
  row: Record<string, unknown>;
}

export interface UGPhysicsFill {
  problem: string;
  solution: string;
  expected_answer: string;
  generation: string;
}

/** Python's `x or default` for the three sampling values NeMo Gym carries over to the chat request. */

export async function judgeUGPhysics(judge: UGPhysicsJudge, fill: UGPhysicsFill): Promise<{ correct: boolean; verdict: VerdictLabel | null; evaluation: JudgeEvaluation }> {
  const prompt = await readServerPromptConfig(judge.promptPath);
  const values = { ...fill };
  const messages = [
    ...(prompt.system != null ? [{ role: "system" as const, content: pythonFormat(prompt.system, [], values) }] : []),
    { role: "user" as const, content: pythonFormat(prompt.user, [], values) },
  ];
  const responsesParams = ResponseCreateParamsSchema.parse({ ...structuredClone(judge.endpoint.params), input: messages.map((m) => ({ ...m, type: "message" })) });
  let text: string | undefined;
  let response: NeMoGymResponse;
  if (judge.useChatCompletions) {
    const chatParams = chatJudgeSamplingParams(responsesParams, 2048);
    const answer = await askJudgeChat(judge.caller, { ...judge.endpoint, params: chatParams }, messages, { row: judge.row });
    // NeMo Gym records the chat answer as a one-message Response.
    response = chatAnswerAsResponse(answer.completion, answer.text);
    text = answer.text;
  } else {
    response = (await askJudge(judge.caller, judge.endpoint, responsesParams.input, { row: judge.row })).response;
    text = responseVerdictText(response);
  }
  const evaluation = { responses_create_params: responsesParams, response };
  const parsed = parseJudgement(text);
  return { correct: parsed === true, verdict: parsed === null ? null : parsed ? "TRUE" : "FALSE", evaluation };
}
