// Checks every environment folder can run on itself: its example rows are valid /run requests and the
// tools they offer the model are exactly the tools the server serves.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { BaseRunRequestSchema } from "../../src/protocol/index.ts";
import type { FunctionToolDefinition } from "../../src/server/index.ts";

export function readRows(path: string): Record<string, any>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

export function assertRowsAreRunRequests(rows: Record<string, unknown>[]): void {
  rows.forEach((row, i) => {
    const parsed = BaseRunRequestSchema.safeParse(row);
    assert.ok(parsed.success, `row ${i + 1} is not a valid /run request: ${parsed.success ? "" : parsed.error.message}`);
  });
}

export function assertRowToolsMatchServer(rows: Record<string, any>[], served: FunctionToolDefinition[]): void {
  const byName = new Map(served.map((t) => [t.name, t]));
  rows.forEach((row, i) => {
    for (const offered of row.responses_create_params.tools ?? []) {
      assert.deepEqual(offered, byName.get(offered.name), `row ${i + 1} offers '${offered.name}' with a schema that differs from GET /tools`);
    }
  });
}
