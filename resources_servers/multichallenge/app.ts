// MultiChallenge: a multi-turn conversation and a rubric of yes/no questions about the model's final reply. Each
// rubric item is put to an LLM judge on its own; the verdict ([[YES]] / [[NO]]) against the item's pass criteria is
// its score, and the scores aggregate (mean by default) into the reward. NeMo Gym's MultiChallengeServer.
import { z } from "zod";
import { askJudge, judgeEndpoint, resourcesServer, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { ResponseCreateParamsSchema } from "../../src/protocol/index.ts";
import { laxValidate } from "../../src/python/pydantic/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { AttributeError, PydanticValidationError } from "../../src/python/exception.ts";
import { fromJsonValue, pythonStr } from "../../src/python/values.ts";
import { AGGREGATION_MODES, PASS_THRESHOLD, aggregateScores, contextFromMessages, extractVerdict, finalAnswerText, rubricItemScore } from "./rubric.ts";

// The config class's defaults (NeMo Gym's MultiChallengeConfig); the shipped YAML sets its own template and message.
const DEFAULT_JUDGE_PROMPT_TEMPLATE = `You are evaluating whether a model's response meets a specific criterion.

CONVERSATION CONTEXT:
{context}

MODEL'S FINAL RESPONSE:
{response}

EVALUATION QUESTION:
{question}

EXPECTED ANSWER: {pass_criteria}

Does the model's response satisfy the criterion described in the evaluation question?
Analyze carefully, then respond with exactly [[YES]] or [[NO]] on the last line.`;
const DEFAULT_JUDGE_SYSTEM_MESSAGE = "You are a precise evaluator. Assess responses objectively based on the given criteria.";

const PROMPT_FIELDS = { context: "", response: "", question: "", pass_criteria: "" };

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()).superRefine((params, ctx) => {
    const parsed = ResponseCreateParamsSchema.safeParse(params);
    if (!parsed.success) ctx.addIssue({ code: "custom", message: `not Responses create params: ${parsed.error.message}` });
  }),
  // Ours (the judge path's per-judge cap); NeMo Gym's multichallenge has no such key.
  judge_endpoint_max_concurrency: z.number().int().positive().nullish(),
  aggregation_mode: z.enum(AGGREGATION_MODES).default("mean"),
  // A template this port cannot format exactly ({x!r}, {x:>4}, {x.y}) fails the start instead of every verify.
  judge_prompt_template: z
    .string()
    .default(DEFAULT_JUDGE_PROMPT_TEMPLATE)
    .superRefine((template, ctx) => {
      try {
        pythonFormat(template, [], PROMPT_FIELDS);
      } catch (error) {
        if (/is not ported|single '/.test((error as Error).message)) ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    }),
  judge_system_message: z.string().nullable().default(DEFAULT_JUDGE_SYSTEM_MESSAGE),
  parallel_evaluation: z.boolean().default(true),
  yes_label: z.string().default("[[YES]]"),
  no_label: z.string().default("[[NO]]"),
});
type MultiChallengeConfig = z.output<typeof Config>;

const VerifyFields = z.looseObject({
  uuid: z.union([z.string(), z.number().int()]).nullish(),
  task_id: z.number().int().nullish(),
  rubric: z.array(z.record(z.string(), z.unknown())).nullish(),
  context: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

/** One rubric item as judged (NeMo Gym's RubricEvaluation). */
export interface RubricEvaluation {
  question: string;
  pass_criteria: string;
  judge_prompt: string;
  judge_response: string;
  verdict: string;
  score: number;
  weight: number;
}

interface Judge {
  caller: JudgeCaller;
  endpoint: JudgeEndpoint;
  row: Record<string, unknown>;
  config: MultiChallengeConfig;
}

const itemField = (item: Record<string, unknown>, key: string, fallback: unknown) => (key in item ? item[key] : fallback);

async function evaluateItem(judge: Judge, item: unknown, context: string, response: string): Promise<RubricEvaluation> {
  if (item === null || typeof item !== "object" || Array.isArray(item)) throw new AttributeError("object has no attribute 'get'");
  const record = item as Record<string, unknown>;
  const question = itemField(record, "question", "");
  const passCriteria = itemField(record, "pass_criteria", "YES");
  const weight = itemField(record, "weight", 1.0);
  const { config } = judge;
  const judgePrompt = pythonFormat(config.judge_prompt_template, [], {
    context,
    response,
    question: pythonStr(fromJsonValue(question)),
    pass_criteria: pythonStr(fromJsonValue(passCriteria)),
  });
  const input = [
    ...(config.judge_system_message ? [{ role: "system" as const, content: config.judge_system_message }] : []),
    { role: "user" as const, content: judgePrompt },
  ];
  // A failed call is a JudgeError: /verify answers NeMo Gym's judge_failed row. An answer without a verdict is NO.
  const answer = await askJudge(judge.caller, judge.endpoint, input, { row: judge.row });
  const judgeText = finalAnswerText(answer.response, true);
  const verdict = extractVerdict(judgeText, config.yes_label, config.no_label);
  if (typeof passCriteria !== "string") throw new AttributeError(`'${passCriteria === null ? "NoneType" : typeof passCriteria}' object has no attribute 'upper'`);
  const score = rubricItemScore(passCriteria, verdict);
  return { question: asStr(question, "question"), pass_criteria: passCriteria, judge_prompt: judgePrompt, judge_response: judgeText, verdict, score, weight: asFloat(weight) };
}

function asStr(value: unknown, field: string): string {
  if (typeof value === "string") return value;
  throw new PydanticValidationError(`1 validation error for RubricEvaluation\n${field}\n  Input should be a valid string`);
}

function asFloat(value: unknown): number {
  const parsed = laxValidate(z.number(), value);
  if (parsed.success) return parsed.data;
  throw new PydanticValidationError(`1 validation error for RubricEvaluation\nweight\n  ${parsed.errors[0]?.msg ?? "Input should be a valid number"}`);
}

// The verify response's own fields: a dataset row carrying one of them is NeMo Gym's TypeError (a 500).
const RESPONSE_FIELDS = ["reward", "generated_response", "rubric_evaluations", "aggregation_mode", "num_passed", "num_total"];

export default resourcesServer({
  name: "MultiChallengeServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyFields,
    async run(_state, body, { config, server }) {
      const { responses_create_params: _params, response, uuid, task_id, rubric: rowRubric, context: rowContext, metadata, ...extra } = body;
      const generated = finalAnswerText(response, true);
      let context = rowContext || "";
      if (!context && metadata && "messages" in metadata) {
        const messages = metadata.messages;
        if (!Array.isArray(messages)) throw new AttributeError("metadata['messages'] is not a list of messages");
        context = contextFromMessages(messages);
      }
      let rubric: unknown = rowRubric && rowRubric.length > 0 ? rowRubric : [];
      if ((rubric as unknown[]).length === 0 && metadata && "rubric" in metadata) rubric = metadata.rubric;
      if (!Array.isArray(rubric)) throw new AttributeError("the rubric is not a list of items");
      const clash = RESPONSE_FIELDS.find((key) => key in extra);
      if (clash) throw new TypeError(`MultiChallengeVerifyResponse() got multiple values for keyword argument '${clash}'`);

      const judge: Judge = { caller: server, endpoint: judgeEndpoint(config), row: body, config };
      const evaluations: RubricEvaluation[] = [];
      if (config.parallel_evaluation && rubric.length > 1) {
        evaluations.push(...(await Promise.all(rubric.map((item) => evaluateItem(judge, item, context, generated)))));
      } else {
        for (const item of rubric) evaluations.push(await evaluateItem(judge, item, context, generated));
      }
      return {
        reward: aggregateScores(config.aggregation_mode, evaluations),
        context,
        generated_response: generated,
        rubric_evaluations: evaluations,
        aggregation_mode: config.aggregation_mode,
        num_passed: evaluations.filter((e) => e.score >= PASS_THRESHOLD).length,
        num_total: evaluations.length,
        uuid: uuid ?? null,
        task_id: task_id ?? null,
        metadata: metadata ?? null,
        ...extra,
      };
    },
  },
  floatFields: ["score", "weight"],
});
