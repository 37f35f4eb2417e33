// One expected get_weather call, scored on three independent {0, 1} components (NeMo Gym's multi-reward example,
// for GDPO-style multi-objective RL): `correctness` (a call has the expected name and arguments), `schema_valid`
// (the first call's arguments are a JSON object holding every required parameter of its tool) and `format`
// (exactly one call and no assistant message). `reward` is their sum, so a single-reward trainer reads the total.
import { z } from "zod";
import { resourcesServer, tool } from "../../src/server/index.ts";
import type { FunctionCall, NeMoGymResponse, ResponseCreateParams } from "../../src/protocol/index.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { PyJsonDecodeError } from "../../src/python/exception.ts";
import { fromJsonValue, isPyDict, pythonEquals, pythonTypeName, toJsonValue, type PyDict, type PyValue } from "../../src/python/values.ts";

/** Arguments text decoded as NeMo Gym's `_parse_arguments`: only a JSON object counts (else `{}`, not valid). */
function parseArguments(argumentsText: string): { args: PyDict; valid: boolean } {
  let value: PyValue;
  try {
    value = pythonJsonLoads(argumentsText);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) return { args: new Map(), valid: false };
    throw error;
  }
  return isPyDict(value) ? { args: value, valid: true } : { args: new Map(), valid: false };
}

/** The `required` list of the offered tool with this name (none offered → nothing is required). */
function requiredParams(params: ResponseCreateParams, toolName: string): PyValue[] {
  for (const offered of (params.tools ?? []) as unknown as Record<string, unknown>[]) {
    if (offered.name !== toolName) continue;
    // Python's `tool.get("parameters", {}).get("required", []) or []`: a null `parameters` is its AttributeError.
    if (offered.parameters === null) throw new TypeError("'NoneType' object has no attribute 'get'");
    const required = fromJsonValue((offered.parameters as Record<string, unknown> | undefined)?.required ?? []);
    return Array.isArray(required) ? required : [];
  }
  return [];
}

/** Same name (Python `==`), and every expected argument equal to the predicted one; an empty expectation never matches. */
function callMatches(call: FunctionCall, expected: PyDict): boolean {
  if (expected.size === 0) return false;
  if (!pythonEquals(call.name, expected.get("name") ?? null)) return false;
  const predicted = parseArguments(call.arguments).args;
  const expectedArgs = expected.get("arguments") || new Map();
  // `expected.get("arguments", {}) or {}` then `.items()`: anything but a dict is NeMo Gym's AttributeError (a 500).
  if (!isPyDict(expectedArgs)) throw new TypeError(`'${pythonTypeName(expectedArgs)}' object has no attribute 'items'`);
  for (const [key, value] of expectedArgs) {
    if (!pythonEquals(predicted.get(key) ?? null, value)) return false;
  }
  return true;
}

const functionCalls = (response: NeMoGymResponse) => response.output.filter((item): item is FunctionCall => item.type === "function_call");

export default resourcesServer({
  name: "ToolCallMultiRewardResourcesServer",
  tools: {
    get_weather: tool({
      description: "Get the current weather for a city.",
      input: z.object({ city: z.string().describe("The city to get the weather for.") }),
      run: (_state, { city }) => ({ city, weather_description: `The weather in ${city} is sunny.` }),
    }),
  },
  verify: {
    // e.g. {"name": "get_weather", "arguments": {"city": "Lima"}}; NeMo Gym's default is {} (never correct).
    input: z.object({ expected_call: z.record(z.string(), z.unknown()).default(() => ({})) }),
    run(_state, { response, responses_create_params, expected_call }) {
      const calls = functionCalls(response);
      const hasMessage = response.output.some((item) => item.type === "message");
      const format = calls.length === 1 && !hasMessage ? 1 : 0;

      let schemaValid = 0;
      if (calls.length > 0) {
        const { args, valid } = parseArguments(calls[0]!.arguments);
        const required = requiredParams(responses_create_params, calls[0]!.name);
        // Python's `k in parsed` on a dict: only a string key can be present.
        schemaValid = valid && required.every((key) => typeof key === "string" && args.has(key)) ? 1 : 0;
      }

      const expected = fromJsonValue(expected_call) as PyDict;
      const correctness = calls.some((call) => callMatches(call, expected)) ? 1 : 0;

      const reward_components = { correctness, schema_valid: schemaValid, format };
      return {
        reward: correctness + schemaValid + format,
        expected_call,
        reward_components,
        correctness,
        schema_valid: schemaValid,
        format,
        predicted_calls: calls.map((call) => ({ name: call.name, arguments: toJsonValue(parseArguments(call.arguments).args) })),
      };
    },
  },
  // Python floats in NeMo Gym's response: 1.0, not 1.
  floatFields: ["correctness", "schema_valid", "format"],
});
