// A row's ground truth names rows of the tables by id: the email to reply to, the event to rename, the customers
// to update. A row written for other tables (NeMo Gym's rows on this project's tables, or the reverse) names ids
// these tables do not have; its ground truth then changes nothing, and a model that does nothing would "score" 1.
// Such a row cannot be scored with these tables: this finds the ids that say so, so the server can refuse it.
import { columnContains, type Table } from "./table.ts";
import { Workbench, WORKBENCH_TOOLS } from "./index.ts";
import type { WorkbenchTables } from "./tables-dir.ts";
import { callOf, replayCall, type Action } from "./verify.ts";

/** The id arguments of the tools, the table (NeMo Gym's CSV name) each one names a row of, and that table's state. */
const ID_ARGUMENTS: Record<string, { table: string; original: (tables: WorkbenchTables) => Table; current: (workbench: Workbench) => Table }> = {
  email_id: { table: "emails", original: (t) => t.emails, current: (w) => w.email.emails },
  event_id: { table: "calendar_events", original: (t) => t.calendarEvents, current: (w) => w.calendar.events },
  task_id: { table: "project_tasks", original: (t) => t.projectTasks, current: (w) => w.projectManagement.tasks },
  customer_id: { table: "customer_relationship_manager_data", original: (t) => t.crm, current: (w) => w.crm.customers },
  visitor_id: { table: "analytics_data", original: (t) => t.analytics, current: (w) => w.analytics.visits },
};

export interface UnknownId {
  table: string;
  column: string;
  id: unknown;
  /** 0-based position of the ground-truth call, and its tool. */
  position: number;
  tool: string;
}

/**
 * The ids the ground truth's calls name that are neither in the tables nor created by an earlier ground-truth call
 * (a new event's id, say). Calls verify would skip (unknown tool, arguments that are not a JSON object) are skipped
 * here too; a string ground truth names nothing.
 */
export function unknownGroundTruthIds(tables: WorkbenchTables, groundTruth: unknown): UnknownId[] {
  if (!Array.isArray(groundTruth)) return [];
  const workbench = new Workbench(tables);
  const unknown: UnknownId[] = [];
  groundTruth.forEach((action: unknown, position) => {
    if (typeof action !== "object" || action === null) return;
    const call = callOf(action as Action);
    if (!call) return;
    const declared = WORKBENCH_TOOLS[call.name]!.input.shape;
    for (const [column, { table, original, current }] of Object.entries(ID_ARGUMENTS)) {
      const id = call.kwargs[column];
      if (!Object.hasOwn(declared, column) || id === undefined || id === null || id === "") continue;
      if (!columnContains(original(tables), column, id) && !columnContains(current(workbench), column, id)) unknown.push({ table, column, id, position, tool: call.name });
    }
    replayCall(workbench, call);
  });
  return unknown;
}

const SHOWN = 5;

/** One line naming the unknown ids (the first few) and what to do. */
export function describeUnknownIds(unknown: readonly UnknownId[], tablesDescription: string): string {
  const named = unknown.slice(0, SHOWN).map((u) => `${u.column} ${typeof u.id === "string" ? u.id : JSON.stringify(u.id)} (ground_truth[${u.position}] ${u.tool}) is not in table ${u.table}`);
  const more = unknown.length > SHOWN ? `, and ${unknown.length - SHOWN} more` : "";
  return `this row cannot be scored with ${tablesDescription}: ${named.join("; ")}${more}. The row was written for other tables (NeMo Gym's rows need \`tables: nemo_gym\`)`;
}
