// The "Judgement: Yes/No" verdict (NeMo Skills' is_correct_judgement, format 1) and the binary-classification
// metrics NeMo Gym's math_proof_judgement reports over it: precision / recall / F1 for pass@1[avg-of-k], pass@k and
// majority@k, averaged across the k samples as Skills does.
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonLstrip, pythonStrip } from "../../src/python/str.ts";

const JUDGEMENT_PREFIX = compilePythonRegex("\\*{0,2}Judgement\\*{0,2}\\s*:", { ignoreCase: true });

/** True for the first "Judgement: Yes…", false for "…No…", null when there is none or it says neither. */
export function parseJudgement(text: string | null | undefined): boolean | null {
  if (!text) return null;
  const match = JUDGEMENT_PREFIX.search(text);
  if (!match) return null;
  const verdict = pythonStrip(pythonLstrip(pythonStrip(text.slice(match.end)), "*")).toLowerCase();
  if (verdict.startsWith("yes")) return true;
  if (verdict.startsWith("no")) return false;
  return null;
}

export const verdictLabel = (verdict: boolean | null) => (verdict === true ? "Yes" : verdict === false ? "No" : null);
export const labelVerdict = (label: unknown) => (label === "Yes" ? true : label === "No" ? false : null);

/** (tp, fp, fn, tn) one-hot; all 0 when either side is missing. */
export function confusion(pred: boolean | null, gold: boolean | null): [number, number, number, number] {
  if (pred === null || gold === null) return [0, 0, 0, 0];
  return [pred && gold ? 1 : 0, pred && !gold ? 1 : 0, !pred && gold ? 1 : 0, !pred && !gold ? 1 : 0];
}

function precisionRecallF1(perSample: Array<[number, number, number]>, totalPositives: number): [number, number, number] {
  if (perSample.length === 0) return [0, 0, 0];
  let precisions = 0;
  let recalls = 0;
  let f1s = 0;
  for (const [tp, fp] of perSample) {
    const precision = tp + fp > 0 ? tp / (tp + fp) : 1.0;
    const recall = totalPositives > 0 ? tp / totalPositives : 1.0;
    precisions += precision;
    recalls += recall;
    f1s += precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0.0;
  }
  const n = perSample.length;
  return [(100.0 * precisions) / n, (100.0 * recalls) / n, (100.0 * f1s) / n];
}

/** pass@k's verdict: the gold one if any sample has it, else the first parsed one. */
function passVerdict(preds: Array<boolean | null>, gold: boolean | null): boolean | null {
  if (gold !== null && preds.includes(gold)) return gold;
  return preds.find((p) => p !== null) ?? null;
}

/** majority@k's verdict: the more frequent parsed one; a tie goes to the first parsed. */
function majorityVerdict(preds: Array<boolean | null>): boolean | null {
  const yes = preds.filter((p) => p === true).length;
  const no = preds.filter((p) => p === false).length;
  if (yes === 0 && no === 0) return null;
  if (yes !== no) return yes > no;
  return preds.find((p) => p !== null) ?? null;
}

type Rollout = Record<string, unknown>;

export function classificationMetrics(tasks: Rollout[][]): Record<string, number> {
  if (tasks.length === 0) return {};
  const maxK = Math.max(...tasks.map((t) => t.length));
  if (maxK === 0) return {};
  const gold = tasks.map((rollouts) => (rollouts.length ? parseJudgement(rollouts[0]!.expected_judgement as string | null) : null));
  const totalPositives = gold.filter((g) => g === true).length;
  const out: Record<string, number> = {};
  const sumConfusion = (verdictOf: (rollouts: Rollout[], gold: boolean | null) => boolean | null | undefined): [number, number, number] => {
    let tp = 0, fp = 0, fn = 0;
    tasks.forEach((rollouts, index) => {
      const pred = verdictOf(rollouts, gold[index]!);
      if (pred === undefined) return;
      const [a, b, c] = confusion(pred, gold[index]!);
      tp += a;
      fp += b;
      fn += c;
    });
    return [tp, fp, fn];
  };
  const perSample: Array<[number, number, number]> = [];
  for (let sample = 0; sample < maxK; sample++) perSample.push(sumConfusion((rollouts) => (sample < rollouts.length ? labelVerdict(rollouts[sample]!.extracted_judgement) : undefined)));
  for (let k = 1; k <= maxK; k++) {
    const [precision, recall, f1] = precisionRecallF1(perSample.slice(0, k), totalPositives);
    Object.assign(out, { [`pass@1[avg-of-${k}]/precision`]: precision, [`pass@1[avg-of-${k}]/recall`]: recall, [`pass@1[avg-of-${k}]/f1`]: f1 });
  }
  const preds = (rollouts: Rollout[], k: number) => rollouts.slice(0, k).map((r) => labelVerdict(r.extracted_judgement));
  for (const [name, pick] of [
    ["pass", (rollouts: Rollout[], g: boolean | null, k: number) => passVerdict(preds(rollouts, k), g)],
    ["majority", (rollouts: Rollout[], _g: boolean | null, k: number) => majorityVerdict(preds(rollouts, k))],
  ] as const) {
    for (let k = 1; k <= maxK; k++) {
      const [precision, recall, f1] = precisionRecallF1([sumConfusion((rollouts, g) => pick(rollouts, g, k))], totalPositives);
      Object.assign(out, { [`${name}@${k}/precision`]: precision, [`${name}@${k}/recall`]: recall, [`${name}@${k}/f1`]: f1 });
    }
  }
  out.total_positives = totalPositives;
  return out;
}
