// Reading a zip archive safely, on yauzl (one maintained reader for every zip this port opens: `gym eval prepare`'s
// dataset archives, the SQL environments' database downloads). Safe means: no entry lands outside the folder it is
// extracted into (yauzl refuses absolute names, `..` and backslashes; a symbolic-link entry is refused; a folder of
// the destination that is itself a link out of it is refused), sizes are capped before anything is inflated (yauzl
// holds each entry to its declared size, so a zip bomb cannot declare small and inflate big), every entry's CRC-32
// is checked as Python's zipfile checks it, and a damaged archive is one error naming the archive and the entry.
import { mkdirSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { open as openFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { crc32 } from "node:zlib";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { UserError } from "../config/errors.ts";

export interface ZipLimits {
  /** Most entries an archive may list. */
  maxEntries?: number;
  /** Most bytes one entry may inflate to. */
  maxEntryBytes?: number;
  /** Most bytes all the (selected) entries together may inflate to. */
  maxTotalBytes?: number;
}

export interface ZipMember {
  /** The entry's name in the archive (UTF-8 when flagged so, else CP437, as Python's zipfile decodes it). */
  name: string;
  data: Buffer;
}

const GiB = 1024 ** 3;
/** Held in memory: dataset archives are megabytes; a Buffer cannot exceed 4 GiB anyway. */
const IN_MEMORY_LIMITS: Required<ZipLimits> = { maxEntries: 100_000, maxEntryBytes: 2 * GiB, maxTotalBytes: 2 * GiB };
/** Written to disk: the SQL databases are a few GB (Spider 2.0-Lite ≈ 500 MB zipped); far more is a bomb. */
const ON_DISK_LIMITS: Required<ZipLimits> = { maxEntries: 100_000, maxEntryBytes: 32 * GiB, maxTotalBytes: 64 * GiB };

/** Every regular file of `archive`, in central-directory order, inflated into memory. */
export async function readZipFiles(archive: string, limits: ZipLimits = {}): Promise<ZipMember[]> {
  const members: ZipMember[] = [];
  await eachFile(archive, { ...IN_MEMORY_LIMITS, ...limits }, () => true, async (entry, stream) => {
    const chunks: Buffer[] = [];
    const crc = await drain(stream, (chunk) => void chunks.push(chunk));
    checkCrc(archive, entry, crc);
    members.push({ name: entry.fileName, data: Buffer.concat(chunks) });
  });
  return members;
}

export interface ExtractOptions {
  /** Which files to extract, by their name in the archive (default: all). */
  include?: (name: string) => boolean;
  /** Drop the entries' folders: every file lands directly in the destination (a later same-named one wins). */
  flatten?: boolean;
  limits?: ZipLimits;
}

/**
 * Extracts the (included) files of `archive` into `destination`, creating it; each file is written next to its
 * place and renamed there once complete and checked, so an interrupted extraction never leaves a partial file under
 * its real name. Existing files are overwritten. Returns the written paths, relative to `destination`.
 */
export async function extractZip(archive: string, destination: string, options: ExtractOptions = {}): Promise<string[]> {
  mkdirSync(destination, { recursive: true });
  const root = realpathSync(destination);
  const written: string[] = [];
  const include = options.include ?? (() => true);
  await eachFile(archive, { ...ON_DISK_LIMITS, ...options.limits }, include, async (entry, stream) => {
    const name = options.flatten ? basename(entry.fileName) : entry.fileName;
    const target = resolve(root, name);
    if (!isInside(root, target)) throw new UserError(`${archive}: refused ${entry.fileName}: it would land outside ${destination}`);
    mkdirSync(dirname(target), { recursive: true });
    // A folder already in the destination may be a link elsewhere: nothing is written through it.
    if (!isInside(root, realpathSync(dirname(target)))) throw new UserError(`${archive}: refused ${entry.fileName}: ${relative(root, dirname(target))} in ${destination} is a link out of it`);
    if (existsAsFolder(target)) throw new UserError(`${archive}: cannot extract ${entry.fileName}: ${target} is a folder`);
    const part = `${target}.unzipping`;
    const file = await openFile(part, "w");
    let crc: number;
    try {
      crc = await drain(stream, (chunk) => file.write(chunk));
    } catch (error) {
      await file.close();
      rmSync(part, { force: true });
      throw error;
    }
    await file.close();
    try {
      checkCrc(archive, entry, crc);
    } catch (error) {
      rmSync(part, { force: true });
      throw error;
    }
    renameSync(part, target);
    written.push(relative(root, target).split(sep).join("/"));
  });
  return written;
}

const isInside = (root: string, path: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
const existsAsFolder = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** S_IFLNK in the Unix mode that a Unix-made archive keeps in the high half of the external attributes. */
const isSymlink = (entry: Entry) => entry.versionMadeBy >> 8 === 3 && ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;

/** yauzl's refusals of an entry name that would climb out of the folder it is extracted into. */
const UNSAFE_NAME = /^(invalid relative path|absolute path|invalid characters in fileName): /;

/**
 * Visits every regular file `include` selects, in central-directory order, with a stream of its inflated bytes
 * (consumed before the next entry is read). Folder entries are skipped; a refusal or damage is a UserError naming
 * `archive`.
 */
async function eachFile(
  archive: string,
  limits: Required<ZipLimits>,
  include: (name: string) => boolean,
  visit: (entry: Entry, stream: Readable) => Promise<void>,
): Promise<void> {
  let zip: ZipFile;
  try {
    // decodeStrings (the default) makes yauzl refuse unsafe names; validateEntrySizes holds entries to their sizes.
    zip = await yauzl.openPromise(archive, { autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: false });
  } catch (error) {
    throw new UserError(`${archive}: not a zip archive, or a damaged one (${(error as Error).message})`, { cause: error });
  }
  // The entry being read (an error there is its own), else the last one read (an error reading the next one).
  let current: string | undefined;
  let last: string | undefined;
  try {
    if (zip.entryCount > limits.maxEntries) throw new UserError(`${archive}: lists ${zip.entryCount} entries, more than the ${limits.maxEntries} allowed`);
    let total = 0;
    for await (const entry of zip.eachEntry()) {
      last = entry.fileName;
      if (entry.fileName.endsWith("/") || !include(entry.fileName)) continue;
      current = entry.fileName;
      if (isSymlink(entry)) throw new UserError(`${archive}: refused ${entry.fileName}: a symbolic link (it could point out of the folder it is extracted into)`);
      if (entry.isEncrypted()) throw new UserError(`${archive}: ${entry.fileName} is encrypted`);
      if (!entry.canDecodeFileData()) throw new UserError(`${archive}: ${entry.fileName} uses compression method ${entry.compressionMethod} (only stored and deflated are read)`);
      if (entry.uncompressedSize > limits.maxEntryBytes) throw new UserError(`${archive}: ${entry.fileName} inflates to ${entry.uncompressedSize} bytes, more than the ${limits.maxEntryBytes} allowed for one entry`);
      total += entry.uncompressedSize;
      if (total > limits.maxTotalBytes) throw new UserError(`${archive}: its files inflate to more than the ${limits.maxTotalBytes} bytes allowed`);
      await visit(entry, await zip.openReadStreamPromise(entry));
      current = undefined;
    }
  } catch (error) {
    if (error instanceof UserError) throw error;
    const message = (error as Error).message;
    // A file-system error (a full disk, a file where a folder must go) is the destination's, not the archive's.
    if ((error as { syscall?: string }).syscall !== undefined) throw new UserError(`${archive}: cannot extract ${current} (${message})`, { cause: error });
    if (UNSAFE_NAME.test(message)) throw new UserError(`${archive}: refused (${message}): an entry may not land outside the folder it is extracted into`, { cause: error });
    const where = current !== undefined ? ` at ${current}` : last !== undefined ? ` after ${last}` : "";
    throw new UserError(`${archive}: a damaged zip archive${where} (${message})`, { cause: error });
  } finally {
    zip.close();
  }
}

/** Reads `stream` to its end, handing each chunk on; returns the bytes' CRC-32. */
async function drain(stream: Readable, sink: (chunk: Buffer) => unknown): Promise<number> {
  let crc = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    crc = crc32(chunk, crc);
    await sink(chunk);
  }
  return crc;
}

function checkCrc(archive: string, entry: Entry, crc: number): void {
  if (crc >>> 0 !== entry.crc32 >>> 0) throw new UserError(`${archive}: a damaged zip archive: ${entry.fileName} does not match its CRC-32`);
}
