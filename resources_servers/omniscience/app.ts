// Omniscience (NeMo Gym's omniscience, after AA-Omniscience): factual answers graded by an LLM judge on four tiers —
// A CORRECT (reward 1.0), B INCORRECT, C PARTIAL_ANSWER, D NOT_ATTEMPTED — with the omniscience index (+1 correct,
// −1 incorrect, 0 otherwise) and the hallucination flag (a confident wrong answer). The model's thinking traces are
// stripped before the judge sees its answer; a trace never closed leaves no answer.
import { z } from "zod";
import { askJudge, askJudgeChat, chatJudgeSamplingParams, JudgeError, judgeEndpoint, judgePromptFileProblem, readJudgePromptYamlField, resourcesServer, type JudgeCaller } from "../../src/server/index.ts";
import { answerAfterThinking, lastAssistantAnswerText } from "../../src/ports/assistant-answer-text.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { parseJudgeGrade, VERDICTS } from "./grade.ts";
import { omniscienceKeyMetrics, omniscienceMetrics } from "./metrics.ts";

const SERVER_DIR = import.meta.dirname;

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()),
  /** A YAML file with the template under `user`; placeholders {question}, {expected_answer}, {generation}. */
  judge_prompt_path: z
    .string()
    .default("prompts/judge.yaml")
    .superRefine((path, context) => {
      const problem = judgePromptFileProblem(SERVER_DIR, path);
      if (problem) context.addIssue({ code: "custom", message: problem });
    }),
  use_chat_completions_for_judge: z.boolean().default(false),
});
type Config = z.output<typeof Config>;

const VerifyInput = z.looseObject({
  id: z.union([z.number().int(), z.string()]).nullish(),
  domain: z.string().nullish(),
  topic: z.string().nullish(),
  question: z.string().nullish(),
  expected_answer: z.string().nullish(),
});

/** The judge's text: over chat only max_tokens / temperature / top_p are sent (NeMo Gym's fallbacks); over responses its last message, thinking stripped. */
async function judgeText(caller: JudgeCaller, config: Config, prompt: string, row: Record<string, unknown>): Promise<string> {
  const endpoint = judgeEndpoint(config);
  if (config.use_chat_completions_for_judge) {
    const params = config.judge_responses_create_params;
    const chatEndpoint = { ...endpoint, params: chatJudgeSamplingParams(params, 64) };
    return pythonStrip((await askJudgeChat(caller, chatEndpoint, [{ role: "user", content: prompt }], { row })).text);
  }
  const { response } = await askJudge(caller, endpoint, [{ role: "user", content: prompt }], { row });
  return lastAssistantAnswerText(response, { stripThinking: true });
}

/** The fields the response sets itself; the request's other fields are echoed after them. */
const OWN_FIELDS = new Set([
  "responses_create_params", "response", "reward", "extracted_answer", "expected_answer", "verdict", "judge_output",
  "is_correct", "is_incorrect", "is_partial", "is_not_attempted", "omniscience_index", "is_hallucination", "id", "domain", "topic", "question",
]);

export default resourcesServer({
  name: "OmniscienceServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyInput,
    async run(_state, body, { config, server }) {
      const template = await readJudgePromptYamlField(SERVER_DIR, config.judge_prompt_path, "user");
      const generation = answerAfterThinking(body.response);
      const expectedAnswer = body.expected_answer || "";
      const prompt = pythonFormat(template, [], { question: body.question || "", expected_answer: expectedAnswer, generation });
      const text = await judgeText(server, config, prompt, body);
      // NeMo Gym's call: an empty judge answer is a failed judgement, not a wrong answer.
      if (text === "") throw new JudgeError("empty judge response");
      const verdict = VERDICTS[parseJudgeGrade(text)];
      const is = (tier: string) => (verdict === tier ? 1 : 0);
      const echoed = Object.fromEntries(Object.entries(body).filter(([key]) => !OWN_FIELDS.has(key)));
      return {
        reward: is("correct"),
        extracted_answer: generation,
        expected_answer: expectedAnswer,
        verdict,
        judge_output: text,
        is_correct: is("correct"),
        is_incorrect: is("incorrect"),
        is_partial: is("partial"),
        is_not_attempted: is("not_attempted"),
        omniscience_index: is("correct") - is("incorrect"),
        is_hallucination: is("incorrect"),
        id: body.id ?? null,
        domain: body.domain ?? null,
        topic: body.topic ?? null,
        question: body.question ?? null,
        ...echoed,
      };
    },
  },
  floatFields: ["is_correct", "is_incorrect", "is_partial", "is_not_attempted", "omniscience_index", "is_hallucination"],
  computeMetrics: omniscienceMetrics,
  keyMetrics: omniscienceKeyMetrics,
});
