// Reads an environment's data/verifier_cases.jsonl for tests of tools-free environments, where each case's
// tool_calls are the model's function calls (never executed): the request is the one `gym env test` and the
// verify benchmark build (src/scaffold/env-test/verifier-cases.ts).
import { readVerifierCases as readCases, toolsFreeVerifyRequest, type VerifierCase as ParsedCase } from "../../src/scaffold/env-test/verifier-cases.ts";

export type VerifierCase = ParsedCase & { row: { responses_create_params: Record<string, unknown> } };

/** Every case of the file with its line number; a malformed file fails the test that reads it. */
export function readVerifierCases(path: string): (VerifierCase & { lineNumber: number })[] {
  const { cases, problems } = readCases(path, path);
  if (problems.length > 0) throw new Error(`${path} is malformed:\n${problems.join("\n")}`);
  return cases.map(({ lineNumber, verifierCase }) => ({ ...(verifierCase as VerifierCase), lineNumber }));
}

export const caseVerifyRequest = (verifierCase: VerifierCase) => toolsFreeVerifyRequest(verifierCase);
