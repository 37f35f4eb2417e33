// Fetches NeMo Gym's own WorkBench tables (its repository at the pinned commit, every file checked against its
// sha256) into a folder, ahead of a run with `tables: nemo_gym` — the server does the same at start, so this is only
// for preparing a machine before it goes offline, or a folder to point `tables_dir` at.
//   node --import tsx resources_servers/workplace_assistant/scripts/prepare-nemo-gym-tables.ts [dir] [base_url]
// dir: default resources_servers/workplace_assistant/data/nemo_gym_tables (ignored by git; never commit NeMo Gym's files).
import { fetchNemoGymTables, NEMO_GYM_TABLES_BASE_URL, TablesFetchError } from "../workbench/nemo-gym-tables.ts";
import { tablesFolder } from "../workbench/tables-source.ts";

const [dirArg, baseUrl = NEMO_GYM_TABLES_BASE_URL] = process.argv.slice(2);
const dir = tablesFolder({ tables: "nemo_gym", tables_dir: dirArg });
try {
  // A base URL of other tables needs their digests, which only a config (tables_sha256) gives.
  await fetchNemoGymTables({ dir, baseUrl, onFetched: (file, bytes) => process.stdout.write(`fetched ${file} (${bytes} bytes)\n`) });
  process.stdout.write(`NeMo Gym's tables are in ${dir}, every sha256 as pinned\n`);
} catch (error) {
  if (!(error instanceof TablesFetchError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 2;
}
