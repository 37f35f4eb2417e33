// JSONL files (datasets, rollouts) read with errors that name the file and the line.
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { UserError } from "../config/errors.ts";

export type Row = Record<string, unknown>;

/** A dataset or rollouts file that cannot be used as it is (unreadable, not JSON, a missing field): a user mistake. */
export class InputError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}

export interface InputLine {
  lineNumber: number;
  text: string;
  row: Row;
}

/** Reads JSONL; every error names the file and line. Blank lines are skipped. */
export function readJsonl(path: string, limit?: number | null): InputLine[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new InputError(`cannot read '${path}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const lines: InputLine[] = [];
  const rawLines = text.split("\n");
  for (let i = 0; i < rawLines.length && (limit == null || lines.length < limit); i++) {
    const line = rawLines[i]!;
    if (line.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new InputError(`${path}:${i + 1}: not valid JSON (${(error as Error).message})`);
    }
    if (row === null || typeof row !== "object" || Array.isArray(row)) throw new InputError(`${path}:${i + 1}: each line must be a JSON object`);
    lines.push({ lineNumber: i + 1, text: line, row: row as Row });
  }
  return lines;
}

/** The agent instance a row names (`agent_ref.name`), if it names one. */
export function agentNameOf(row: Row): string | undefined {
  const name = (row.agent_ref as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && name !== "" ? name : undefined;
}

/** The lines of a file (without their "\n"), read 1 MB at a time: a large file is never one string. */
export function* fileLines(path: string): Generator<string> {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    const decoder = new StringDecoder("utf8");
    let carry = "";
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      const parts = (carry + decoder.write(buffer.subarray(0, read))).split("\n");
      carry = parts.pop()!;
      yield* parts;
    }
    carry += decoder.end();
    if (carry !== "") yield carry;
  } finally {
    closeSync(fd);
  }
}
