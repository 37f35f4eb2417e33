// A JSONL file read as it grows: each refresh reads only the bytes after the last whole line it saw (a line still
// being written waits for its newline), and each line is summarized and dropped — its byte offset is what is kept,
// so a line is read again alone when asked for. A file that was replaced (a fresh run removes and re-creates it) or
// cut shorter is read again from the start.
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { summarizeLine, type LineKind, type LineSummary } from "./line-summary.ts";

const CHUNK_BYTES = 1 << 20;

// A string, or one of the bare non-numbers Python's json.dumps writes (a rollouts file is written as Python does).
const STRING_OR_NON_NUMBER = /"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g;

/** A line as JSON; one with Python's NaN / ±Infinity reads them as null (the page shows them so; no reward is NaN). */
export function parseLine(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!/NaN|Infinity/.test(text)) throw error;
    return JSON.parse(text.replace(STRING_OR_NON_NUMBER, (token) => (token.startsWith('"') ? token : "null")));
  }
}

export class TailedJsonl {
  readonly lines: LineSummary[] = [];
  /** Lines that were not a JSON object (a torn write of a killed run, a hand edit): skipped, counted. */
  unreadable = 0;
  /** Bytes of whole lines read so far. */
  private consumed = 0;
  private inode: number | null = null;
  /** Bumped whenever `lines` changes, so readers can cache what they derive from it. */
  version = 0;

  constructor(
    readonly path: string,
    readonly kind: LineKind,
  ) {}

  get exists(): boolean {
    return this.inode !== null;
  }

  /** Reads what was appended since the last refresh; answers whether anything changed. */
  refresh(): boolean {
    if (!existsSync(this.path)) {
      if (this.inode === null) return false;
      this.reset(null);
      return true;
    }
    const stat = statSync(this.path);
    let changed = false;
    if (this.inode !== stat.ino || stat.size < this.consumed) {
      changed = this.inode !== null || this.lines.length > 0;
      this.reset(stat.ino);
    }
    if (stat.size === this.consumed) return changed;
    return this.readFrom(stat.size) || changed;
  }

  private reset(inode: number | null): void {
    this.lines.length = 0;
    this.unreadable = 0;
    this.consumed = 0;
    this.inode = inode;
    this.version++;
  }

  private readFrom(size: number): boolean {
    const fd = openSync(this.path, "r");
    const before = this.lines.length + this.unreadable;
    try {
      let pending: Buffer = Buffer.alloc(0);
      let position = this.consumed;
      while (position < size) {
        const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - position));
        const read = readSync(fd, chunk, 0, chunk.length, position);
        if (read === 0) break;
        position += read;
        const buffer = pending.length > 0 ? Buffer.concat([pending, chunk.subarray(0, read)]) : chunk.subarray(0, read);
        let start = 0;
        for (let newline = buffer.indexOf(10, start); newline !== -1; newline = buffer.indexOf(10, start)) {
          this.take(buffer.subarray(start, newline), this.consumed);
          this.consumed += newline - start + 1;
          start = newline + 1;
        }
        // Copied: the chunk's memory is reused by the next read.
        pending = Buffer.from(buffer.subarray(start));
      }
    } finally {
      closeSync(fd);
    }
    const changed = this.lines.length + this.unreadable !== before;
    if (changed) this.version++;
    return changed;
  }

  private take(bytes: Buffer, offset: number): void {
    const text = bytes.toString("utf8").trim();
    if (text === "") return;
    let parsed: unknown;
    try {
      parsed = parseLine(text);
    } catch {
      this.unreadable++;
      return;
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      this.unreadable++;
      return;
    }
    this.lines.push(summarizeLine(parsed as Record<string, unknown>, this.kind, this.lines.length, offset, bytes.length));
  }

  /** The whole line `index`, read from its offset (null: no such line). */
  readLine(index: number): Record<string, unknown> | null {
    const summary = this.lines[index];
    if (!summary) return null;
    const fd = openSync(this.path, "r");
    try {
      const buffer = Buffer.alloc(summary.bytes);
      readSync(fd, buffer, 0, summary.bytes, summary.offset);
      return parseLine(buffer.toString("utf8")) as Record<string, unknown>;
    } finally {
      closeSync(fd);
    }
  }
}
