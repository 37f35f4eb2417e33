// Single-turn function calling (Salesforce xlam-function-calling-60k). The server has no tools: whatever the
// model calls gets a 404 back from simple_agent's loop, and every call it made is scored against the expected
// calls. Values compare with Python's `==` (1 == 1.0, extra predicted keys ignored) — not the typed, fuzzy
// comparison of the pivot environments — so only the Python JSON reading is shared with them.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import type { FunctionCall } from "../../src/protocol/index.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { fromJsonValue, isPyDict, pythonEquals, pythonTypeName, toJsonValue, type PyValue } from "../../src/python/values.ts";
import { PyJsonDecodeError } from "../../src/python/exception.ts";

interface PredictedCall {
  name: string;
  arguments: PyValue;
}

/** A JSON string is decoded (invalid → `{}`), a dict kept, anything else is `{}`. */
function normalizeArguments(value: PyValue): PyValue {
  if (typeof value === "string") {
    try {
      return pythonJsonLoads(value);
    } catch (error) {
      if (error instanceof PyJsonDecodeError) return new Map();
      throw error;
    }
  }
  return isPyDict(value) ? value : new Map();
}

// `key in args` and `args[key]` as Python evaluates them on whatever the arguments decoded to; the TypeErrors are
// NeMo Gym's 500s for arguments that are JSON but not an object.
function containsKey(args: PyValue, key: string): boolean {
  if (isPyDict(args)) return args.has(key);
  if (Array.isArray(args)) return args.some((item) => pythonEquals(item, key));
  if (typeof args === "string") return args.includes(key);
  throw new TypeError(`argument of type '${pythonTypeName(args)}' is not iterable`);
}

function valueAt(args: PyValue, key: string): PyValue {
  if (isPyDict(args)) return args.get(key)!;
  throw new TypeError(Array.isArray(args) ? "list indices must be integers or slices, not str" : "string indices must be integers, not 'str'");
}

/** Same name, and every expected argument present with an equal value. */
function callMatches(predicted: PredictedCall, expected: Map<string, PyValue>): boolean {
  if (!pythonEquals(predicted.name, expected.get("name") ?? null)) return false;
  const predictedArgs = normalizeArguments(predicted.arguments);
  const expectedArgs = normalizeArguments(expected.has("arguments") ? expected.get("arguments")! : new Map());
  if (!isPyDict(expectedArgs)) throw new TypeError(`'${pythonTypeName(expectedArgs)}' object has no attribute 'items'`);
  for (const [key, expectedValue] of expectedArgs) {
    if (!containsKey(predictedArgs, key)) return false;
    if (!pythonEquals(valueAt(predictedArgs, key), expectedValue)) return false;
  }
  return true;
}

/** Each expected call takes the first unmatched predicted call that matches it (greedy, in order). */
function countCorrect(predicted: PredictedCall[], expected: Map<string, PyValue>[]): number {
  const used = new Set<number>();
  for (const expectedCall of expected) {
    const index = predicted.findIndex((call, i) => !used.has(i) && callMatches(call, expectedCall));
    if (index >= 0) used.add(index);
  }
  return used.size;
}

export default resourcesServer({
  name: "XlamFcResourcesServer",
  tools: {},
  verify: {
    input: z.object({ expected_answers: z.array(z.record(z.string(), z.unknown())).default(() => []) }),
    run(_state, { response, expected_answers }) {
      const predicted: PredictedCall[] = response.output
        .filter((item): item is FunctionCall => item.type === "function_call")
        .map((call) => ({ name: call.name, arguments: normalizeArguments(call.arguments) }));
      const expected = expected_answers.map((answer) => fromJsonValue(answer) as Map<string, PyValue>);
      const numCorrect = expected.length === 0 ? 0 : countCorrect(predicted, expected);
      const reward = expected.length === 0 ? (predicted.length === 0 ? 1 : 0) : numCorrect === expected.length && numCorrect === predicted.length ? 1 : 0;
      return {
        reward,
        num_expected: expected.length,
        num_predicted: predicted.length,
        num_correct: numCorrect,
        predicted_calls: predicted.map((call) => ({ name: call.name, arguments: toJsonValue(call.arguments) })),
      };
    },
  },
});
