// BIRD's SQL extraction (NeMo Gym's CODEBLOCK mode): the last ```sql block holding a letter, comments stripped
// (re.DOTALL without MULTILINE: a `--` comment eats to the end of the block), whitespace collapsed, a leading
// **bold** header dropped. No block at all: the filler `SELECT 1`, which runs but matches almost no gold.
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonStrip } from "../../src/python/str.ts";

export const NO_ANSWER_FILLER = "SELECT 1";

const SQL_BLOCK = compilePythonRegex(String.raw`(?:${"```"}sql)(.*?[a-zA-Z].*?)(?:${"```"})`, { dotAll: true });
const COMMENT = compilePythonRegex(String.raw`--.*?$|/\*.*?\*/`, { dotAll: true });
const WHITESPACE = compilePythonRegex(String.raw`\s+`);
const BOLD_HEADER = compilePythonRegex(String.raw`^\*\*.*\*\*`);

export const hasSqlCodeblock = (text: string): boolean => text !== "" && SQL_BLOCK.search(text) !== undefined;

export function extractBirdSql(text: string): string {
  if (!text) return NO_ANSWER_FILLER;
  const blocks = SQL_BLOCK.findall<string>(text);
  if (blocks.length === 0) return NO_ANSWER_FILLER;
  let sql = COMMENT.sub("", blocks[blocks.length - 1]!);
  sql = WHITESPACE.sub(" ", sql);
  return pythonStrip(BOLD_HEADER.sub("", sql));
}
