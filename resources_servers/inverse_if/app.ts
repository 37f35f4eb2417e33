// Inverse IF: single-turn instruction following with deliberately unusual constraints. Each row carries its own judge
// prompt template and system prompt (the config's defaults stand in when a row has none) and a rubric of criteria;
// each criterion is one judge call answering JSON {"result": "PASS"/"FAIL"}, PASS scores 1, and the scores aggregate
// into the reward. NeMo Gym's InverseIFServer.
import { z } from "zod";
import { askJudge, HttpError, judgeEndpoint, resourcesServer, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { ResponseCreateParamsSchema } from "../../src/protocol/index.ts";
import { isPlainObject } from "../../src/python/pydantic/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { AttributeError, PydanticValidationError } from "../../src/python/exception.ts";
import { fromJsonValue, pythonStr, pythonTruthy, type PyValue } from "../../src/python/values.ts";
import { AGGREGATION_MODES, PASS_THRESHOLD, aggregateScores, finalAnswerText } from "../../src/ports/rubric-judge.ts";
import { extractVerdict } from "./verdict.ts";

const PROMPT_FIELDS = { prompt: "", model_response: "", standard_response: "", criteria: "" };

/** A template this port formats exactly, else why not (a conversion, a format spec, an attribute or index field). */
function unportableTemplate(template: string): string | undefined {
  try {
    pythonFormat(template, [], PROMPT_FIELDS);
  } catch (error) {
    if (/is not ported|single '/.test((error as Error).message)) return (error as Error).message;
  }
  return undefined;
}

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()).superRefine((params, ctx) => {
    const parsed = ResponseCreateParamsSchema.safeParse(params);
    if (!parsed.success) ctx.addIssue({ code: "custom", message: `not Responses create params: ${parsed.error.message}` });
  }),
  // Ours (the judge path's per-judge cap); NeMo Gym's inverse_if has no such key.
  judge_endpoint_max_concurrency: z.number().int().positive().nullish(),
  aggregation_mode: z.enum(AGGREGATION_MODES).default("mean"),
  default_judge_prompt_template: z.string().superRefine((template, ctx) => {
    const problem = unportableTemplate(template);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
  default_judge_system_prompt: z.string(),
  parallel_evaluation: z.boolean().default(true),
});
type InverseIFConfig = z.output<typeof Config>;

const VerifyFields = z.looseObject({
  uuid: z.union([z.string(), z.number().int()]).nullish(),
  task_id: z.number().int().nullish(),
  prompt: z.string().nullish(),
  rubric: z.array(z.record(z.string(), z.unknown())).nullish(),
  reference_response: z.string().nullish(),
  judge_prompt_template: z.string().nullish(),
  judge_system_prompt: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

/** One criterion as judged (NeMo Gym's RubricEvaluation). */
export interface CriterionEvaluation {
  criterion_id: string;
  criteria: string;
  judge_prompt: string;
  judge_response: string;
  verdict: string;
  explanation: string;
  score: number;
}

interface Judge {
  caller: JudgeCaller;
  endpoint: JudgeEndpoint;
  row: Record<string, unknown>;
}

interface Task {
  prompt: unknown;
  modelResponse: string;
  standardResponse: unknown;
  template: string;
  systemPrompt: string;
}

function strField(model: string, field: string, value: unknown): string {
  if (typeof value === "string") return value;
  throw new PydanticValidationError(`1 validation error for ${model}\n${field}\n  Input should be a valid string`);
}

async function evaluateCriterion(judge: Judge, item: unknown, task: Task): Promise<CriterionEvaluation> {
  if (item === null || typeof item !== "object" || Array.isArray(item)) throw new AttributeError("object has no attribute 'get'");
  const record = item as Record<string, unknown>;
  const criterionId = "id" in record ? record.id : "";
  const criteria = "criteria" in record ? record.criteria : "";
  const str = (value: unknown) => pythonStr(fromJsonValue(value));
  const judgePrompt = pythonFormat(task.template, [], { prompt: str(task.prompt), model_response: task.modelResponse, standard_response: str(task.standardResponse), criteria: str(criteria) });
  const input = [...(task.systemPrompt ? [{ role: "system" as const, content: task.systemPrompt }] : []), { role: "user" as const, content: judgePrompt }];
  // A failed call is a JudgeError: /verify answers NeMo Gym's judge_failed row. An answer without a verdict is FAIL.
  const answer = await askJudge(judge.caller, judge.endpoint, input, { row: judge.row });
  const judgeText = finalAnswerText(answer.response, true);
  const { verdict, explanation } = extractVerdict(judgeText);
  return {
    criterion_id: strField("RubricEvaluation", "criterion_id", criterionId),
    criteria: strField("RubricEvaluation", "criteria", criteria),
    judge_prompt: judgePrompt,
    judge_response: judgeText,
    verdict,
    explanation: strField("RubricEvaluation", "explanation", explanation),
    score: verdict === "PASS" ? 1 : 0,
  };
}

// The verify response's own fields: a row carrying one of them is NeMo Gym's TypeError (a 500).
const RESPONSE_FIELDS = ["reward", "generated_response", "rubric_evaluations", "aggregation_mode", "num_passed", "num_total"];

export default resourcesServer({
  name: "InverseIFServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyFields,
    async run(_state, body, { config, server }) {
      const { responses_create_params: _params, response, uuid, task_id, metadata, rubric: rowRubric, judge_prompt_template: rowTemplate, judge_system_prompt: rowSystem, prompt: rowPrompt, reference_response: rowReference, ...extra } =
        body;
      const modelResponse = finalAnswerText(response, true);
      let prompt: unknown = rowPrompt || "";
      let reference: unknown = rowReference || "";
      let rubric: unknown = rowRubric && rowRubric.length > 0 ? rowRubric : [];
      const template = rowTemplate || config.default_judge_prompt_template;
      const systemPrompt = rowSystem || config.default_judge_system_prompt;
      if (metadata && Object.keys(metadata).length > 0) {
        if (!pythonTruthy(fromJsonValue(prompt))) prompt = "prompt" in metadata ? metadata.prompt : "";
        if (!pythonTruthy(fromJsonValue(reference))) reference = "reference_response" in metadata ? metadata.reference_response : "";
        if (!pythonTruthy(fromJsonValue(rubric) as PyValue)) rubric = "rubric" in metadata ? metadata.rubric : [];
      }
      // An empty str or dict iterates as nothing in Python; any other non-list fails there (AttributeError / TypeError).
      if (rubric === "" || (isPlainObject(rubric) && Object.keys(rubric).length === 0)) rubric = [];
      if (!Array.isArray(rubric)) throw new AttributeError("the rubric is not a list of criteria");
      // A row's own template is data: one this port cannot format exactly is a 501, never an approximation.
      const unportable = rubric.length > 0 ? unportableTemplate(template) : undefined;
      if (unportable) throw new HttpError(501, `inverse_if: this row's judge_prompt_template uses str.format features this port does not implement: ${unportable}`);
      const clash = RESPONSE_FIELDS.find((key) => key in extra);
      if (clash) throw new TypeError(`InverseIFVerifyResponse() got multiple values for keyword argument '${clash}'`);

      const judge: Judge = { caller: server, endpoint: judgeEndpoint(config as InverseIFConfig), row: body };
      const task: Task = { prompt, modelResponse, standardResponse: reference, template, systemPrompt };
      const evaluations: CriterionEvaluation[] = [];
      if (config.parallel_evaluation && rubric.length > 1) {
        evaluations.push(...(await Promise.all(rubric.map((item) => evaluateCriterion(judge, item, task)))));
      } else {
        for (const item of rubric) evaluations.push(await evaluateCriterion(judge, item, task));
      }
      return {
        // Inverse IF's criteria carry no weights: NeMo Gym's `weighted` is the mean.
        reward: aggregateScores(config.aggregation_mode, evaluations.map((e) => ({ score: e.score, weight: 1 }))),
        prompt: strField("InverseIFVerifyResponse", "prompt", prompt),
        generated_response: modelResponse,
        reference_response: strField("InverseIFVerifyResponse", "reference_response", reference),
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
  floatFields: ["score"],
});
