// Which tables an instance scores with. `tables: ours` (the default) reads a folder of CSVs (this project's own
// fictional company unless `tables_dir` says otherwise). `tables: nemo_gym` uses NeMo Gym's own tables, which its
// dataset rows are written for: fetched at start from `tables_base_url` (NeMo Gym's repository at the pinned
// commit) into `tables_dir`, every file checked against `tables_sha256`, before the server accepts a request.
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { PROJECT_ROOT, searchRoots } from "../../../src/config/index.ts";
import { resolveUnderRoots } from "../../../src/config/paths.ts";
import { fetchNemoGymTables, NEMO_GYM_COMMIT, NEMO_GYM_TABLES_BASE_URL, NEMO_GYM_TABLES_SHA256, TABLE_FILES, TablesFetchError } from "./nemo-gym-tables.ts";
import { loadTables, type WorkbenchTables } from "./tables-dir.ts";

export const OUR_TABLES_DIR = "resources_servers/workplace_assistant/data/tables";
/** Where NeMo Gym's tables are fetched to by default (ignored by git: they are NeMo Gym's files, not ours). */
export const NEMO_GYM_TABLES_DIR = "resources_servers/workplace_assistant/data/nemo_gym_tables";

const SHA256 = z.string().regex(/^[0-9a-fA-F]{64}$/, "a sha256 is 64 hex digits");

export const TablesConfigSchema = z
  .object({
    /** `ours` or `nemo_gym`. */
    tables: z.enum(["ours", "nemo_gym"]).default("ours"),
    /** The CSV folder (NeMo Gym's csv_data/ layout: processed/ + raw/); relative to cwd or the project. */
    tables_dir: z.string().optional(),
    /** `nemo_gym` only: where the files are fetched from (`<url>/processed/emails.csv`, …). */
    tables_base_url: z.url().optional(),
    /** `nemo_gym` only: sha256 of every file, keyed `processed/emails.csv`, …, `raw/email_addresses.csv`. */
    tables_sha256: z.record(z.string(), SHA256).optional(),
  })
  .superRefine((config, context) => {
    // A key that would change nothing is refused, never ignored.
    if (config.tables === "ours") {
      for (const key of ["tables_base_url", "tables_sha256"] as const) {
        if (config[key] !== undefined) context.addIssue({ code: "custom", path: [key], message: `${key} applies to tables: nemo_gym only (tables is ${config.tables})` });
      }
    }
    if (config.tables_sha256 !== undefined) {
      const given = Object.keys(config.tables_sha256);
      const missing = TABLE_FILES.filter((file) => !given.includes(file));
      const unknown = given.filter((file) => !TABLE_FILES.includes(file));
      if (missing.length > 0 || unknown.length > 0) {
        const problems = [missing.length > 0 ? `missing ${missing.join(", ")}` : "", unknown.length > 0 ? `unknown ${unknown.join(", ")}` : ""].filter(Boolean).join("; ");
        context.addIssue({ code: "custom", path: ["tables_sha256"], message: `needs one digest per file (${TABLE_FILES.join(", ")}): ${problems}` });
      }
    }
  });
export type TablesConfig = z.output<typeof TablesConfigSchema>;

/** The folder the tables are read from: an existing one under the search roots, else under the project root. */
export function tablesFolder(config: TablesConfig): string {
  const relative = config.tables_dir ?? (config.tables === "nemo_gym" ? NEMO_GYM_TABLES_DIR : OUR_TABLES_DIR);
  if (isAbsolute(relative)) return relative;
  const found = resolveUnderRoots(relative, searchRoots());
  return found.found ? found.path : join(PROJECT_ROOT, relative);
}

/** What the tables are, for messages: `tables: ours (<folder>)`. */
export function describeTables(config: TablesConfig): string {
  const pinned = config.tables === "nemo_gym" && config.tables_base_url === undefined ? ` at ${NEMO_GYM_COMMIT.slice(0, 9)}` : "";
  return `tables: ${config.tables}${pinned} (${tablesFolder(config)})`;
}

/** The tables, ready before the server starts: fetched and checked first for `nemo_gym`, parsed in both cases. */
export async function prepareTables(config: TablesConfig, onFetched?: (file: string, bytes: number) => void): Promise<WorkbenchTables> {
  const dir = tablesFolder(config);
  if (config.tables === "nemo_gym") {
    // Fetching there would only find this project's files, "not the expected" ones: refuse before that.
    if (resolve(dir) === join(PROJECT_ROOT, OUR_TABLES_DIR)) throw new TablesFetchError(`workplace_assistant tables: nemo_gym cannot use tables_dir ${dir}: it holds this project's own tables; drop tables_dir to use ${NEMO_GYM_TABLES_DIR}`);
    await fetchNemoGymTables({ dir, baseUrl: config.tables_base_url ?? NEMO_GYM_TABLES_BASE_URL, sha256: config.tables_sha256 ?? NEMO_GYM_TABLES_SHA256, onFetched });
  }
  return loadTables(dir);
}

/** The tables of a started instance (prepared at start, so this only reads the parse cache). */
export const tablesOf = (config: TablesConfig): WorkbenchTables => loadTables(tablesFolder(config));
