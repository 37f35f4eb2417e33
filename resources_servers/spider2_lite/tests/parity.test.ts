// Parity with NeMo Gym's recorded rollouts (../shared/nemo-gym-data/spider2_lite, never committed). Their rewards
// need Spider 2.0-Lite's own databases (IPL, Pagila, California_Traffic_Collision), which are not here: set
// SPIDER2_LITE_DIR to a folder holding sqlite/<db_id>.sqlite to re-verify the rewards too. What needs no database
// is checked always: the SQL NeMo Gym extracted from each recorded answer is the SQL we extract.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { http, overHttp, readRows, responseWith, assistantMessage, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import { extractSql } from "../../../src/ports/sql-extraction.ts";
import spider2 from "../app.ts";

const rollouts = sharedDataFile("spider2_lite/data/example_rollouts.jsonl");
const examples = sharedDataFile("spider2_lite/data/example.jsonl");
const spiderDir = process.env.SPIDER2_LITE_DIR;

test("the SQL extracted from each of NeMo Gym's 5 recorded answers is the SQL it recorded", { skip: rollouts.skip }, () => {
  const lines = readRows(rollouts.path!);
  assert.equal(lines.length, 5);
  for (const line of lines) assert.equal(extractSql(String(line.model_output)) ?? null, line.extracted_sql, String(line.instance_id));
});

const needsDatabases = rollouts.skip || examples.skip || (spiderDir && existsSync(join(spiderDir, "sqlite")) ? false : "set SPIDER2_LITE_DIR to a Spider 2.0-Lite folder (sqlite/IPL.sqlite, Pagila.sqlite, California_Traffic_Collision.sqlite) to re-verify the recorded rewards");
test("re-verified on Spider 2.0-Lite's databases, each recorded rollout gets its recorded reward", { skip: needsDatabases }, async () => {
  const rows = new Map(readRows(examples.path!).map((row) => [row.instance_id, row]));
  const graph = await startServers({ spider2_lite: [spider2, { spider2_lite_dir: spiderDir, databases_url: null }] });
  const client = http();
  try {
    const server = overHttp(graph.url("spider2_lite"), client);
    for (const line of readRows(rollouts.path!)) {
      const row = rows.get(line.instance_id)!;
      const answer = await server.post("/verify", { ...row, response: responseWith([assistantMessage(String(line.model_output))]) });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json<{ reward: number }>().reward, line.reward, String(line.instance_id));
    }
  } finally {
    await graph.close();
    await client.close();
  }
});
