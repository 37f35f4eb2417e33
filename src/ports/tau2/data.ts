// τ²-bench's data files under a data dir laid out as τ²-bench's `data/` tree (<dir>/tau2/domains/<domain>/…). A file
// already there is read as it is (NeMo Gym too reads whatever its TAU2_DATA_DIR holds); a file that is absent and
// pinned in src/config/tau2-bench-files.ts is fetched from τ²-bench's repository at the pinned commit and checked
// against its pin first; anything else is a 501 naming the file and the fix.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { downloadFile, DownloadError } from "../../client/download.ts";
import { TAU2_BENCH_FILES, tau2BenchRawBaseUrl } from "../../config/tau2-bench-files.ts";
import { HttpError } from "../../protocol/errors.ts";

const reads = new Map<string, Promise<string>>();

const gitBlobId = (bytes: Buffer): string => createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");

async function load(dataDir: string, repoPath: string): Promise<string> {
  // repoPath is τ²-bench's path (data/tau2/…); the data dir holds what is under data/.
  const dest = join(dataDir, ...repoPath.replace(/^data\//, "").split("/"));
  if (existsSync(dest)) return readFileSync(dest, "utf8");
  const pin = TAU2_BENCH_FILES[repoPath];
  if (!pin) throw new HttpError(501, `${dest} does not exist and ${repoPath} is not one of τ²-bench's files this port fetches`);
  const url = `${tau2BenchRawBaseUrl()}/${repoPath}`;
  try {
    await downloadFile({ url, dest, connectTimeoutMs: 10_000, maxRetries: 2 });
  } catch (error) {
    if (!(error instanceof DownloadError)) throw error;
    throw new HttpError(501, `τ²-bench's ${repoPath} is not here and could not be fetched (${error.message}); put it at ${dest} (git blob ${pin.gitBlob}) or let this machine reach ${url}`);
  }
  const bytes = readFileSync(dest);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if ((pin.sha256 !== undefined && sha256 !== pin.sha256) || gitBlobId(bytes) !== pin.gitBlob) {
    unlinkSync(dest);
    throw new HttpError(501, `${url} is not the pinned file (git blob ${gitBlobId(bytes)}, expected ${pin.gitBlob}); not kept`);
  }
  return bytes.toString("utf8");
}

/** The text of τ²-bench's `repoPath` (e.g. data/tau2/domains/airline/policy.md) under `dataDir`, read once per process. */
export function readTau2File(dataDir: string, repoPath: string): Promise<string> {
  const key = `${dataDir}\0${repoPath}`;
  let read = reads.get(key);
  if (!read) {
    read = load(dataDir, repoPath);
    reads.set(key, read);
    read.catch(() => reads.delete(key));
  }
  return read;
}
