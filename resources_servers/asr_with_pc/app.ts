// ASR with punctuation and capitalization (NeMo Gym's ASRWithPCResourcesServer): the model's transcript (every
// output_text part of its messages, joined, stripped) against `expected_answer`, scored by word error rates. The
// row's `task_type` (else the instance's, default ASR-PC) picks the scoring:
//   ASR-PC          WER_PC (punctuation as tokens, case kept) decides: reward 1.0 iff WER_PC < 0.5; also the standard
//                   WER (Whisper's English normalizer), WER_C (punctuation removed, case kept) and PER (punctuation
//                   error rate);
//   ASR             the standard WER alone (an empty normalized reference scores 0, an empty hypothesis is "empty");
//   ASR_LEADERBOARD ASR, plus `wer_<suffix>` / `is_correct_<suffix>` against each row field named in
//                   `reference_fields` (`text_tn` → `tn`);
//   Hallucination   characters per minute of `audio_duration`: above 1500 is a hallucination (reward 0).
// WER is jiwer's (src/ports/speech/wer.ts), the normalizer whisper_normalizer's (src/ports/speech/whisper-normalizer.ts).
import { readFileSync } from "node:fs";
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { HttpError, RequestValidationError } from "../../src/protocol/errors.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonRound } from "../../src/python/float.ts";
import { pythonSum } from "../../src/python/sum.ts";
import { isSpace, pythonLen, pythonStrip } from "../../src/python/str.ts";
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { corpusWer, wer, werWords } from "../../src/ports/speech/wer.ts";
import { wordEditDistance } from "../../src/ports/text-overlap/word-edit-distance.ts";
import { englishNormalize, type SpellingTable } from "../../src/ports/speech/whisper-normalizer.ts";

const HALLUCINATION_CHAR_RATE_THRESHOLD = 1500;
const TaskType = z.enum(["ASR-PC", "ASR", "Hallucination", "ASR_LEADERBOARD"]);

const WHITESPACE_RUN = compilePythonRegex(String.raw`\s+`);
const TOKENS = compilePythonRegex(String.raw`\w+|[^\w\s]`);
const NOT_WORD_OR_SPACE = compilePythonRegex(String.raw`[^\w\s]`);
const ALPHANUMERIC = /^[\p{L}\p{N}]$/u;

const normalizeWhitespace = (text: string) => pythonStrip(WHITESPACE_RUN.sub(" ", text));
const splitTokens = (text: string) => TOKENS.findall<string>(text);
/** The characters that are neither alphanumeric nor whitespace, in order. */
const punctuationOf = (text: string) => [...text].filter((ch) => !ALPHANUMERIC.test(ch) && !isSpace(ch));

// ---- the spelling table ----

const spellingTables = new Map<string, SpellingTable>();

/** whisper_normalizer's normalizers/english.json (a JSON object, British word → American word), read once per path. */
function spellingTable(path: string | null | undefined): SpellingTable | undefined {
  if (!path) return undefined;
  let table = spellingTables.get(path);
  if (table === undefined) {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`english_spelling_table_fpath ${path}: expected a JSON object of word → word`);
    table = new Map(Object.entries(parsed as Record<string, string>));
    spellingTables.set(path, table);
  }
  return table;
}

/** NeMo Gym's preprocess_asr_text: lower-case, Whisper's English normalizer, whitespace collapsed and stripped. */
const preprocessAsrText = (text: string, table: SpellingTable | undefined) => normalizeWhitespace(englishNormalize(text.toLowerCase(), table));

// Without the table, a word may still be a British spelling the table would respell. Respelling maps a word to one
// word, so it can only make two different words equal, never the reverse: the WER without it is an upper bound. Every
// word of the table and every respelling is lower-case ASCII letters, so a WER that lets any two such words match is
// a lower bound.
const RESPELLABLE = /^[a-z]+$/;
const mayMatchAfterRespelling = (a: string, b: string) => a === b || (RESPELLABLE.test(a) && RESPELLABLE.test(b));

/** Whether WER < 0.5 for normalized texts: certain from the two bounds when no table is given, else a 501 naming it. */
function werBelowHalf(reference: string, hypothesis: string, werValue: number, table: SpellingTable | undefined): boolean {
  if (table !== undefined || werValue < 0.5) return werValue < 0.5;
  const ref = werWords(reference);
  if (wordEditDistance(ref, werWords(hypothesis), mayMatchAfterRespelling) / ref.length >= 0.5) return false;
  throw new SpellingTableNeeded();
}

/** A 501: the reward hangs on respellings only whisper_normalizer's table knows. */
class SpellingTableNeeded extends HttpError {
  constructor() {
    super(
      501,
      "asr_with_pc: this transcript's reward depends on British-to-American respelling, which needs whisper_normalizer's spelling table " +
        "(its normalizers/english.json, not shipped here): set english_spelling_table_fpath to that file",
    );
  }
}

// ---- the scores ----

/** The punctuation error rate: punctuation sequences aligned by NeMo Gym's greedy DP (a match always takes the diagonal). */
export function punctuationErrorRate(reference: string, hypothesis: string): number {
  const ref = punctuationOf(reference);
  const hyp = punctuationOf(hypothesis);
  if (ref.length === 0 && hyp.length === 0) return 0;
  // dp[i][j] = [correct, substitutions, deletions, insertions]
  const dp: number[][][] = Array.from({ length: ref.length + 1 }, () => Array.from({ length: hyp.length + 1 }, () => [0, 0, 0, 0]));
  for (let i = 1; i <= ref.length; i++) dp[i]![0]![2] = i;
  for (let j = 1; j <= hyp.length; j++) dp[0]![j]![3] = j;
  const cost = (counts: number[]) => counts[1]! + counts[2]! + counts[3]!;
  for (let i = 1; i <= ref.length; i++) {
    for (let j = 1; j <= hyp.length; j++) {
      if (ref[i - 1] === hyp[j - 1]) {
        const diagonal = [...dp[i - 1]![j - 1]!];
        diagonal[0]!++;
        dp[i]![j] = diagonal;
      } else {
        const substitution = [...dp[i - 1]![j - 1]!];
        substitution[1]!++;
        const deletion = [...dp[i - 1]![j]!];
        deletion[2]!++;
        const insertion = [...dp[i]![j - 1]!];
        insertion[3]!++;
        // Python's min(): the first of the cheapest, in this order.
        dp[i]![j] = [substitution, deletion, insertion].reduce((best, candidate) => (cost(candidate) < cost(best) ? candidate : best));
      }
    }
  }
  const [correct, substitutions, deletions, insertions] = dp[ref.length]![hyp.length]!;
  const total = correct! + substitutions! + deletions! + insertions!;
  return total > 0 ? (substitutions! + deletions! + insertions!) / total : 0;
}

interface Scores {
  wer: number;
  wer_c: number;
  wer_pc: number;
  per: number;
  is_correct: boolean;
  text: string;
  pred_text: string;
  ref_pc_tok: string;
  hyp_pc_tok: string;
  ref_c: string;
  hyp_c: string;
}

const emptyScores = (isCorrect: boolean, text: string, predText: string, werValue = 0): Scores => ({
  wer: werValue, wer_c: 0, wer_pc: 0, per: 0, is_correct: isCorrect, text, pred_text: predText, ref_pc_tok: "", hyp_pc_tok: "", ref_c: "", hyp_c: "",
});

function evaluateAsrPc(reference: string, hypothesis: string, table: SpellingTable | undefined): Scores {
  const refPcTok = splitTokens(normalizeWhitespace(reference)).join(" ");
  const hypPcTok = splitTokens(normalizeWhitespace(hypothesis)).join(" ");
  const werPc = wer(refPcTok, hypPcTok);
  const refC = normalizeWhitespace(NOT_WORD_OR_SPACE.sub("", reference));
  const hypC = normalizeWhitespace(NOT_WORD_OR_SPACE.sub("", hypothesis));
  const refStd = preprocessAsrText(reference, table);
  const hypStd = preprocessAsrText(hypothesis, table);
  return {
    wer: wer(refStd, hypStd), wer_c: wer(refC, hypC), wer_pc: werPc, per: punctuationErrorRate(reference, hypothesis), is_correct: werPc < 0.5,
    text: refStd, pred_text: hypStd, ref_pc_tok: refPcTok, hyp_pc_tok: hypPcTok, ref_c: refC, hyp_c: hypC,
  };
}

/** NeMo Gym's evaluate_asr: null WER and correctness for an empty normalized reference; an empty hypothesis reads "empty". */
function evaluateAsr(reference: string, hypothesis: string, table: SpellingTable | undefined) {
  const ref = preprocessAsrText(reference, table);
  let hyp = preprocessAsrText(hypothesis, table);
  if (ref === "") return { wer: null, is_correct: null, text: "", pred_text: hyp };
  if (hyp === "") hyp = "empty";
  const werValue = wer(ref, hyp);
  return { wer: werValue, is_correct: werBelowHalf(ref, hyp, werValue, table), text: ref, pred_text: hyp };
}

const asrScores = (asr: ReturnType<typeof evaluateAsr>) => emptyScores(asr.is_correct === true, asr.text, asr.pred_text, asr.wer ?? 0);

const suffixOf = (field: string) => (field.startsWith("text_") ? field.slice("text_".length) : field);

// Fields the response sets; a row field of the same name is NeMo Gym's duplicate-keyword TypeError.
const SCORE_FIELDS = ["reward", "text", "pred_text", "wer", "wer_c", "wer_pc", "per", "is_correct", "ref_pc_tok", "hyp_pc_tok", "ref_c", "hyp_c"];

const RowSchema = z.looseObject({
  expected_answer: z.string().default(""),
  sample_id: z.string().nullish(),
  split: z.string().nullish(),
  task_type: TaskType.nullish(),
  audio_duration: z.number().nullish(),
  reference_fields: z.array(z.string()).nullish(),
});

// ---- aggregate metrics ----

function scoreOf(rollout: VerifyRecord): Record<string, number> {
  const predicted = pythonStrip(typeof rollout.pred_text === "string" ? rollout.pred_text : "");
  const scores: Record<string, number> = {
    accuracy: Number(Boolean(rollout.is_correct ?? false)),
    per: Number(rollout.per ?? 0),
    no_answer: predicted !== "" ? 0 : 1,
  };
  if (rollout.hallucination_rate !== undefined && rollout.hallucination_rate !== null) scores.hallucination_rate = Number(rollout.hallucination_rate);
  return scores;
}

function computeMetrics(tasks: VerifyRecord[][], table: SpellingTable | undefined): Record<string, unknown> {
  const result = computePassMajorityMetrics(tasks, { scoreFn: scoreOf });
  const metrics = passMajorityMetricsAsDict(result);
  if (tasks.length === 0) return metrics;
  const suffixes = [...new Set(tasks.flatMap((rollouts) => rollouts.flatMap((r) => Object.keys(r).filter((key) => key.startsWith("wer_") && key !== "wer_c" && key !== "wer_pc").map((key) => key.slice(4)))))].sort();
  const str = (value: unknown) => (typeof value === "string" ? value : "");
  for (let k = 1; k <= result.maxK; k++) {
    const refs: string[] = [];
    const hyps: string[] = [];
    const werC: number[] = [];
    const werPc: number[] = [];
    const per: number[] = [];
    const corpus = new Map(suffixes.map((suffix) => [suffix, { refs: [] as string[], hyps: [] as string[] }]));
    for (const rollouts of tasks) {
      for (const r of rollouts.slice(0, k)) {
        refs.push(str(r.text));
        hyps.push(str(r.pred_text));
        if (r.wer_c !== undefined && r.wer_c !== null) werC.push(Number(r.wer_c));
        if (r.wer_pc !== undefined && r.wer_pc !== null) werPc.push(Number(r.wer_pc));
        if (r.per !== undefined && r.per !== null) per.push(Number(r.per));
        for (const suffix of suffixes) {
          const reference = r[`text_${suffix}`];
          if (typeof reference !== "string" || reference === "") continue;
          const refNorm = preprocessAsrText(reference, table);
          if (refNorm === "") continue;
          corpus.get(suffix)!.refs.push(refNorm);
          corpus.get(suffix)!.hyps.push(preprocessAsrText(str(r.pred_text), table) || "empty");
        }
      }
    }
    if (refs.length === 0) continue;
    // Python's `100.0 * sum(values) / len(values)`: the product first.
    const percentMean = (values: number[]) => (100 * pythonSum(values)) / values.length;
    metrics[`corpus_wer@k=${k}`] = 100 * corpusWer(refs, hyps);
    if (werC.length > 0) metrics[`wer_c@k=${k}`] = percentMean(werC);
    if (werPc.length > 0) metrics[`wer_pc@k=${k}`] = percentMean(werPc);
    if (per.length > 0) metrics[`per@k=${k}`] = percentMean(per);
    for (const [suffix, { refs: suffixRefs, hyps: suffixHyps }] of corpus) {
      if (suffixRefs.length > 0) metrics[`wer_${suffix}@k=${k}`] = 100 * corpusWer(suffixRefs, suffixHyps);
    }
  }
  return metrics;
}

function keyMetrics(agentMetrics: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
  Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]"));
  Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}"));
  let maxK = 0;
  for (const name of Object.keys(agentMetrics)) if (name.startsWith("corpus_wer@k=")) maxK = Math.max(maxK, Number.parseInt(name.split("=")[1]!, 10));
  if (maxK > 0) {
    for (const [source, target] of [[`corpus_wer@k=${maxK}`, "wer"], [`wer_c@k=${maxK}`, "wer_c"], [`wer_pc@k=${maxK}`, "wer_pc"], [`per@k=${maxK}`, "per"]] as const) {
      if (source in agentMetrics) key[target] = agentMetrics[source];
    }
    for (const name of Object.keys(agentMetrics)) {
      if (!name.endsWith(`@k=${maxK}`) || !name.startsWith("wer_")) continue;
      const suffix = name.slice("wer_".length, name.indexOf("@k="));
      if (suffix !== "c" && suffix !== "pc") key[`wer_${suffix}`] = agentMetrics[name];
    }
  }
  return key;
}

const ConfigSchema = z.looseObject({
  task_type: TaskType.default("ASR-PC"),
  /** Ours: whisper_normalizer's normalizers/english.json, for the British-to-American respelling (see README). */
  english_spelling_table_fpath: z.string().nullish(),
});

export default resourcesServer({
  name: "ASRWithPCResourcesServer",
  config: ConfigSchema,
  tools: {},
  verify: {
    input: RowSchema,
    run(_state, row, { config }) {
      const { responses_create_params, response, ...rest } = row;
      // The request's declared fields (defaults included), then its extra fields in the order sent.
      const fields: Record<string, unknown> = {
        expected_answer: row.expected_answer, sample_id: row.sample_id ?? null, split: row.split ?? null, task_type: row.task_type ?? null,
        audio_duration: row.audio_duration ?? null, reference_fields: row.reference_fields ?? null,
      };
      for (const [key, value] of Object.entries(rest)) if (!(key in fields)) fields[key] = value;
      for (const name of SCORE_FIELDS) {
        if (name in fields) throw new Error(`TypeError: ASRWithPCVerifyResponse() got multiple values for keyword argument '${name}'`);
      }
      const table = spellingTable(config.english_spelling_table_fpath);
      const hypothesis = pythonStrip(responseOutputText(response));
      const reference = pythonStrip(row.expected_answer);
      const taskType = row.task_type ?? config.task_type;
      const extra: Record<string, unknown> = {};
      let scores: Scores;
      let hallucination: { hallucination_rate: number; char_rate: number } | undefined;
      if (taskType === "ASR-PC") scores = evaluateAsrPc(reference, hypothesis, table);
      else if (taskType === "ASR") scores = asrScores(evaluateAsr(reference, hypothesis, table));
      else if (taskType === "ASR_LEADERBOARD") {
        scores = asrScores(evaluateAsr(reference, hypothesis, table));
        for (const [index, field] of (row.reference_fields ?? []).entries()) {
          if (!(field in fields)) throw new RequestValidationError([{ type: "missing", loc: ["body", field], msg: `ASR_LEADERBOARD: reference_fields entry '${field}' not found on request`, input: row.reference_fields, ctx: { index } }]);
          const value = fields[field] ?? "";
          if (typeof value !== "string") throw new RequestValidationError([{ type: "string_type", loc: ["body", field], msg: "Input should be a valid string", input: value }]);
          // Not the reward: a WER this close to the threshold without the spelling table is reported as computed.
          const { wer: fieldWer, is_correct } = (() => {
            try {
              return evaluateAsr(value, hypothesis, table);
            } catch (error) {
              if (!(error instanceof SpellingTableNeeded)) throw error;
              const ref = preprocessAsrText(value, table);
              const werValue = wer(ref, preprocessAsrText(hypothesis, table) || "empty");
              return { wer: werValue, is_correct: werValue < 0.5 };
            }
          })();
          extra[`wer_${suffixOf(field)}`] = fieldWer;
          extra[`is_correct_${suffixOf(field)}`] = is_correct;
        }
      } else {
        const duration = row.audio_duration;
        if (!duration || duration <= 0) hallucination = { hallucination_rate: 0, char_rate: 0 };
        else {
          const charRate = (pythonLen(hypothesis) / duration) * 60;
          hallucination = { hallucination_rate: charRate > HALLUCINATION_CHAR_RATE_THRESHOLD ? 1 : 0, char_rate: pythonRound(charRate, 2) };
        }
        scores = emptyScores(!duration || duration <= 0 || hallucination.hallucination_rate === 0, reference, hypothesis);
      }
      return {
        reward: scores.is_correct ? 1 : 0,
        text: scores.text,
        pred_text: scores.pred_text,
        wer: scores.wer,
        wer_c: scores.wer_c,
        wer_pc: scores.wer_pc,
        per: scores.per,
        is_correct: scores.is_correct,
        ref_pc_tok: scores.ref_pc_tok,
        hyp_pc_tok: scores.hyp_pc_tok,
        ref_c: scores.ref_c,
        hyp_c: scores.hyp_c,
        hallucination_rate: hallucination?.hallucination_rate ?? null,
        char_rate: hallucination?.char_rate ?? null,
        // ConfigDict(extra="allow"): the request's fields, then the per-reference scores.
        ...fields,
        ...extra,
      };
    },
  },
  floatFields: ["wer", "wer_c", "wer_pc", "per", "hallucination_rate", "char_rate", "audio_duration"],
  resultFloatFields: (result) => Object.keys(result).filter((key) => key.startsWith("wer_")),
  computeMetrics: (tasks, config) => computeMetrics(tasks, spellingTable(config.english_spelling_table_fpath)),
  keyMetrics,
});
