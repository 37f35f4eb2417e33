// Machine translation scored by chrF (NeMo Gym's WmtTranslationResourcesServer): the model's translation (its output
// text without a <think>…</think> preamble, stripped, NFC) against the row's `translation`; the reward is sacreBLEU's
// sentence chrF / 100. /aggregate_metrics gives corpus chrF per language pair and rollout index, and their means across
// pairs (`xx->xx`, `<src>->xx`, `xx-><tgt>`), plus the means of stored COMET and language-consistency scores.
// What cannot run here: xCOMET-XXL (a torch model; `compute_comet: true` is a 501 naming it), the GlotLID and CLD2
// language identifiers (`language_consistency_backend` set: a 501 for any non-empty translation), and sacreBLEU's
// FLORES-200 SentencePiece model behind spBLEU (`sentence_spbleu` is null, the spBLEU metrics are left out).
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { HttpError } from "../../src/protocol/errors.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { compareStrings, pythonLstrip, pythonStrip } from "../../src/python/str.ts";
import { pythonSum } from "../../src/python/sum.ts";
import { corpusChrf, sentenceChrf } from "../../src/ports/text-overlap/sacrebleu.ts";
import type { VerifyRecord } from "../../src/metrics/index.ts";

const LANGUAGE_CONSISTENCY_BACKENDS = {
  flores_glotlid: "the GlotLID fastText language identifier (cis-lmu/glotlid)",
  wmt24pp_cld2: "Google's CLD2 language detector (pycld2)",
} as const;

const ConfigSchema = z.looseObject({
  compute_comet: z.boolean().default(true),
  comet_model: z.string().default("Unbabel/XCOMET-XXL"),
  comet_batch_size: z.number().int().default(16),
  comet_num_shards: z.number().int().default(8),
  language_consistency_backend: z.enum(Object.keys(LANGUAGE_CONSISTENCY_BACKENDS) as ["flores_glotlid", "wmt24pp_cld2"]).nullish(),
  language_consistency_warning_threshold: z.number().min(0).max(100).default(50),
  strip_reasoning: z.boolean().default(true),
});
type Config = z.output<typeof ConfigSchema>;

const RowSchema = z.object({
  text: z.string(),
  translation: z.string(),
  source_language: z.string(),
  target_language: z.string(),
  source_lang_name: z.string().nullish(),
  target_lang_name: z.string().nullish(),
});

/** Everything after the last </think>; nothing if a <think> never closed; else the text unchanged. */
export function stripReasoningPreamble(text: string): string {
  const close = text.lastIndexOf("</think>");
  if (close !== -1) return pythonLstrip(text.slice(close + "</think>".length), "\n");
  return text.includes("<think>") ? "" : text;
}

const nfc = (text: string) => text.normalize("NFC");

// ---- aggregate metrics ----

type Pair = [string, string];
const pairKey = ([source, target]: Pair) => `${source}\u0000${target}`;

/** Population mean and standard deviation (0, 0 for none; std 0 for one). */
function meanStd(values: number[]): [number, number] {
  if (values.length === 0) return [0, 0];
  const mean = pythonSum(values) / values.length;
  if (values.length < 2) return [mean, 0];
  return [mean, Math.sqrt(pythonSum(values.map((v) => (v - mean) ** 2)) / values.length)];
}

const str = (value: unknown) => (typeof value === "string" ? value : "");

function computeMetrics(tasks: VerifyRecord[][], config: Config, log: (message: string) => void): Record<string, number> {
  if (tasks.length === 0) return {};
  // One bucket per rollout index, as many as the task with the fewest rollouts has.
  const maxK = Math.min(...tasks.map((rollouts) => rollouts.length));
  const pairs = new Map<string, Pair>();
  const runs = new Map<string, [string, string][][]>();
  const comet = new Map<string, number[][]>();
  const consistency = new Map<string, number[][]>();
  const bucket = <T>(map: Map<string, T[][]>, key: string) => map.get(key) ?? map.set(key, Array.from({ length: maxK }, () => [])).get(key)!;
  for (const rollouts of tasks) {
    rollouts.slice(0, maxK).forEach((rollout, k) => {
      const source = rollout.source_language;
      const target = rollout.target_language;
      if (!source || !target) return;
      const pair: Pair = [String(source), String(target)];
      const key = pairKey(pair);
      pairs.set(key, pair);
      bucket(runs, key)[k]!.push([str(rollout.generation), str(rollout.translation)]);
      if (config.compute_comet && typeof rollout.comet_score === "number") bucket(comet, key)[k]!.push(rollout.comet_score);
      if (config.language_consistency_backend && typeof rollout.language_consistency_score === "number") bucket(consistency, key)[k]!.push(rollout.language_consistency_score);
    });
  }
  const chrfRuns = new Map<string, number[]>();
  for (const [key, pairRuns] of runs) {
    chrfRuns.set(key, pairRuns.filter((run) => run.length > 0).map((run) => corpusChrf(run.map(([mt]) => nfc(mt)), [run.map(([, ref]) => nfc(ref))])));
  }
  const meansOf = (map: Map<string, number[][]>) => new Map([...map].map(([key, perRun]) => [key, perRun.filter((scores) => scores.length > 0).map((scores) => (100 * pythonSum(scores)) / scores.length)]));
  const cometRuns = meansOf(comet);
  const consistencyRuns = meansOf(consistency);

  const metrics: Record<string, number> = {};
  const allPairs = [...pairs.values()].sort((a, b) => compareStrings(a[0], b[0]) || compareStrings(a[1], b[1]));
  const lowConsistency: [number, string, string][] = [];
  for (const pair of allPairs) {
    const label = `${pair[0]}->${pair[1]}`;
    const key = pairKey(pair);
    [metrics[`${label}/chrF`], metrics[`${label}/chrF_std_dev_across_runs`]] = meanStd(chrfRuns.get(key) ?? []);
    const cometScores = cometRuns.get(key) ?? [];
    if (config.compute_comet && cometScores.length > 0) [metrics[`${label}/comet`], metrics[`${label}/comet_std_dev_across_runs`]] = meanStd(cometScores);
    const consistencyScores = consistencyRuns.get(key) ?? [];
    if (config.language_consistency_backend && consistencyScores.length > 0) {
      const [mean, std] = meanStd(consistencyScores);
      metrics[`${label}/language_consistency`] = mean;
      metrics[`${label}/language_consistency_std_dev_across_runs`] = std;
      if (mean < config.language_consistency_warning_threshold) lowConsistency.push([mean, pair[0], pair[1]]);
    }
  }
  if (lowConsistency.length > 0) {
    lowConsistency.sort((a, b) => a[0] - b[0] || compareStrings(a[1], b[1]) || compareStrings(a[2], b[2]));
    log(
      `Warning - the following language pairs had language consistency scores < ${config.language_consistency_warning_threshold.toFixed(1)}, indicating the model is likely generating in the wrong language:\n` +
        lowConsistency.map(([score, source, target]) => `  ${source} -> ${target}: ${score.toFixed(1)}`).join("\n"),
    );
  }

  /** Per rollout index, the mean over the selected pairs (as many indices as the pair with the fewest has). */
  const acrossPairs = (selected: Pair[], perPair: Map<string, number[]>) => {
    if (selected.length === 0) return [];
    const minRuns = Math.min(...selected.map((pair) => perPair.get(pairKey(pair))?.length ?? 0));
    const means: number[] = [];
    for (let k = 0; k < minRuns; k++) {
      const values = selected.map((pair) => perPair.get(pairKey(pair))?.[k]).filter((v): v is number => v !== undefined);
      if (values.length > 0) means.push(pythonSum(values) / values.length);
    }
    return means;
  };
  const aggregate = (label: string, selected: Pair[]) => {
    [metrics[`${label}/chrF`], metrics[`${label}/chrF_std_dev_across_runs`]] = meanStd(acrossPairs(selected, chrfRuns));
    if (config.compute_comet) {
      const means = acrossPairs(selected, cometRuns);
      if (means.length > 0) [metrics[`${label}/comet`], metrics[`${label}/comet_std_dev_across_runs`]] = meanStd(means);
    }
    if (config.language_consistency_backend) {
      const means = acrossPairs(selected, consistencyRuns);
      if (means.length > 0) [metrics[`${label}/language_consistency`], metrics[`${label}/language_consistency_std_dev_across_runs`]] = meanStd(means);
    }
  };
  aggregate("xx->xx", allPairs);
  for (const source of [...new Set(allPairs.map((p) => p[0]))].sort(compareStrings)) aggregate(`${source}->xx`, allPairs.filter((p) => p[0] === source));
  for (const target of [...new Set(allPairs.map((p) => p[1]))].sort(compareStrings)) aggregate(`xx->${target}`, allPairs.filter((p) => p[1] === target));
  return metrics;
}

const KEY_METRICS = ["xx->xx", "en->xx", "eng_Latn->xx"].flatMap((group) => ["chrF", "spBLEU", "comet", "language_consistency"].map((name) => `${group}/${name}`));

export default resourcesServer({
  name: "WmtTranslationResourcesServer",
  config: ConfigSchema,
  tools: {},
  verify: {
    input: RowSchema,
    run(_state, row, { config }) {
      if (config.compute_comet) {
        throw new HttpError(501, `wmt_translation: compute_comet needs the COMET model ${config.comet_model} (xCOMET, a torch checkpoint scored on a Ray GPU actor pool), which cannot run here; set compute_comet: false to score chrF alone`);
      }
      const backend = config.language_consistency_backend;
      let raw = responseOutputText(row.response);
      if (config.strip_reasoning) raw = stripReasoningPreamble(raw);
      const generation = pythonStrip(raw);
      // The request's fields, in NeMo Gym's response order.
      const echoed = { text: row.text, translation: row.translation, source_language: row.source_language, target_language: row.target_language, source_lang_name: row.source_lang_name ?? null, target_lang_name: row.target_lang_name ?? null };
      if (generation === "") {
        // An empty translation is 0% the target language, without asking any detector.
        return { reward: 0, ...echoed, generation: "", sentence_chrf: 0, sentence_spbleu: 0, comet_score: null, language_consistency_score: backend ? 0 : null };
      }
      if (backend) {
        throw new HttpError(501, `wmt_translation: language_consistency_backend ${backend} needs ${LANGUAGE_CONSISTENCY_BACKENDS[backend]}, which cannot run here; set it to null`);
      }
      const chrf = sentenceChrf(nfc(generation), [nfc(row.translation)]);
      // spBLEU needs sacreBLEU's FLORES-200 SentencePiece model, which is not available here: no value rather than a guess.
      return { reward: chrf / 100, ...echoed, generation, sentence_chrf: chrf, sentence_spbleu: null, comet_score: null, language_consistency_score: null };
    },
  },
  floatFields: ["sentence_chrf", "sentence_spbleu", "comet_score", "language_consistency_score"],
  computeMetrics: (tasks, config) => computeMetrics(tasks, config, (message) => console.warn(message)),
  keyMetrics: (agentMetrics) => Object.fromEntries(KEY_METRICS.filter((name) => name in agentMetrics).map((name) => [name, agentMetrics[name]])),
});
