// The tables: read as pandas reads them, found in either folder layout, and the committed fixture CSVs are exactly
// what the seeded generator writes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableFromCsv } from "../workbench/table.ts";
import { loadTables, tableFiles } from "../workbench/tables-dir.ts";
import { startWorkplace } from "./harness.ts";

const TABLES = join(import.meta.dirname, "../data/tables");

test("CSV cells read as pandas' read_csv(dtype=str): quoted commas and newlines, NA strings as NaN, blank lines skipped", () => {
  const table = tableFromCsv('a,b,c\n"x, y","line\nbreak",NA\n\n"",None,n/a\nkeep ,0860,\n', "t.csv");
  assert.deepEqual(table.columns, ["a", "b", "c"]);
  assert.deepEqual(table.rows, [
    { a: "x, y", b: "line\nbreak", c: null },
    { a: null, b: null, c: null },
    { a: "keep ", b: "0860", c: null },
  ]);
  assert.deepEqual(table.index, [0, 1, 2]);
});

test("the committed fixture tables are what the seeded generator writes", () => {
  const out = mkdtempSync(join(tmpdir(), "workplace-tables-"));
  const run = spawnSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "../scripts/generate-tables.ts"), out], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  for (const folder of ["processed", "raw"]) {
    for (const file of readdirSync(join(TABLES, folder))) {
      assert.equal(readFileSync(join(out, folder, file), "utf8"), readFileSync(join(TABLES, folder, file), "utf8"), `${folder}/${file}`);
    }
  }
});

test("the fixture tables have NeMo Gym's columns, 20–50 rows each", () => {
  const tables = loadTables(TABLES);
  assert.deepEqual(tables.emails.columns, ["email_id", "inbox/outbox", "sender/recipient", "subject", "sent_datetime", "body"]);
  assert.deepEqual(tables.calendarEvents.columns, ["event_id", "event_name", "participant_email", "event_start", "duration"]);
  assert.deepEqual(tables.analytics.columns, ["date_of_visit", "visitor_id", "page_views", "session_duration_seconds", "traffic_source", "user_engaged"]);
  assert.deepEqual(tables.projectTasks.columns, ["task_id", "task_name", "assigned_to_email", "list_name", "due_date", "board"]);
  assert.deepEqual(tables.crm.columns, ["customer_id", "assigned_to_email", "customer_name", "customer_email", "customer_phone", "last_contact_date", "product_interest", "status", "follow_up_by", "notes"]);
  for (const table of [tables.emails, tables.calendarEvents, tables.analytics, tables.projectTasks, tables.crm]) assert.ok(table.rows.length >= 20 && table.rows.length <= 50);
  assert.ok(tables.analytics.rows.every((row) => typeof row.user_engaged === "boolean"));
});

test("tables_dir: NeMo Gym's processed/ + raw/ layout or a flat folder; a missing file is named", async () => {
  const flat = mkdtempSync(join(tmpdir(), "workplace-flat-"));
  for (const file of readdirSync(join(TABLES, "processed"))) cpSync(join(TABLES, "processed", file), join(flat, file));
  cpSync(join(TABLES, "raw", "email_addresses.csv"), join(flat, "email_addresses.csv"));
  assert.equal(tableFiles(flat).emails, join(flat, "emails.csv"));
  assert.equal(tableFiles(TABLES).directory, join(TABLES, "raw", "email_addresses.csv"));

  const empty = mkdtempSync(join(tmpdir(), "workplace-empty-"));
  mkdirSync(join(empty, "processed"));
  assert.throws(() => tableFiles(empty), /tables_dir .*: missing .*emails\.csv.*email_addresses\.csv/);

  const server = await startWorkplace({ tables_dir: flat });
  try {
    const cookies = (await server.post("/seed_session", {})).cookies;
    assert.deepEqual((await server.call(cookies, "company_directory_find_email_address", { name: "zara" })).output, ["zara.nyong@brightline.io"]);
  } finally {
    await server.close();
  }
});
