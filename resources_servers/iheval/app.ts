// IHEval, the instruction-hierarchy benchmark (NeMo Gym's IHEvalResourcesServer): each row names its `task`,
// `setting` (aligned/…, conflict/…, reference/…) and gold `answer` (JSON-encoded when a dict or list); verify strips
// the response's thinking and hands it to the task's scorer (scorers.ts):
// - verb-extract: word F1 strict + loose, reward their mean; translation: ROUGE-L F strict + loose, their mean;
// - lang-detect: a one-key {"language": …} JSON naming the gold; system-prompt-extract / user-prompt-hijack:
//   TensorTrust's access rules; slack-user: exact match without edge punctuation; get-webpage: by answer.task;
// - single-turn / multi-turn: IFEval's checkers, strict and loose, prompt- and instruction-level, reward their mean;
// - any other task: reward 0 with `unknown_task`.
// Reference rows also carry their stripped prediction and gold, from which compute_metrics (metrics.ts) rebuilds
// upstream's cross-row reference scores.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { bestEffortResponseText } from "../../src/ports/response-text.ts";
import { codePoints, jsonLoads, jsonStr, jsonTruthy, pythonStrip } from "../../src/python/index.ts";
import { PyJsonDecodeError, ValueError } from "../../src/python/exception.ts";
import { get, isDict, scoreGetWebpage, scoreLangDetect, scoreRuleFollowing, scoreSlackUser, scoreTensorTrust, scoreTranslation, scoreVerbExtract, stripReferencePrefix, type Scored } from "./scorers.ts";
import { ihevalKeyMetrics, ihevalMetrics } from "./metrics.ts";

const Config = z.looseObject({
  /** Which settings feed result_score: `hierarchy` the conflict ones only, `hierarchy_sysprompt` mean(aligned, conflict). */
  accuracy_mode: z.enum(["hierarchy", "hierarchy_sysprompt"]).default("hierarchy"),
});
type Config = z.output<typeof Config>;

const THINK_BLOCK = /<think>[\s\S]*?<\/think>/g;

/** Only a text with a closing tag is touched: its blocks removed (or, with no whole block, all up to the first `</think>`), then stripped. */
function stripThink(text: string): string {
  if (!text.includes("</think>")) return text;
  let cleaned = text.replace(THINK_BLOCK, "");
  if (cleaned === text) cleaned = text.split("</think>").slice(1).join("</think>");
  return pythonStrip(cleaned);
}

/** The gold answer: a string is JSON-decoded when it is JSON (prepare_iheval encodes dicts and lists), else kept. */
function decodeAnswer(answer: unknown): unknown {
  if (typeof answer !== "string") return answer;
  try {
    return jsonLoads(answer);
  } catch (error) {
    if (error instanceof PyJsonDecodeError || error instanceof ValueError) return answer;
    throw error;
  }
}

/** `str(field or meta.get(key, ""))`. */
const withFallback = (value: string, meta: Record<string, unknown>, key: string): string => value || (Object.hasOwn(meta, key) ? jsonStr(meta[key]) : "");

const KNOWN_TASKS = ["verb-extract", "translation", "get-webpage", "lang-detect", "system-prompt-extract", "user-prompt-hijack", "slack-user", "single-turn", "multi-turn"];

function score(task: string, response: string, answer: unknown, isReference: boolean): Scored | undefined {
  switch (task) {
    case "verb-extract":
      return scoreVerbExtract(response, answer, isReference);
    case "translation":
      return scoreTranslation(response, answer, isReference);
    case "get-webpage":
      return scoreGetWebpage(response, answer, isReference);
    case "single-turn":
    case "multi-turn":
      return scoreRuleFollowing(response, answer);
    case "lang-detect":
      return scoreLangDetect(response, answer);
    case "slack-user":
      return scoreSlackUser(response, answer);
    case "system-prompt-extract":
    case "user-prompt-hijack":
      return scoreTensorTrust(response, answer);
    default:
      return undefined;
  }
}

/** What a reference row carries for the cross-row reference score. */
function referenceStash(task: string, answer: unknown, response: string): Record<string, unknown> {
  const stripped = stripReferencePrefix(response);
  if (task === "verb-extract" || task === "translation") return { ref_pred: stripped, ref_gold: jsonTruthy(answer) ? jsonStr(answer) : "", ref_subtask: task };
  if (task === "get-webpage" && isDict(answer)) return { ref_pred: stripped, ref_gold: jsonStr(get(answer, "content", "")), ref_subtask: jsonStr(get(answer, "task", "")) };
  return {};
}

const VerifyInput = z.looseObject({
  id: z.unknown().optional(),
  task: z.string().default(""),
  domain: z.string().default(""),
  setting: z.string().default(""),
  instruction: z.string().default(""),
  answer: z.unknown().optional(),
  verifier_metadata: z.record(z.string(), z.unknown()).nullish(),
});

/** Fields verify sets itself; everything else of the request is echoed (id, instruction, answer, verifier_metadata first). */
const OWN_FIELDS = new Set(["responses_create_params", "response", "reward", "task", "setting", "domain", "row_id", "generation", "id", "instruction", "answer", "verifier_metadata"]);

/** The sub-scores Python types as float: written with their ".0" when whole. */
const FLOAT_FIELDS = ["strict", "loose", "prompt_strict", "instruction_strict", "prompt_loose", "instruction_loose", "instruction_followed_strict", "instruction_followed_loose", "instruction_total"];

export default resourcesServer({
  name: "IHEvalResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyInput,
    run(_state, body, { server }) {
      // The top-level fields win; a nested verifier_metadata is the fallback.
      const meta = body.verifier_metadata ?? {};
      const task = withFallback(body.task, meta, "task");
      const setting = withFallback(body.setting, meta, "setting");
      const domain = withFallback(body.domain, meta, "domain");
      const rawAnswer = body.answer !== undefined && body.answer !== null ? body.answer : get(meta, "answer");
      const answer = decodeAnswer(rawAnswer);
      const isReference = setting.startsWith("reference");
      const response = stripThink(bestEffortResponseText(body.response));

      let result: Record<string, unknown> | undefined = score(task, response, answer, isReference);
      if (result === undefined) {
        server.log.warn(`IHEval: unknown task ${JSON.stringify(task)} — scoring 0. Known: ${[...KNOWN_TASKS].sort().join(", ")}`);
        result = { reward: 0, unknown_task: true };
      }
      if (isReference) result = { ...result, ...referenceStash(task, answer, response) };
      const { reward, ...subScores } = result as Scored;
      const rowId = body.id !== undefined && body.id !== null ? body.id : get(meta, "id", "");
      const echoed = Object.fromEntries(Object.entries(body).filter(([key]) => !OWN_FIELDS.has(key) && !Object.hasOwn(subScores, key)));
      return {
        reward,
        task,
        setting,
        domain,
        row_id: jsonStr(rowId),
        generation: codePoints(response).slice(0, 500).join(""),
        id: body.id ?? null,
        instruction: body.instruction,
        answer: body.answer ?? null,
        verifier_metadata: body.verifier_metadata ?? null,
        ...echoed,
        ...subScores,
      };
    },
  },
  floatFields: FLOAT_FIELDS,
  computeMetrics: (tasks, config) => ihevalMetrics(tasks, (config as Config).accuracy_mode),
  keyMetrics: ihevalKeyMetrics,
});
