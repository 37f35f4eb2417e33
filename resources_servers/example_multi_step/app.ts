// Multi-step extraction: look up a value per synonym, then submit them in order. The reward is exact,
// order-sensitive equality with the expected values; the extra fields say how the rollout went wrong.
import { z } from "zod";
import type { FunctionCall } from "../../src/protocol/index.ts";
import { resourcesServer, tool } from "../../src/server/index.ts";

/** Sum of Unicode code points: a deterministic "value" for a word. */
const synonymValue = (word: string) => [...word].reduce((sum, ch) => sum + ch.codePointAt(0)!, 0);

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
      // The last submission counts; malformed arguments fail verify loudly rather than scoring 0.
      const submission = response.output.findLast((item): item is FunctionCall => item.type === "function_call" && item.name === "extract_synonym_values");
      const actual: unknown[] = submission ? JSON.parse(submission.arguments).synonym_values : [];
      if (!Array.isArray(actual)) throw new TypeError("extract_synonym_values arguments: synonym_values is not a list");
      if (expected.length === 0) throw new RangeError("expected_synonym_values is empty: set_overlap is undefined");

      const accuracy = actual.length === expected.length && actual.every((value, i) => value === expected[i]);
      const expectedSet = new Set(expected);
      const setOverlap = new Set(actual.filter((v) => expectedSet.has(v as number))).size / expected.length;
      return {
        reward: accuracy ? 1 : 0,
        parsed_synonym_values: actual,
        accuracy,
        set_overlap: setOverlap,
        original_term_minefield_hit: actual.includes(minefield_label) || actual.includes(minefield_label_value),
        order_instruction_following_failure: !accuracy && setOverlap === 1,
      };
    },
  },
});
