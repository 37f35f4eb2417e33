// SQL environments on SQLite (spider2_lite, bird_sql): a statement runs in a sandbox of its own on its row's
// database alone, read-only (runner.ts, through the Python harness of harness.ts), its rows come back typed as Python
// sees them (cells.ts), and databases.ts finds, checks and downloads the databases. Comparing rows is each
// environment's own business. Floor 4: it builds on src/sandbox.
export { decodeCell, isBytes, sqlBytes, type SqlCell, type SqlRow } from "./cells.ts";
export { HARNESS_SOURCE, readFrame, type HarnessAnswer, type HarnessRequest } from "./harness.ts";
export { SANDBOX_DATABASE_DIR, SqliteSandbox, type QueryOutcome, type SqliteSandboxOptions } from "./runner.ts";
export { databaseFile, fetchArchive, hasDatabases, resolveConfiguredDir, unzip, type ArchiveSource } from "./databases.ts";
export { SqlInstances, type SqlInstanceOptions } from "./instance.ts";
