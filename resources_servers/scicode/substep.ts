// One sub-step, in two sandboxed runs (harness.py says why): the capture run executes the model's code and hands its
// functions' values over as data; the check run, with no model code in it, replays the tests on those values against
// the targets. Only the check run's exit status is read as a verdict.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HttpError } from "../../src/protocol/errors.ts";
import type { SandboxProvider, SandboxResult } from "../../src/sandbox/index.ts";

const HARNESS = readFileSync(join(import.meta.dirname, "harness.py"), "utf8");
const MiB = 1024 * 1024;
/** NeMo Gym runs the code unbounded in its own venv; numpy and scipy need room, and values are handed over in stdout. */
const LIMITS = { memoryBytes: 4096 * MiB, outputBytes: 64 * MiB, workDirBytes: 256 * MiB };
/** The check run only decodes and compares; it gets its own bound, independent of timeout_secs. */
const CHECK_WALL_MS = 60_000;

/** Where the check run finds the targets: a bind of test_data.h5 (the check sandbox's), or this step's JSON list. */
export type StepTargets = { h5Path: string } | { json: unknown[] };

export interface SubStepRun {
  code: string;
  tests: string[];
  preamble: string;
  step: string;
  targets: StepTargets;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface SubStepOutcome {
  passed: boolean;
  /** Why it failed, for logs: a timeout, the failing test, … */
  reason: string;
}

const CHECK = { passed: 0, failed: 3, unsupported: 4, missingModule: 5, missingTarget: 6 } as const;

/** The data the capture run handed over: the text between the last two nonce lines, or an empty hand-over. */
export function handedOver(stdout: string, nonce: string): string {
  const marker = `\n${nonce}\n`;
  const end = stdout.lastIndexOf(marker);
  const start = end > 0 ? stdout.lastIndexOf(marker, end - 1) : -1;
  return start >= 0 ? stdout.slice(start + marker.length, end) : '{"outcome": "nothing handed over", "tests": {}}';
}

export async function runSubStep(capture: SandboxProvider, check: SandboxProvider, run: SubStepRun): Promise<SubStepOutcome> {
  // The nonce only keeps an honest print from being read as data; the model's code may read it, and gains nothing.
  const nonce = `scicode-${randomBytes(16).toString("hex")}`;
  const spec = JSON.stringify({ tests: run.tests, preamble: run.preamble, step: run.step, nonce, model_code: run.code });
  const captured = await capture.run({
    command: ["python3", "harness.py", "capture", "spec.json"],
    files: { "harness.py": HARNESS, "spec.json": spec },
    limits: { ...LIMITS, wallMs: run.timeoutMs, cpuMs: run.timeoutMs },
    signal: run.signal,
  });
  if (captured.timedOut) return { passed: false, reason: "timeout" };
  if (captured.outputTruncated) return { passed: false, reason: "the model's code wrote more than the output limit" };

  // The check run never sees the model's code: its spec is rebuilt here, not taken from the capture run.
  const checkSpec = JSON.stringify({ tests: run.tests, preamble: run.preamble, step: run.step, nonce });
  const targetsArg = "h5Path" in run.targets ? run.targets.h5Path : "targets.json";
  const files: Record<string, string> = { "harness.py": HARNESS, "spec.json": checkSpec, "captures.json": handedOver(captured.stdout, nonce) };
  if ("json" in run.targets) files["targets.json"] = JSON.stringify(run.targets.json);
  const checked = await check.run({
    command: ["python3", "harness.py", "check", "spec.json", "captures.json", targetsArg],
    files,
    limits: { ...LIMITS, wallMs: CHECK_WALL_MS, cpuMs: CHECK_WALL_MS },
    signal: run.signal,
  });
  return checkVerdict(checked, run.step);
}

function checkVerdict(result: SandboxResult, step: string): SubStepOutcome {
  const said = result.stderr.trim().split("\n").slice(-3).join(" | ");
  // Values the model handed over can make the comparison slow or huge: that fails the step, as its own timeout would.
  if (result.timedOut || result.outputTruncated) return { passed: false, reason: "the comparison of the handed-over values ran out of time or output" };
  switch (result.exitCode) {
    case CHECK.passed:
      return { passed: true, reason: "" };
    case CHECK.failed:
      return { passed: false, reason: said };
    case CHECK.unsupported:
      throw new HttpError(501, `scicode: step ${step}: ${said}; this port runs the model's code apart from the targets and cannot split this test`);
    case CHECK.missingModule:
      throw new HttpError(501, `scicode: step ${step}: reading test_data.h5 needs h5py in the sandbox's Python (pip install h5py), or convert the targets to this port's JSON format`);
    case CHECK.missingTarget:
      throw new HttpError(501, `scicode: step ${step}: ${said}`);
    default:
      throw new HttpError(500, `scicode: step ${step}: the check run failed (exit ${result.exitCode}, signal ${result.signal}): ${said}`);
  }
}
