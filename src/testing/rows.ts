// An environment's rows (data/example.jsonl, a parity file, a rollouts file) as a test reads them: every line an
// object, a bad line failing the test with its FILE:LINE.
import assert from "node:assert/strict";
import { join } from "node:path";
import { BaseRunRequestSchema } from "../protocol/index.ts";
import { readJsonl } from "../rollouts/jsonl.ts";
import type { FunctionToolDefinition } from "../server/index.ts";
import { describeToolDifference, toolDrift } from "./tool-drift.ts";

/** Rows are JSON from disk: tests index into them freely. */
export type TestRow = Record<string, any>;

/** Every non-blank line of a JSONL file as an object; throws `FILE:LINE: not valid JSON (…)` / `each line must be a JSON object`. */
export function readRows(path: string): TestRow[] {
  return readJsonl(path).map(({ row }) => row as TestRow);
}

/** The rows with their line numbers, for messages that name FILE:LINE. */
export function readRowLines(path: string): { lineNumber: number; row: TestRow }[] {
  return readJsonl(path).map(({ lineNumber, row }) => ({ lineNumber, row: row as TestRow }));
}

/** An environment folder's `data/example.jsonl`. */
export const exampleRows = (envDir: string): TestRow[] => readRows(join(envDir, "data", "example.jsonl"));

/** Every row is a valid /run request (BaseRunRequest), or the test fails naming the row. */
export function assertRowsAreRunRequests(rows: Record<string, unknown>[]): void {
  rows.forEach((row, i) => {
    const parsed = BaseRunRequestSchema.safeParse(row);
    assert.ok(parsed.success, `row ${i + 1} is not a valid /run request: ${parsed.success ? "" : parsed.error.message}`);
  });
}

/** Every row's tools match the served ones by the tool-drift rule (src/testing/tool-drift.ts), or the test fails naming the row, tool and field. */
export function assertRowToolsMatchServer(rows: TestRow[], served: readonly FunctionToolDefinition[]): void {
  rows.forEach((row, i) => {
    const drift = toolDrift(row.responses_create_params?.tools, served);
    assert.deepEqual(
      drift.map((d) => `${d.path}: ${describeToolDifference(d, served)}`),
      [],
      `row ${i + 1} offers tools that differ from GET /tools`,
    );
  });
}
