// NeMo Gym's verify (`is_correct`): the function calls of the response (every one, in order, whatever it
// answered) are replayed on a fresh workbench, the ground-truth calls on another; reward 1 iff the calendar, email,
// plot, task and CRM tables end up equal (see compare.ts). A call Python could not make (unknown tool, arguments
// that are not a JSON object, an unexpected keyword, an exception in the tool) is skipped, as Python skips it.
import { sameTable } from "./compare.ts";
import { Workbench, WORKBENCH_TOOLS } from "./index.ts";
import { isStr } from "./python.ts";
import { jsonLoads } from "../../../src/python/json-value.ts";
import { PyException } from "../../../src/python/exception.ts";
import type { WorkbenchTables } from "./tables-dir.ts";
import type { Kwargs } from "./tool-spec.ts";

export interface Action {
  name?: unknown;
  arguments?: unknown;
}

/** An action as Python would call it: a known tool and keyword arguments from a JSON object; else `undefined` (skipped). */
export function callOf(action: Action): { name: string; kwargs: Kwargs } | undefined {
  if (!isStr(action.name) || !Object.hasOwn(WORKBENCH_TOOLS, action.name)) return undefined;
  let kwargs: unknown;
  try {
    if (!isStr(action.arguments)) return undefined;
    kwargs = jsonLoads(action.arguments);
  } catch {
    return undefined;
  }
  if (kwargs === null || typeof kwargs !== "object" || Array.isArray(kwargs)) return undefined;
  return { name: action.name, kwargs: kwargs as Kwargs };
}

/** Runs one call the way verify replays it: a Python exception in the tool is skipped, as Python skips it. */
export function replayCall(workbench: Workbench, call: { name: string; kwargs: Kwargs }): void {
  // Read-only tools cannot change a compared table; skipping them spares replaying their reads.
  if (!WORKBENCH_TOOLS[call.name]!.writes) return;
  try {
    workbench.call(call.name, call.kwargs);
  } catch (error) {
    if (!(error instanceof PyException)) throw error;
  }
}

/** `execute_actions_and_reset_state`: a fresh workbench with the actions applied. */
export function replayActions(tables: WorkbenchTables, actions: readonly Action[] | string): Workbench {
  const workbench = new Workbench(tables);
  // A string ground truth iterates as characters, none of which is an action.
  if (isStr(actions)) return workbench;
  for (const action of actions) {
    const call = callOf(action);
    if (call) replayCall(workbench, call);
  }
  return workbench;
}

/** 1 when the predicted actions leave the compared tables as the ground truth does, else 0. */
export function isCorrect(tables: WorkbenchTables, predicted: readonly Action[], groundTruth: readonly Action[] | string): 0 | 1 {
  // Both sides are lower-cased before any comparison: a table pandas cannot lower-case fails verify either way.
  const predictedState = replayActions(tables, predicted).comparableState();
  const expectedState = replayActions(tables, groundTruth).comparableState();
  return predictedState.every((table, i) => sameTable(table, expectedState[i]!)) ? 1 : 0;
}
