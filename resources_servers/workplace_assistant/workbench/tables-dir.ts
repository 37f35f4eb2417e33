// The six CSV tables, read once per folder and shared (read-only) by every session.
// Layout as NeMo Gym's `csv_data/`: `processed/<table>.csv` plus `raw/email_addresses.csv` (one address per
// line, no header). A folder holding the CSVs directly (with `email_addresses.csv` beside them or in `../raw/`)
// works too.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { tableFromCsv, type Table } from "./table.ts";

export interface WorkbenchTables {
  emails: Table;
  calendarEvents: Table;
  analytics: Table;
  projectTasks: Table;
  crm: Table;
  directory: Table;
}

const PROCESSED = {
  emails: "emails.csv",
  calendarEvents: "calendar_events.csv",
  analytics: "analytics_data.csv",
  projectTasks: "project_tasks.csv",
  crm: "customer_relationship_manager_data.csv",
} as const;

const cache = new Map<string, WorkbenchTables>();

/** Where each CSV of a tables folder is; an error naming the folder and the missing files otherwise. */
export function tableFiles(folder: string): Record<keyof WorkbenchTables, string> {
  const processedDir = existsSync(join(folder, "processed", PROCESSED.emails)) ? join(folder, "processed") : folder;
  const directoryCandidates = [join(folder, "raw", "email_addresses.csv"), join(processedDir, "email_addresses.csv"), join(dirname(processedDir), "raw", "email_addresses.csv")];
  const files = {
    ...(Object.fromEntries(Object.entries(PROCESSED).map(([key, name]) => [key, join(processedDir, name)])) as Record<keyof typeof PROCESSED, string>),
    directory: directoryCandidates.find((path) => existsSync(path)) ?? directoryCandidates[0]!,
  };
  const missing = Object.values(files).filter((path) => !existsSync(path));
  if (missing.length > 0) {
    throw new Error(`workplace_assistant tables_dir ${folder}: missing ${missing.join(", ")} (expected processed/{${Object.values(PROCESSED).join(",")}} and raw/email_addresses.csv)`);
  }
  return files;
}

/** The tables of a folder, parsed on first use. */
export function loadTables(folder: string): WorkbenchTables {
  const key = resolve(folder);
  let tables = cache.get(key);
  if (tables) return tables;
  const files = tableFiles(key);
  const read = (path: string, names?: string[]) => tableFromCsv(readFileSync(path, "utf8"), path, names);
  const analytics = read(files.analytics);
  tables = {
    emails: read(files.emails),
    calendarEvents: read(files.calendarEvents),
    // pandas: `df["user_engaged"] == "True"` turns the column into booleans.
    analytics: { ...analytics, rows: analytics.rows.map((row) => Object.freeze({ ...row, user_engaged: row.user_engaged === "True" })) },
    projectTasks: read(files.projectTasks),
    crm: read(files.crm),
    directory: read(files.directory, ["email_address"]),
  };
  cache.set(key, tables);
  return tables;
}
