// text_to_sql's judge: NeMo Gym's SQL judge prompt (its prompts.py, read as literals, never run), the verdict read
// from ALL the assistant text of the answer, and the judge call through the one judge path.
import type { NeMoGymResponse, ResponseCreateParams } from "../../src/protocol/index.ts";
import { askJudge, HttpError, readJudgePromptFile, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { PythonLiteralError, readPythonConstants } from "../../src/python/literal.ts";

export interface SqlJudgePrompts {
  systemMessage: string;
  template: string;
}

/** SQL_JUDGE_SYSTEM_MESSAGE and SQL_JUDGE_PROMPT_TEMPLATE of a prompts.py (NeMo Gym's, fetched on first use, or another). */
export async function loadSqlJudgePrompts(serverDir: string, path: string): Promise<SqlJudgePrompts> {
  const source = await readJudgePromptFile(serverDir, path);
  let constants;
  try {
    constants = readPythonConstants(source, ["SQL_JUDGE_SYSTEM_MESSAGE", "SQL_JUDGE_PROMPT_TEMPLATE"]);
  } catch (error) {
    if (error instanceof PythonLiteralError) throw new HttpError(501, `text_to_sql: ${path}: ${error.message}`);
    throw error;
  }
  const { SQL_JUDGE_SYSTEM_MESSAGE: systemMessage, SQL_JUDGE_PROMPT_TEMPLATE: template } = constants;
  if (typeof systemMessage !== "string" || typeof template !== "string") throw new HttpError(501, `text_to_sql: ${path} must assign SQL_JUDGE_SYSTEM_MESSAGE and SQL_JUDGE_PROMPT_TEMPLATE strings`);
  return { systemMessage, template };
}

export interface Labels {
  equal: string;
  notEqual: string;
}

/**
 * All the judge's assistant text: every message item (role assistant or none), each text part stripped and the
 * blank ones dropped, parts and messages joined by newlines.
 */
export function judgeAnswerText(response: NeMoGymResponse): string {
  const texts: string[] = [];
  for (const item of response.output as readonly { type?: unknown; role?: unknown; content?: unknown }[]) {
    if (item.type !== "message") continue;
    if (item.role !== undefined && item.role !== null && item.role !== "assistant") continue;
    if (Array.isArray(item.content)) {
      const parts = item.content.flatMap((part: { text?: unknown }) => (typeof part?.text === "string" && pythonStrip(part.text) !== "" ? [pythonStrip(part.text)] : []));
      if (parts.length > 0) texts.push(parts.join("\n"));
    } else if (typeof item.content === "string" && pythonStrip(item.content) !== "") {
      texts.push(pythonStrip(item.content));
    }
  }
  return pythonStrip(texts.join("\n"));
}

/** The first label in that text decides; neither is "not equal" with no label. */
export function sqlVerdict(response: NeMoGymResponse, labels: Labels): { equal: boolean; label: string | null } {
  const text = judgeAnswerText(response);
  if (text === "") return { equal: false, label: null };
  const equalAt = text.indexOf(labels.equal);
  const notEqualAt = text.indexOf(labels.notEqual);
  if (equalAt >= 0 && (notEqualAt < 0 || equalAt < notEqualAt)) return { equal: true, label: labels.equal };
  if (notEqualAt >= 0) return { equal: false, label: labels.notEqual };
  return { equal: false, label: null };
}

export interface JudgeEvaluation {
  responses_create_params: ResponseCreateParams;
  response: NeMoGymResponse;
  verdict_label: string | null;
}

export interface SqlJudge {
  caller: JudgeCaller;
  endpoint: JudgeEndpoint;
  prompts: SqlJudgePrompts;
  /** The configured system message (NeMo Gym's default: the prompts' own); none when empty. */
  systemMessage: string;
  labels: Labels;
  row: Record<string, unknown>;
}

export interface SqlTask {
  dialect: string;
  context: string;
  question: string;
}

export function sqlJudgeInput(judge: Pick<SqlJudge, "prompts" | "systemMessage">, task: SqlTask, first: string, second: string) {
  const prompt = pythonFormat(judge.prompts.template, [], { sql_prompt: task.question, sql_context: task.context, first_answer: first, second_answer: second, sql_dialect: task.dialect });
  return [...(judge.systemMessage ? [{ role: "system" as const, content: judge.systemMessage }] : []), { role: "user" as const, content: prompt }];
}

/** One judge pass with query A = `first`, query B = `second`; a failed call is a JudgeError (the judge_failed row). */
export async function judgeSqlOnce(judge: SqlJudge, task: SqlTask, first: string, second: string): Promise<{ equal: boolean; evaluation: JudgeEvaluation }> {
  const { params, response } = await askJudge(judge.caller, judge.endpoint, sqlJudgeInput(judge, task, first, second), { row: judge.row });
  const verdict = sqlVerdict(response, judge.labels);
  return { equal: verdict.equal, evaluation: { responses_create_params: params, response, verdict_label: verdict.label } };
}
