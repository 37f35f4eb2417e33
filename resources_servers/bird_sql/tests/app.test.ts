// bird_sql over real HTTP (loopback), each statement in a real bubblewrap sandbox on a tiny BIRD-layout database
// built here: BIRD's extraction and set equality, NeMo Gym's response fields and failure reasons, the read-only
// database (a write is an error), the time limit, the 501 for an absent database, the 500 for a failing gt_sql, and
// the metrics (overall and per difficulty).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, overHttp, readRows, responseWith, startServers, type InProcessGraph, type ServerCalls } from "../../../src/testing/index.ts";
import bird from "../app.ts";
import { buildSchoolsDatabase, schoolsPath } from "../data/build-example-db.ts";
import { extractBirdSql, hasSqlCodeblock } from "../extract.ts";

const base = mkdtempSync(join(tmpdir(), "bird-test-"));
const schools = buildSchoolsDatabase(schoolsPath(base));
const digest = () => createHash("sha256").update(readFileSync(schools)).digest("hex");
const schoolsDigest = digest();
// A neighbour in the same folder (BIRD's layout: <db_id>/<db_id>.sqlite): a statement on schools must not reach it.
buildSchoolsDatabase(join(base, "dev_20240627", "dev_databases", "neighbour", "neighbour.sqlite"));

let graph: InProcessGraph;
let server: ServerCalls;
const client = http();
before(async () => {
  graph = await startServers({ bird_sql: [bird, { bird_sql_dir: base, databases_url: null, sql_execution_timeout_s: 1.5, max_concurrency: 4 }] });
  server = overHttp(graph.url("bird_sql"), client);
});
after(async () => {
  await graph?.close();
  await client.close();
  rmSync(base, { recursive: true, force: true });
});

const params = { input: [{ role: "user", content: "Which schools are in Alameda?" }] };
const sqlAnswer = (sql: string) => `Reasoning first.\n\`\`\`sql\n${sql}\n\`\`\``;
const GOLD = "SELECT name FROM schools WHERE county = 'Alameda'";
const post = (text: string, row: Record<string, unknown> = {}) =>
  server.post("/verify", { responses_create_params: params, response: responseWith([assistantMessage(text)]), question: "q", gt_sql: GOLD, db_id: "schools", difficulty: "simple", id: 7, ...row });
async function verify(text: string, row: Record<string, unknown> = {}) {
  const answer = await post(text, row);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}

describe("verify", () => {
  test("the same set of rows in another order, with repeats, scores 1.0; NeMo Gym's fields in order", async () => {
    const body = await verify(sqlAnswer("SELECT name FROM schools WHERE county = 'Alameda' UNION ALL SELECT 'Oak High' ORDER BY name DESC"), { sql_context: "CREATE TABLE …" });
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "question", "gt_sql", "db_id", "difficulty", "id", "model_output", "extracted_sql", "had_codeblock", "execution_match", "failure_reason", "sql_context"]);
    assert.deepEqual([body.reward, body.execution_match, body.failure_reason, body.had_codeblock], [1, true, "none", true]);
  });

  test("an extra column or a missing row is another set: 0.0, execution_error", async () => {
    assert.equal((await verify(sqlAnswer("SELECT name, county FROM schools WHERE county = 'Alameda'"))).failure_reason, "execution_error");
    assert.equal((await verify(sqlAnswer("SELECT name FROM schools WHERE id = 1"))).reward, 0);
  });

  test("1 and 1.0 are the same value in a set (Python's tuple equality); text '1' is not", async () => {
    const gold = "SELECT free_rate FROM schools WHERE id = 4";
    assert.equal((await verify(sqlAnswer("SELECT 1"), { gt_sql: gold })).reward, 1);
    assert.equal((await verify(sqlAnswer("SELECT '1'"), { gt_sql: gold })).reward, 0);
  });

  test("text that is not UTF-8 is read with errors ignored, as NeMo Gym's text_factory does", async () => {
    assert.equal((await verify(sqlAnswer("SELECT 'Maple'"), { gt_sql: "SELECT name FROM schools WHERE id = 5" })).reward, 1);
  });

  test("no ```sql block: the filler SELECT 1 runs and scores 0 with no_sql_extracted", async () => {
    const body = await verify("SELECT name FROM schools");
    assert.deepEqual([body.reward, body.extracted_sql, body.had_codeblock, body.failure_reason], [0, "SELECT 1", false, "no_sql_extracted"]);
  });

  test("a gt_sql that fails is a 500 naming the database, not a 0", async () => {
    const answer = await post(sqlAnswer(GOLD), { gt_sql: "SELECT * FROM nowhere" });
    assert.equal(answer.status, 500);
    assert.match(answer.text, /gt_sql fails on schools: OperationalError: no such table: nowhere/);
  });

  test("a write is refused by the read-only database (execution_error) and the file is unchanged", async () => {
    for (const write of ["DELETE FROM schools", "DROP TABLE schools", "ATTACH '/db/x.sqlite' AS x"]) {
      const body = await verify(sqlAnswer(write), { gt_sql: "SELECT * FROM schools WHERE id < 0" });
      assert.deepEqual([body.reward, body.failure_reason], [0, "execution_error"], write);
    }
    assert.equal(digest(), schoolsDigest);
    assert.equal((await verify(sqlAnswer(GOLD))).reward, 1);
  });

  test("the folder's other databases are not in the sandbox: ATTACH of a neighbour fails (each run binds its own file only)", async () => {
    // Were the folder bound, the ATTACH would succeed with no rows, matching this empty gold: a 1.0.
    const body = await verify(sqlAnswer("ATTACH '/db/neighbour/neighbour.sqlite' AS n"), { gt_sql: "SELECT * FROM schools WHERE id < 0" });
    assert.deepEqual([body.reward, body.failure_reason], [0, "execution_error"]);
  });

  test("a query that never ends is killed at sql_execution_timeout_s and scores 0", async () => {
    const body = await verify(sqlAnswer("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n"));
    assert.deepEqual([body.reward, body.failure_reason], [0, "execution_error"]);
  });

  test("a db_id whose database is not there is a 501 naming the db_id and the folder", async () => {
    const answer = await post(sqlAnswer(GOLD), { db_id: "california_schools" });
    assert.equal(answer.status, 501);
    assert.match(answer.text, /california_schools/);
    assert.ok(answer.text.includes(join(base, "dev_20240627", "dev_databases")), answer.text);
  });
});

describe("extraction (NeMo Gym's CODEBLOCK mode)", () => {
  test("the last block with a letter; comments stripped; whitespace collapsed; a **bold** header dropped", () => {
    // Python's results: the header goes only when it starts the block (a newline before it collapses to a space).
    assert.equal(extractBirdSql("```sql\nSELECT 1\n```\nthen\n```sql\n**Final**  SELECT a\n  FROM t /* note */ WHERE b = 1\n```"), "**Final** SELECT a FROM t WHERE b = 1");
    assert.equal(extractBirdSql("```sql**Final** SELECT a\n```"), "SELECT a");
    assert.equal(extractBirdSql("```sql\nSELECT a -- c\n```"), "SELECT a");
    // A block without a letter: the lazy search for one runs past its closing fence, as Python's does.
    assert.equal(extractBirdSql("```sql\n123\n``` and ```sql\n456\n```"), "123 ``` and");
    assert.equal(hasSqlCodeblock("```sql\n123\n```"), false);
  });

  test("a -- comment eats to the end of the block (no MULTILINE), leaving an empty statement", () => {
    assert.equal(extractBirdSql("```sql\n-- the answer\nSELECT a FROM t\n```"), "");
  });
});

test("metrics: accuracy pass@k overall and per difficulty; key metrics pick the highest k", async () => {
  const rollout = (task: number, index: number, reward: number, difficulty: string) => ({ _ng_task_index: task, _ng_rollout_index: index, reward, difficulty, extracted_sql: `q${task}${reward}`, response: {} });
  const verify_responses = [rollout(0, 0, 1, "simple"), rollout(0, 1, 0, "simple"), rollout(1, 0, 0, "challenging"), rollout(1, 1, 0, "challenging")];
  const answer = await server.post("/aggregate_metrics", { verify_responses });
  assert.equal(answer.status, 200, answer.text);
  const { agent_metrics, key_metrics } = answer.json<Record<string, Record<string, number>>>();
  assert.equal(agent_metrics["pass@1[avg-of-2]/accuracy"], 25);
  assert.equal(agent_metrics["pass@2/accuracy"], 50);
  assert.equal(agent_metrics["simple/pass@2/accuracy"], 100);
  assert.equal(agent_metrics["challenging/pass@1[avg-of-2]/accuracy"], 0);
  assert.deepEqual(Object.keys(key_metrics).filter((name) => name.includes("accuracy")).sort(), ["challenging/pass@1[avg-of-2]/accuracy", "pass@1[avg-of-2]/accuracy", "pass@2/accuracy", "simple/pass@1[avg-of-2]/accuracy"]);
});

test("data/example.jsonl: valid run requests; its gt_sql scores 1.0 and SELECT 1 0.0 on the committed example database", async () => {
  const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
  assertRowsAreRunRequests(rows);
  const examples = await startServers({ bird_sql: [bird, { bird_sql_dir: join(import.meta.dirname, "../data/example_dbs"), databases_url: null }] });
  try {
    const calls = overHttp(examples.url("bird_sql"), client);
    for (const row of rows) {
      for (const [sql, reward] of [[String(row.gt_sql), 1], ["SELECT 'none'", 0]] as const) {
        const answer = await calls.post("/verify", { ...row, response: responseWith([assistantMessage(sqlAnswer(sql))]) });
        assert.equal(answer.json<{ reward: number }>().reward, reward, `${row.id}: ${sql}`);
      }
    }
  } finally {
    await examples.close();
  }
});
