// NeMo Gym's "pivot" action comparison (single_step_tool_use_with_argument_comparison's verification_utils and
// response_utils): the model's next action — a chat message, one tool call, or a batch of parallel calls —
// judged against the expected one. Tool calls compare by name, then by a typed recursive comparison of their
// JSON arguments with Python's type rules (int ≠ float, bool is an int), fuzzy word-count matching of
// strings, and maximum bipartite matching of parallel calls. Any environment that scores a next action can
// call this module; it knows nothing about HTTP.
import { z } from "zod";
import type { ResponseOutputItem } from "../protocol/index.ts";
import { pythonJsonLoads } from "../python/json.ts";
import { isPyDict, pythonEquals, type PyValue } from "../python/values.ts";
import { PyJsonDecodeError } from "../python/exception.ts";
import { splitWhitespace } from "../python/str.ts";

// ---- actions: the same shape on both sides of a comparison ----

export const MessageActionSchema = z.object({ type: z.literal("message"), content: z.string() });
export const FunctionCallActionSchema = z.object({ type: z.literal("function_call"), name: z.string(), arguments: z.string() });
export const FunctionCallBatchActionSchema = z.object({ type: z.literal("function_call_batch"), calls: z.array(FunctionCallActionSchema).min(1) });
/** A dataset row's `expected_action`; unknown keys are dropped, as pydantic does. */
export const ActionSchema = z.discriminatedUnion("type", [MessageActionSchema, FunctionCallActionSchema, FunctionCallBatchActionSchema]);

export type MessageAction = z.output<typeof MessageActionSchema>;
export type FunctionCallAction = z.output<typeof FunctionCallActionSchema>;
export type FunctionCallBatchAction = z.output<typeof FunctionCallBatchActionSchema>;
export type Action = z.output<typeof ActionSchema>;

/** The tool calls an action stands for: one, the batch, or none for a message. */
export function toolCallsOf(action: Action): FunctionCallAction[] {
  if (action.type === "function_call_batch") return [...action.calls];
  return action.type === "function_call" ? [action] : [];
}

/**
 * The model's action in a response's output items: every `function_call` (one → a call, several → a batch in
 * output order; calls win over text), else the first `output_text` part of the first assistant message that has
 * one, else `null` (nothing to judge).
 */
export function extractAction(output: readonly ResponseOutputItem[]): Action | null {
  const calls: FunctionCallAction[] = [];
  let assistantText: string | undefined;
  for (const item of output) {
    if (item.type === "function_call") {
      calls.push({ type: "function_call", name: item.name, arguments: item.arguments });
    } else if (item.type === "message" && item.role === "assistant" && assistantText === undefined) {
      const content: unknown = item.content;
      if (typeof content === "string") {
        // Python iterates the string's characters and fails on `.type`: a 500 there, an error here.
        if (content.length > 0) throw new TypeError("'str' object has no attribute 'type' (assistant message content is a string)");
        continue;
      }
      for (const part of content as { type: string; text?: string }[]) {
        if (part.type === "output_text") {
          assistantText = part.text ?? "";
          break;
        }
      }
    }
  }
  if (calls.length === 1) return calls[0]!;
  if (calls.length > 1) return { type: "function_call_batch", calls };
  return assistantText !== undefined ? { type: "message", content: assistantText } : null;
}

// ---- configuration ----

export const PARALLEL_TOOL_CALL_REWARD_MODES = ["binary_strict", "fractional", "f1"] as const;
export type ParallelToolCallRewardMode = (typeof PARALLEL_TOOL_CALL_REWARD_MODES)[number];

/** `tool_call_comparator_config`, with NeMo Gym's defaults. */
export const ToolCallComparatorConfigSchema = z.object({
  /** Two strings of ≥ 2 words match when |common words| / (|expected| + |actual|) reaches this (identical → 0.5). */
  word_count_similarity_threshold: z.number(),
  /** Two floats match when they differ by less than this. */
  floating_point_comparison_threshold: z.number().default(1e-6),
  /** Master switch: does the number of calls the model made count? Off, surplus calls are free. */
  parallel_tool_call_rewarding: z.boolean().default(false),
  /** With rewarding on: admit responses with fewer calls than expected. */
  allow_subset: z.boolean().default(false),
  /** With rewarding on: admit responses with more calls than expected. */
  allow_superset: z.boolean().default(false),
  /** With rewarding on: `binary_strict` (all required matched), `fractional` (matched / required), `f1` (2m / (E + A)). */
  parallel_tool_call_reward_mode: z.enum(PARALLEL_TOOL_CALL_REWARD_MODES).default("binary_strict"),
});
export type ToolCallComparatorConfig = z.output<typeof ToolCallComparatorConfigSchema>;
export type ToolCallComparatorConfigInput = z.input<typeof ToolCallComparatorConfigSchema>;

// ---- results ----

/** NeMo Gym's `StepRewardCategory`: the `category` field of a verify response is the value. */
export const StepRewardCategory = {
  NO_ACTION_FOUND: "No tool call or chat message was found in the response",
  NO_EXPECTED_TOOL_CALL: "No tool call was found when one was expected",
  EXPECTED_CHAT_MESSAGE_FOUND: "A chat message was found as expected",
  NO_EXPECTED_CHAT_MESSAGE: "A tool call was executed when a chat message was expected",
  UNEXPECTED_TOOL: "The tool in a tool call is not the expected tool",
  ARGUMENTS_DECODE_ERROR: "An error occurred when decoding the arguments string in a tool call as a JSON object",
  ARGUMENT_VALUE_TYPE_DIFFERENT: "The type of an argument value in a tool call is different than the expected type",
  ARGUMENT_OBJECT_KEYS_DIFFERENT: "The keys in an object in an argument value in a tool call are different than the keys in the expected object",
  ARGUMENT_LIST_LENGTH_DIFFERENT: "A list in an argument value in a tool call has a different length than the expected list",
  ARGUMENT_VALUE_DIFFERENT: "An argument value in a tool call is different than the expected value",
  EXPECTED_TOOL_CALL: "A tool call that matches the expected tool call was found",
  FUNCTION_CALL_BATCH_LENGTH_DIFFERENT: "The number of tool calls in a batch is different than expected",
  EXPECTED_TOOL_CALL_BATCH: "A tool-call batch that matches the expected tool calls was found",
} as const;
export type StepRewardCategory = (typeof StepRewardCategory)[keyof typeof StepRewardCategory];

export interface ActionComparison {
  reward: number;
  category: StepRewardCategory;
}

export type ArgumentComparison = { match: true } | { match: false; category: StepRewardCategory };

// ---- comparing actions ----

/**
 * The reward of `actual` against `expected`. An expected message is matched by any message (its text is not
 * compared); expected calls are never matched by a message.
 */
export function compareAction(expected: Action, actual: Action, config: ToolCallComparatorConfig): ActionComparison {
  if (expected.type === "message") {
    return actual.type === "message"
      ? { reward: 1, category: StepRewardCategory.EXPECTED_CHAT_MESSAGE_FOUND }
      : { reward: 0, category: StepRewardCategory.NO_EXPECTED_CHAT_MESSAGE };
  }
  if (actual.type === "message") return { reward: 0, category: StepRewardCategory.NO_EXPECTED_TOOL_CALL };
  return compareToolCalls(toolCallsOf(expected), toolCallsOf(actual), config);
}

/** Expected calls against actual calls, in any order (see the config for how the call count counts). */
export function compareToolCalls(expected: readonly FunctionCallAction[], actual: readonly FunctionCallAction[], config: ToolCallComparatorConfig): ActionComparison {
  // One against one keeps the single-call categories.
  if (expected.length === 1 && actual.length === 1) return compareToolCall(expected[0]!, actual[0]!, config);
  if (!isCallCountAdmissible(expected.length, actual.length, config)) {
    return { reward: 0, category: StepRewardCategory.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT };
  }
  const { candidates, failureCategories } = matchCandidates(expected, actual, config);
  const matching = findMaximumMatching(candidates);
  const reward = scoreMatchedCalls(matching.size, expected.length, actual.length, config);
  if (reward === 1) {
    return { reward, category: expected.length === 1 ? StepRewardCategory.EXPECTED_TOOL_CALL : StepRewardCategory.EXPECTED_TOOL_CALL_BATCH };
  }
  const matchedExpected = new Set(matching.values());
  const unmatchedExpected = expected.map((_, i) => i).filter((i) => !matchedExpected.has(i));
  // Only surplus calls left, or only missing calls left: the count is the defect, not some argument.
  const category =
    unmatchedExpected.length === 0 || matchedExpected.size === actual.length ? StepRewardCategory.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT : failureCategories[unmatchedExpected[0]!]!;
  return { reward, category };
}

function isCallCountAdmissible(expectedCount: number, actualCount: number, config: ToolCallComparatorConfig): boolean {
  if (actualCount === expectedCount || !config.parallel_tool_call_rewarding) return true;
  return actualCount < expectedCount ? config.allow_subset : config.allow_superset;
}

function scoreMatchedCalls(matchedCount: number, expectedCount: number, actualCount: number, config: ToolCallComparatorConfig): number {
  if (!config.parallel_tool_call_rewarding) return matchedCount === expectedCount ? 1 : 0;
  if (config.parallel_tool_call_reward_mode === "f1") {
    const total = expectedCount + actualCount;
    return total ? (2 * matchedCount) / total : 0;
  }
  const required = config.allow_subset ? Math.min(expectedCount, actualCount) : expectedCount;
  if (config.parallel_tool_call_reward_mode === "fractional") return required ? matchedCount / required : 0;
  return matchedCount === required ? 1 : 0;
}

/** For each expected call, the actual calls it matches, and why it missed the others (the first reason past the tool name). */
function matchCandidates(expected: readonly FunctionCallAction[], actual: readonly FunctionCallAction[], config: ToolCallComparatorConfig) {
  const candidates: number[][] = [];
  const failureCategories: StepRewardCategory[] = [];
  for (const expectedCall of expected) {
    const matches: number[] = [];
    let failure: StepRewardCategory = StepRewardCategory.UNEXPECTED_TOOL;
    actual.forEach((actualCall, actualIndex) => {
      const result = compareToolCall(expectedCall, actualCall, config);
      if (result.reward === 1) matches.push(actualIndex);
      else if (failure === StepRewardCategory.UNEXPECTED_TOOL) failure = result.category;
    });
    candidates.push(matches);
    failureCategories.push(failure);
  }
  return { candidates, failureCategories };
}

/**
 * Maximum bipartite matching (Kuhn's augmenting paths). `candidates[e]` lists the actual calls expected call `e`
 * may take; the result maps actual index → expected index. Greedy pairing is not enough: fuzzy matching lets one
 * actual call satisfy several expected calls. The most constrained expected calls go first (ties by index).
 */
export function findMaximumMatching(candidates: readonly (readonly number[])[]): Map<number, number> {
  const matching = new Map<number, number>();
  const augment = (expectedIndex: number, visited: Set<number>): boolean => {
    for (const actualIndex of candidates[expectedIndex]!) {
      if (visited.has(actualIndex)) continue;
      visited.add(actualIndex);
      const holder = matching.get(actualIndex);
      if (holder === undefined || augment(holder, visited)) {
        matching.set(actualIndex, expectedIndex);
        return true;
      }
    }
    return false;
  };
  const order = candidates.map((_, i) => i).sort((a, b) => candidates[a]!.length - candidates[b]!.length);
  for (const expectedIndex of order) augment(expectedIndex, new Set());
  return matching;
}

/**
 * One expected call against one actual call: same name, then the arguments. The expected arguments must be JSON
 * (a row that is not throws, as NeMo Gym's 500s); actual arguments that are not score 0.
 */
export function compareToolCall(expected: FunctionCallAction, actual: FunctionCallAction, config: ToolCallComparatorConfig): ActionComparison {
  if (expected.name !== actual.name) return { reward: 0, category: StepRewardCategory.UNEXPECTED_TOOL };
  const expectedArguments = pythonJsonLoads(expected.arguments);
  let actualArguments: PyValue;
  try {
    actualArguments = pythonJsonLoads(actual.arguments);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) return { reward: 0, category: StepRewardCategory.ARGUMENTS_DECODE_ERROR };
    throw error;
  }
  const result = compareArgumentValues(expectedArguments, actualArguments, config);
  return result.match ? { reward: 1, category: StepRewardCategory.EXPECTED_TOOL_CALL } : { reward: 0, category: result.category };
}

/** Python's `isinstance(actual, type(expected))` on JSON values: bool counts as an int, not the reverse. */
function isInstanceOfTypeOf(actual: PyValue, expected: PyValue): boolean {
  if (expected === null) return actual === null;
  if (typeof expected === "bigint") return typeof actual === "bigint" || typeof actual === "boolean";
  if (Array.isArray(expected)) return Array.isArray(actual);
  if (isPyDict(expected)) return isPyDict(actual);
  return typeof actual === typeof expected; // bool, float, str: primitives of the same kind
}

/**
 * The typed recursive comparison of two argument values (as {@link pythonJsonLoads} reads them): the actual value
 * must be an instance of the expected value's type; dicts need the same keys, lists the same length (compared
 * element-wise); floats match within `floating_point_comparison_threshold`; strings by {@link stringsMatch};
 * everything else by Python `==`. The first difference found (in expected key order) is the category.
 */
export function compareArgumentValues(expected: PyValue, actual: PyValue, config: ToolCallComparatorConfig): ArgumentComparison {
  if (!isInstanceOfTypeOf(actual, expected)) return { match: false, category: StepRewardCategory.ARGUMENT_VALUE_TYPE_DIFFERENT };
  if (isPyDict(expected)) {
    const actualDict = actual as Map<string, PyValue>;
    if (expected.size !== actualDict.size || [...expected.keys()].some((key) => !actualDict.has(key))) {
      return { match: false, category: StepRewardCategory.ARGUMENT_OBJECT_KEYS_DIFFERENT };
    }
    for (const [key, value] of expected) {
      const result = compareArgumentValues(value, actualDict.get(key)!, config);
      if (!result.match) return result;
    }
    return { match: true };
  }
  if (Array.isArray(expected)) {
    const actualList = actual as PyValue[];
    if (expected.length !== actualList.length) return { match: false, category: StepRewardCategory.ARGUMENT_LIST_LENGTH_DIFFERENT };
    for (let i = 0; i < expected.length; i++) {
      const result = compareArgumentValues(expected[i]!, actualList[i]!, config);
      if (!result.match) return result;
    }
    return { match: true };
  }
  let equal: boolean;
  if (typeof expected === "number") equal = Math.abs((actual as number) - expected) < config.floating_point_comparison_threshold;
  else if (typeof expected === "string") equal = stringsMatch(expected, actual as string, config.word_count_similarity_threshold);
  else equal = pythonEquals(expected, actual);
  return equal ? { match: true } : { match: false, category: StepRewardCategory.ARGUMENT_VALUE_DIFFERENT };
}


/** `Counter(text.strip().lower().split())`. */
export function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of splitWhitespace(text.toLowerCase())) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0);

/** |expected ∩ actual| / (|expected| + |actual|) over lower-cased word multisets: 0.5 for the same words, 0 for none shared. */
export function wordCountSimilarity(expected: string, actual: string): number {
  const expectedCounts = wordCounts(expected);
  const actualCounts = wordCounts(actual);
  let common = 0;
  for (const [word, count] of expectedCounts) common += Math.min(count, actualCounts.get(word) ?? 0);
  return common / (total(expectedCounts) + total(actualCounts));
}

/**
 * NeMo Gym's string rule: when either side has fewer than 2 words the strings must be identical (case and spaces
 * included); otherwise their {@link wordCountSimilarity} must reach the threshold.
 */
export function stringsMatch(expected: string, actual: string, wordCountSimilarityThreshold: number): boolean {
  if (total(wordCounts(expected)) < 2 || total(wordCounts(actual)) < 2) return expected === actual;
  return wordCountSimilarity(expected, actual) >= wordCountSimilarityThreshold;
}
