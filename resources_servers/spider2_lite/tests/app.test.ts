// spider2_lite over real HTTP (loopback, the test kit's startServers), each statement in a real bubblewrap sandbox on
// a tiny database built here: the gold_sql and gold_result modes, NeMo Gym's response fields, the statements that
// try to write, escape or load code (contained), a query that never ends (the time limit), a database that is not
// there (a 501), a gold_sql that fails (a 500, not a 0), and forging attempts against the result channel.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, overHttp, readRows, responseWith, startServers, type ServerCalls } from "../../../src/testing/index.ts";
import type { InProcessGraph } from "../../../src/testing/index.ts";
import spider2 from "../app.ts";
import { buildShopDatabase } from "../data/build-example-db.ts";

const base = mkdtempSync(join(tmpdir(), "spider2-test-"));
const shop = buildShopDatabase(join(base, "sqlite", "shop.sqlite"));
const digest = () => createHash("sha256").update(readFileSync(shop)).digest("hex");
const shopDigest = digest();
// A neighbour in the same folder: a statement on shop must not reach it.
buildShopDatabase(join(base, "sqlite", "neighbour.sqlite"));

let graph: InProcessGraph;
let server: ServerCalls;
const client = http();
before(async () => {
  graph = await startServers({ spider2_lite: [spider2, { spider2_lite_dir: base, databases_url: null, sql_execution_timeout_s: 1.5, max_concurrency: 4 }] });
  server = overHttp(graph.url("spider2_lite"), client);
});
after(async () => {
  await graph?.close();
  await client.close();
  rmSync(base, { recursive: true, force: true });
});

const params = { input: [{ role: "user", content: "How much did each customer order?" }] };
const sqlAnswer = (sql: string) => `Here it is:\n\`\`\`sql\n${sql}\n\`\`\``;
const post = (text: string, row: Record<string, unknown>) => server.post("/verify", { responses_create_params: params, response: responseWith([assistantMessage(text)]), db_id: "shop", question: "q", ...row });
async function verify(text: string, row: Record<string, unknown>) {
  const answer = await post(text, row);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}
const GOLD_TOTALS = "SELECT c.name, SUM(o.amount) AS total FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name";

describe("gold_sql: both statements run on the row's database", () => {
  test("the same rows in another column order, with an extra column, score 1.0; NeMo Gym's fields in order", async () => {
    const body = await verify(sqlAnswer("SELECT SUM(amount), customer_id, (SELECT name FROM customers WHERE id = customer_id) FROM orders GROUP BY customer_id ORDER BY 1 DESC"), {
      gold_sql: GOLD_TOTALS,
      instance_id: "local900",
      extra_field: "kept",
    });
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "uuid", "instance_id", "db_id", "question", "model_output", "extracted_sql", "execution_match", "failure_reason", "gold_sql", "metadata", "extra_field"]);
    assert.equal(body.reward, 1);
    assert.equal(body.execution_match, true);
    assert.equal(body.failure_reason, "none");
    assert.match(body.extracted_sql, /^SELECT SUM\(amount\)/);
    assert.equal(body.extra_field, "kept");
  });

  test("different rows score 0.0 with failure_reason execution_error; ignore_order false makes order count", async () => {
    assert.equal((await verify(sqlAnswer("SELECT name, balance FROM customers"), { gold_sql: GOLD_TOTALS })).failure_reason, "execution_error");
    const ordered = { gold_sql: "SELECT id FROM orders ORDER BY id" };
    assert.equal((await verify(sqlAnswer("SELECT id FROM orders ORDER BY id DESC"), ordered)).reward, 1);
    assert.equal((await verify(sqlAnswer("SELECT id FROM orders ORDER BY id DESC"), { ...ordered, ignore_order: false })).reward, 0);
  });

  test("numbers match within 0.01 and ints past 2^53 keep every digit", async () => {
    assert.equal((await verify(sqlAnswer("SELECT amount + 0.004 FROM orders"), { gold_sql: "SELECT amount FROM orders" })).reward, 1);
    assert.equal((await verify(sqlAnswer("SELECT amount + 0.02 FROM orders"), { gold_sql: "SELECT amount FROM orders" })).reward, 0);
    // 2^53 + 1 and 2^53 are the same double: Python compares them with isclose on floats, so they match.
    assert.equal((await verify(sqlAnswer("SELECT 9007199254740992"), { gold_sql: "SELECT quantity FROM orders WHERE id = 13" })).reward, 1);
  });

  test("no SQL in the answer: no_sql_extracted, nothing runs", async () => {
    const body = await verify("I do not know.", { gold_sql: GOLD_TOTALS });
    assert.deepEqual([body.reward, body.extracted_sql, body.failure_reason], [0, null, "no_sql_extracted"]);
  });

  test("a statement that raises scores 0.0 (execution_error)", async () => {
    assert.equal((await verify(sqlAnswer("SELECT nope FROM nowhere"), { gold_sql: GOLD_TOTALS })).failure_reason, "execution_error");
  });

  test("a gold_sql that fails is a 500 naming the database, never a reward", async () => {
    const answer = await post(sqlAnswer("SELECT 1"), { gold_sql: "SELECT * FROM missing_table" });
    assert.equal(answer.status, 500);
    assert.match(answer.text, /gold_sql fails on shop: OperationalError: no such table: missing_table/);
  });
});

describe("gold_result: precomputed sets, values as text", () => {
  test("text gold values are read as int or float; None counts as 0; any alternative set may match", async () => {
    const gold_result = [[["Nobody", "1"]], [["Ada", "120.5"], ["Grace", "80"], ["Linus", "0"], ["Zoë", "0.1"]]];
    assert.equal((await verify(sqlAnswer("SELECT name, balance FROM customers"), { gold_result })).reward, 1);
    assert.equal((await verify(sqlAnswer("SELECT name, balance + 1 FROM customers"), { gold_result })).reward, 0);
  });

  test("condition_cols: only those gold columns must be found (one list per alternative set)", async () => {
    const gold_result = [[["Ada", "wrong"], ["Grace", "wrong"], ["Linus", "wrong"], ["Zoë", "wrong"]]];
    assert.equal((await verify(sqlAnswer("SELECT name FROM customers"), { gold_result })).reward, 0);
    assert.equal((await verify(sqlAnswer("SELECT name FROM customers"), { gold_result, condition_cols: [0] })).reward, 1);
    assert.equal((await verify(sqlAnswer("SELECT name FROM customers"), { gold_result, condition_cols: [[0]] })).reward, 1);
  });

  test("text that reads as a number in the database is a number too ('007' = 7, '1e3' = 1000.0)", async () => {
    assert.equal((await verify(sqlAnswer("SELECT code FROM orders WHERE id IN (10, 13)"), { gold_result: [[[7], [1000]]] })).reward, 1);
  });

  test("a row with neither gold_sql nor gold_result is a 500 with NeMo Gym's message", async () => {
    const answer = await post(sqlAnswer("SELECT 1"), {});
    assert.equal(answer.status, 500);
    assert.match(answer.text, /must contain either 'gold_sql' or 'gold_result'/);
  });
});

describe("containment: the model's SQL runs in a sandbox on a read-only database", () => {
  test("DROP TABLE and DELETE change the in-memory copy only: the next statement still sees the data, the file is unchanged", async () => {
    for (const write of ["DROP TABLE orders", "DELETE FROM customers", "UPDATE orders SET amount = 0", "CREATE TABLE evil (x)"]) {
      // As in NeMo Gym, a write returns no rows: against an empty gold it is a match.
      assert.equal((await verify(sqlAnswer(write), { gold_sql: "SELECT * FROM orders WHERE id < 0" })).reward, 1, write);
      assert.equal((await verify(sqlAnswer("SELECT id FROM orders"), { gold_result: [[["10"], ["11"], ["12"], ["13"]]] })).reward, 1, `after ${write}`);
    }
    assert.equal(digest(), shopDigest);
  });

  test("ATTACH of a new file, load_extension and VACUUM INTO the database folder all fail (execution_error)", async () => {
    for (const sql of ["ATTACH '/db/new.sqlite' AS x", "SELECT load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so.0')", "VACUUM INTO '/db/copy.sqlite'"]) {
      const body = await verify(sqlAnswer(sql), { gold_sql: "SELECT * FROM orders WHERE id < 0" });
      assert.deepEqual([body.reward, body.failure_reason], [0, "execution_error"], sql);
    }
    assert.deepEqual(readFileSync(join(base, "sqlite", "shop.sqlite")).length > 0, true);
    assert.throws(() => readFileSync(join(base, "sqlite", "new.sqlite")));
    assert.throws(() => readFileSync(join(base, "sqlite", "copy.sqlite")));
  });

  test("the folder's other databases are not in the sandbox: ATTACH of a neighbour fails (each run binds its own file only)", async () => {
    // Were the folder bound, the ATTACH would succeed with no rows, matching this empty gold: a 1.0 for a statement
    // that read another database.
    const body = await verify(sqlAnswer("ATTACH '/db/neighbour.sqlite' AS n"), { gold_sql: "SELECT * FROM orders WHERE id < 0" });
    assert.deepEqual([body.reward, body.failure_reason], [0, "execution_error"]);
  });

  test("a query that never ends is killed at sql_execution_timeout_s and scores 0.0", async () => {
    const forever = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n";
    // It streams (no memory grows), so nothing but the time limit ends it: the answer arriving is the kill.
    const body = await verify(sqlAnswer(forever), { gold_sql: "SELECT 1" });
    assert.deepEqual([body.reward, body.failure_reason], [0, "execution_error"]);
  });

  test("writing into the result channel (VACUUM/ATTACH into stdout and the harness's descriptors) cannot fake rows", async () => {
    const targets = ["/dev/stdout", "/proc/self/fd/1", "/proc/self/fd/3", "/proc/self/fd/4", "/proc/self/fd/5"];
    for (const sql of [...targets.map((target) => `VACUUM INTO '${target}'`), "ATTACH '/proc/self/fd/4' AS x"]) {
      const body = await verify(sqlAnswer(sql), { gold_sql: "SELECT 1" });
      assert.equal(body.reward, 0, sql);
    }
  });

  test("a value that looks like the harness's frame comes back as a value", async () => {
    const frame = `{"nonce": "0", "rows": [[["i", "1"]]]}\n`;
    const sql = `SELECT '${frame}' || char(10) || '{"rows": []}'`;
    assert.equal((await verify(sqlAnswer(sql), { gold_result: [[[`${frame}\n{"rows": []}`]]] })).reward, 1);
    assert.equal((await verify(sqlAnswer(sql), { gold_sql: "SELECT 1" })).reward, 0);
  });
});

test("a db_id whose database is not in the folder is a 501 naming the db_id and the folder", async () => {
  for (const db_id of ["IPL", "../sqlite/shop"]) {
    const answer = await post(sqlAnswer("SELECT 1"), { db_id, gold_sql: "SELECT 1" });
    assert.equal(answer.status, 501, answer.text);
    assert.ok(answer.text.includes(JSON.stringify(db_id).slice(1, -1)) && answer.text.includes(join(base, "sqlite")), answer.text);
  }
});

test("data/example.jsonl: valid run requests, each scoring 1.0 for a right query and 0.0 for a wrong one on the committed example database", async () => {
  const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
  assertRowsAreRunRequests(rows);
  const right: Record<string, string> = {
    shop001: "SELECT c.name, SUM(o.amount) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.id",
    shop002: "SELECT name FROM customers WHERE balance IS NULL",
    shop003: "SELECT id, amount FROM orders ORDER BY amount DESC",
    shop004: "SELECT SUM(quantity), COUNT(*) FROM orders",
    shop005: "SELECT name, city FROM customers WHERE balance > 50",
  };
  const examples = await startServers({ spider2_lite: [spider2, { spider2_lite_dir: join(import.meta.dirname, "../data/example_dbs"), databases_url: null }] });
  try {
    const calls = overHttp(examples.url("spider2_lite"), client);
    for (const row of rows) {
      for (const [sql, reward] of [[right[String(row.instance_id)]!, 1], ["SELECT 1", 0]] as const) {
        const answer = await calls.post("/verify", { ...row, response: responseWith([assistantMessage(sqlAnswer(sql))]) });
        assert.equal(answer.json<{ reward: number }>().reward, reward, `${row.instance_id}: ${sql}`);
      }
    }
  } finally {
    await examples.close();
  }
});
