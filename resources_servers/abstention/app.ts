// Abstention (HotPotQA): the policy answers in \boxed{…}, or \boxed{[IDK]} when unsure, and earns a three-tier
// reward — correct (1.0) > abstain (λ, default 0.5) > incorrect (0.0). The abstention token is spotted without a
// judge; any other answer is graded by an LLM judge (Omniscience's grader prompt: A correct, B incorrect, C not
// attempted — which counts as abstaining).
import { z } from "zod";
import { askJudge, JudgeError, judgeEndpoint, readServerPromptFile, resourcesServer, type NemoGymText } from "../../src/server/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { extractBoxedAnswer, lastAssistantText, normalizeAnswer, parseJudgeGrade } from "./answer.ts";

/** Where NeMo Gym's grader prompt lands (git-ignored): its default is a constant of NeMo Gym's app.py, read as data. */
const NEMO_GYM_PROMPTS: Readonly<Record<string, NemoGymText>> = {
  "prompt_templates/abstention_judge.txt": { repoPath: "resources_servers/abstention/app.py", extract: { kind: "python_constant", name: "_DEFAULT_JUDGE_PROMPT_TEMPLATE" } },
};

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()),
  /** The grader prompt itself ({question}, {target}, {predicted_answer}); unset: the file below. */
  judge_prompt_template: z.string().optional(),
  /** Ours: the file holding the prompt when judge_prompt_template is unset (NeMo Gym's default text, fetched). */
  judge_prompt_template_fpath: z.string().default("prompt_templates/abstention_judge.txt"),
  abstention_reward: z.number().default(0.5),
  abstention_token: z.string().default("[IDK]"),
  correct_reward: z.number().default(1.0),
  incorrect_reward: z.number().default(0.0),
});
type Config = z.output<typeof Config>;

// AbstentionRunRequest: every field optional, extra fields kept (and echoed).
const VerifyFields = z.looseObject({
  id: z.union([z.number().int(), z.string()]).nullish(),
  question: z.string().nullish(),
  answer: z.string().nullish(),
});

type Verdict = "correct" | "abstain" | "incorrect";

const templates = new WeakMap<object, string>();
const templateOf = (config: Config) => config.judge_prompt_template ?? templates.get(config)!;

const abstention = resourcesServer({
  name: "AbstentionServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyFields,
    async run(_state, body, { config, server }) {
      const { responses_create_params: _params, response, ...row } = body;
      const policyOutput = lastAssistantText(response);
      const extracted = extractBoxedAnswer(policyOutput) ?? policyOutput;
      const groundTruth = body.answer || "";

      let verdict: Verdict;
      let reward: number;
      let judgeText: string | null = null;
      if (normalizeAnswer(extracted) === normalizeAnswer(config.abstention_token)) {
        verdict = "abstain";
        reward = config.abstention_reward;
      } else {
        const prompt = pythonFormat(templateOf(config), [], { question: body.question || "", target: groundTruth, predicted_answer: extracted });
        const judged = await askJudge(server, judgeEndpoint(config), [{ role: "user", content: prompt }], { row: body });
        judgeText = lastAssistantText(judged.response);
        // NeMo Gym raises here: an empty judge answer is a failed judge call, not an "incorrect".
        if (!judgeText) throw new JudgeError("empty judge response");
        const grade = parseJudgeGrade(judgeText);
        [verdict, reward] = grade === "A" ? ["correct", config.correct_reward] : grade === "C" ? ["abstain", config.abstention_reward] : ["incorrect", config.incorrect_reward];
      }
      const isCorrect = verdict === "correct" ? 1 : 0;
      const isIncorrect = verdict === "incorrect" ? 1 : 0;
      return {
        ...row,
        reward,
        extracted_answer: extracted,
        ground_truth: groundTruth,
        verdict,
        judge_output: judgeText,
        is_correct: isCorrect,
        is_abstain: verdict === "abstain" ? 1 : 0,
        is_incorrect: isIncorrect,
        omniscience_index: isCorrect - isIncorrect,
      };
    },
  },
  floatFields: ["is_correct", "is_abstain", "is_incorrect", "omniscience_index"],
  // verify reads only the request (and the judge), so stored rollouts may be re-verified.
  reverifyMode: "stateless",
});

// The grader prompt is ready before the first request: NeMo Gym's default is fetched (pinned) when absent.
const definition: typeof abstention = {
  ...abstention,
  async register(app, context) {
    const { config } = context;
    if (config.judge_prompt_template === undefined) {
      const onFetched = (dest: string, url: string) => context.log.info(`fetched NeMo Gym's grader prompt from ${url} into ${dest}`);
      templates.set(config, await readServerPromptFile(import.meta.dirname, config.judge_prompt_template_fpath, NEMO_GYM_PROMPTS, { onFetched }));
    }
    await abstention.register(app, context);
  },
};
export default definition;
