// Reads an environment's data/verifier_cases.jsonl and turns each case into a /verify request, for tools-free
// environments where the case's tool_calls are the model's function calls (never executed). The response is
// shaped as `gym env test` shapes it: one function_call item per tool call, then the assistant message with
// `output_text` (always, even when empty). Tools-free servers would answer each call 404, so no
// function_call_output is added; neither verifier here reads them.
import { readFileSync } from "node:fs";

export interface VerifierCase {
  case: "full_reward" | "zero_reward" | "malformed";
  row: Record<string, unknown> & { responses_create_params: Record<string, unknown> };
  tool_calls: { name: string; arguments: string }[];
  output_text: string;
  expected_reward: number;
}

export function readVerifierCases(path: string): (VerifierCase & { lineNumber: number })[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .map((line, i) => ({ line, lineNumber: i + 1 }))
    .filter(({ line }) => line.trim() !== "")
    .map(({ line, lineNumber }) => ({ ...(JSON.parse(line) as VerifierCase), lineNumber }));
}

export function caseResponse(verifierCase: VerifierCase) {
  const message = { id: "msg_case", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: verifierCase.output_text, annotations: [] }] };
  const calls = verifierCase.tool_calls.map((call, i) => ({ type: "function_call", call_id: `call_case_${i}`, name: call.name, arguments: call.arguments, id: `fc_case_${i}`, status: "completed" }));
  return {
    id: "resp_case",
    created_at: 1,
    model: "verifier-case",
    object: "response",
    output: [...calls, message],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: verifierCase.row.responses_create_params.tools ?? [],
  };
}

export const caseVerifyRequest = (verifierCase: VerifierCase) => ({ ...verifierCase.row, response: caseResponse(verifierCase) });
