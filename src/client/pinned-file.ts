// One public file that must be exactly the one pinned: downloaded (resumably, src/client/download.ts) unless it is
// already at `dest`, then checked against its recorded sha256. A file already there with another digest is left
// alone and refused (it may be the user's); a fresh download with another digest is deleted and refused.
import { unlinkSync } from "node:fs";
import { DownloadError, downloadFile } from "./download.ts";

export interface PinnedFile {
  url: string;
  dest: string;
  sha256: string;
  connectTimeoutMs?: number;
  maxRetries?: number;
  retryBackoffMs?: number;
}

/** Why a pinned file could not be had; the message says what to do, without naming the file (callers do). */
export class PinnedFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PinnedFileError";
  }
}

/** Brings the file to `dest` (or checks the one there); `fetched` is false when nothing was downloaded. */
export async function fetchPinnedFile(file: PinnedFile): Promise<{ fetched: boolean; bytes: number }> {
  let result;
  try {
    // The digest is checked here, not by downloadFile, to tell a stale local file from a wrong download.
    result = await downloadFile({ url: file.url, dest: file.dest, connectTimeoutMs: file.connectTimeoutMs, maxRetries: file.maxRetries, retryBackoffMs: file.retryBackoffMs });
  } catch (error) {
    if (error instanceof DownloadError) throw new PinnedFileError(`could not fetch it: ${error.message}`);
    throw error;
  }
  const expected = file.sha256.toLowerCase();
  if (result.sha256 !== expected) {
    if (!result.alreadyPresent) unlinkSync(file.dest);
    const where = result.alreadyPresent ? `${file.dest} (already there; delete it to fetch ${file.url} again)` : `${file.url} (not kept)`;
    throw new PinnedFileError(`sha256 ${result.sha256} is not the expected ${expected}: ${where}`);
  }
  return { fetched: !result.alreadyPresent, bytes: result.bytes };
}
