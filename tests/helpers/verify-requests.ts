// Builders for the model output an environment's /verify is asked to score, and the check every environment
// runs over its data/verifier_cases.jsonl. The fixed ids ("msg_1", "resp_1") are what the environments' tests
// have always sent; no verifier reads them.
import assert from "node:assert/strict";
import type { http } from "./servers.ts";
import { caseVerifyRequest, readVerifierCases, type VerifierCase } from "../ports/verifier-cases.ts";

export type Item = Record<string, unknown>;

/** A completed assistant message with one `output_text` part per text. */
export const assistantMessage = (...texts: string[]): Item => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  status: "completed",
  content: texts.map((text) => ({ type: "output_text", text, annotations: [] })),
});

/** A function call; `args` that are not already a string are sent JSON-encoded. */
export const functionCallItem = (name: string, args: unknown, callId = `call_${name}`): Item => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});

/** A Responses API response carrying `output`; `extra` adds or overrides top-level fields (e.g. `error`). */
export const responseWith = (output: Item[], extra: Item = {}) => ({
  id: "resp_1",
  created_at: 1,
  model: "m",
  object: "response",
  output,
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  ...extra,
});

export interface VerifierCasesExpectations {
  /** The file holds at least this many cases. */
  minCases?: number;
  /** The file covers exactly these case kinds. */
  kinds?: VerifierCase["case"][];
}

/** POSTs every case of a verifier_cases.jsonl to `verifyUrl` and asserts a 200 with the case's expected reward. */
export async function assertVerifierCasesScore(client: ReturnType<typeof http>, verifyUrl: string, casesPath: string, expect: VerifierCasesExpectations = {}): Promise<void> {
  const cases = readVerifierCases(casesPath);
  if (expect.minCases !== undefined) assert.ok(cases.length >= expect.minCases, `${casesPath}: ${cases.length} cases, expected at least ${expect.minCases}`);
  if (expect.kinds !== undefined) assert.deepEqual(new Set(cases.map((c) => c.case)), new Set(expect.kinds));
  for (const verifierCase of cases) {
    const answer = await client.request(verifyUrl, { method: "POST", json: caseVerifyRequest(verifierCase) });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json<{ reward: number }>().reward, verifierCase.expected_reward, `verifier_cases.jsonl:${verifierCase.lineNumber} (${verifierCase.case})`);
  }
}
