// Text-to-SQL scored by an LLM judge (NeMo Gym's text_to_sql): the SQL is taken from the model's answer, and a judge
// compares it with the row's `sql` given the dialect, the schema and the question — then again with the two queries
// exchanged (check_twice_swap, on by default), equal only if both verdicts say so.
import { z } from "zod";
import { judgeEndpoint, judgePromptFileProblem, RequestValidationError, resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { pythonLower, pythonStrip } from "../../src/python/str.ts";
import { extractSql } from "./extract-sql.ts";
import { judgeSqlOnce, loadSqlJudgePrompts, type JudgeEvaluation, type SqlJudge } from "./judge.ts";

const SERVER_DIR = import.meta.dirname;

/** NeMo Gym's dialects (more are a TODO there) and the spellings it maps onto them. */
const SUPPORTED_DIALECTS = ["mysql", "postgresql", "sqlite"];
const DIALECT_ALIASES: Record<string, string> = { postgres: "postgresql", pg: "postgresql", sqlite3: "sqlite" };

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()),
  judge_endpoint_max_concurrency: z.number().int().positive().nullable().default(64),
  /** NeMo Gym's default is its prompts.py's SQL_JUDGE_SYSTEM_MESSAGE (read from judge_prompts_fpath when unset). */
  judge_system_message: z.string().optional(),
  judge_equal_label: z.string().default("[[A=B]]"),
  judge_not_equal_label: z.string().default("[[A!=B]]"),
  check_twice_swap: z.boolean().default(true),
  reward_if_swap_fails: z.number().default(0),
  /**
   * This port's own key: the Python file whose SQL_JUDGE_SYSTEM_MESSAGE / SQL_JUDGE_PROMPT_TEMPLATE are the judge's
   * prompt (NeMo Gym imports them from its prompts.py, which is fetched here on first use).
   */
  judge_prompts_fpath: z
    .string()
    .default("prompts.py")
    .superRefine((path, context) => {
      const problem = judgePromptFileProblem(SERVER_DIR, path);
      if (problem) context.addIssue({ code: "custom", message: problem });
    }),
});

const VerifyInput = z.looseObject({
  uuid: z.union([z.string(), z.number().int()]).nullish(),
  sql: z.string(),
  sql_dialect: z.string(),
  sql_context: z.string().default(""),
  sql_prompt: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

/** NeMo Gym raises on an unknown dialect (a 500 there); here it is the caller's row, a 422 naming the field. */
function dialectOf(given: string): string {
  const normalized = given === "" ? "" : pythonLower(pythonStrip(given));
  const dialect = DIALECT_ALIASES[normalized] ?? normalized;
  const problem = dialect === "" ? "SQL dialect is required but was not provided" : SUPPORTED_DIALECTS.includes(dialect) ? undefined : `Unsupported SQL dialect '${dialect}'. Supported: ['mysql', 'postgresql', 'sqlite']`;
  if (problem) throw new RequestValidationError([{ type: "value_error", loc: ["body", "sql_dialect"], msg: problem, input: given }]);
  return dialect;
}

type FailureReason = "none" | "no_sql_extracted" | "judge_evaluation_failed" | "unknown_error";

export default resourcesServer({
  name: "TextToSqlResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyInput,
    async run(_state, body, { config, server }) {
      const dialect = dialectOf(body.sql_dialect);
      const task = { dialect, context: body.sql_context, question: body.sql_prompt };
      const generated = responseOutputText(body.response);
      const result = (reward: number, fields: { extracted: string | null; passed: boolean; failure: FailureReason; evaluations: JudgeEvaluation[] }) => ({
        reward,
        uuid: body.uuid ?? null,
        sql: body.sql,
        model_output: generated,
        extracted_sql: fields.extracted,
        sql_dialect: dialect,
        sql_context: body.sql_context,
        sql_prompt: body.sql_prompt,
        judge_passed: fields.passed,
        failure_reason: fields.failure,
        judge_evaluations: fields.evaluations,
        metadata: body.metadata ?? null,
      });
      if (generated === "") return result(0, { extracted: null, passed: false, failure: "no_sql_extracted", evaluations: [] });
      const extracted = extractSql(generated) ?? null;
      // An empty ```sql``` block extracts "" — no SQL, as NeMo Gym's falsy test has it, yet reported as "".
      if (!extracted) return result(0, { extracted, passed: false, failure: "no_sql_extracted", evaluations: [] });

      const prompts = await loadSqlJudgePrompts(SERVER_DIR, config.judge_prompts_fpath);
      const judge: SqlJudge = {
        caller: server,
        endpoint: judgeEndpoint(config),
        prompts,
        systemMessage: config.judge_system_message ?? prompts.systemMessage,
        labels: { equal: config.judge_equal_label, notEqual: config.judge_not_equal_label },
        row: body,
      };
      const evaluations: JudgeEvaluation[] = [];
      const first = await judgeSqlOnce(judge, task, body.sql, extracted);
      evaluations.push(first.evaluation);
      if (!first.equal) return result(0, { extracted, passed: false, failure: "judge_evaluation_failed", evaluations });
      if (!config.check_twice_swap) return result(1, { extracted, passed: true, failure: "none", evaluations });
      // Swap check: the same verdict with query A and query B exchanged, else positional bias.
      const swapped = await judgeSqlOnce(judge, task, extracted, body.sql);
      evaluations.push(swapped.evaluation);
      if (swapped.equal) return result(1, { extracted, passed: true, failure: "none", evaluations });
      return result(config.reward_if_swap_fails, { extracted, passed: false, failure: "judge_evaluation_failed", evaluations });
    },
  },
});
