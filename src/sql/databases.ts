// Where a SQL environment's databases live: the configured folder (relative to the project root, as NeMo Gym
// resolves it against its repo root), the file of one db_id (a 501 naming both when it is absent — never a 0),
// and NeMo Gym's first-start download of a public zip (resumable, optionally digest-checked, then unzipped).
import { existsSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { downloadFile } from "../client/download.ts";
import { extractZip } from "../client/zip.ts";
import { PROJECT_ROOT } from "../config/paths.ts";
import { HttpError } from "../protocol/errors.ts";

/** A configured folder: absolute as given, relative to the project root otherwise. */
export const resolveConfiguredDir = (configured: string, root = PROJECT_ROOT): string => (isAbsolute(configured) ? configured : resolve(root, configured));

/** True when `folder` holds at least one `*.sqlite` directly (depth 0) or one level down (depth 1), NeMo Gym's "already present". */
export function hasDatabases(folder: string, depth: 0 | 1): boolean {
  if (!existsSync(folder)) return false;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (depth === 0 && entry.isFile() && entry.name.endsWith(".sqlite")) return true;
    if (depth === 1 && entry.isDirectory()) {
      const inner = join(folder, entry.name);
      if (readdirSync(inner).some((name) => name.endsWith(".sqlite") && !name.startsWith("."))) return true;
    }
  }
  return false;
}

/** A db_id names one file of the folder: one path segment, never `.`/`..`, no NUL. */
const SAFE_DB_ID = /^(?!\.\.?$)[^/\\\0]+$/;

/**
 * The path (relative to `folder`) of db_id's database, `layout` mapping a db_id to it. An absent file is a 501
 * naming the db_id and the folder: the row cannot be scored here, which is no statement about the model.
 */
export function databaseFile(folder: string, dbId: string, layout: (dbId: string) => string): string {
  const relative = layout(dbId);
  const path = join(folder, relative);
  if (!SAFE_DB_ID.test(dbId) || !existsSync(path) || !statSync(path).isFile()) {
    const download = downloads.get(folder);
    // Still arriving: the environment is not ready (a fault, retried later), which says nothing of the row.
    if (download?.state === "downloading") throw new HttpError(503, `no database for db_id ${JSON.stringify(dbId)} yet: the databases are still being downloaded into ${folder} (the first start's download); retry once it has finished`);
    const why = download?.state === "failed" ? `; the first start's download failed (${download.detail}): fetch them into that folder by hand, or fix databases_url` : "";
    throw new HttpError(501, `no database for db_id ${JSON.stringify(dbId)}: ${relative} is not in the databases folder ${folder}${why}`);
  }
  return relative;
}

/** The first-start download of each databases folder, while it runs and after it failed (a finished one is forgotten). */
const downloads = new Map<string, { state: "downloading" } | { state: "failed"; detail: string }>();

/**
 * Runs NeMo Gym's first-start download in the background, so that the server starts (a 500 MB archive would outlast
 * any start-up timeout, and a machine without network would never start): rows whose database has not arrived answer
 * 503 meanwhile, and a 501 naming the failure if it fails.
 */
export function downloadInBackground(folder: string, download: () => Promise<void>, log: { info(m: string): void; warn(m: string): void }): Promise<void> {
  downloads.set(folder, { state: "downloading" });
  log.info(`no databases in ${folder}: downloading them in the background (rows needing one answer 503 until it is there)`);
  return download().then(
    () => {
      downloads.delete(folder);
      log.info(`databases downloaded into ${folder}`);
    },
    (error: unknown) => {
      const detail = (error as Error)?.message ?? String(error);
      downloads.set(folder, { state: "failed", detail });
      log.warn(`the databases could not be downloaded into ${folder}: ${detail}; rows needing one answer 501`);
    },
  );
}

export interface ArchiveSource {
  url: string;
  /** Checked when given; NeMo Gym publishes none. */
  sha256?: string | null;
  /** Where the zip is kept (a `.part` file next to it while it downloads, so a restart resumes). */
  archivePath: string;
}

/** Downloads the zip (or finds it complete) with bounded retries and timeouts. */
export async function fetchArchive(source: ArchiveSource): Promise<string> {
  const result = await downloadFile({
    url: source.url,
    dest: source.archivePath,
    expectedSha256: source.sha256 ?? undefined,
    // Google Drive answers a script without a browser's User-Agent with an HTML page (NeMo Gym sends this one too).
    headers: { "User-Agent": "Mozilla/5.0" },
    connectTimeoutMs: 30_000,
    idleTimeoutMs: 120_000,
    maxRetries: 5,
  });
  return result.path;
}

/**
 * Extracts `archive` into `destination` (src/client/zip.ts: nothing lands outside it, sizes capped, CRCs checked);
 * `include` picks the files by their name in the archive, `flatten` drops the entries' folders.
 */
export async function unzip(archive: string, destination: string, options: { include?: (name: string) => boolean; flatten?: boolean } = {}): Promise<void> {
  await extractZip(archive, destination, options);
}
