// NeMo Gym's extract_sql_from_response (spider2_lite, text_to_sql), case by case.
import { test } from "node:test";
import assert from "node:assert/strict";
import { extractSql } from "../../src/ports/sql-extraction.ts";

test("the last ```sql block wins (any case), stripped", () => {
  assert.equal(extractSql("```sql\nSELECT 1\n```\n```SQL\n  SELECT 2  \n```"), "SELECT 2");
});

test("else the last generic block that starts with a statement keyword", () => {
  assert.equal(extractSql("```\nDROP TABLE t\n```\n```\nnot sql\n```"), "DROP TABLE t");
  assert.equal(extractSql("```\nnot sql\n```"), undefined);
});

test("else raw SQL from the first keyword to the last ; of the text, ending in exactly one ;", () => {
  assert.equal(extractSql("So: select a from t where b = ';' ;; and done"), "select a from t where b = ';' ;");
  assert.equal(extractSql("WITH x AS (SELECT 1) SELECT * FROM x"), "WITH x AS (SELECT 1) SELECT * FROM x;");
  assert.equal(extractSql("no query; here"), undefined);
  assert.equal(extractSql(""), undefined);
});
