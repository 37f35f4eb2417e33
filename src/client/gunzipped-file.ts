// A dataset file that a library keeps gunzipped in its cache and downloads as a .gz when it is missing (EvalPlus's
// and human-eval-infilling's make_cache): fetched with src/client/download.ts (connect and idle timeouts, bounded
// retries, resumable, the .gz's sha256 checked when one is pinned) under an overall deadline, gunzipped beside its
// place, checked by the caller, and only then renamed to its name, so a reader never sees half a file.
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { DownloadError, downloadFile } from "./download.ts";

export interface GunzippedFile {
  /** The .gz to download. */
  url: string;
  /** Where the gunzipped file lives; nothing is fetched when it is there. */
  dest: string;
  /** The .gz's sha256, when it is known: another file is refused (and not kept). */
  sha256?: string;
  /** Throws when the gunzipped bytes (at the path given) are not what the caller reads; they are then not kept. */
  check?: (path: string) => void;
  /** Most bytes the file may gunzip to (a gzip bomb stops there); default 1 GiB. */
  maxBytes?: number;
  /** The whole fetch, retries included. */
  deadlineMs?: number;
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
  maxRetries?: number;
  retryBackoffMs?: number;
}

/** Why the file could not be had; the message names the URL and the reason. */
export class GunzippedFileError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "GunzippedFileError";
  }
}

/** Brings the gunzipped file to `dest` unless it is there; `fetched` says whether anything was downloaded. */
export async function fetchGunzippedFile(file: GunzippedFile): Promise<{ fetched: boolean; bytes: number }> {
  if (existsSync(file.dest)) return { fetched: false, bytes: statSync(file.dest).size };
  const archive = `${file.dest}.gz`;
  const deadlineMs = file.deadlineMs ?? 5 * 60_000;
  const signal = AbortSignal.timeout(deadlineMs);
  try {
    await downloadFile({
      url: file.url,
      dest: archive,
      expectedSha256: file.sha256,
      signal,
      connectTimeoutMs: file.connectTimeoutMs ?? 30_000,
      idleTimeoutMs: file.idleTimeoutMs ?? 60_000,
      maxRetries: file.maxRetries ?? 3,
      retryBackoffMs: file.retryBackoffMs,
    });
  } catch (error) {
    if (signal.aborted) throw new GunzippedFileError(`${file.url}: not downloaded within ${deadlineMs / 1000} s (the bytes so far are kept in ${archive}.part; a restart resumes)`, { cause: error });
    if (error instanceof DownloadError) throw new GunzippedFileError(error.message, { cause: error });
    throw error;
  }
  const part = `${file.dest}.gunzipping`;
  try {
    await pipeline(createReadStream(archive), createGunzip(), atMost(file.maxBytes ?? 1024 ** 3), createWriteStream(part));
  } catch (error) {
    rmSync(part, { force: true });
    rmSync(archive, { force: true });
    const message = (error as Error).message;
    // A write that failed (a full disk) is the cache folder's trouble, not the file's; it is fetched again next time.
    const why = (error as { syscall?: string }).syscall !== undefined ? `could not be written to ${part} (${message})` : overLimit(error) ? message : `not a gzip file, or a damaged one (${message})`;
    throw new GunzippedFileError(`${file.url}: ${why}; not kept`, { cause: error });
  }
  try {
    file.check?.(part);
  } catch (error) {
    rmSync(part, { force: true });
    rmSync(archive, { force: true });
    throw new GunzippedFileError(`${file.url}: ${(error as Error).message}; not kept`, { cause: error });
  }
  renameSync(part, file.dest);
  rmSync(archive, { force: true });
  return { fetched: true, bytes: statSync(file.dest).size };
}

class TooLargeError extends Error {}
const overLimit = (error: unknown) => error instanceof TooLargeError;

/** Passes bytes through until there are more than `limit`. */
function atMost(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > limit ? new TooLargeError(`it gunzips to more than ${limit} bytes`) : null, chunk);
    },
  });
}
