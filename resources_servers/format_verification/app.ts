// Format verification: does the answer follow a formatting instruction? The row's `verifier` says how to check:
//   regex / inline_prose — count the lines of the answer on which any `verify_regex` pattern matches (Python
//     `re.search`, no flags, one line at a time); reward 1 iff at least `verify_min_matches` (default 1) do;
//   string_match — every `expected_markers` string must occur in the answer, and no `patterns` match may be a
//     marker that was not expected.
// Any other type is NeMo Gym's NotImplementedError, a 500. Patterns are Python regexes (src/python/re/).
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { compilePythonRegexValue } from "../../src/python/re/index.ts";
import { jsonIterate, jsonRepr, jsonTruthy } from "../../src/python/json-value.ts";
import { pythonGe, pythonSet } from "./python-ops.ts";
import { fromJsonValue, pythonContains } from "../../src/python/values.ts";
import { PyException } from "../../src/python/exception.ts";

const compileAll = (patterns: unknown) => jsonIterate(patterns).map((pattern) => compilePythonRegexValue(pattern));

function verifyLines(text: string, verifier: Record<string, unknown>) {
  const patterns = compileAll("verify_regex" in verifier ? verifier.verify_regex : []);
  const minMatches = "verify_min_matches" in verifier ? verifier.verify_min_matches : 1;
  const matchingLines = text.split("\n").filter((line) => patterns.some((pattern) => pattern.search(line) !== undefined)).length;
  const passed = pythonGe(matchingLines, minMatches);
  return { reward: passed ? 1 : 0, details: { matching_lines: matchingLines, min_matches: minMatches, passed } };
}

function verifyMarkers(text: string, verifier: Record<string, unknown>) {
  const expected = "expected_markers" in verifier ? verifier.expected_markers : [];
  const patterns = "patterns" in verifier ? verifier.patterns : [];
  const missing = jsonIterate(expected).filter((marker) => !pythonContains(text, fromJsonValue(marker)));
  const spurious: string[] = [];
  if (jsonTruthy(patterns)) {
    const expectedMarkers = pythonSet(jsonIterate(expected));
    for (const pattern of compileAll(patterns)) {
      for (const found of pattern.finditer(text)) if (!expectedMarkers.has(found.groups[0]!)) spurious.push(found.groups[0]!);
    }
  }
  const passed = missing.length === 0 && spurious.length === 0;
  return { reward: passed ? 1 : 0, details: { expected, missing, spurious, passed } };
}

export default resourcesServer({
  name: "FormatVerificationResourcesServer",
  tools: {},
  verify: {
    input: z.object({ verifier: z.record(z.string(), z.unknown()) }),
    run(_state, { response, verifier }) {
      const text = responseOutputText(response);
      const type = "type" in verifier ? verifier.type : "";
      let result;
      if (type === "regex" || type === "inline_prose") result = verifyLines(text, verifier);
      else if (type === "string_match") result = verifyMarkers(text, verifier);
      else throw new PyException("NotImplementedError", `Verifier type must be 'regex' or 'string_match', got ${jsonRepr(type)}`);
      return { reward: result.reward, verifier, match_details: result.details };
    },
  },
});
