// Reading the SQL query out of a model's answer, as NeMo Gym's spider2_lite and text_to_sql do (their
// extract_sql_from_response is the same function): the last ```sql block; else the last generic ``` block that
// starts with a statement keyword; else the raw text from the first statement keyword to the last `;`.
// Python's `re` semantics (its \s is Unicode whitespace) come from src/python/re.
import { compilePythonRegex } from "../python/re/index.ts";
import { pythonRstrip, pythonStrip } from "../python/str.ts";

const SQL_BLOCK = compilePythonRegex(String.raw`${"```"}sql\s*([\s\S]*?)\s*${"```"}`, { ignoreCase: true });
const GENERIC_BLOCK = compilePythonRegex(String.raw`${"```"}\s*([\s\S]*?)\s*${"```"}`);
const STARTS_AS_STATEMENT = compilePythonRegex(String.raw`^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)\s`, { ignoreCase: true });
const RAW_STATEMENT_START = compilePythonRegex(String.raw`(?:SELECT|INSERT|UPDATE|DELETE|WITH)\s`, { ignoreCase: true });

/** The SQL in `text`, or undefined when there is none (NeMo Gym's `None`). */
export function extractSql(text: string): string | undefined {
  if (!text) return undefined;
  const sqlBlocks = SQL_BLOCK.findall<string>(text);
  if (sqlBlocks.length > 0) return pythonStrip(sqlBlocks[sqlBlocks.length - 1]!);

  for (const block of GENERIC_BLOCK.findall<string>(text).reverse()) {
    const content = pythonStrip(block);
    if (STARTS_AS_STATEMENT.match(content)) return content;
  }

  // Greedy to the last `;` of the whole text: a `;` inside a string literal or a comment does not cut the query short.
  const start = RAW_STATEMENT_START.search(text);
  if (!start) return undefined;
  const lastSemicolon = text.lastIndexOf(";");
  const extracted = pythonStrip(lastSemicolon >= start.start ? text.slice(start.start, lastSemicolon + 1) : text.slice(start.start));
  return `${pythonRstrip(extracted, ";")};`;
}
