// The SQL in a model's answer, found as NeMo Gym's text_to_sql finds it (Python regex semantics throughout):
// 1. the last ```sql … ``` block (any case of "sql");
// 2. else the last plain ``` … ``` block whose content starts with a SQL keyword;
// 3. else raw SQL: from the first SELECT/INSERT/UPDATE/DELETE/WITH followed by whitespace to the LAST semicolon of
//    the text (greedy, so a ';' inside a string literal or a comment does not cut it), or to the end when no ';'
//    follows; ending in exactly one ';'.
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonRstrip, pythonStrip } from "../../src/python/str.ts";

const SQL_BLOCK = compilePythonRegex(String.raw`${"```"}sql\s*([\s\S]*?)\s*${"```"}`, { ignoreCase: true });
const ANY_BLOCK = compilePythonRegex(String.raw`${"```"}\s*([\s\S]*?)\s*${"```"}`);
const LOOKS_LIKE_SQL = compilePythonRegex(String.raw`^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)\s`, { ignoreCase: true });
const RAW_START = compilePythonRegex(String.raw`(?:SELECT|INSERT|UPDATE|DELETE|WITH)\s`, { ignoreCase: true });

export function extractSql(text: string): string | undefined {
  if (text === "") return undefined;
  const sqlBlocks = SQL_BLOCK.findall<string>(text);
  if (sqlBlocks.length > 0) return pythonStrip(sqlBlocks.at(-1)!);

  const blocks = ANY_BLOCK.findall<string>(text);
  for (const block of [...blocks].reverse()) {
    const content = pythonStrip(block);
    if (LOOKS_LIKE_SQL.match(content)) return content;
  }

  const start = RAW_START.search(text);
  if (start === undefined) return undefined;
  const lastSemicolon = text.lastIndexOf(";");
  const raw = pythonStrip(lastSemicolon >= start.start ? text.slice(start.start, lastSemicolon + 1) : text.slice(start.start));
  return `${pythonRstrip(raw, ";")};`;
}
