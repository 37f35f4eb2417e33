// sacreBLEU 2.x's chrF and BLEU, as `sentence_chrf` / `corpus_chrf` and `BLEU(...).sentence_score` / `corpus_bleu`
// compute them, with their defaults: chrF of character 6-grams, no word n-grams, beta 2, whitespace removed, effective
// order (not eps smoothing); BLEU of word 4-grams with exp smoothing, over a tokenizer's output (13a, none, or one
// given, e.g. a SentencePiece model for spBLEU). Statistics are summed over a corpus before the score, as sacreBLEU
// does; n-grams are over code points, as Python slices strings.
import { compilePythonRegex } from "../../python/re/index.ts";
import { pythonRstrip, splitWhitespace } from "../../python/str.ts";
import { pythonExp } from "../../python/index.ts";
import { pythonSum } from "../../python/sum.ts";

// ---- chrF ----

export interface ChrfOptions {
  charOrder?: number;
  wordOrder?: number;
  beta?: number;
  /** Keep whitespace in the character n-grams (sacreBLEU's `whitespace`; `remove_whitespace=False`). */
  whitespace?: boolean;
  epsSmoothing?: boolean;
  lowercase?: boolean;
}

const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

function counts<T>(items: Iterable<T>): Map<T, number> {
  const counter = new Map<T, number>();
  for (const item of items) counter.set(item, (counter.get(item) ?? 0) + 1);
  return counter;
}

function charNgrams(line: string, maxOrder: number, whitespace: boolean): Map<string, number>[] {
  const chars = [...(whitespace ? line : splitWhitespace(line).join(""))];
  const counters: Map<string, number>[] = [];
  for (let n = 1; n <= maxOrder; n++) {
    const grams: string[] = [];
    for (let i = 0; i + n <= chars.length; i++) grams.push(chars.slice(i, i + n).join(""));
    counters.push(counts(grams));
  }
  return counters;
}

/** chrF's word split: punctuation at a word's end (else its start) separated; one-character words kept. */
function chrfWords(sentence: string): string[] {
  const words: string[] = [];
  for (const w of splitWhitespace(sentence)) {
    const chars = [...w];
    if (chars.length === 1) words.push(w);
    else if (PUNCTUATION.has(chars.at(-1)!)) words.push(chars.slice(0, -1).join(""), chars.at(-1)!);
    else if (PUNCTUATION.has(chars[0]!)) words.push(chars[0]!, chars.slice(1).join(""));
    else words.push(w);
  }
  return words;
}

function wordNgrams(tokens: string[], n: number): Map<string, number> {
  const grams: string[] = [];
  for (let i = 0; i + n <= tokens.length; i++) grams.push(tokens.slice(i, i + n).join(" "));
  return counts(grams);
}

/** [hypothesis n-grams, reference n-grams, matches] of one order. */
function matchStatistics(hyp: Map<string, number>, ref: Map<string, number>): [number, number, number] {
  let matches = 0;
  let hypCount = 0;
  for (const [gram, count] of hyp) {
    hypCount += count;
    const refCount = ref.get(gram);
    if (refCount !== undefined) matches += Math.min(count, refCount);
  }
  let refCount = 0;
  for (const count of ref.values()) refCount += count;
  return [ref.size > 0 ? hypCount : 0, refCount, matches];
}

const chrfDefaults = (options: ChrfOptions) => ({ charOrder: 6, wordOrder: 0, beta: 2, whitespace: false, epsSmoothing: false, lowercase: false, ...options });

function chrfFScore(statistics: number[], options: ReturnType<typeof chrfDefaults>): number {
  const eps = 1e-16;
  const order = options.charOrder + options.wordOrder;
  const factor = options.beta ** 2;
  let score = 0;
  let effectiveOrder = 0;
  let avgPrecision = 0;
  let avgRecall = 0;
  for (let i = 0; i < order; i++) {
    const [nHyp, nRef, nMatch] = statistics.slice(3 * i, 3 * i + 3) as [number, number, number];
    const precision = nHyp > 0 ? nMatch / nHyp : eps;
    const recall = nRef > 0 ? nMatch / nRef : eps;
    const denominator = factor * precision + recall;
    score += denominator > 0 ? ((1 + factor) * precision * recall) / denominator : eps;
    if (nHyp > 0 && nRef > 0) {
      avgPrecision += precision;
      avgRecall += recall;
      effectiveOrder++;
    }
  }
  if (options.epsSmoothing) return (100 * score) / order;
  if (effectiveOrder === 0) avgPrecision = avgRecall = 0;
  else {
    avgPrecision /= effectiveOrder;
    avgRecall /= effectiveOrder;
  }
  if (avgPrecision + avgRecall === 0) return 0;
  return 100 * (((1 + factor) * avgPrecision * avgRecall) / (factor * avgPrecision + avgRecall));
}

/** One segment's statistics against its best reference (by f-score; the first on a tie). */
function chrfSegmentStatistics(hypothesis: string, references: readonly string[], options: ReturnType<typeof chrfDefaults>): number[] {
  const prepare = (text: string) => (options.lowercase ? text.toLowerCase() : text);
  const ngramsOf = (text: string) => {
    const grams = charNgrams(text, options.charOrder, options.whitespace);
    if (options.wordOrder > 0) {
      const words = chrfWords(text);
      for (let n = 1; n <= options.wordOrder; n++) grams.push(wordNgrams(words, n));
    }
    return grams;
  };
  const hyp = ngramsOf(prepare(hypothesis));
  let best: number[] = [];
  let bestScore = -1;
  for (const reference of references) {
    const ref = ngramsOf(prepare(reference));
    const statistics = hyp.flatMap((h, i) => matchStatistics(h, ref[i]!));
    const score = chrfFScore(statistics, options);
    if (score > bestScore) {
      bestScore = score;
      best = statistics;
    }
  }
  return best;
}

const sumStatistics = (rows: number[][]): number[] => {
  if (rows.length === 0) throw new Error("sacreBLEU: no segments to score");
  return rows.reduce((total, row) => total.map((value, i) => value + row[i]!));
};

/** sacreBLEU's `corpus_chrf(hypotheses, [references…])`: `referenceStreams[k][i]` is the k-th reference of segment i. */
export function corpusChrf(hypotheses: readonly string[], referenceStreams: readonly (readonly string[])[], options: ChrfOptions = {}): number {
  const settings = chrfDefaults(options);
  const rows = hypotheses.map((hypothesis, i) => chrfSegmentStatistics(hypothesis, referenceStreams.map((stream) => stream[i]!), settings));
  return chrfFScore(sumStatistics(rows), settings);
}

/** sacreBLEU's `sentence_chrf(hypothesis, references)`. */
export const sentenceChrf = (hypothesis: string, references: readonly string[], options: ChrfOptions = {}): number =>
  chrfFScore(chrfSegmentStatistics(hypothesis, references, chrfDefaults(options)), chrfDefaults(options));

// ---- BLEU ----

/** A BLEU tokenizer: a line in, its tokens joined by spaces out. */
export type BleuTokenizer = (line: string) => string;

const REGEXP_TOKENIZER: [ReturnType<typeof compilePythonRegex>, string][] = [
  [compilePythonRegex(String.raw`([\{-\~\[-\` -\&\(-\+\:-\@\/])`), String.raw` \1 `],
  [compilePythonRegex(String.raw`([^0-9])([\.,])`), String.raw`\1 \2 `],
  [compilePythonRegex(String.raw`([\.,])([^0-9])`), String.raw` \1 \2`],
  [compilePythonRegex(String.raw`([0-9])(-)`), String.raw`\1 \2 `],
];

/** sacreBLEU's `13a` tokenizer (mteval-v13a's): a few entities unescaped, then punctuation split off. */
export function tokenize13a(line: string): string {
  let s = line.replaceAll("<skipped>", "").replaceAll("-\n", "").replaceAll("\n", " ");
  if (s.includes("&")) s = s.replaceAll("&quot;", '"').replaceAll("&amp;", "&").replaceAll("&lt;", "<").replaceAll("&gt;", ">");
  s = ` ${s} `;
  for (const [pattern, replacement] of REGEXP_TOKENIZER) s = pattern.sub(replacement, s);
  return splitWhitespace(s).join(" ");
}

/** sacreBLEU's `none` tokenizer. */
export const tokenizeNone: BleuTokenizer = (line) => line;

export interface BleuOptions {
  tokenizer?: BleuTokenizer;
  lowercase?: boolean;
  smoothMethod?: "none" | "floor" | "add-k" | "exp";
  smoothValue?: number;
  maxNgramOrder?: number;
  effectiveOrder?: boolean;
}

export interface BleuScore {
  score: number;
  counts: number[];
  totals: number[];
  precisions: number[];
  bp: number;
  sysLen: number;
  refLen: number;
}

const SMOOTH_DEFAULTS = { none: undefined, floor: 0.1, "add-k": 1, exp: undefined } as const;

/** An n-gram of word tokens, keyed by its tokens joined with "\u0000". */
function allWordNgrams(line: string, maxOrder: number): [Map<string, number>, number] {
  const tokens = splitWhitespace(line);
  const grams: string[] = [];
  for (let n = 1; n <= maxOrder; n++) for (let i = 0; i + n <= tokens.length; i++) grams.push(tokens.slice(i, i + n).join("\u0000"));
  return [counts(grams), tokens.length];
}

/** BLEU.compute_bleu: the score of summed statistics. */
export function computeBleu(correct: number[], total: number[], sysLen: number, refLen: number, options: Required<Pick<BleuOptions, "smoothMethod" | "maxNgramOrder" | "effectiveOrder">> & { smoothValue?: number }): BleuScore {
  const smoothValue = options.smoothValue ?? SMOOTH_DEFAULTS[options.smoothMethod];
  let bp = 1;
  if (sysLen < refLen) bp = sysLen > 0 ? pythonExp(1 - refLen / sysLen) : 0;
  const precisions = new Array<number>(options.maxNgramOrder).fill(0);
  if (!correct.some((c) => c !== 0)) return { score: 0, counts: correct, totals: total, precisions, bp, sysLen, refLen };
  let smoothMteval = 1;
  let effectiveOrder = options.maxNgramOrder;
  for (let n = 1; n <= precisions.length; n++) {
    if (options.smoothMethod === "add-k" && n > 1) {
      correct[n - 1]! += smoothValue!;
      total[n - 1]! += smoothValue!;
    }
    if (total[n - 1] === 0) break;
    if (options.effectiveOrder) effectiveOrder = n;
    if (correct[n - 1] === 0) {
      if (options.smoothMethod === "exp") {
        smoothMteval *= 2;
        precisions[n - 1] = 100 / (smoothMteval * total[n - 1]!);
      } else if (options.smoothMethod === "floor") precisions[n - 1] = (100 * smoothValue!) / total[n - 1]!;
    } else precisions[n - 1] = (100 * correct[n - 1]!) / total[n - 1]!;
  }
  // sacreBLEU's my_log: log(0) is -9999999999; the logs are added by Python's sum().
  const logSum = pythonSum(precisions.slice(0, effectiveOrder).map((p) => (p === 0 ? -9999999999 : Math.log(p))));
  return { score: bp * pythonExp(logSum / effectiveOrder), counts: correct, totals: total, precisions, bp, sysLen, refLen };
}

const bleuDefaults = (options: BleuOptions) => ({ tokenizer: tokenize13a, lowercase: false, smoothMethod: "exp" as const, maxNgramOrder: 4, effectiveOrder: false, ...options });

/** [hyp length, closest ref length, correct per order…, total per order…] of one segment. */
function bleuSegmentStatistics(hypothesis: string, references: readonly string[], options: ReturnType<typeof bleuDefaults>): number[] {
  const prepare = (text: string) => options.tokenizer(pythonRstrip(options.lowercase ? text.toLowerCase() : text));
  let refNgrams: Map<string, number> | undefined;
  const refLens: number[] = [];
  for (const reference of references) {
    const [grams, length] = allWordNgrams(prepare(reference), options.maxNgramOrder);
    refLens.push(length);
    if (refNgrams === undefined) refNgrams = grams;
    else for (const [gram, count] of grams) refNgrams.set(gram, Math.max(refNgrams.get(gram) ?? 0, count));
  }
  const [hypNgrams, hypLen] = allWordNgrams(prepare(hypothesis), options.maxNgramOrder);
  let closestDiff = -1;
  let refLen = -1;
  for (const length of refLens) {
    const diff = Math.abs(hypLen - length);
    if (closestDiff === -1 || diff < closestDiff) {
      closestDiff = diff;
      refLen = length;
    } else if (diff === closestDiff && length < refLen) refLen = length;
  }
  const correct = new Array<number>(options.maxNgramOrder).fill(0);
  const total = new Array<number>(options.maxNgramOrder).fill(0);
  for (const [gram, count] of hypNgrams) {
    const n = gram.split("\u0000").length - 1;
    total[n]! += count;
    const refCount = refNgrams?.get(gram);
    if (refCount !== undefined) correct[n]! += Math.min(count, refCount);
  }
  return [hypLen, refLen, ...correct, ...total];
}

function bleuFromStatistics(statistics: number[], options: ReturnType<typeof bleuDefaults>): BleuScore {
  const order = options.maxNgramOrder;
  return computeBleu(statistics.slice(2, 2 + order), statistics.slice(2 + order), statistics[0]!, statistics[1]!, options);
}

/** `BLEU(**options).corpus_score(hypotheses, referenceStreams)` (sacreBLEU's `corpus_bleu` with effective order off by default). */
export function corpusBleu(hypotheses: readonly string[], referenceStreams: readonly (readonly string[])[], options: BleuOptions = {}): BleuScore {
  const settings = bleuDefaults(options);
  const rows = hypotheses.map((hypothesis, i) => bleuSegmentStatistics(hypothesis, referenceStreams.map((stream) => stream[i]!), settings));
  return bleuFromStatistics(sumStatistics(rows), settings);
}

/** `BLEU(**options).sentence_score(hypothesis, references)`. */
export const sentenceBleuScore = (hypothesis: string, references: readonly string[], options: BleuOptions = {}): BleuScore =>
  bleuFromStatistics(bleuSegmentStatistics(hypothesis, references, bleuDefaults(options)), bleuDefaults(options));
