// One check program in a sandbox of its own (harness.py). The verdict is the harness's record on the nonce'd private
// stdout (src/ports/python-harness); the program's own prints go to /dev/null. No record — the program exited early,
// crashed, or outlived timeout + 1 s (the library's join) — is "timed out", as the library reads an empty result.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxProvider } from "../../src/sandbox/index.ts";
import { channelFiles, readChannel } from "../../src/ports/python-harness/index.ts";

const HARNESS = readFileSync(join(import.meta.dirname, "harness.py"), "utf8");
export const FOREIGN_CHANNEL = "failed: the program wrote to the harness's result channel";

export async function runCheckProgram(sandbox: SandboxProvider, program: string, timeoutSecs: number, signal?: AbortSignal): Promise<string> {
  const channel = channelFiles();
  const wallMs = Math.ceil((timeoutSecs + 1) * 1000);
  const result = await sandbox.run({
    program: { language: "python", source: HARNESS },
    files: { ...channel.files, "job.json": JSON.stringify({ program, timeout: timeoutSecs }) },
    limits: { wallMs, cpuMs: wallMs },
    signal,
  });
  const { records, foreign } = readChannel(result.stdout, channel.nonce);
  if (foreign) return FOREIGN_CHANNEL;
  const verdict = records[0]?.result;
  if (result.timedOut || result.signal !== null || typeof verdict !== "string") return "timed out";
  return verdict;
}
