// text_to_sql over real HTTP, with scripted_model in judge_rules mode as the judge and this project's own prompts
// file (prompt_templates/example_prompts.py, the shape of NeMo Gym's prompts.py): the swap check and its failure
// reward, a single pass, no SQL (no judge asked), the dialects, NeMo Gym's response fields, a failing judge giving the
// judge_failed row, and the config checks.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkInstanceConfig } from "../../../src/server/index.ts";
import { assertRowsAreRunRequests, assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers, testConfig } from "../../../src/testing/index.ts";
import textToSql from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const PROMPTS = join(import.meta.dirname, "../prompt_templates/example_prompts.py");
const SYSTEM = "You compare two SQL queries. Decide whether both answer the question the same way on the given schema.\nEnd with [[A=B]] if they are equivalent, [[A!=B]] if they are not.";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const rule = (a: string, b: string, answer: string) => ({ match: `Query A:\\n${escape(a)}\\nQuery B:\\n${escape(b)}$`, answer });
const GOLD = "SELECT title FROM books WHERE year < 1970;";
const judgeRules = [
  rule(GOLD, "SELECT title FROM books WHERE year <= 1969;", "Same rows on integer years. [[A=B]]"),
  rule("SELECT title FROM books WHERE year <= 1969;", GOLD, "Still the same. [[A=B]]"),
  rule(GOLD, "SELECT b.title FROM books b WHERE b.year < 1970;", "[[A=B]]"),
  rule("SELECT b.title FROM books b WHERE b.year < 1970;", GOLD, "Hmm, [[A!=B]]"),
  rule(GOLD, "SELECT title FROM books;", "No filter. [[A!=B]]"),
  rule(GOLD, "SELECT title FROM books WHERE year > 1970;", "Looks fine to me."),
];

const judgeRef = { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [] } };
let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    sql: [textToSql, { ...judgeRef, judge_prompts_fpath: PROMPTS, judge_endpoint_max_concurrency: null }],
    strict: [textToSql, { ...judgeRef, judge_prompts_fpath: PROMPTS, reward_if_swap_fails: -1, judge_system_message: "Grade SQL." }],
    single: [textToSql, { ...judgeRef, judge_prompts_fpath: PROMPTS, check_twice_swap: false, judge_system_message: "" }],
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: judgeRules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const books = (fields: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "<DIALECT>sqlite</DIALECT> List the titles of books published before 1970." }] },
  sql: GOLD,
  sql_dialect: "sqlite",
  sql_context: "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER);",
  sql_prompt: "List the titles of books published before 1970.",
  ...fields,
});
const post = (server: string, row: Record<string, unknown>, texts: string[]) =>
  client.request(`${graph.url(server)}/verify`, { method: "POST", json: { ...row, response: responseWith(texts.map((text) => assistantMessage(text))) } });
async function verify(server: string, text: string | string[], fields: Record<string, unknown> = {}) {
  const answer = await post(server, books(fields), [text].flat());
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}
const sqlBlock = (sql: string) => `Here it is:\n\`\`\`sql\n${sql}\n\`\`\``;
const asked = (body: Record<string, any>) => body.judge_evaluations.map((e: any) => e.responses_create_params.input.map((m: any) => m.content));

describe("the swap check (on by default)", () => {
  test("equal in both orders: reward 1.0, judge_passed, failure_reason none; NeMo Gym's fields in order", async () => {
    const body = await verify("sql", sqlBlock("SELECT title FROM books WHERE year <= 1969;"), { uuid: "u-1", metadata: { source: "test" }, extra_field: "dropped" });
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "uuid", "sql", "model_output", "extracted_sql", "sql_dialect", "sql_context", "sql_prompt", "judge_passed", "failure_reason", "judge_evaluations", "metadata"]);
    assert.deepEqual([body.reward, body.judge_passed, body.failure_reason, body.uuid, body.metadata], [1, true, "none", "u-1", { source: "test" }]);
    assert.equal(body.extracted_sql, "SELECT title FROM books WHERE year <= 1969;");
    assert.equal(body.model_output, sqlBlock("SELECT title FROM books WHERE year <= 1969;"));
    assert.deepEqual(body.judge_evaluations.map((e: any) => e.verdict_label), ["[[A=B]]", "[[A=B]]"]);
    const [first, second] = asked(body);
    assert.equal(first[0], SYSTEM, "the prompts file's system message by default");
    assert.equal(first[1], `Dialect: sqlite\nSchema:\nCREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER);\nQuestion: List the titles of books published before 1970.\nQuery A:\n${GOLD}\nQuery B:\nSELECT title FROM books WHERE year <= 1969;`);
    assert.match(second[1], /Query A:\nSELECT title FROM books WHERE year <= 1969;\nQuery B:\nSELECT title FROM books WHERE year < 1970;$/, "the second pass exchanges A and B");
  });

  test("equal, then not equal exchanged: reward_if_swap_fails, judge_evaluation_failed", async () => {
    const body = await verify("strict", sqlBlock("SELECT b.title FROM books b WHERE b.year < 1970;"));
    assert.deepEqual([body.reward, body.judge_passed, body.failure_reason, body.judge_evaluations.length], [-1, false, "judge_evaluation_failed", 2]);
    assert.equal(asked(body)[0][0], "Grade SQL.", "a configured system message replaces the prompts file's");
    assert.deepEqual([(await verify("sql", sqlBlock("SELECT b.title FROM books b WHERE b.year < 1970;"))).reward], [0], "the default reward_if_swap_fails is 0.0");
  });

  test("not equal first: 0.0, one evaluation", async () => {
    const body = await verify("sql", "SELECT title FROM books;");
    assert.deepEqual([body.reward, body.failure_reason, body.extracted_sql, body.judge_evaluations.length], [0, "judge_evaluation_failed", "SELECT title FROM books;", 1]);
  });

  test("a judge answer without a verdict: 0.0, verdict_label null (scored, not a failure)", async () => {
    const body = await verify("sql", "SELECT title FROM books WHERE year > 1970;");
    assert.deepEqual([body.reward, body.judge_evaluations[0].verdict_label, body._ng_failure_class], [0, null, undefined]);
  });
});

describe("one pass (check_twice_swap off), no system message (empty)", () => {
  test("equal once is reward 1.0; only the user prompt is sent", async () => {
    const body = await verify("single", sqlBlock("SELECT b.title FROM books b WHERE b.year < 1970;"));
    assert.deepEqual([body.reward, body.judge_passed, body.judge_evaluations.length, asked(body)[0].length], [1, true, 1, 1]);
  });
});

describe("rows the judge never sees", () => {
  test("no SQL in the answer: no_sql_extracted, no judge call", async () => {
    const body = await verify("sql", "I would rather not write SQL.");
    assert.deepEqual([body.reward, body.failure_reason, body.extracted_sql, body.judge_evaluations, body.judge_passed], [0, "no_sql_extracted", null, [], false]);
  });

  test("an empty answer: model_output '', no_sql_extracted", async () => {
    const body = await verify("sql", []);
    assert.deepEqual([body.model_output, body.failure_reason, body.uuid, body.metadata], ["", "no_sql_extracted", null, null]);
  });

  test("an empty ```sql``` block: extracted_sql '' and no_sql_extracted", async () => {
    const body = await verify("sql", "```sql```");
    assert.deepEqual([body.extracted_sql, body.failure_reason], ["", "no_sql_extracted"]);
  });
});

describe("dialects and bad rows", () => {
  test("aliases and case are normalised in the response (' Postgres ' → postgresql, SQLITE3 → sqlite)", async () => {
    assert.equal((await verify("sql", "no sql", { sql_dialect: " Postgres " })).sql_dialect, "postgresql");
    assert.equal((await verify("sql", "no sql", { sql_dialect: "SQLITE3" })).sql_dialect, "sqlite");
  });

  test("an unsupported or empty dialect is a 422 naming sql_dialect", async () => {
    for (const [dialect, message] of [["oracle", /Unsupported SQL dialect 'oracle'/], ["", /SQL dialect is required/]] as const) {
      const answer = await post("sql", books({ sql_dialect: dialect }), ["SELECT 1;"]);
      assert.equal(answer.status, 422, answer.text);
      assert.match(answer.text, /sql_dialect/);
      assert.match(answer.text, message);
    }
  });

  test("a missing sql, sql_dialect or sql_prompt is a 422 naming it; sql_context defaults to ''", async () => {
    for (const field of ["sql", "sql_dialect", "sql_prompt"]) {
      const row: Record<string, unknown> = books();
      delete row[field];
      const answer = await post("sql", row, ["SELECT 1;"]);
      assert.equal(answer.status, 422, answer.text);
      assert.match(answer.text, new RegExp(field));
    }
    const row: Record<string, unknown> = books();
    delete row.sql_context;
    const answer = await post("sql", row, ["no sql"]);
    assert.equal(answer.json<Record<string, unknown>>().sql_context, "");
  });

  test("a judge call that fails (no rule answers: a 404) is NeMo Gym's judge_failed row, not a reward", async () => {
    const answer = await post("sql", books(), ["SELECT isbn FROM books;"]);
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.deepEqual([body._ng_failure_class, body.reward, body.sql], ["judge_failed", 0, GOLD]);
    assert.match(body._ng_failure_judge_error, /answered 404/);
  });
});

describe("config", () => {
  const check = (fields: Record<string, unknown>) => {
    const { config } = testConfig({ env: [textToSql, { ...judgeRef, ...fields }] });
    return checkInstanceConfig(textToSql, "env", (config.env as any).resources_servers.test, config);
  };
  test("NeMo Gym's defaults: swap on, reward_if_swap_fails 0.0, the bracket labels, its prompts.py (fetched on first use)", () => {
    const { config } = check({});
    assert.deepEqual([config.check_twice_swap, config.reward_if_swap_fails, config.judge_equal_label, config.judge_not_equal_label, config.judge_prompts_fpath, config.judge_system_message], [true, 0, "[[A=B]]", "[[A!=B]]", "prompts.py", undefined]);
  });
  test("a prompts file that is neither there nor NeMo Gym's fails the start naming it", () => {
    assert.throws(() => check({ judge_prompts_fpath: "nope.py" }), /judge_prompts_fpath[\s\S]*no such file/);
  });
});

test("data/example.jsonl: 5 run requests with sql, a supported dialect, sql_context and sql_prompt", () => {
  const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  for (const row of rows) {
    assert.ok(["mysql", "postgresql", "sqlite"].includes(row.sql_dialect));
    for (const field of ["sql", "sql_context", "sql_prompt"]) assert.equal(typeof row[field], "string");
  }
});
