// Spider 2.0-Lite (its local SQLite subset): the model's SQL runs on the row's database, in a sandbox, and its rows
// must match the gold result — the rows of `gold_sql` run the same way, else the row's precomputed `gold_result`
// sets (any one matching). The comparison is compare.ts; SQL extraction is src/ports/sql-extraction.ts.
//
// Like NeMo Gym, each statement runs on an in-memory copy of the database, so a write changes the copy only (and
// the file is read-only besides). Unlike it: a database that is absent is a 501 naming db_id and folder (NeMo
// Gym's sqlite3.connect would create an empty file and score 0), and a gold_sql that fails or runs past the time
// limit is a 500 / 504, never a reward of 0 for the model.
import { join } from "node:path";
import { z } from "zod";
import { responseOutputText } from "../../src/protocol/index.ts";
import { HttpError, resourcesServer } from "../../src/server/index.ts";
import { extractSql } from "../../src/ports/sql-extraction.ts";
import { fromJsonValue } from "../../src/python/values.ts";
import { databaseFile, fetchArchive, hasDatabases, resolveConfiguredDir, SqlInstances, unzip, type QueryOutcome, type SqlRow } from "../../src/sql/index.ts";
import { compareMultiResultSets } from "./compare.ts";

/** NeMo Gym's source: one public Google Drive zip of the .sqlite files (≈500 MB); no digest is published. */
const GOOGLE_DRIVE_URL = "https://drive.usercontent.google.com/download?id=1coEVsCZq-Xvj9p2TnhBFoFTsY-UoYGmG&export=download&authuser=0&confirm=t";

const Config = z.looseObject({
  spider2_lite_dir: z.string().default("resources_servers/spider2_lite/.spider2_lite"),
  max_concurrency: z.number().int().positive().default(32),
  sql_execution_timeout_s: z.number().positive().default(30),
  // Ours: where the first start downloads the databases from (null: never; rows then answer 501), and its sha256.
  databases_url: z.string().nullable().default(GOOGLE_DRIVE_URL),
  databases_sha256: z.string().nullable().default(null),
});
type Config = z.output<typeof Config>;

const Row = z.looseObject({
  uuid: z.union([z.string(), z.number().int()]).nullish(),
  instance_id: z.string().nullish(),
  db_id: z.string(),
  question: z.string(),
  gold_sql: z.string().nullish(),
  gold_result: z.array(z.array(z.array(z.unknown()))).nullish(),
  ignore_order: z.boolean().default(true),
  condition_cols: z.array(z.unknown()).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

/** The request fields the response does not carry on (NeMo Gym pops them from its dump). */
const NOT_ECHOED = new Set(["responses_create_params", "response", "db_id", "question", "gold_sql", "gold_result", "ignore_order", "condition_cols", "uuid", "instance_id", "metadata"]);

const sqliteFolder = (config: Config) => join(resolveConfiguredDir(config.spider2_lite_dir), "sqlite");
const instances = new SqlInstances();

async function downloadDatabases(config: Config): Promise<void> {
  const base = resolveConfiguredDir(config.spider2_lite_dir);
  const archive = await fetchArchive({ url: config.databases_url!, sha256: config.databases_sha256, archivePath: join(base, "spider2_lite_sqlite.zip") });
  // Only the .sqlite files, flat, as NeMo Gym extracts them.
  await unzip(archive, join(base, "sqlite"), { include: (name) => name.endsWith(".sqlite"), flatten: true });
}

export default resourcesServer({
  name: "Spider2LiteResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: Row,
    async run(_state, row, { config, server, signal }) {
      const folder = sqliteFolder(config);
      const database = databaseFile(folder, row.db_id, (dbId) => `${dbId}.sqlite`);
      const generated = responseOutputText(row.response) ?? "";
      const extras = Object.fromEntries(Object.entries(row).filter(([key]) => !NOT_ECHOED.has(key)));
      const answer = (extractedSql: string | null, executionMatch: boolean, failureReason: string) => ({
        reward: executionMatch ? 1 : 0,
        uuid: row.uuid ?? null,
        instance_id: row.instance_id ?? null,
        db_id: row.db_id,
        question: row.question,
        model_output: generated,
        extracted_sql: extractedSql,
        execution_match: executionMatch,
        failure_reason: failureReason,
        gold_sql: row.gold_sql ?? null,
        metadata: row.metadata ?? null,
        ...extras,
      });

      const extracted = generated ? extractSql(generated) : undefined;
      if (extracted === undefined) return answer(null, false, "no_sql_extracted");

      const sandbox = instances.of(server);
      const query = (sql: string) => sandbox.query(database, sql, { copyToMemory: true, textErrors: "strict" }, signal);
      let goldSets: SqlRow[][];
      if (row.gold_sql) {
        goldSets = [goldRows(await query(row.gold_sql), row.db_id)];
      } else if (row.gold_result && row.gold_result.length > 0) {
        goldSets = row.gold_result.map((set) => set.map((goldRow) => goldRow.map(fromJsonValue)));
      } else {
        throw new HttpError(500, "verifier_metadata must contain either 'gold_sql' or 'gold_result'");
      }
      const predicted = await query(extracted);
      if (predicted.kind === "failed") return answer(extracted, false, "execution_error");
      const match = compareMultiResultSets(goldSets, predicted.rows, row.gold_sql ? (row.condition_cols ?? []) : row.condition_cols, row.ignore_order);
      return answer(extracted, match, match ? "none" : "execution_error");
    },
  },
  reverifyMode: "unknown",
  routes: (scope, server) =>
    instances.start(scope, server, {
      databaseDir: sqliteFolder(server.config),
      present: () => hasDatabases(sqliteFolder(server.config), 0),
      download: server.config.databases_url ? () => downloadDatabases(server.config) : undefined,
      maxConcurrent: server.config.max_concurrency,
      timeoutMs: server.config.sql_execution_timeout_s * 1000,
    }),
});

/** The gold rows, or why there are none: the dataset's gold_sql failing is the environment's fault, not the model's. */
function goldRows(outcome: QueryOutcome, dbId: string): SqlRow[] {
  if (outcome.kind === "rows") return outcome.rows;
  if (outcome.reason === "timeout") throw new HttpError(504, `gold_sql on ${dbId} ran past sql_execution_timeout_s: ${outcome.detail}`);
  throw new HttpError(500, `gold_sql fails on ${dbId}: ${outcome.detail}`);
}
