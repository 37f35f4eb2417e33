// SimpleQA (NeMo Gym's simpleqa): short factual answers graded by an LLM judge on SimpleQA-Verified's three tiers —
// A CORRECT (reward 1.0), B INCORRECT, C NOT_ATTEMPTED — with per-tier indicators, pass@k per tier, F1 and
// accuracy_given_attempted. The judge is asked over /v1/chat/completions when `use_chat_completions_for_judge`.
import { z } from "zod";
import { askJudge, askJudgeChat, chatJudgeSamplingParams, JudgeError, judgeEndpoint, judgePromptFileProblem, readJudgePromptYamlField, resourcesServer, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { lastAssistantText, parseJudgeGrade, VERDICTS } from "./grade.ts";
import { simpleqaKeyMetrics, simpleqaMetrics } from "./metrics.ts";

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
  question: z.string().nullish(),
  expected_answer: z.string().nullish(),
});

/** The judge's text. Over chat, NeMo Gym sends only these three sampling parameters, with its fallbacks. */
async function judgeText(caller: JudgeCaller, config: Config, endpoint: JudgeEndpoint, prompt: string, row: Record<string, unknown>): Promise<string> {
  if (config.use_chat_completions_for_judge) {
    const params = config.judge_responses_create_params;
    const chatEndpoint = { ...endpoint, params: chatJudgeSamplingParams(params, 64) };
    const { text } = await askJudgeChat(caller, chatEndpoint, [{ role: "user", content: prompt }], { row });
    return pythonStrip(text);
  }
  const { response } = await askJudge(caller, endpoint, [{ role: "user", content: prompt }], { row });
  return lastAssistantText(response);
}

/** The verify fields NeMo Gym's response sets itself; the request's other fields are echoed after them. */
const OWN_FIELDS = new Set(["responses_create_params", "response", "reward", "extracted_answer", "expected_answer", "verdict", "judge_output", "is_correct", "is_incorrect", "is_not_attempted", "id", "question"]);

export default resourcesServer({
  name: "SimpleQAServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyInput,
    async run(_state, body, { config, server }) {
      const template = await readJudgePromptYamlField(SERVER_DIR, config.judge_prompt_path, "user");
      const generation = lastAssistantText(body.response);
      const expectedAnswer = body.expected_answer || "";
      const prompt = pythonFormat(template, [], { question: body.question || "", expected_answer: expectedAnswer, generation });
      const text = await judgeText(server, config, judgeEndpoint(config), prompt, body);
      // NeMo Gym's call: an empty judge answer is a failed judgement, not a wrong answer.
      if (text === "") throw new JudgeError("empty judge response");
      const verdict = VERDICTS[parseJudgeGrade(text)];
      const echoed = Object.fromEntries(Object.entries(body).filter(([key]) => !OWN_FIELDS.has(key)));
      return {
        reward: verdict === "correct" ? 1 : 0,
        extracted_answer: generation,
        expected_answer: expectedAnswer,
        verdict,
        judge_output: text,
        is_correct: verdict === "correct" ? 1 : 0,
        is_incorrect: verdict === "incorrect" ? 1 : 0,
        is_not_attempted: verdict === "not_attempted" ? 1 : 0,
        id: body.id ?? null,
        question: body.question ?? null,
        ...echoed,
      };
    },
  },
  floatFields: ["is_correct", "is_incorrect", "is_not_attempted"],
  computeMetrics: simpleqaMetrics,
  keyMetrics: simpleqaKeyMetrics,
});
