// Multi-step extraction: look up a value per synonym, then submit them in order. The reward is exact,
// order-sensitive equality with the expected values; the extra fields say how the rollout went wrong.
import { z } from "zod";
import type { FunctionCall } from "../../src/protocol/index.ts";
import { resourcesServer, tool } from "../../src/server/index.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { isPyDict, pythonContains, pythonEquals, pythonGetItem, type PyValue } from "../../src/python/values.ts";
import { overlapCount, pythonSetMembers, validateIntList } from "./python-verify.ts";

/** Sum of Unicode code points: a deterministic "value" for a word. */
const synonymValue = (word: string) => [...word].reduce((sum, ch) => sum + ch.codePointAt(0)!, 0);

const pythonError = (name: string, message: string) => Object.assign(new Error(message), { name });

/** `json.loads(arguments)["synonym_values"]`, raising what Python raises. */
function submittedValues(argumentsText: string): PyValue {
  let parsed: PyValue;
  try {
    parsed = pythonJsonLoads(argumentsText);
  } catch (error) {
    // Unreadable arguments keep the body they always had here, JSON.parse's SyntaxError (NeMo Gym's names
    // the JSONDecodeError); json.loads reads all JSON.parse reads, plus NaN and Infinity.
    JSON.parse(argumentsText);
    throw error;
  }
  if (isPyDict(parsed) && !parsed.has("synonym_values")) throw pythonError("KeyError", "synonym_values");
  return pythonGetItem(parsed, "synonym_values") as PyValue;
}

export default resourcesServer({
  name: "ExampleMultiStepResourcesServer",
  tools: {
    get_synonym_value: tool({
      description: "Get the synonym value for a synonym.",
      input: z.object({ synonym: z.string().describe("The synonym to get the value for.") }),
      run: (_state, { synonym }) => ({ synonym_value: synonymValue(synonym) }),
    }),
    extract_synonym_values: tool({
      description: "Extract the synonym values you retrieved for the term that is relevant to the user query.",
      input: z.object({
        synonym_values: z.array(z.number().int()).describe("The synonym values corresponding to the term for the user query."),
      }),
      run: () => ({ success: true }),
    }),
  },
  floatFields: ["set_overlap"],
  verify: {
    input: z.object({
      id: z.number().int(),
      expected_synonym_values: z.array(z.number().int()),
      expected_synonyms: z.array(z.string()),
      minefield_label: z.string(),
      minefield_label_value: z.number().int(),
    }),
    run(_state, { response, expected_synonym_values: expected, minefield_label, minefield_label_value }) {
      // The last submission counts; what Python would raise on it fails verify (a 500) rather than scoring 0.
      const submission = response.output.findLast((item): item is FunctionCall => item.type === "function_call" && item.name === "extract_synonym_values");
      const actual: PyValue = submission ? submittedValues(submission.arguments) : [];
      const members = pythonSetMembers(actual);
      const expectedInts = expected.map(BigInt);
      if (expected.length === 0) throw pythonError("ZeroDivisionError", "division by zero");

      const accuracy = pythonEquals(actual, expectedInts);
      const setOverlap = overlapCount(members, expectedInts) / expected.length;
      const minefieldHit = pythonContains(actual, minefield_label) || pythonContains(actual, BigInt(minefield_label_value));
      // Building the response validates `parsed_synonym_values: List[int]`: "2" and 1.0 become ints, 1.5 fails.
      const parsed = validateIntList(actual);
      return {
        reward: accuracy ? 1 : 0,
        parsed_synonym_values: parsed.map(Number),
        accuracy,
        set_overlap: setOverlap,
        original_term_minefield_hit: minefieldHit,
        order_instruction_following_failure: !accuracy && setOverlap === 1,
      };
    },
  },
});
