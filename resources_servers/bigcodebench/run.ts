// The two kinds of sandboxed run (Debian's /usr/bin/python3, whose libraries are Debian's python3-* packages in
// /usr/lib/python3/dist-packages): the library check (libraries.py, once per task, no model code) and the test run
// (harness.py). Both answer on the nonce'd private stdout of src/ports/python-harness.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HttpError } from "../../src/protocol/errors.ts";
import type { SandboxProvider } from "../../src/sandbox/index.ts";
import { channelFiles, readChannel } from "../../src/ports/python-harness/index.ts";

const source = (file: string) => readFileSync(join(import.meta.dirname, file), "utf8");
const HARNESS = source("harness.py");
const LIBRARIES = source("libraries.py");

/** Debian packages of the libraries BigCodeBench uses most, for the 501's fix; others: "python3-<name>" if packaged. */
const DEBIAN_PACKAGES: Record<string, string> = {
  numpy: "python3-numpy", pandas: "python3-pandas", matplotlib: "python3-matplotlib", scipy: "python3-scipy",
  sklearn: "python3-sklearn", seaborn: "python3-seaborn", requests: "python3-requests", bs4: "python3-bs4",
  PIL: "python3-pil", dateutil: "python3-dateutil", pytz: "python3-tz", yaml: "python3-yaml", lxml: "python3-lxml",
  nltk: "python3-nltk", statsmodels: "python3-statsmodels", sympy: "python3-sympy", flask: "python3-flask",
  cv2: "python3-opencv", skimage: "python3-skimage", openpyxl: "python3-openpyxl", docx: "python3-docx",
  networkx: "python3-networkx", xlwt: "python3-xlwt", wordcloud: "python3-wordcloud", faker: "python3-faker",
  psutil: "python3-psutil", regex: "python3-regex", natsort: "python3-natsort", Crypto: "python3-pycryptodome",
  rsa: "python3-rsa", cryptography: "python3-cryptography", blake3: "python3-blake3", textblob: "python3-textblob",
};

const CHECK_WALL_MS = 120_000;

/** The task's libraries this interpreter cannot import, with the error of each; {} when all import. */
export async function missingLibraries(sandbox: SandboxProvider, sources: string[], libs: string[]): Promise<Record<string, string>> {
  const channel = channelFiles();
  const result = await sandbox.run({
    program: { language: "python", source: LIBRARIES },
    files: { ...channel.files, "job.json": JSON.stringify({ sources, libs }) },
    limits: { wallMs: CHECK_WALL_MS, cpuMs: CHECK_WALL_MS, memoryBytes: 4 * 1024 ** 3 },
  });
  const { records, foreign } = readChannel(result.stdout, channel.nonce);
  const missing = records[0]?.missing;
  if (foreign || result.exitCode !== 0 || missing === null || typeof missing !== "object") {
    throw new HttpError(500, `bigcodebench: the library check did not finish (exit ${result.exitCode ?? result.signal}): ${result.stderr.slice(-2000)}`);
  }
  return missing as Record<string, string>;
}

export function missingLibrariesError(taskId: unknown, missing: Record<string, string>): HttpError {
  const names = Object.keys(missing);
  const packages = names.map((name) => DEBIAN_PACKAGES[name] ?? `python3-${name.toLowerCase()} (if Debian packages it)`);
  return new HttpError(
    501,
    `bigcodebench: task ${JSON.stringify(taskId)} needs ${names.map((n) => `${n} (${missing[n]})`).join(", ")}, which the sandbox's /usr/bin/python3 cannot import; this row cannot be scored. Fix: apt-get install -y ${packages.join(" ")}`,
  );
}

export interface TestRunOptions {
  /** The harness's alarm (bigcodebench's timeout) and the sandbox's wall clock (NeMo Gym's subprocess_timeout). */
  alarmSecs: number;
  wallSecs: number;
  memoryBytes: number;
  rlimitsMiB: { max_as_limit: number; max_data_limit: number; max_stack_limit: number };
  signal?: AbortSignal;
}

export interface TestRunResult {
  status: "pass" | "fail" | "timeout";
  details: Record<string, unknown>;
}

export async function runTests(sandbox: SandboxProvider, code: string, testCode: string, options: TestRunOptions): Promise<TestRunResult> {
  const channel = channelFiles();
  const wallMs = Math.ceil(options.wallSecs * 1000);
  const result = await sandbox.run({
    program: { language: "python", source: HARNESS },
    files: { ...channel.files, "job.json": JSON.stringify({ code, test_code: testCode, timeout: options.alarmSecs, ...options.rlimitsMiB }) },
    limits: { wallMs, cpuMs: wallMs, memoryBytes: options.memoryBytes, processes: 256 },
    signal: options.signal,
  });
  const { records, foreign } = readChannel(result.stdout, channel.nonce);
  if (foreign) return { status: "fail", details: { ALL: "the program wrote to the harness's result channel" } };
  const record = records[0];
  // NeMo Gym's own outer timeout answers with this reason; a run that died otherwise is the library's unknown → timeout.
  if (result.timedOut) return { status: "timeout", details: { reason: "outer_subprocess_timeout" } };
  if (!record || (record.status !== "pass" && record.status !== "fail") || result.signal !== null) return { status: "timeout", details: {} };
  return { status: record.status, details: (record.details ?? {}) as Record<string, unknown> };
}
