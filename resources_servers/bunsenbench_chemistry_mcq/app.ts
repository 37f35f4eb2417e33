// BunsenBench chemistry multiple choice: the model's choice (a letter, or an option's exact text, typically in
// <choice></choice> tags) against `expected_answer`; reward 1.0 iff they are the same letter. Options come from
// mcqa-style `options` or from `choices` (texts lettered A, B, … by position, or {letter|label|key|id, text|content|
// value|choice} objects). Each rollout also gets an error mode, and /aggregate_metrics adds per-source, per-BCT-field
// and per-subfield pass@k plus the error-mode shares. Reading the answer: extract.ts.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { isAlpha, pythonLen, pythonStrip } from "../../src/python/str.ts";
import { jsonStr, jsonTruthy } from "../../src/python/json-value.ts";
import { allowedLetters } from "../../src/ports/choice-answer.ts";
import { ChoiceRowSchema, ConfigGradingMode, choiceKeyMetrics, choiceMetrics } from "../../src/ports/choice-task.ts";
import { computePassMajorityMetrics, highestKMetrics, type VerifyRecord } from "../../src/metrics/index.ts";
import { ERROR_MODES, classifyErrorMode, expectedAnswerLetter, extractBunsenAnswer, metricSegment, type Option } from "./extract.ts";

const Choice = z.union([z.string(), z.record(z.string(), z.unknown())]);

const BunsenRowSchema = ChoiceRowSchema.extend({
  bunsen_id: z.string().nullish(),
  choices: z.array(Choice).nullish(),
  source: z.string().nullish(),
  bct_field: z.string().nullish(),
  bct_subfield: z.string().nullish(),
});
type BunsenRow = z.output<typeof BunsenRowSchema>;

/** Python's `a or b or …`: the first truthy value, else the last. */
const firstTruthy = (...values: unknown[]): unknown => values.find(jsonTruthy) ?? values.at(-1);

/** The options: `options` (null texts dropped) when non-empty, else `choices` lettered by position (26 at most). */
function optionsOf(row: BunsenRow): Option[] {
  if (row.options && row.options.length > 0) {
    return row.options.map((entry) => Object.fromEntries(Object.entries(entry).filter((pair): pair is [string, string] => pair[1] !== null)));
  }
  const options: Option[] = [];
  for (const [index, choice] of (row.choices ?? []).slice(0, 26).entries()) {
    const fallbackLetter = String.fromCharCode(65 + index);
    if (typeof choice === "string") {
      options.push({ [fallbackLetter]: choice });
      continue;
    }
    const letter = firstTruthy(choice.letter, choice.label, choice.key, choice.id, fallbackLetter);
    const text = firstTruthy(choice.text, choice.content, choice.value, choice.choice);
    if (typeof letter === "string" && typeof text === "string" && pythonLen(pythonStrip(letter)) === 1) options.push({ [pythonStrip(letter).toUpperCase()]: text });
  }
  return options;
}

/** A grouping field: the row's own when set, else `metadata[key]`; a string (NeMo Gym's response model types it so). */
function metadataValue(row: BunsenRow, key: "bunsen_id" | "source" | "bct_field" | "bct_subfield"): string | null {
  const direct = row[key];
  if (direct !== null && direct !== undefined) return direct;
  const value = row.metadata?.[key] ?? null;
  if (value !== null && typeof value !== "string") {
    throw new RequestValidationError([{ type: "string_type", loc: ["body", "metadata", key], msg: "Input should be a valid string", input: value }]);
  }
  return value;
}

// ---- aggregate metrics ----

const accuracyOf = (rollout: VerifyRecord) => ({ accuracy: rollout.reward as number });

/** The first truthy `key` among a task's rollouts. */
const firstValue = (rollouts: VerifyRecord[], key: string): unknown => rollouts.map((r) => r[key]).find(jsonTruthy);

/** pass@k / majority@k of each group of tasks, keyed `{prefix}/{group}/{metric}` (per_sample_aggregate left out). */
function groupedMetrics(tasks: VerifyRecord[][], groupOf: (rollouts: VerifyRecord[]) => string | undefined, prefix: string): Record<string, number> {
  const groups = new Map<string, VerifyRecord[][]>();
  for (const rollouts of tasks) {
    const group = groupOf(rollouts);
    if (group === undefined) continue;
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group)!.push(rollouts);
  }
  const metrics: Record<string, number> = {};
  for (const [group, subset] of groups) {
    const { metrics: subsetMetrics } = computePassMajorityMetrics(subset, { scoreFn: accuracyOf, answerKey: "extracted_answer" });
    for (const [key, value] of Object.entries(subsetMetrics)) metrics[`${prefix}/${group}/${key}`] = value;
  }
  return metrics;
}

const segmentOf = (key: string) => (rollouts: VerifyRecord[]) => {
  const value = firstValue(rollouts, key);
  return value === undefined ? undefined : metricSegment(jsonStr(value));
};

function subfieldOf(rollouts: VerifyRecord[]): string | undefined {
  const field = firstValue(rollouts, "bct_field");
  const subfield = firstValue(rollouts, "bct_subfield");
  return field !== undefined && subfield !== undefined ? `${metricSegment(jsonStr(field))}/${metricSegment(jsonStr(subfield))}` : undefined;
}

/** A rollout stored before error modes existed: correct if rewarded, wrong_answer if it has an answer, else format_violation. */
function fallbackErrorMode(rollout: VerifyRecord): string {
  if (jsonTruthy(rollout.reward)) return "correct";
  return rollout.extracted_answer !== undefined && rollout.extracted_answer !== null ? "wrong_answer" : "format_violation";
}

/** Each error mode's count and percentage of all rollouts (modes beyond the six kept, after them). */
function errorModeMetrics(tasks: VerifyRecord[][]): Record<string, number> {
  const counts = new Map<string, number>(ERROR_MODES.map((mode) => [mode, 0]));
  let total = 0;
  for (const rollouts of tasks) {
    for (const rollout of rollouts) {
      const mode = jsonTruthy(rollout.error_mode) ? jsonStr(rollout.error_mode) : fallbackErrorMode(rollout);
      counts.set(mode, (counts.get(mode) ?? 0) + 1);
      total++;
    }
  }
  const metrics: Record<string, number> = {};
  for (const [mode, count] of counts) {
    metrics[`error_modes/${mode}/count`] = count;
    metrics[`error_modes/${mode}`] = total > 0 ? (100 * count) / total : 0;
  }
  return metrics;
}

export default resourcesServer({
  name: "BunsenChemResourcesServer",
  // mcqa's config class: grading_mode is accepted (and validated) but BunsenBench's own extraction never reads it.
  config: z.looseObject({ grading_mode: ConfigGradingMode.nullish() }),
  tools: {},
  verify: {
    input: BunsenRowSchema,
    run(_state, row) {
      const options = optionsOf(row);
      const allowed = allowedLetters(options);
      const gold = expectedAnswerLetter(row.expected_answer ?? "", options);
      if (pythonLen(gold) === 1 && isAlpha(gold)) allowed.add(gold);
      const rawText = responseOutputText(row.response);
      const text = pythonStrip(rawText);
      const predicted = text === "" ? undefined : extractBunsenAnswer(text, options, allowed);
      return {
        reward: predicted !== undefined && predicted === gold ? 1 : 0,
        expected_answer: gold,
        extracted_answer: predicted ?? null,
        uuid: row.uuid ?? null,
        bunsen_id: metadataValue(row, "bunsen_id"),
        choices: row.choices ?? null,
        no_answer: predicted === undefined,
        error_mode: classifyErrorMode(row.response as unknown as Record<string, unknown>, rawText, predicted, gold),
        source: metadataValue(row, "source"),
        bct_field: metadataValue(row, "bct_field"),
        bct_subfield: metadataValue(row, "bct_subfield"),
        metadata: row.metadata ?? null,
      };
    },
  },
  computeMetrics: (tasks) => ({
    ...choiceMetrics(tasks),
    ...groupedMetrics(tasks, segmentOf("source"), "by_source"),
    ...groupedMetrics(tasks, segmentOf("bct_field"), "by_bct_field"),
    ...groupedMetrics(tasks, subfieldOf, "by_bct_subfield"),
    ...errorModeMetrics(tasks),
  }),
  keyMetrics(agentMetrics) {
    const key = choiceKeyMetrics(agentMetrics);
    Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { scoreNames: ["accuracy"] }));
    for (const name of ["pass@1/accuracy", "pass@1/no_answer", ...ERROR_MODES.map((mode) => `error_modes/${mode}`)]) {
      if (name in agentMetrics) key[name] = agentMetrics[name];
    }
    return key;
  },
});
