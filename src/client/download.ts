// Downloads one public file to disk so that an interrupted download resumes where it stopped: bytes go to
// `<dest>.part`, a retry (or the next run) asks for the rest with an HTTP Range, and only a complete, checked
// file is renamed to `dest`. Used by `gym eval prepare` and environments that fetch their data (Hugging Face,
// GitHub raw files). Not a hot path, but still: a connect timeout, an idle timeout per chunk, bounded retries.
import { createHash, type Hash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, statSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import type { Dispatcher } from "undici";

export interface DownloadOptions {
  url: string;
  /** Where the finished file goes; its folder is created. */
  dest: string;
  headers?: Record<string, string>;
  /** When given, a finished file with another digest is an error (and is not kept). */
  expectedSha256?: string;
  connectTimeoutMs?: number;
  /** How long the server may stay silent (before its headers, or between two chunks). */
  idleTimeoutMs?: number;
  /** Attempts after the first, each resuming from the bytes already on disk. */
  maxRetries?: number;
  retryBackoffMs?: number;
  /** Called as bytes arrive: bytes on disk so far (resumed bytes included) and the full size when known. */
  onProgress?: (bytesOnDisk: number, totalBytes: number | undefined) => void;
  signal?: AbortSignal;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  sha256: string;
  /** Bytes that were already on disk from an earlier, interrupted attempt. */
  resumedFromBytes: number;
  /** The file was already complete at `dest`: nothing was fetched. */
  alreadyPresent: boolean;
}

/** A download that cannot succeed by retrying (a 404, a gated file, a wrong digest). */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "DownloadError";
  }
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

export async function downloadFile(options: DownloadOptions): Promise<DownloadResult> {
  const { url, dest } = options;
  if (existsSync(dest)) {
    const sha256 = await sha256OfFile(dest);
    checkDigest(options, sha256);
    return { path: dest, bytes: statSync(dest).size, sha256, resumedFromBytes: 0, alreadyPresent: true };
  }
  mkdirSync(dirname(dest), { recursive: true });
  const part = `${dest}.part`;
  const resumedFromBytes = existsSync(part) ? statSync(part).size : 0;
  const maxRetries = options.maxRetries ?? 5;
  // Loaded here, not with the module: modules that may download (pinned files, datasets) are imported by every
  // server, and all of undici costs a process ~100 ms to load.
  const { Agent, interceptors } = await import("undici");
  const dispatcher = new Agent({
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    headersTimeout: options.idleTimeoutMs ?? 60_000,
    bodyTimeout: options.idleTimeoutMs ?? 60_000,
  }).compose(interceptors.redirect({ maxRedirections: 10 }));
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await fetchRemainder(url, part, dispatcher, options);
        break;
      } catch (error) {
        if (error instanceof DownloadError || options.signal?.aborted || attempt >= maxRetries) {
          if (error instanceof DownloadError) throw error;
          throw new DownloadError(`${url}: ${(error as Error).message} after ${attempt + 1} attempt(s); run again to resume from the ${sizeOf(part)} bytes kept in ${part}`, url);
        }
        await sleep((options.retryBackoffMs ?? 1000) * 2 ** attempt, options.signal);
      }
    }
  } finally {
    await dispatcher.close();
  }
  const sha256 = await sha256OfFile(part);
  try {
    checkDigest(options, sha256);
  } catch (error) {
    unlinkSync(part);
    throw error;
  }
  renameSync(part, dest);
  return { path: dest, bytes: statSync(dest).size, sha256, resumedFromBytes, alreadyPresent: false };
}

/** One attempt: asks for the bytes after those in `part` and appends them. */
async function fetchRemainder(url: string, part: string, dispatcher: Dispatcher, options: DownloadOptions): Promise<void> {
  const have = sizeOf(part);
  const headers: Record<string, string> = { "user-agent": "nemo-gym-ts", ...options.headers };
  if (have > 0) headers.range = `bytes=${have}-`;
  const response = await dispatcher.request({ origin: new URL(url).origin, path: pathOf(url), method: "GET", headers, signal: options.signal });
  const { statusCode } = response;
  if (statusCode === 416 && have > 0) {
    // Nothing after what we have: the part is the whole file (its digest is checked by the caller).
    await response.body.dump();
    return;
  }
  if (statusCode !== 200 && statusCode !== 206) {
    const detail = (await response.body.text().catch(() => "")).slice(0, 300).replace(/\s+/g, " ");
    const hint = statusCode === 401 || statusCode === 403 ? " (a gated or private file: set HF_TOKEN to a token that may read it)" : "";
    const message = `${url}: HTTP ${statusCode}${hint}${detail ? `: ${detail}` : ""}`;
    if (RETRYABLE_STATUS.has(statusCode)) throw new Error(message);
    throw new DownloadError(message, url, statusCode);
  }
  // 200 to a ranged request: the server ignores ranges, so start over.
  const append = statusCode === 206 && have > 0;
  const total = totalSize(response.headers, append ? have : 0);
  let onDisk = append ? have : 0;
  const out = createWriteStream(part, { flags: append ? "a" : "w" });
  try {
    for await (const chunk of response.body) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      onDisk += (chunk as Buffer).length;
      options.onProgress?.(onDisk, total);
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  if (total !== undefined && onDisk < total) throw new Error(`connection closed after ${onDisk} of ${total} bytes`);
}

function totalSize(headers: Record<string, string | string[] | undefined>, offset: number): number | undefined {
  const range = headers["content-range"];
  const fromRange = typeof range === "string" ? /\/(\d+)\s*$/.exec(range)?.[1] : undefined;
  if (fromRange) return Number(fromRange);
  const length = headers["content-length"];
  return typeof length === "string" && /^\d+$/.test(length) ? offset + Number(length) : undefined;
}

function checkDigest(options: DownloadOptions, sha256: string): void {
  if (options.expectedSha256 !== undefined && options.expectedSha256.toLowerCase() !== sha256) {
    throw new DownloadError(`${options.url}: sha256 ${sha256} differs from the expected ${options.expectedSha256}`, options.url);
  }
}

export function sha256OfFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash: Hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

function sizeOf(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
