// FrontierScience (NeMo Gym's frontierscience_judge): one LLM-judge call per attempt. In `olympiad` mode (NeMo
// Skills' frontierscience-olympiad) the judge compares the answer with the reference and ends on
// `Judgement: YES|NO`; in `research` mode it scores the answer against a 10-point rubric and a score at or above
// `rubric_pass_score_threshold` is reward 1. The model's answer is read after its thinking traces (an unclosed trace
// is no answer). Pass@k / majority@k on accuracy (and rubric_score in research mode), per `subject` too.
import { isAbsolute } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { searchRoots } from "../../src/config/index.ts";
import { resolveUnderRoots } from "../../src/config/paths.ts";
import { computePassMajorityMetrics, computeSubsetMetrics, passMajorityMetricsAsDict, type VerifyRecord, passMajorityKeyMetrics } from "../../src/metrics/index.ts";
import { HttpError } from "../../src/protocol/errors.ts";
import { answerAfterThinking, lastAssistantAnswerText } from "../../src/ports/assistant-answer-text.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { pythonStrip } from "../../src/python/str.ts";
import {
  askJudge,
  askJudgeChat,
  judgeEndpoint,
  judgePromptFileProblem,
  judgePromptPath,
  pinnedNemoGymServerFile,
  readJudgePromptFile,
  readServerDataFile,
  resourcesServer,
  type JudgeCaller,
  type JudgeEndpoint,
} from "../../src/server/index.ts";
import { gradeJudgeText } from "./judge.ts";

const SERVER_DIR = import.meta.dirname;

// NeMo Gym tries a relative judge_prompt_path against the working directory, this folder, then the repository root.
const underRoots = (path: string) => !isAbsolute(path) && resolveUnderRoots(path, searchRoots()).found;
const inServerDir = (path: string) => judgePromptFileProblem(SERVER_DIR, path) === undefined;

/** Why the template cannot be read (NeMo Gym fails at start opening it), or undefined; NeMo Gym's own is fetched. */
function promptPathProblem(path: string): string | undefined {
  if (underRoots(path) || inServerDir(path) || pinnedNemoGymServerFile(path.replace(/^\.\//, "")) !== undefined) return undefined;
  return `no such file: ${path} (searched ${resolveUnderRoots(path, searchRoots()).searched.join(", ")} and ${judgePromptPath(SERVER_DIR, path)})`;
}

async function readTemplate(path: string): Promise<string> {
  const text = !underRoots(path) && inServerDir(path) ? await readJudgePromptFile(SERVER_DIR, path) : await readServerDataFile(path);
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new HttpError(501, `the judge prompt ${path} is not YAML: ${(error as Error).message}`);
  }
  const user = (parsed as Record<string, unknown> | null)?.user;
  if (typeof user !== "string") throw new HttpError(501, `the judge prompt ${path} has no string 'user' (the template)`);
  return user;
}

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()),
  judge_mode: z.enum(["olympiad", "research"]).default("olympiad"),
  rubric_pass_score_threshold: z.number().default(7.0),
  rubric_max_score: z.number().default(10.0),
  /** A YAML file with the template under `user`; placeholders {question}, {expected_answer}, {rubric}, {generation}. */
  judge_prompt_path: z
    .string()
    .default("resources_servers/frontierscience_judge/prompts/judge.yaml")
    .superRefine((path, context) => {
      const problem = promptPathProblem(path);
      if (problem) context.addIssue({ code: "custom", message: problem });
    }),
  use_chat_completions_for_judge: z.boolean().default(false),
});
type Config = z.output<typeof Config>;

const VerifyInput = z.looseObject({
  id: z.union([z.number().int(), z.string()]).nullish(),
  subject: z.string().nullish(),
  question: z.string().nullish(),
  expected_answer: z.string().nullish(),
  rubric: z.string().nullish(),
});

/**
 * The judge's text. Over chat NeMo Gym sends max_tokens (max_output_tokens or 2048) and temperature / top_p when set
 * — in olympiad mode 0.0 / 1.0 when not, in research mode nothing — and strips the answer. Over /v1/responses the
 * whole params go, and the answer is read as the model's is (thinking traces stripped).
 */
async function judgeText(caller: JudgeCaller, config: Config, endpoint: JudgeEndpoint, prompt: string, row: Record<string, unknown>): Promise<string> {
  const params = config.judge_responses_create_params;
  if (config.use_chat_completions_for_judge) {
    const olympiad = config.judge_mode === "olympiad";
    const sampling: Record<string, unknown> = { max_tokens: typeof params.max_output_tokens === "number" && params.max_output_tokens !== 0 ? params.max_output_tokens : 2048 };
    if (params.temperature !== undefined && params.temperature !== null) sampling.temperature = params.temperature;
    else if (olympiad) sampling.temperature = 0.0;
    if (params.top_p !== undefined && params.top_p !== null) sampling.top_p = params.top_p;
    else if (olympiad) sampling.top_p = 1.0;
    const { text } = await askJudgeChat(caller, { ...endpoint, params: sampling }, [{ role: "user", content: prompt }], { row });
    return pythonStrip(text);
  }
  const { response } = await askJudge(caller, endpoint, [{ role: "user", content: prompt, type: "message" }], { row });
  return lastAssistantAnswerText(response, { stripThinking: true });
}

/** The fields the verify response sets itself; the request's other fields are echoed after them. */
const OWN_FIELDS = new Set(["responses_create_params", "response", "reward", "extracted_answer", "expected_answer", "verdict", "judge_output", "rubric_score", "rubric_score_normalized", "invalid_judge_response", "id", "subject", "question", "rubric"]);

/** Accuracy per rollout, and the normalized rubric score when the judge gave one. */
function scores(rollout: VerifyRecord): Record<string, number> {
  const result: Record<string, number> = { accuracy: Number(rollout.reward ?? 0.0) };
  if (rollout.rubric_score_normalized !== undefined && rollout.rubric_score_normalized !== null) result.rubric_score = Number(rollout.rubric_score_normalized);
  return result;
}

export default resourcesServer({
  name: "FrontierScienceJudgeServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyInput,
    async run(_state, body, { config, server }) {
      const template = await readTemplate(config.judge_prompt_path);
      const generation = answerAfterThinking(body.response);
      const expectedAnswer = body.expected_answer || "";
      const prompt = pythonFormat(template, [], { question: body.question || "", expected_answer: expectedAnswer, rubric: body.rubric || expectedAnswer, generation });
      const text = await judgeText(server, config, judgeEndpoint(config), prompt, body);
      const grade = gradeJudgeText(text, config.judge_mode, { passThreshold: config.rubric_pass_score_threshold, maxScore: config.rubric_max_score });
      const echoed = Object.fromEntries(Object.entries(body).filter(([key]) => !OWN_FIELDS.has(key)));
      return {
        reward: grade.reward,
        extracted_answer: generation === "" ? null : generation,
        expected_answer: expectedAnswer,
        verdict: grade.verdict,
        judge_output: text,
        rubric_score: grade.rubricScore,
        rubric_score_normalized: grade.rubricScoreNormalized,
        invalid_judge_response: grade.invalidJudgeResponse,
        id: body.id ?? null,
        subject: body.subject ?? null,
        question: body.question ?? null,
        rubric: body.rubric ?? null,
        ...echoed,
      };
    },
  },
  floatFields: ["rubric_score", "rubric_score_normalized"],
  computeMetrics(tasks) {
    const metrics: Record<string, unknown> = passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: scores, answerKey: "extracted_answer" }));
    Object.assign(metrics, computeSubsetMetrics(tasks, "subject", { scoreFn: scores, answerKey: "extracted_answer" }));
    return metrics;
  },
  keyMetrics: passMajorityKeyMetrics,
});
