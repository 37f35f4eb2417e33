// BIRD (dev split): the model's SQL (extract.ts) and the row's gt_sql both run on the row's database, each in a
// sandbox of its own, and the reward is BIRD's execution accuracy: the two result sets equal as sets (compare.ts).
// Metrics: pass@k and pass@1[avg-of-k] of `accuracy`, overall and per `difficulty`, as NeMo Gym computes them.
//
// NeMo Gym opens the database file itself, so a model's write would persist into it; here the file is opened
// read-only (and bound read-only), so a write is an error and scores 0. A database that is absent is a 501 naming
// db_id and folder; a gt_sql that fails or runs past the limit is a 500 / 504 (NeMo Gym: reward 0 with
// `gold_execution_error`), and an unexpected failure is an error answer rather than `unknown_error` with 0.
import { join } from "node:path";
import { z } from "zod";
import { responseOutputText } from "../../src/protocol/index.ts";
import { HttpError, resourcesServer } from "../../src/server/index.ts";
import { computePassMajorityMetrics, computeSubsetMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { databaseFile, fetchArchive, hasDatabases, resolveConfiguredDir, SqlInstances, unzip, type QueryOutcome, type SqlRow } from "../../src/sql/index.ts";
import { extractBirdSql, hasSqlCodeblock } from "./extract.ts";
import { resultSetsMatch } from "./compare.ts";

/** NeMo Gym's source: BIRD's official dev.zip (dev.json + a nested dev_databases.zip); no digest is published. */
const BIRD_DEV_URL = "https://bird-bench.oss-cn-beijing.aliyuncs.com/dev.zip";
const DEV_DIR = "dev_20240627";

const Config = z.looseObject({
  bird_sql_dir: z.string().default("resources_servers/bird_sql/.bird_sql"),
  max_concurrency: z.number().int().positive().default(32),
  sql_execution_timeout_s: z.number().positive().default(30),
  // Ours: where the first start downloads dev.zip from (null: never; rows then answer 501), and its sha256.
  databases_url: z.string().nullable().default(BIRD_DEV_URL),
  databases_sha256: z.string().nullable().default(null),
});
type Config = z.output<typeof Config>;

const Row = z.looseObject({
  question: z.string(),
  gt_sql: z.string(),
  db_id: z.string(),
  difficulty: z.string().nullish(),
  id: z.number().int().nullish(),
});

const NOT_ECHOED = new Set(["responses_create_params", "response", "question", "gt_sql", "db_id", "difficulty", "id"]);

const databasesFolder = (config: Config) => join(resolveConfiguredDir(config.bird_sql_dir), DEV_DIR, "dev_databases");
const instances = new SqlInstances();

async function downloadDatabases(config: Config): Promise<void> {
  const base = resolveConfiguredDir(config.bird_sql_dir);
  const archive = await fetchArchive({ url: config.databases_url!, sha256: config.databases_sha256, archivePath: join(base, "dev.zip") });
  await unzip(archive, base);
  await unzip(join(base, DEV_DIR, "dev_databases.zip"), join(base, DEV_DIR));
}

const accuracy = (rollout: VerifyRecord) => ({ accuracy: Number(rollout.reward ?? 0) > 0 ? 1 : 0 });

export default resourcesServer({
  name: "BirdSqlResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: Row,
    async run(_state, row, { config, server, signal }) {
      const database = databaseFile(databasesFolder(config), row.db_id, (dbId) => `${dbId}/${dbId}.sqlite`);
      const generated = responseOutputText(row.response) ?? "";
      const extractedSql = extractBirdSql(generated);
      const hadCodeblock = hasSqlCodeblock(generated);
      const sandbox = instances.of(server);
      const query = (sql: string) => sandbox.query(database, sql, { copyToMemory: false, textErrors: "ignore" }, signal);

      const gold = goldRows(await query(row.gt_sql), row.db_id);
      const predicted = await query(extractedSql);
      const executionMatch = predicted.kind === "rows" && resultSetsMatch(gold, predicted.rows);
      return {
        reward: executionMatch ? 1 : 0,
        question: row.question,
        gt_sql: row.gt_sql,
        db_id: row.db_id,
        difficulty: row.difficulty ?? null,
        id: row.id ?? null,
        model_output: generated,
        extracted_sql: extractedSql,
        had_codeblock: hadCodeblock,
        execution_match: executionMatch,
        failure_reason: executionMatch ? "none" : hadCodeblock ? "execution_error" : "no_sql_extracted",
        ...Object.fromEntries(Object.entries(row).filter(([key]) => !NOT_ECHOED.has(key))),
      };
    },
  },
  // verify reads nothing but the request and the read-only databases.
  reverifyMode: "stateless",
  computeMetrics(tasks) {
    const metrics = passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: accuracy, answerKey: "extracted_sql" }));
    return { ...metrics, ...computeSubsetMetrics(tasks, "difficulty", { scoreFn: accuracy, answerKey: "extracted_sql" }) };
  },
  keyMetrics(agentMetrics) {
    const key: Record<string, unknown> = {};
    for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
    Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]", { scoreNames: ["accuracy"] }));
    Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { scoreNames: ["accuracy"] }));
    const subsets = new Set(Object.keys(agentMetrics).filter((name) => name.includes("/pass@") && /^\p{Ll}/u.test(name)).map((name) => name.split("/pass@")[0]!));
    for (const subset of subsets) Object.assign(key, highestKMetrics(agentMetrics, `${subset}/pass@1[avg-of-{k}]`, { scoreNames: ["accuracy"] }));
    return key;
  },
  routes: (scope, server) =>
    instances.start(scope, server, {
      databaseDir: databasesFolder(server.config),
      present: () => hasDatabases(databasesFolder(server.config), 1),
      download: server.config.databases_url ? () => downloadDatabases(server.config) : undefined,
      maxConcurrent: server.config.max_concurrency,
      timeoutMs: server.config.sql_execution_timeout_s * 1000,
    }),
});

function goldRows(outcome: QueryOutcome, dbId: string): SqlRow[] {
  if (outcome.kind === "rows") return outcome.rows;
  if (outcome.reason === "timeout") throw new HttpError(504, `gt_sql on ${dbId} ran past sql_execution_timeout_s: ${outcome.detail}`);
  throw new HttpError(500, `gt_sql fails on ${dbId}: ${outcome.detail}`);
}
