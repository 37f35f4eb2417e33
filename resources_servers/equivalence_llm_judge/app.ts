// Short-answer QA scored by an LLM judge (NeMo Gym's equivalence_llm_judge): the judge compares the model's answer
// with `expected_answer` through a configurable template and two labels. Optional second passes: a swap check
// (expected and generated exchanged) after an "equal", and — for rows with a per-record
// `template_metadata.output_regex` — a rescue with the whole generation after a "not equal".
import { z } from "zod";
import { judgeEndpoint, judgePromptFileProblem, readJudgePromptFile, resourcesServer } from "../../src/server/index.ts";
import { pythonLen, pythonStrip } from "../../src/python/str.ts";
import { expectedAnswerOf, lastAssistantText, questionText, unsupportedRegex } from "./extract.ts";
import { judgeOnce, type Judge, type JudgeEvaluation } from "./judge.ts";

const SERVER_DIR = import.meta.dirname;

const regexKey = z
  .string()
  .nullish()
  .superRefine((pattern, context) => {
    const why = pattern ? unsupportedRegex(pattern) : undefined;
    if (why) context.addIssue({ code: "custom", message: `this regex uses Python syntax this port does not run: ${why}` });
  });

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()),
  judge_endpoint_max_concurrency: z.number().int().positive().nullable().default(64),
  judge_system_message: z.string().nullish(),
  judge_prompt_template_fpath: z
    .string()
    .default("prompt_templates/equivalence_llm_judge.txt")
    .superRefine((path, context) => {
      const problem = judgePromptFileProblem(SERVER_DIR, path);
      if (problem) context.addIssue({ code: "custom", message: problem });
    }),
  judge_equal_label: z.string().default("[[A=B]]"),
  judge_not_equal_label: z.string().default("[[A!=B]]"),
  question_extract_regex: regexKey,
  response_extract_regex: regexKey,
  msg_extraction_failure: z.string().default("[NO VALID ANSWER EXTRACTED]"),
  check_twice_swap: z.boolean().default(false),
  reward_if_swap_fails: z.number().default(0),
  use_per_record_regex: z.boolean().default(true),
  extraction_length_threshold: z.number().int().nullable().default(120),
  check_full_generation_on_fail: z.boolean().default(true),
  reward_if_full_generation_succeeds: z.number().default(0.5),
});
type Config = z.output<typeof Config>;

// NeMo Gym's request model: these four typed, every other row field allowed (template_metadata among them).
const VerifyInput = z.looseObject({
  uuid: z.union([z.string(), z.number().int()]).nullish(),
  expected_answer: z.string().nullish(),
  options: z.array(z.record(z.string(), z.string())).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  template_metadata: z.unknown().optional(),
});

/** The row's own answer regex (`template_metadata.output_regex`), when per-record regexes are on and it has one. */
function perRecordRegex(config: Config, templateMetadata: unknown): unknown {
  if (!config.use_per_record_regex || templateMetadata === null || typeof templateMetadata !== "object" || Array.isArray(templateMetadata)) return undefined;
  const regex = (templateMetadata as Record<string, unknown>).output_regex;
  return isTruthy(regex) ? regex : undefined;
}

/** Python's truthiness of a JSON value. */
const isTruthy = (value: unknown) =>
  value !== undefined && value !== null && value !== false && value !== 0 && value !== "" && !(Array.isArray(value) && value.length === 0) && !(typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0);

/** A per-record regex is set aside for an expected answer longer than the threshold: the judge sees the whole generation. */
const tooLongForRegex = (config: Config, expected: string) => config.extraction_length_threshold !== null && pythonLen(expected) > config.extraction_length_threshold;

export default resourcesServer({
  name: "LLMJudgeResourcesServer",
  config: Config,
  refusedConfigKeys: {
    judge_prompt_template:
      "NeMo Gym's config class has no such key and drops it (its nl2bash-equivalency.yaml sets one, yet grades with judge_prompt_template_fpath's file); put the template in a file and name it with judge_prompt_template_fpath",
  },
  tools: {},
  verify: {
    input: VerifyInput,
    async run(_state, body, { config, server }) {
      const template = pythonStrip(await readJudgePromptFile(SERVER_DIR, config.judge_prompt_template_fpath));
      const judge: Judge = {
        caller: server,
        endpoint: judgeEndpoint(config),
        template,
        systemMessage: config.judge_system_message,
        labels: { equal: config.judge_equal_label, notEqual: config.judge_not_equal_label },
        row: body,
      };
      const expected = expectedAnswerOf(body) ?? "";
      const question = questionText(body.responses_create_params, config.question_extract_regex);
      const rowRegex = perRecordRegex(config, body.template_metadata);
      // With a per-record regex and a long expected answer, the judge already saw the whole generation: no second pass.
      const wholeGenerationAlready = rowRegex !== undefined && tooLongForRegex(config, expected);
      const regex = rowRegex === undefined ? config.response_extract_regex : wholeGenerationAlready ? null : rowRegex;
      const generated = lastAssistantText(body.response, regex, config.msg_extraction_failure);

      const scored = (reward: number, evaluations: JudgeEvaluation[]) => ({ reward, expected_answer: expected, judge_evaluations: evaluations });
      const first = await judgeOnce(judge, question, expected, generated);
      if (!first.equal) {
        if (wholeGenerationAlready || !(config.check_full_generation_on_fail && rowRegex !== undefined)) return scored(0, [first.evaluation]);
        // Rescue: the regex may have cut the answer badly; the whole generation earns partial credit.
        const whole = lastAssistantText(body.response, null, config.msg_extraction_failure);
        const rescue = await judgeOnce(judge, question, expected, whole);
        return scored(rescue.equal ? config.reward_if_full_generation_succeeds : 0, [first.evaluation, rescue.evaluation]);
      }
      if (!config.check_twice_swap || wholeGenerationAlready) return scored(1, [first.evaluation]);
      // Swap check: positional bias shows as an "equal" that does not survive exchanging the two answers.
      const swapped = await judgeOnce(judge, question, generated, expected);
      return scored(swapped.equal ? 1 : config.reward_if_swap_fails, [first.evaluation, swapped.evaluation]);
    },
  },
});
