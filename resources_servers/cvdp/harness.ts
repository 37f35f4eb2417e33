// How a task's harness is run. CVDP's own harnesses (every NeMo Gym row) are cocotb tests started by pytest from a
// docker-compose service; this port does not run them yet (a 501 naming cocotb). What runs here is this port's
// "trace" harness, a plain Verilog testbench, and its verdict is never read from what the simulation prints:
//
//   The testbench drives stimulus from a seed it reads with $value$plusargs("seed=%d") and prints each observation as a
//   line starting "TRACE ". The same testbench runs twice, with the same fresh random seed: against the candidate's
//   design, and against the row's reference design (REFERENCE_SOURCES) in a sandbox of its own that never holds the
//   candidate. The reward is 1.0 iff the candidate's TRACE lines equal the reference's, line for line.
//
// The design is compiled together with the testbench, so it can print anything, $finish at any time, read the seed,
// read the testbench's source, or reach into the testbench by hierarchical reference. None of that passes: to print the
// reference's trace it must compute the reference's outputs for a seed chosen after it was written. There is no
// "PASS" line to fake. Residual risk, said in README.md: a design that computes the right outputs by other means than
// the requested structure (e.g. behavioural code reading the testbench's stimulus) passes, as it would any
// output-comparing testbench; a testbench with too little stimulus for the seed to matter lets a hard-coded trace pass.
import { randomInt } from "node:crypto";
import { HttpError } from "../../src/protocol/errors.ts";
import type { SandboxProvider, SandboxResult } from "../../src/sandbox/index.ts";

/** CVDP's src/.env: KEY = VALUE lines, `#` comments (NeMo Gym's _parse_dot_env). */
export function parseDotEnv(content: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of content.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || !line.includes("=")) continue;
    const at = line.indexOf("=");
    env[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return env;
}

export type HarnessKind = { kind: "trace"; env: Record<string, string> } | { kind: "cocotb"; env: Record<string, string> } | { kind: "none"; why: string };

export function harnessKind(harnessFiles: Record<string, string | null>): HarnessKind {
  const dotEnv = harnessFiles["src/.env"];
  if (typeof dotEnv !== "string") return { kind: "none", why: "No src/.env found in harness_files" };
  const env = parseDotEnv(dotEnv);
  if (env.TESTBENCH) return { kind: "trace", env };
  if (env.MODULE) return { kind: "cocotb", env };
  return { kind: "none", why: "src/.env names neither a cocotb MODULE nor a TESTBENCH" };
}

/** A work-dir-relative path from a harness path (`/code/rtl/x.sv` → `rtl/x.sv`); undefined when it leaves the workspace. */
export function workspacePath(path: string, workspace: string): string | undefined {
  const prefix = workspace.endsWith("/") ? workspace : `${workspace}/`;
  const relative = path.startsWith(prefix) ? path.slice(prefix.length) : path;
  if (relative === "" || relative.startsWith("/") || relative.split("/").some((part) => part === ".." || part === "." || part === "")) return undefined;
  return /^[A-Za-z0-9_.\/+-]+$/.test(relative) ? relative : undefined;
}

export interface TraceRun {
  env: Record<string, string>;
  harnessFiles: Record<string, string | null>;
  contextFiles: Record<string, string>;
  rtlFiles: Record<string, string>;
  workspace: string;
  wallMs: number;
  signal?: AbortSignal;
}

export interface TraceOutcome {
  passed: boolean;
  candidate: SandboxResult;
  seed: number;
}

const TRACE_PREFIX = "TRACE ";
const traceLines = (stdout: string) => stdout.split("\n").filter((line) => line.startsWith(TRACE_PREFIX));

function sourcesOf(list: string | undefined, key: string, workspace: string): string[] {
  const paths = (list ?? "").split(/\s+/).filter((path) => path !== "");
  return paths.map((path) => {
    const relative = workspacePath(path, workspace);
    if (!relative) throw new HttpError(422, `cvdp: src/.env ${key} names ${JSON.stringify(path)}, which is not a plain path inside ${workspace}`);
    return relative;
  });
}

/** Files of one run: harness (minus the reference, unless `withReference`), context, then the candidate's RTL. */
function workspaceFiles(run: TraceRun, reference: Set<string>, candidate: boolean): Record<string, string> {
  const files: Record<string, string> = {};
  const put = (path: string, content: string) => {
    const relative = workspacePath(path, run.workspace);
    // NeMo Gym skips a path that would leave the workspace; so does this port.
    if (relative !== undefined) files[relative] = content;
  };
  for (const [path, content] of Object.entries(run.harnessFiles)) {
    if (content === null || path.endsWith("docker-compose.yml")) continue;
    const relative = workspacePath(path, run.workspace);
    if (candidate && relative !== undefined && reference.has(relative)) continue;
    put(path, content);
  }
  for (const [path, content] of Object.entries(run.contextFiles)) put(path, content);
  if (candidate) for (const [path, content] of Object.entries(run.rtlFiles)) put(path, content);
  return files;
}

function simulate(sandbox: SandboxProvider, run: TraceRun, sources: string[], files: Record<string, string>, seed: number): Promise<SandboxResult> {
  const top = run.env.TOPLEVEL ?? "";
  if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(top)) throw new HttpError(422, `cvdp: src/.env TOPLEVEL ${JSON.stringify(top)} is not a module name`);
  // Every word was checked to be a plain path or identifier, so the script needs no quoting.
  const script = `iverilog -g2012 -o /tmp/sim.vvp -s ${top} ${sources.join(" ")} && exec vvp -n /tmp/sim.vvp +seed=${seed}`;
  return sandbox.run({ command: ["sh", "-c", script], files, limits: { wallMs: run.wallMs, cpuMs: run.wallMs }, signal: run.signal });
}

export async function runTraceHarness(sandbox: SandboxProvider, run: TraceRun): Promise<TraceOutcome> {
  const testbench = sourcesOf(run.env.TESTBENCH, "TESTBENCH", run.workspace);
  const designSources = sourcesOf(run.env.VERILOG_SOURCES, "VERILOG_SOURCES", run.workspace);
  const referenceSources = sourcesOf(run.env.REFERENCE_SOURCES, "REFERENCE_SOURCES", run.workspace);
  if (referenceSources.length === 0) throw new HttpError(422, "cvdp: a TESTBENCH harness needs REFERENCE_SOURCES in src/.env (the reference design its trace is compared with)");
  const reference = new Set(referenceSources.filter((path) => !designSources.includes(path)));
  const seed = randomInt(1, 2 ** 31 - 1);
  const [candidate, expected] = await Promise.all([
    simulate(sandbox, run, [...designSources, ...testbench], workspaceFiles(run, reference, true), seed),
    simulate(sandbox, run, [...referenceSources, ...testbench], workspaceFiles(run, reference, false), seed),
  ]);
  const expectedTrace = traceLines(expected.stdout);
  // The reference is the row's: if it does not simulate, nothing can be scored (a data fault, not the model's 0).
  if (expected.exitCode !== 0 || expected.timedOut || expectedTrace.length === 0) {
    throw new HttpError(500, `cvdp: the reference design of this task did not simulate to a trace (exit ${expected.exitCode}, timed out ${expected.timedOut}): ${expected.stderr.slice(-500)}`);
  }
  const candidateTrace = traceLines(candidate.stdout);
  const passed = !candidate.timedOut && !candidate.outputTruncated && candidateTrace.length === expectedTrace.length && candidateTrace.every((line, index) => line === expectedTrace[index]);
  return { passed, candidate, seed };
}
