// NeMo Gym's own WorkBench tables, fetched at run time from its public repository (never committed here): the six
// CSVs its tools read (`csv_data/processed/*.csv` and the company directory `csv_data/raw/email_addresses.csv`),
// pinned to the commit this port follows, each checked against the sha256 recorded below. A file already in the
// folder is checked, not fetched again; an interrupted download resumes (src/client/download.ts).
import { join } from "node:path";
import { fetchPinnedFile, PinnedFileError } from "../../../src/client/pinned-file.ts";
import { NEMO_GYM_COMMIT } from "../../../src/config/nemo-gym-files.ts";

export { NEMO_GYM_COMMIT };
export const NEMO_GYM_TABLES_BASE_URL = `https://raw.githubusercontent.com/NVIDIA-NeMo/Gym/${NEMO_GYM_COMMIT}/resources_servers/workplace_assistant/csv_data`;

/** The files, as paths under the base URL and the folder, and their sha256 at NEMO_GYM_COMMIT. */
export const NEMO_GYM_TABLES_SHA256: Readonly<Record<string, string>> = Object.freeze({
  "processed/analytics_data.csv": "4a0df10aabc07980f1cc074dc9ab36406ce98dead7e14fe11f72a9f1ba788688",
  "processed/calendar_events.csv": "6c9df1872d54d0b0d068d1b066766a8ddbc29c3933f1d56c9efd554926312295",
  "processed/customer_relationship_manager_data.csv": "599057e4eec3a7c25ac04b4d655ea2c034b7b7782205dc367a28122756e04c41",
  "processed/emails.csv": "1809e341a0e4f1fd78cf1b759964a42abd28db8c9b9dca364456efc31f82bb31",
  "processed/project_tasks.csv": "fa0c05d5609f49e905342bd12592b09f23eff6147dcf607b808703f45ddbeaeb",
  "raw/email_addresses.csv": "1f3465b92eb41b90a973a9b00f35757a23d16839652b5e352e9d217d8e404b0b",
});

export const TABLE_FILES = Object.keys(NEMO_GYM_TABLES_SHA256);

/** A table file that could not be had, or is not the pinned one: the server does not start. */
export class TablesFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TablesFetchError";
  }
}

export interface FetchTablesOptions {
  /** Folder the files go to, in NeMo Gym's csv_data/ layout. */
  dir: string;
  baseUrl?: string;
  /** sha256 per file of TABLE_FILES; every file is checked. */
  sha256?: Readonly<Record<string, string>>;
  connectTimeoutMs?: number;
  maxRetries?: number;
  retryBackoffMs?: number;
  /** Told once per file actually fetched. */
  onFetched?: (file: string, bytes: number) => void;
}

/** Brings every table file into `dir` (or checks the one there); an error names the file, its URL and the reason. */
export async function fetchNemoGymTables(options: FetchTablesOptions): Promise<void> {
  const baseUrl = (options.baseUrl ?? NEMO_GYM_TABLES_BASE_URL).replace(/\/+$/, "");
  const digests = options.sha256 ?? NEMO_GYM_TABLES_SHA256;
  for (const file of TABLE_FILES) {
    try {
      const result = await fetchPinnedFile({ connectTimeoutMs: options.connectTimeoutMs, maxRetries: options.maxRetries, retryBackoffMs: options.retryBackoffMs, url: `${baseUrl}/${file}`, dest: join(options.dir, file), sha256: digests[file]! });
      if (result.fetched) options.onFetched?.(file, result.bytes);
    } catch (error) {
      if (error instanceof PinnedFileError) throw new TablesFetchError(`workplace_assistant table ${file}: ${error.message}`);
      throw error;
    }
  }
}
