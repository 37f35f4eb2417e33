// RAGTruth case-level hallucination detection (NeMo Gym's RagtruthResourcesServer): the prompt pairs a reference
// context with a candidate response and asks for `{"hallucination list": [...]}`. Reward 1.0 when the model's binary
// verdict — a non-empty list — equals the row's gold `is_halu`. Rules, as NeMo Gym's verify:
// - the text is the response's output_text (else every message's text); thinking blocks of the configured tag are
//   dropped (paired blocks, then anything up to the last stray closing tag, then stray opening tags);
// - a ```json fence around the whole answer, or else the first fenced block, is unwrapped;
// - Python's json.loads must give a dict; anything else is a parse failure, which predicts "no hallucination".
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { bestEffortResponseText } from "../../src/ports/response-text.ts";
import { compilePythonRegex, type PythonPattern } from "../../src/python/re/index.ts";
import { codePoints, compareStrings, jsonStr, jsonTruthy, pythonJsonDumpsTyped, pythonJsonLoads, pythonStrip } from "../../src/python/index.ts";
import { PyJsonDecodeError, ValueError } from "../../src/python/exception.ts";

const Config = z.looseObject({
  /** The thinking-model tag whose blocks are stripped before the JSON is read (`think` → <think>…</think>). */
  think_tag: z.string().default("think"),
});
type Config = z.output<typeof Config>;

/** Python's `re.escape` (3.7+): only the characters special in a pattern. */
const pythonReEscape = (text: string): string => text.replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, (ch) => `\\${ch}`);

interface ThinkPatterns {
  pair: PythonPattern;
  orphanClose: PythonPattern;
  orphanOpen: PythonPattern;
}
const thinkPatternsByTag = new Map<string, ThinkPatterns>();
function thinkPatterns(tag: string): ThinkPatterns {
  let patterns = thinkPatternsByTag.get(tag);
  if (!patterns) {
    const t = pythonReEscape(tag);
    patterns = {
      pair: compilePythonRegex(`<${t}>.*?</${t}>`, { dotAll: true, ignoreCase: true }),
      orphanClose: compilePythonRegex(String.raw`.*</${t}>\s*`, { dotAll: true, ignoreCase: true }),
      orphanOpen: compilePythonRegex(String.raw`<${t}>\s*`, { ignoreCase: true }),
    };
    thinkPatternsByTag.set(tag, patterns);
  }
  return patterns;
}

/** Paired blocks go; a lone closing tag drops everything up to (the last) one; a lone opening tag goes on its own. */
function stripThink(text: string, tag: string): string {
  if (text === "") return "";
  const { pair, orphanClose, orphanOpen } = thinkPatterns(tag);
  return pythonStrip(orphanOpen.sub("", orphanClose.sub("", pair.sub("", text))));
}

const FENCE_WHOLE = compilePythonRegex("^```(?:json)?\\s*\\r?\\n?(.*)\\r?\\n?```\\s*$", { dotAll: true, ignoreCase: true });
const FENCE_INNER = compilePythonRegex("```(?:json)?\\s*\\r?\\n?(.*?)```", { dotAll: true, ignoreCase: true });

function stripJsonFence(text: string): string {
  if (text === "" || !text.includes("```")) return text;
  const stripped = pythonStrip(text);
  const whole = FENCE_WHOLE.match(stripped);
  if (whole) return pythonStrip(whole.groups[1]!);
  const inner = FENCE_INNER.search(stripped);
  if (inner) {
    const candidate = pythonStrip(inner.groups[1]!);
    if (candidate !== "") return candidate;
  }
  return stripped;
}

type PyDict = Map<string, unknown>;

/** The model's answer as a dict, or undefined when it is no JSON object (a parse failure). */
function parseAnswer(raw: string, tag: string): PyDict | undefined {
  const cleaned = stripJsonFence(stripThink(raw, tag));
  if (cleaned === "") return undefined;
  let parsed: unknown;
  try {
    parsed = pythonJsonLoads(cleaned);
  } catch (error) {
    if (error instanceof PyJsonDecodeError || error instanceof ValueError) return undefined;
    throw error;
  }
  return parsed instanceof Map ? (parsed as PyDict) : undefined;
}

const VerifyInput = z.looseObject({
  // Gold "does this case contain a hallucination?", precomputed as bool(labels) from RAGTruth's annotations.
  is_halu: z.boolean().default(false),
  task_type: z.string().default(""),
});

/** The verify fields the response sets itself; the request's other fields are echoed after them. */
const OWN_FIELDS = new Set(["responses_create_params", "response", "reward", "task_type", "is_halu", "pred_halu", "parse_fail", "extracted"]);

type Row = Record<string, unknown>;

/** A value Python adds up: a number, a bool as 0/1; anything else is Python's TypeError. */
function pyNumber(value: unknown, field: string): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return Number(value);
  throw new TypeError(`${field}: unsupported operand type for +: '${value === null ? "NoneType" : typeof value}'`);
}
const isPyNumber = (value: unknown): boolean => typeof value === "number" || typeof value === "boolean";
const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Binary precision / recall / F1 of the hallucination class. */
function f1(tp: number, fp: number, fn: number): { precision: number; recall: number; f1: number } {
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}

function confusion(group: Row[]): Record<string, number> {
  const predicted = (row: Row) => jsonTruthy(row.pred_halu);
  const gold = (row: Row) => jsonTruthy(row.is_halu);
  const tp = group.filter((row) => predicted(row) && gold(row)).length;
  const fp = group.filter((row) => predicted(row) && !gold(row)).length;
  const fn = group.filter((row) => !predicted(row) && gold(row)).length;
  const rewards = group.map((row) => row.reward).filter(isPyNumber).map((reward) => pyNumber(reward, "reward"));
  return { ...f1(tp, fp, fn), accuracy: rewards.length > 0 ? mean(rewards) : 0, count: group.length };
}

export default resourcesServer({
  name: "RagtruthResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyInput,
    run(_state, body, { config }) {
      const parsed = parseAnswer(bestEffortResponseText(body.response), config.think_tag);
      const list = parsed?.get("hallucination list");
      const predHalu = Array.isArray(list) && list.length > 0;
      const extracted = Array.isArray(list) ? pythonJsonDumpsTyped(list, { ensureAscii: false }) : "";
      const echoed = Object.fromEntries(Object.entries(body).filter(([key]) => !OWN_FIELDS.has(key)));
      return {
        reward: predHalu === body.is_halu ? 1 : 0,
        task_type: body.task_type,
        is_halu: Number(body.is_halu),
        pred_halu: Number(predHalu),
        parse_fail: Number(parsed === undefined),
        extracted: codePoints(extracted).slice(0, 500).join(""),
        ...echoed,
      };
    },
  },
  computeMetrics(tasks) {
    const rows: Row[] = tasks.flat();
    const metrics: Record<string, unknown> = {};
    const rewards = rows.map((row) => row.reward).filter(isPyNumber).map((reward) => pyNumber(reward, "reward"));
    if (rewards.length > 0) {
      metrics.mean_reward = mean(rewards);
      metrics.count = rewards.length;
    }
    if (rows.length === 0) return metrics;
    metrics.parse_fail_rate = rows.reduce((sum, row) => sum + pyNumber(row.parse_fail ?? 0, "parse_fail"), 0) / rows.length;

    // Corpus precision / recall / F1 of the binary labels, overall and per task_type: RAGTruth's own metric.
    const overall = confusion(rows);
    for (const key of ["precision", "recall", "f1"]) metrics[key] = overall[key];
    const byType = new Map<string, Row[]>();
    for (const row of rows) {
      const taskType = jsonTruthy(row.task_type) ? jsonStr(row.task_type) : "unknown";
      byType.set(taskType, [...(byType.get(taskType) ?? []), row]);
    }
    for (const [taskType, group] of [...byType.entries()].sort(([a], [b]) => compareStrings(a, b))) {
      for (const [key, value] of Object.entries(confusion(group))) metrics[`task_type/${taskType}/${key}`] = value;
    }
    return metrics;
  },
  keyMetrics(agentMetrics) {
    const key: Record<string, unknown> = {};
    for (const name of ["mean_reward", "f1", "precision", "recall"]) if (name in agentMetrics) key[name] = agentMetrics[name];
    for (const [name, value] of Object.entries(agentMetrics)) if (name.endsWith("/f1") || name.endsWith("/accuracy")) key[name] = value;
    return key;
  },
});
