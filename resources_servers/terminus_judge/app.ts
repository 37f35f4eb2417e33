// Single-step terminal tasks (NeMo Gym's terminus_judge): the model answers one Terminus turn as a JSON command
// batch; it must parse, fit its harness's schema (metadata.harness: terminus_1 / terminus_2) and keep the expected
// task-completion flag. Then, as configured: keystroke similarity against the expected batch (a fast pass), and/or
// an LLM judge comparing the two batches with NeMo Gym's prompt template ([[A=B]] / [[A!=B]]), optionally asked
// again with the two swapped. Every outcome names its failure_reason.
import { isAbsolute } from "node:path";
import { z } from "zod";
import { askJudge, JudgeError, judgeEndpoint, readServerDataFile, resourcesServer, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { ResponseCreateParamsSchema, type NeMoGymResponse, type ResponseCreateParams } from "../../src/protocol/index.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { PyJsonDecodeError } from "../../src/python/exception.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { fromJsonValue, pythonStr, toJsonValue, isPyDict, type PyDict } from "../../src/python/values.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { replaceLoneSurrogates } from "../../src/python/utf8.ts";
import { validateAgainstSchema } from "../../src/ports/structured/validate.ts";
import { HARNESS_SCHEMAS } from "./schemas.ts";
import { commandSimilarity, parseVerdict, taskCompleteMatches } from "./scoring.ts";

const FOLDER = "resources_servers/terminus_judge";

const Config = z
  .looseObject({
    judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }).nullish(),
    judge_responses_create_params: z.record(z.string(), z.unknown()).nullish(),
    judge_endpoint_max_concurrency: z.number().int().positive().nullish().default(64),
    judge_system_message: z.string().nullish(),
    judge_prompt_template_fpath: z.string().default("prompt_templates/terminus_prompt.txt"),
    judge_equal_label: z.string().default("[[A=B]]"),
    judge_not_equal_label: z.string().default("[[A!=B]]"),
    check_twice_swap: z.boolean().default(false),
    reward_if_swap_fails: z.number().default(0.0),
    enable_string_similarity: z.boolean().default(false),
    string_similarity_threshold: z.number().default(0.95),
    enable_llm_judge: z.boolean().default(true),
  })
  .refine((c) => !c.enable_llm_judge || (c.judge_model_server != null && c.judge_responses_create_params != null), {
    message: "judge_model_server and judge_responses_create_params are required when enable_llm_judge is true",
    path: ["enable_llm_judge"],
  });
type Config = z.output<typeof Config>;

type FailureCode =
  | "none"
  | "expected_answer_invalid"
  | "model_output_invalid"
  | "schema_check_failed"
  | "task_complete_check_failed"
  | "string_similarity_below_threshold"
  | "unknown_harness"
  | "judge_not_equivalent"
  | "judge_parsing_failed"
  | "judge_swap_parsing_failed"
  | "unknown_error";

interface JudgeEvaluation {
  responses_create_params: ResponseCreateParams;
  response: NeMoGymResponse;
  verdict_label: string | null;
}

/** Every string (keys too) with its lone surrogate halves replaced, as NeMo Gym scrubs what it sends back. */
function sanitized<T>(value: T): T {
  if (typeof value === "string") return replaceLoneSurrogates(value) as T;
  if (Array.isArray(value)) return value.map(sanitized) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) Object.defineProperty(out, replaceLoneSurrogates(key), { value: sanitized(item), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return value;
}

/** Every assistant message's text parts, joined by newlines, stripped (NeMo Gym's _extract_last_assistant_text). */
function assistantText(response: NeMoGymResponse): string {
  const texts: string[] = [];
  for (const item of response.output) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    const content = item.content as unknown;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content)) for (const part of content) if (typeof (part as { text?: unknown }).text === "string") texts.push((part as { text: string }).text);
  }
  return pythonStrip(texts.join("\n"));
}

/** The judge's text: the last output item's last part's text, "" when it is not a message or has none. */
function judgeText(response: NeMoGymResponse): string {
  const last = response.output.at(-1);
  if (last === undefined || last.type !== "message" || !Array.isArray(last.content)) return "";
  const part = last.content.at(-1) as { text?: unknown } | undefined;
  return typeof part?.text === "string" ? part.text : "";
}

/** A JSON object as Python's json.loads reads it, or undefined (not JSON, or not an object). */
function jsonObject(text: string): PyDict | undefined {
  try {
    const value = pythonJsonLoads(text);
    return isPyDict(value) ? value : undefined;
  } catch (error) {
    if (error instanceof PyJsonDecodeError) return undefined;
    throw error;
  }
}

function fitsSchema(value: PyDict, harness: string): boolean {
  try {
    validateAgainstSchema(value, HARNESS_SCHEMAS[harness]!, `terminus_judge/${harness}`);
    return true;
  } catch {
    return false;
  }
}

interface Judge {
  caller: JudgeCaller;
  endpoint: JudgeEndpoint;
  template: string;
  config: Config;
  row: Record<string, unknown>;
}

async function judgeOnce(judge: Judge, expectedAnswer: string, generatedAnswer: string): Promise<{ equal: boolean; evaluation: JudgeEvaluation }> {
  const { config } = judge;
  const user = pythonFormat(judge.template, [], { expected_answer: expectedAnswer, generated_answer: generatedAnswer });
  const input = [...(config.judge_system_message ? [{ role: "system" as const, content: config.judge_system_message }] : []), { role: "user" as const, content: user }];
  const params = ResponseCreateParamsSchema.parse({ ...structuredClone(judge.endpoint.params), input: input.map((m) => ({ ...m, type: "message" })) });
  // A failed call is a JudgeError: /verify answers NeMo Gym's judge_failed row.
  const { response } = await askJudge(judge.caller, judge.endpoint, params.input, { row: judge.row });
  const text = judgeText(response);
  const verdict = text ? parseVerdict(text, config.judge_equal_label, config.judge_not_equal_label) : { equal: false, label: null };
  return { equal: verdict.equal, evaluation: { responses_create_params: params, response, verdict_label: verdict.label } };
}

export default resourcesServer({
  name: "TerminusJudgeResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.looseObject({
      uuid: z.union([z.string(), z.number().int()]).nullish(),
      expected_answer: z.string().nullish(),
      metadata: z.record(z.string(), z.unknown()).nullish(),
      threshold: z.number().nullish(),
    }),
    async run(_state, body, { config: rawConfig, server }) {
      const config = rawConfig as Config;
      // NeMo Gym reads the template at start-up when the judge is on; here at first use (a missing one is a 501).
      const template = config.enable_llm_judge
        ? pythonStrip(await readServerDataFile(isAbsolute(config.judge_prompt_template_fpath) ? config.judge_prompt_template_fpath : `${FOLDER}/${config.judge_prompt_template_fpath.replace(/^\.\//, "")}`))
        : undefined;

      let reward = 0.0;
      let failure: FailureCode = "none";
      let schemaPassed: boolean | null = null;
      let taskCompletePassed: boolean | null = null;
      let similarityPassed: boolean | null = null;
      let judgePassed: boolean | null = null;
      let similarity: number | null = null;
      let parsed: PyDict | null = null;
      const evaluations: JudgeEvaluation[] = [];
      const result = (expected: string, modelOutput: string) => ({
        responses_create_params: sanitized(body.responses_create_params),
        response: sanitized(body.response),
        reward,
        uuid: body.uuid ?? null,
        expected_answer: replaceLoneSurrogates(expected),
        model_output: replaceLoneSurrogates(modelOutput),
        parsed_output: parsed === null ? null : sanitized(toJsonValue(parsed)),
        similarity_score: similarity,
        schema_check_passed: schemaPassed,
        task_complete_check_passed: taskCompletePassed,
        string_similarity_passed: similarityPassed,
        judge_passed: judgePassed,
        failure_reason: failure,
        judge_evaluations: sanitized(evaluations),
        metadata: sanitized(body.metadata ?? null),
        threshold: body.threshold ?? null,
      });

      // The expected answer: the field when non-empty, else metadata.expected_answer as Python's str() writes it.
      const fromMetadata = body.metadata?.expected_answer;
      const expected = body.expected_answer ? body.expected_answer : fromMetadata !== undefined && fromMetadata !== null ? pythonStr(fromJsonValue(fromMetadata)) : "";
      if (!expected) {
        failure = "expected_answer_invalid";
        return result("", "");
      }
      const generated = assistantText(body.response);
      if (!generated) {
        failure = "model_output_invalid";
        return result(expected, "");
      }
      const text = generated.includes("</think>") ? pythonStrip(generated.split("</think>").at(-1)!) : generated;

      const expectedBatch = jsonObject(expected);
      if (!expectedBatch) {
        failure = "expected_answer_invalid";
        return result(expected, text);
      }
      const predicted = jsonObject(text);
      if (!predicted) {
        failure = "model_output_invalid";
        return result(expected, text);
      }
      parsed = predicted;
      const harness = body.metadata?.harness;
      if (typeof harness !== "string" || !Object.hasOwn(HARNESS_SCHEMAS, harness)) {
        failure = "unknown_harness";
        return result(expected, text);
      }
      if (!fitsSchema(expectedBatch, harness)) {
        failure = "expected_answer_invalid";
        return result(expected, text);
      }
      schemaPassed = fitsSchema(predicted, harness);
      if (!schemaPassed) {
        failure = "schema_check_failed";
        return result(expected, text);
      }
      taskCompletePassed = taskCompleteMatches(predicted, expectedBatch);
      if (!taskCompletePassed) {
        failure = "task_complete_check_failed";
        return result(expected, text);
      }

      // NeMo Gym files any error below other than a failed judge call as unknown_error (and keeps what was set).
      try {
        let needJudge = false;
        if (config.enable_string_similarity) {
          similarity = commandSimilarity(expectedBatch, predicted);
          const threshold = body.threshold ?? config.string_similarity_threshold;
          if (similarity >= threshold) {
            similarityPassed = true;
            reward = 1.0;
            failure = "none";
          } else {
            similarityPassed = false;
            needJudge = config.enable_llm_judge;
            if (!needJudge) failure = "string_similarity_below_threshold";
          }
        } else needJudge = config.enable_llm_judge;

        if (needJudge) {
          const judge: Judge = { caller: server, endpoint: judgeEndpoint(config), template: template!, config, row: body };
          const first = await judgeOnce(judge, expected, text);
          evaluations.push(first.evaluation);
          if (first.evaluation.verdict_label === null) {
            failure = "judge_parsing_failed";
            reward = 0.0;
          } else if (!first.equal) {
            judgePassed = false;
            failure = "judge_not_equivalent";
            reward = 0.0;
          } else if (!config.check_twice_swap) {
            judgePassed = true;
            reward = 1.0;
            failure = "none";
          } else {
            const second = await judgeOnce(judge, text, expected);
            evaluations.push(second.evaluation);
            if (second.evaluation.verdict_label === null) {
              failure = "judge_swap_parsing_failed";
              reward = 0.0;
            } else if (second.equal) {
              judgePassed = true;
              reward = 1.0;
              failure = "none";
            } else {
              judgePassed = false;
              reward = config.reward_if_swap_fails;
              failure = "judge_not_equivalent";
            }
          }
        }
        if (!config.enable_string_similarity && !config.enable_llm_judge) {
          reward = 1.0;
          failure = "none";
        }
      } catch (error) {
        if (error instanceof JudgeError) throw error;
        failure = "unknown_error";
        server.log.error(`terminus_judge verify | uuid=${String(body.uuid)} unknown error: ${(error as Error).name} ${(error as Error).message}`);
      }
      return result(expected, text);
    },
  },
  floatFields: ["similarity_score", "threshold"],
});
