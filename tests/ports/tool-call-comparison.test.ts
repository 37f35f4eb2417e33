// The pivot action comparison, rule by rule, as NeMo Gym's verification_utils / response_utils decide it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { ResponseOutputItem } from "../../src/protocol/index.ts";
import {
  compareAction,
  compareArgumentValues,
  extractAction,
  findMaximumMatching,
  StepRewardCategory as Category,
  stringsMatch,
  ToolCallComparatorConfigSchema,
  wordCountSimilarity,
  type Action,
  type FunctionCallAction,
  type ToolCallComparatorConfigInput,
} from "../../src/ports/tool-call-comparison.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";

const config = (overrides: Partial<ToolCallComparatorConfigInput> = {}) => ToolCallComparatorConfigSchema.parse({ word_count_similarity_threshold: 0.1, ...overrides });
/** Parallel rewarding on: the call count is part of the verdict (the parallel config's setting). */
const counting = (overrides: Partial<ToolCallComparatorConfigInput> = {}) => config({ parallel_tool_call_rewarding: true, ...overrides });

const call = (name: string, args: unknown): FunctionCallAction => ({ type: "function_call", name, arguments: typeof args === "string" ? args : JSON.stringify(args) });
const search = (query: string) => call("search", { query });
const batch = (...calls: FunctionCallAction[]): Action => ({ type: "function_call_batch", calls });
const message = (content: string): Action => ({ type: "message", content });
const outcome = (expected: Action, actual: Action, comparatorConfig = config()) => {
  const { reward, category } = compareAction(expected, actual, comparatorConfig);
  return [reward, category];
};
/** Expected and actual arguments written as JSON text (so `1` and `1.0` stay different). */
const compareJson = (expected: string, actual: string, comparatorConfig = config()) => compareArgumentValues(pythonJsonLoads(expected), pythonJsonLoads(actual), comparatorConfig);
const matches = (expected: string, actual: string, comparatorConfig = config()) => compareJson(expected, actual, comparatorConfig).match;
const mismatch = (expected: string, actual: string, comparatorConfig = config()) => {
  const result = compareJson(expected, actual, comparatorConfig);
  return result.match ? "match" : result.category;
};

describe("the config", () => {
  test("has NeMo Gym's defaults and requires the word-count threshold", () => {
    assert.deepEqual(ToolCallComparatorConfigSchema.parse({ word_count_similarity_threshold: 0.3 }), {
      word_count_similarity_threshold: 0.3,
      floating_point_comparison_threshold: 1e-6,
      parallel_tool_call_rewarding: false,
      allow_subset: false,
      allow_superset: false,
      parallel_tool_call_reward_mode: "binary_strict",
    });
    assert.equal(ToolCallComparatorConfigSchema.safeParse({}).success, false);
    assert.equal(ToolCallComparatorConfigSchema.safeParse({ word_count_similarity_threshold: 0.1, parallel_tool_call_reward_mode: "average" }).success, false);
  });
});

describe("extracting the model's action from response output", () => {
  const text = (id: string, ...parts: string[]) => ({ id, type: "message", role: "assistant", status: "completed", content: parts.map((t) => ({ type: "output_text", text: t, annotations: [] })) }) as unknown as ResponseOutputItem;
  const refusal = { id: "r", type: "message", role: "assistant", status: "completed", content: [{ type: "refusal", refusal: "no" }] } as unknown as ResponseOutputItem;
  const reasoning = { id: "rs", type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }] } as unknown as ResponseOutputItem;
  const functionCall = (name: string, args: string) => ({ type: "function_call", call_id: `c_${name}`, name, arguments: args }) as unknown as ResponseOutputItem;

  test("empty output, reasoning only, or a refusal only is no action", () => {
    assert.equal(extractAction([]), null);
    assert.equal(extractAction([reasoning]), null);
    assert.equal(extractAction([reasoning, refusal]), null);
  });

  test("the first output_text of the first assistant message that has one is the message", () => {
    assert.deepEqual(extractAction([text("a", "second", "first"), text("b", "later")]), message("second"));
    assert.deepEqual(extractAction([refusal, text("b", "after the refusal")]), message("after the refusal"));
    assert.deepEqual(extractAction([text("a", "")]), message(""), "an empty text is still a message");
  });

  test("tool calls win over text; several calls become a batch in output order", () => {
    assert.deepEqual(extractAction([text("a", "let me check"), functionCall("respond", "")]), call("respond", ""));
    assert.deepEqual(extractAction([functionCall("respond", ""), text("a", "done")]), call("respond", ""));
    assert.deepEqual(extractAction([text("a", "x"), functionCall("respond", ""), functionCall("lookup", '{"query": "alpha"}')]), batch(call("respond", ""), call("lookup", '{"query": "alpha"}')));
  });
});

describe("message versus call", () => {
  test("an expected message is matched by any message, whatever its text", () => {
    assert.deepEqual(outcome(message("This is a message."), message("Something else entirely.")), [1, Category.EXPECTED_CHAT_MESSAGE_FOUND]);
  });

  test("a call where a message was expected scores 0", () => {
    assert.deepEqual(outcome(message("Hello"), search("alpha")), [0, Category.NO_EXPECTED_CHAT_MESSAGE]);
    assert.deepEqual(outcome(message("Hello"), batch(search("a"), search("b"))), [0, Category.NO_EXPECTED_CHAT_MESSAGE]);
  });

  test("a message where a call (or a batch) was expected scores 0", () => {
    assert.deepEqual(outcome(search("alpha"), message("alpha")), [0, Category.NO_EXPECTED_TOOL_CALL]);
    assert.deepEqual(outcome(batch(search("alpha"), search("beta")), message("hi")), [0, Category.NO_EXPECTED_TOOL_CALL]);
  });
});

describe("one call against one call", () => {
  const expected = call("send", { first: "one", second: 2, third: true, fourth: [1, "element2"], fifth: { inner1: "value1", inner2: false } });
  const args = JSON.parse(expected.arguments);

  test("the same call matches, whatever the key order or spacing", () => {
    assert.deepEqual(outcome(expected, expected), [1, Category.EXPECTED_TOOL_CALL]);
    const reordered = '{"fifth":{"inner2":false,"inner1":"value1"},"fourth":[1,"element2"],"third":true,"second":2,"first":"one"}';
    assert.deepEqual(outcome(expected, call("send", reordered)), [1, Category.EXPECTED_TOOL_CALL]);
  });

  test("another tool name is UNEXPECTED_TOOL, before the arguments are looked at", () => {
    assert.deepEqual(outcome(expected, call("receive", args)), [0, Category.UNEXPECTED_TOOL]);
    assert.deepEqual(outcome(expected, call("Send", "not json")), [0, Category.UNEXPECTED_TOOL]);
  });

  test("arguments that are not JSON are ARGUMENTS_DECODE_ERROR", () => {
    for (const bad of ["first=one", "", '{"first": "one"', "{'first': 'one'}", '{"first": "one"} extra', '{"a": 01}', '{"a": "tab\there"}']) {
      assert.deepEqual(outcome(expected, call("send", bad)), [0, Category.ARGUMENTS_DECODE_ERROR], JSON.stringify(bad));
    }
  });

  test("an expected call whose own arguments are not JSON is an error, not a score", () => {
    assert.throws(() => compareAction(call("send", "oops"), call("send", "{}"), config()), /Expecting value/);
  });

  test("nested differences are named by their kind", () => {
    assert.deepEqual(outcome(expected, call("send", { ...args, fourth: [1, "element3"] })), [0, Category.ARGUMENT_VALUE_DIFFERENT]);
    assert.deepEqual(outcome(expected, call("send", { ...args, fifth: { inner: "value1", inner2: false } })), [0, Category.ARGUMENT_OBJECT_KEYS_DIFFERENT]);
    assert.deepEqual(outcome(expected, call("send", { ...args, fourth: [1] })), [0, Category.ARGUMENT_LIST_LENGTH_DIFFERENT]);
    assert.deepEqual(outcome(expected, call("send", { ...args, fifth: ["value1", false] })), [0, Category.ARGUMENT_VALUE_TYPE_DIFFERENT]);
  });
});

describe("typed argument values (Python's isinstance rules)", () => {
  test("int, float and numeric strings are three different types", () => {
    assert.equal(mismatch("75", "75"), "match");
    assert.equal(mismatch("75", "75.0"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT, "a float is not an int");
    assert.equal(mismatch("75.0", "75"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT, "an int is not a float");
    assert.equal(mismatch("75", '"75"'), Category.ARGUMENT_VALUE_TYPE_DIFFERENT, "a numeric string is not a number");
    assert.equal(mismatch('"75"', "75"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    assert.equal(mismatch("1e2", "100.0"), "match", "an exponent makes a float");
    assert.equal(mismatch("75", "76"), Category.ARGUMENT_VALUE_DIFFERENT);
  });

  test("a bool is an int (true == 1), but an int is not a bool", () => {
    assert.equal(mismatch("1", "true"), "match");
    assert.equal(mismatch("0", "false"), "match");
    assert.equal(mismatch("2", "true"), Category.ARGUMENT_VALUE_DIFFERENT);
    assert.equal(mismatch("true", "1"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    assert.equal(mismatch("true", "false"), Category.ARGUMENT_VALUE_DIFFERENT);
    assert.equal(mismatch("1.0", "true"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
  });

  test("null only matches null", () => {
    assert.equal(mismatch("null", "null"), "match");
    assert.equal(mismatch("null", '"None"'), Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    assert.equal(mismatch('"x"', "null"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    assert.equal(mismatch("0", "null"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
  });

  test("floats match within floating_point_comparison_threshold (strictly less than)", () => {
    assert.equal(mismatch("1.0", "1.000000001"), "match");
    assert.equal(mismatch("1.0", "2.0"), Category.ARGUMENT_VALUE_DIFFERENT);
    assert.equal(mismatch("0.5", "0.75", config({ floating_point_comparison_threshold: 0.3 })), "match");
    assert.equal(mismatch("0.5", "1.0", config({ floating_point_comparison_threshold: 0.5 })), Category.ARGUMENT_VALUE_DIFFERENT, "a difference equal to the threshold is not within it");
    assert.equal(mismatch("1.0", "NaN"), Category.ARGUMENT_VALUE_DIFFERENT);
    assert.equal(mismatch("1.0", "Infinity"), Category.ARGUMENT_VALUE_DIFFERENT);
  });

  test("big integers compare exactly", () => {
    assert.equal(mismatch("12345678901234567890", "12345678901234567890"), "match");
    assert.equal(mismatch("12345678901234567890", "12345678901234567891"), Category.ARGUMENT_VALUE_DIFFERENT);
  });

  test("dicts need exactly the same keys; the first difference in expected key order is reported", () => {
    assert.equal(mismatch('{"a": 1}', '{"a": 1, "b": 2}'), Category.ARGUMENT_OBJECT_KEYS_DIFFERENT, "an extra key");
    assert.equal(mismatch('{"a": 1, "b": 2}', '{"a": 1}'), Category.ARGUMENT_OBJECT_KEYS_DIFFERENT, "a missing key");
    assert.equal(mismatch('{"a": 1, "b": [1]}', '{"b": [1, 2], "a": 1.5}'), Category.ARGUMENT_VALUE_TYPE_DIFFERENT, "a comes first in the expected dict");
    assert.equal(mismatch('{"b": [1], "a": 1}', '{"a": 1.5, "b": [1, 2]}'), Category.ARGUMENT_LIST_LENGTH_DIFFERENT, "b comes first in the expected dict");
    assert.equal(mismatch('{"a": 1, "a": 2}', '{"a": 2}'), "match", "a repeated key keeps its last value, as json.loads does");
    assert.equal(mismatch('{"__proto__": {"x": 1}}', '{"__proto__": {"x": 1}}'), "match");
    assert.equal(mismatch('{"__proto__": {"x": 1}}', '{"__proto__": {"x": 2}}'), Category.ARGUMENT_VALUE_DIFFERENT);
  });

  test("lists compare element by element, in order", () => {
    assert.equal(mismatch("[1, [2, {\"k\": 3.0}]]", "[1, [2, {\"k\": 3.0}]]"), "match");
    assert.equal(mismatch("[1, 2]", "[2, 1]"), Category.ARGUMENT_VALUE_DIFFERENT);
    assert.equal(mismatch("[1, [2, {\"k\": 3.0}]]", "[1, [2, {\"k\": 3}]]"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    assert.equal(mismatch("[]", "{}"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    assert.equal(mismatch("{}", "[]"), Category.ARGUMENT_VALUE_TYPE_DIFFERENT, "top-level arguments need not be objects, but must agree");
  });
});

describe("fuzzy strings", () => {
  test("similarity is shared words over all words: identical strings give 0.5", () => {
    assert.equal(wordCountSimilarity("one two three", "one two three"), 0.5);
    assert.equal(wordCountSimilarity("One  TWO\tthree", "one two three"), 0.5, "case and runs of whitespace do not count");
    assert.equal(wordCountSimilarity("a a b", "a b b"), 2 / 6, "words are a multiset");
    assert.equal(wordCountSimilarity("one two", "three four"), 0);
  });

  test("at the threshold matches; just below does not", () => {
    // 5 + 5 words: 3 shared → 0.3, 2 shared → 0.2
    assert.equal(stringsMatch("a b c d e", "a b c x y", 0.3), true);
    assert.equal(stringsMatch("a b c d e", "a b x y z", 0.3), false);
    assert.equal(stringsMatch("a b c d e", "a b x y z", 0.2), true);
    // 1 shared of 10 words is exactly the base config's 0.1
    assert.equal(mismatch('"alpha b c d e"', '"alpha w x y z"'), "match");
    assert.equal(mismatch('"alpha b c d e f"', '"alpha v w x y z"'), Category.ARGUMENT_VALUE_DIFFERENT, "1 of 12 is below 0.1");
  });

  test("a threshold of 0 accepts any two multi-word strings; one above 0.5 rejects even identical ones", () => {
    assert.equal(stringsMatch("one two", "three four", 0), true);
    assert.equal(stringsMatch("one two", "one two", 0.6), false);
  });

  test("with fewer than two words on either side the strings must be identical, case and spaces included", () => {
    assert.equal(mismatch('"Paris"', '"Paris"'), "match");
    assert.equal(mismatch('"Paris"', '"paris"'), Category.ARGUMENT_VALUE_DIFFERENT);
    assert.equal(mismatch('"Paris"', '" Paris"'), Category.ARGUMENT_VALUE_DIFFERENT);
    assert.equal(mismatch('"Paris"', '"Paris France"'), Category.ARGUMENT_VALUE_DIFFERENT);
    assert.equal(mismatch('"Paris France"', '"Paris"'), Category.ARGUMENT_VALUE_DIFFERENT);
    assert.equal(mismatch('""', '""'), "match");
    assert.equal(mismatch('""', '" "'), Category.ARGUMENT_VALUE_DIFFERENT);
  });

  test("words split on Python's whitespace (\\x1c-\\x1f, NBSP, …) but not on a BOM", () => {
    assert.equal(wordCountSimilarity("a\x1cb", "a b"), 0.5);
    assert.equal(wordCountSimilarity("a\u00a0b", "a b"), 0.5);
    assert.equal(stringsMatch("a\ufeffb", "a b", 0.1), false, "U+FEFF is not whitespace to Python: one word");
  });
});

describe("parallel calls", () => {
  test("order does not matter", () => {
    assert.deepEqual(outcome(batch(search("alpha"), search("beta")), batch(search("beta"), search("alpha")), counting()), [1, Category.EXPECTED_TOOL_CALL_BATCH]);
    assert.deepEqual(outcome(batch(search("alpha"), search("beta")), batch(search("beta"), search("alpha"))), [1, Category.EXPECTED_TOOL_CALL_BATCH]);
  });

  test("rewarding off (the default): extra calls are free, missing calls are not", () => {
    assert.deepEqual(outcome(search("alpha"), batch(search("junk"), search("alpha"), search("more junk"))), [1, Category.EXPECTED_TOOL_CALL]);
    assert.deepEqual(outcome(batch(search("alpha"), search("beta")), batch(search("beta"), search("alpha"), search("junk"))), [1, Category.EXPECTED_TOOL_CALL_BATCH]);
    assert.deepEqual(outcome(batch(search("alpha"), search("beta")), search("alpha")), [0, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
    assert.deepEqual(outcome(batch(search("alpha"), search("beta")), batch(search("alpha"), search("junk"))), [0, Category.ARGUMENT_VALUE_DIFFERENT]);
    assert.deepEqual(outcome(search("alpha"), batch(search("junk"), search("other"))), [0, Category.ARGUMENT_VALUE_DIFFERENT]);
    assert.equal(compareAction(search("alpha"), batch(search("alpha"), search("j")), config({ parallel_tool_call_reward_mode: "f1" })).reward, 1, "the mode is not consulted while off");
  });

  test("rewarding on: a different call count is refused unless the gate admits it", () => {
    assert.deepEqual(outcome(search("alpha"), batch(search("alpha"), search("junk")), counting()), [0, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
    assert.deepEqual(outcome(batch(search("alpha"), search("beta")), search("alpha"), counting()), [0, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
    assert.deepEqual(outcome(batch(search("alpha"), search("beta")), search("alpha"), counting({ allow_superset: true })), [0, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
    assert.deepEqual(outcome(batch(search("a"), search("b")), batch(search("a"), search("b"), search("c")), counting({ allow_subset: true })), [0, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
  });

  test("binary_strict and fractional give admitted extra or missing calls full credit", () => {
    for (const mode of ["binary_strict", "fractional"] as const) {
      assert.deepEqual(outcome(batch(search("a"), search("b")), search("a"), counting({ allow_subset: true, parallel_tool_call_reward_mode: mode })), [1, Category.EXPECTED_TOOL_CALL_BATCH]);
      const spam = batch(search("a"), search("b"), ...Array.from({ length: 20 }, (_, i) => search(`junk${i}`)));
      assert.deepEqual(outcome(batch(search("a"), search("b")), spam, counting({ allow_superset: true, parallel_tool_call_reward_mode: mode })), [1, Category.EXPECTED_TOOL_CALL_BATCH]);
    }
  });

  test("fractional scores the matched share of the required calls", () => {
    const expected = batch(search("alpha"), search("beta"), search("gamma"));
    for (let matched = 0; matched <= 3; matched++) {
      const actual = batch(...["alpha", "beta", "gamma"].slice(0, matched).map(search), ...Array.from({ length: 3 - matched }, (_, i) => search(`wrong${i}`)));
      assert.equal(compareAction(expected, actual, counting({ parallel_tool_call_reward_mode: "fractional" })).reward, matched / 3);
    }
  });

  test("f1 is 2·matched / (expected + actual)", () => {
    const f1 = (overrides: Partial<ToolCallComparatorConfigInput> = {}) => counting({ parallel_tool_call_reward_mode: "f1", ...overrides });
    assert.deepEqual(outcome(batch(search("a"), search("b")), batch(search("b"), search("a")), f1()), [1, Category.EXPECTED_TOOL_CALL_BATCH]);
    assert.deepEqual(outcome(batch(search("alpha"), search("beta")), batch(search("alpha"), search("wrong")), f1()), [0.5, Category.ARGUMENT_VALUE_DIFFERENT]);
    assert.deepEqual(outcome(batch(search("a"), search("b")), search("a"), f1({ allow_subset: true })), [2 / 3, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
    const spam = batch(search("a"), search("b"), ...Array.from({ length: 20 }, (_, i) => search(`junk${i}`)));
    assert.deepEqual(outcome(batch(search("a"), search("b")), spam, f1({ allow_superset: true })), [4 / 24, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
    assert.deepEqual(outcome(search("a"), batch(search("a"), search("j1"), search("j2")), f1({ allow_superset: true })), [0.5, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
  });

  test("a failed batch names why its first unmatched expected call missed", () => {
    const expected = batch(search("alpha"), call("lookup", { query: "beta" }));
    assert.deepEqual(outcome(expected, batch(search("alpha"), call("other", { query: "beta" })), counting()), [0, Category.UNEXPECTED_TOOL]);
    assert.deepEqual(outcome(expected, batch(search("alpha"), call("lookup", { query: "wrong" })), counting()), [0, Category.ARGUMENT_VALUE_DIFFERENT]);
    assert.deepEqual(outcome(expected, batch(search("alpha"), call("lookup", "{bad json")), counting()), [0, Category.ARGUMENTS_DECODE_ERROR]);
  });

  test("maximum matching survives a fuzzy relation that greedy pairing would not", () => {
    // "aa bb cc dd" clears 0.3 against both actual calls; "aa bb" only against the first.
    const expected = batch(search("aa bb cc dd"), search("aa bb"));
    assert.deepEqual(outcome(expected, batch(search("aa bb"), search("cc dd")), counting({ word_count_similarity_threshold: 0.3 })), [1, Category.EXPECTED_TOOL_CALL_BATCH]);
  });

  test("findMaximumMatching follows augmenting paths and maps actual → expected", () => {
    assert.deepEqual(findMaximumMatching([[0, 1], [0]]), new Map([[0, 1], [1, 0]]));
    assert.deepEqual(findMaximumMatching([[], []]), new Map());
    assert.deepEqual(findMaximumMatching([[0], [0]]), new Map([[0, 0]]));
    assert.equal(findMaximumMatching([[0, 1, 2], [0], [0, 1]]).size, 3);
  });

  test("a batch of one behaves like the single call it wraps", () => {
    assert.deepEqual(outcome(batch(search("alpha")), search("alpha")), [1, Category.EXPECTED_TOOL_CALL]);
    assert.deepEqual(outcome(batch(search("alpha")), batch(search("alpha"), search("junk")), counting()), [0, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
  });
});
