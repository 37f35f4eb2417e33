// NeMo Gym's stored rollouts were dumped by an older version whose params allowed null for
// `parallel_tool_calls` / `tool_choice`; re-verification drops those nulls before posting.
export { withoutNullParams } from "../../src/rollouts/reverify.ts";

/** One line per re-verified row for a parity failure message: stored → ours, replayed tools, what differs or why it failed. */
export function parityLine(outcome: import("../../src/rollouts/reverify.ts").ReverifyOutcome): string {
  const replayed = outcome.toolCallsReplayed > 0 ? `; tool calls replayed ${outcome.toolCallsReplayed}, outputs different ${outcome.toolOutputsDifferent}` : "";
  const different = outcome.differentFields.length > 0 ? `; fields different [${outcome.differentFields.join(", ")}]` : "";
  const failure = outcome.failure ? `; ${outcome.failure.failureClass}: ${outcome.failure.message}` : "";
  return `line ${outcome.lineNumber}: stored ${String(outcome.storedReward)} → ours ${String(outcome.line?.reward ?? "-")}${replayed}${different}${failure}`;
}

/** Every row of a reverify report, as `parityLine`s. */
export const parityTable = (outcomes: import("../../src/rollouts/reverify.ts").ReverifyOutcome[]) => outcomes.map(parityLine).join("\n");
