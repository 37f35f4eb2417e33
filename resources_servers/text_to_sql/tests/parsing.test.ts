// text_to_sql's reading rules, one by one: the SQL taken from the model's answer (each expected value is what NeMo
// Gym's extract_sql_from_response returns for that text, run on Python 3), and the verdict read from ALL the judge's
// assistant text — unlike equivalence_llm_judge, which reads only the last part.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assistantMessage, responseWith } from "../../../src/testing/index.ts";
import type { NeMoGymResponse } from "../../../src/protocol/index.ts";
import { extractSql } from "../extract-sql.ts";
import { judgeAnswerText, sqlJudgeInput, sqlVerdict } from "../judge.ts";

/** [model answer, the SQL NeMo Gym extracts (undefined: none)]. */
const EXTRACTIONS: [string, string | undefined][] = [
  ["Here:\n```sql\nSELECT 1;\n```", "SELECT 1;"],
  ["```SQL\nselect a from t\n```", "select a from t"],
  ["```\nSELECT a FROM t;\n```", "SELECT a FROM t;"],
  ["```python\nprint(1)\n```\nand ```\nnot sql\n```", undefined],
  ["```\nSELECT 1;\n```\nthen ```\nprint()\n```", "SELECT 1;"],
  ["The query is SELECT name FROM users;", "SELECT name FROM users;"],
  ["WITH t AS (SELECT 1) SELECT * FROM t;", "WITH t AS (SELECT 1) SELECT * FROM t;"],
  ["No SQL here.", undefined],
  ["", undefined],
  ["```sql\nSELECT 1;\n```\n```sql\nSELECT 2;\n```", "SELECT 2;"],
  ["SELECT INSTR(text, ';') FROM t; -- done", "SELECT INSTR(text, ';') FROM t;"],
  ["SELECT a FROM t -- convert to number;\n WHERE b > 1;", "SELECT a FROM t -- convert to number;\n WHERE b > 1;"],
  ["SELECT a FROM t", "SELECT a FROM t;"],
  ["SELECT a FROM t;;;", "SELECT a FROM t;"],
  ["SELECTED items are none", undefined],
  ["Try select name from users; it works", "select name from users;"],
  ["a ; then SELECT x FROM y", "SELECT x FROM y;"],
  ["```\n  DELETE FROM t WHERE id=1\n```", "DELETE FROM t WHERE id=1"],
  ["```sql```", ""],
  ["```\nselect\tx\n```", "select\tx"],
  ["\u017felect x from y;", "\u017felect x from y;"]
];

describe("the SQL in the model's answer", () => {
  const names = [
    "a ```sql block", "the block's language tag in any case", "a plain block holding SQL", "plain blocks without SQL, and no raw SQL", "the last plain block that holds SQL",
    "raw SQL up to the semicolon", "raw SQL starting with WITH", "no SQL", "empty text", "the LAST ```sql block",
    "a ';' inside a string literal: up to the LAST ';' of the text", "a ';' inside a comment does not cut the query", "no ';': to the end, and one ';' added", "several trailing ';' become one",
    "a keyword must be followed by whitespace", "lowercase raw SQL", "a ';' before the keyword is not an end", "a plain block starting with DELETE", "an empty ```sql block extracts ''", "a tab after the keyword is whitespace",
    "Python's IGNORECASE: 'ſ' (long s) matches 's'",
  ];
  EXTRACTIONS.forEach(([text, expected], index) => {
    test(names[index] ?? JSON.stringify(text), () => assert.equal(extractSql(text), expected));
  });
});

const answer = (output: unknown[]) => responseWith(output as never) as unknown as NeMoGymResponse;
const labels = { equal: "[[A=B]]", notEqual: "[[A!=B]]" };

describe("the verdict in the judge's answer", () => {
  const cases: [string, NeMoGymResponse, boolean, string | null][] = [
    ["the equal label", answer([assistantMessage("Same rows. [[A=B]]")]), true, "[[A=B]]"],
    ["the not-equal label", answer([assistantMessage("Different filter. [[A!=B]]")]), false, "[[A!=B]]"],
    ["missing verdict", answer([assistantMessage("I think they match.")]), false, null],
    ["several verdicts: the first wins", answer([assistantMessage("[[A!=B]] no wait [[A=B]]")]), false, "[[A!=B]]"],
    ["a verdict in a code block", answer([assistantMessage("```\n[[A=B]]\n```")]), true, "[[A=B]]"],
    ["lowercase is no verdict", answer([assistantMessage("[[a=b]]")]), false, null],
    ["extra whitespace inside the brackets is no verdict", answer([assistantMessage("[[A = B]]")]), false, null],
    ["every message is read, not only the last", answer([assistantMessage("[[A=B]]"), assistantMessage("done")]), true, "[[A=B]]"],
    ["and every part of a message", answer([assistantMessage("analysis", "[[A!=B]]")]), false, "[[A!=B]]"],
    ["reasoning items are not read", answer([{ id: "rs", type: "reasoning", summary: [{ type: "summary_text", text: "[[A=B]]" }] }, assistantMessage("no label")]), false, null],
    ["an empty answer", answer([]), false, null],
  ];
  for (const [name, response, equal, label] of cases) test(name, () => assert.deepEqual(sqlVerdict(response, labels), { equal, label }));

  test("the text read: parts stripped, blank parts dropped, joined by newlines within and across messages", () => {
    assert.equal(judgeAnswerText(answer([assistantMessage("  a ", "   ", "b"), assistantMessage("\n"), assistantMessage("c")])), "a\nb\nc");
  });
});

describe("the judge's prompt", () => {
  const prompts = { systemMessage: "sys", template: "{sql_dialect}|{sql_context}|{sql_prompt}|A={first_answer}|B={second_answer}" };
  test("placeholders by str.format; the system message first unless empty", () => {
    const task = { dialect: "sqlite", context: "CREATE TABLE t (x);  -- {braces} stay", question: "q?" };
    assert.deepEqual(sqlJudgeInput({ prompts, systemMessage: "sys" }, task, "SELECT 1;", "SELECT 2;"), [
      { role: "system", content: "sys" },
      { role: "user", content: "sqlite|CREATE TABLE t (x);  -- {braces} stay|q?|A=SELECT 1;|B=SELECT 2;" },
    ]);
    assert.deepEqual(sqlJudgeInput({ prompts, systemMessage: "" }, task, "a", "b").map((m) => m.role), ["user"]);
  });
});
