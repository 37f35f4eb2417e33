// The cost of running untrusted code in the bubblewrap sandbox, for training-time verification.
//
//   1. One `python3 -c pass`: unsandboxed (the real interpreter spawned directly) vs sandboxed, and the sandbox with no
//      interpreter in it (prlimit --version) — timed interleaved, so all three see the same machine load.
//   2. A code_gen-style verify: a Python program reading stdin, 10 test cases, one fresh sandbox per test case (never
//      reused), run one after another and at the provider's concurrency; and, for comparison, the 10 cases in one
//      sandbox by a harness (NeMo Gym's code_gen exec()s every case in one unsandboxed process).
//   3. Throughput of many programs at once under the per-server concurrency limit (NeMo Gym's `num_processes`).
//
// `BENCH_SANDBOX_CALLS=50 npm run bench sandbox` changes the calls of part 1 (default 30).
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { availableParallelism } from "node:os";
import { BubblewrapSandbox, pythonRuntime, type SandboxResult } from "../src/sandbox/index.ts";
import { fixed, formatTable, measureInterleaved, percentile, type Measurement } from "./measure.ts";

/** A competitive-programming answer: read n and n numbers, print their sum and maximum. */
export const SOLUTION = "import sys\ndata = sys.stdin.read().split()\nn = int(data[0])\nxs = list(map(int, data[1:1 + n]))\nprint(sum(xs), max(xs))\n";
export const CASES = Array.from({ length: 10 }, (_, i) => {
  const xs = Array.from({ length: 50 + i * 20 }, (_, j) => (j * 7919 + i) % 1000);
  return { input: `${xs.length}\n${xs.join(" ")}\n`, output: `${xs.reduce((a, b) => a + b, 0)} ${Math.max(...xs)}\n` };
});
/** Runs every case in one process, as NeMo Gym's code_gen does (without a sandbox) — here inside one sandbox. */
const HARNESS = `import io, json, sys, contextlib
cases = json.loads(open("cases.json").read())
source = open("solution.py").read()
ok = []
for case in cases:
    sys.stdin = io.StringIO(case["input"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "solution.py", "exec"), {"__name__": "__main__"})
    ok.append(out.getvalue() == case["output"])
print(json.dumps(ok))
`;

export interface SandboxBench {
  pythonExecutable: string;
  cgroups: string[];
  startup: { direct: Measurement; sandboxed: Measurement; sandboxOnly: Measurement; sandboxedOverDirect: number };
  /** cpuMs / maxRssKb the sandbox measured for one `python3 -c pass` (median). */
  passRun: { cpuMs: number | null; maxRssKb: number | null };
  verify: { casesPerVerify: number; sequentialMs: number; concurrentMs: number; concurrency: number; oneSandboxHarnessMs: number; verifies: number };
  throughput: { concurrency: number; runs: number; runsPerSecond: number }[];
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

function runDirect(executable: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${executable} exited ${code}`))));
  });
}

const assertOk = (result: SandboxResult) => {
  if (result.exitCode !== 0) throw new Error(`sandboxed run failed (${result.signal ?? result.exitCode}): ${result.stderr.slice(0, 500)}`);
  return result;
};

export async function sandboxBench(): Promise<SandboxBench> {
  const calls = Number(process.env.BENCH_SANDBOX_CALLS ?? 30);
  const concurrency = availableParallelism();
  const sandbox = new BubblewrapSandbox({ maxConcurrent: concurrency });
  try {
    const described = await sandbox.describe();
    // The interpreter the sandbox runs, spawned directly: the unsandboxed baseline.
    const pythonExecutable = pythonRuntime().hostInterpreter;

    const passResults: SandboxResult[] = [];
    const [direct, sandboxed, sandboxOnly] = await measureInterleaved(calls, [
      () => runDirect(pythonExecutable, ["-c", "pass"]),
      async () => void passResults.push(assertOk(await sandbox.run({ command: ["python3", "-c", "pass"] }))),
      async () => void assertOk(await sandbox.run({ command: ["/usr/bin/prlimit", "--version"] })),
    ]);
    const cpu = passResults.map((r) => r.cpuMs).filter((v): v is number => v !== null);
    const rss = passResults.map((r) => r.maxRssKb).filter((v): v is number => v !== null);

    const oneCase = async (input: string, output: string) => {
      const result = assertOk(await sandbox.run({ program: { language: "python", source: SOLUTION }, stdin: input }));
      if (result.stdout !== output) throw new Error(`wrong answer in the benchmark's own solution: ${result.stdout}`);
    };
    const verifies = 5;
    const sequential: number[] = [];
    const concurrent: number[] = [];
    const harness: number[] = [];
    for (let i = 0; i < verifies; i++) {
      let start = performance.now();
      for (const { input, output } of CASES) await oneCase(input, output);
      sequential.push(performance.now() - start);
      start = performance.now();
      await Promise.all(CASES.map(({ input, output }) => oneCase(input, output)));
      concurrent.push(performance.now() - start);
      start = performance.now();
      const result = assertOk(await sandbox.run({ program: { language: "python", source: HARNESS }, files: { "solution.py": SOLUTION, "cases.json": JSON.stringify(CASES) } }));
      if (!JSON.parse(result.stdout).every(Boolean)) throw new Error("the harness failed the benchmark's own solution");
      harness.push(performance.now() - start);
    }

    const throughput: SandboxBench["throughput"] = [];
    for (const limit of [...new Set([1, 2, concurrency, concurrency * 2])].sort((a, b) => a - b)) {
      const limited = new BubblewrapSandbox({ maxConcurrent: limit });
      try {
        await limited.ensureAvailable();
        const runs = 24;
        const start = performance.now();
        await Promise.all(Array.from({ length: runs }, async () => assertOk(await limited.run({ command: ["python3", "-c", "pass"] }))));
        throughput.push({ concurrency: limit, runs, runsPerSecond: runs / ((performance.now() - start) / 1000) });
      } finally {
        await limited.close();
      }
    }

    return {
      pythonExecutable,
      cgroups: Object.keys(described.cgroups.parents),
      startup: { direct: direct!, sandboxed: sandboxed!, sandboxOnly: sandboxOnly!, sandboxedOverDirect: sandboxed!.medianMs / direct!.medianMs },
      passRun: { cpuMs: cpu.length > 0 ? median(cpu) : null, maxRssKb: rss.length > 0 ? median(rss) : null },
      verify: { casesPerVerify: CASES.length, sequentialMs: median(sequential), concurrentMs: median(concurrent), concurrency, oneSandboxHarnessMs: median(harness), verifies },
      throughput,
    };
  } finally {
    await sandbox.close();
  }
}

export function formatSandbox(result: SandboxBench): string {
  const { startup, verify, passRun } = result;
  const row = (name: string, m: Measurement) => [name, fixed(m.medianMs, 1), fixed(m.p99Ms, 1), fixed(m.cpuMsPerCall, 2)];
  return [
    `interpreter ${result.pythonExecutable}; per-run cgroups: ${result.cgroups.join(", ") || "none (rlimits only)"}`,
    "",
    formatTable(
      ["one run", "median ms", "p99 ms", "server CPU ms/run"],
      [row("python3 -c pass, unsandboxed", startup.direct), row("python3 -c pass, sandboxed", startup.sandboxed), row("sandbox alone (prlimit --version)", startup.sandboxOnly)],
    ),
    `sandboxed / unsandboxed: ${fixed(startup.sandboxedOverDirect)}x; the sandboxed run itself: ${passRun.cpuMs === null ? "n/a" : fixed(passRun.cpuMs, 1)} ms CPU, ${passRun.maxRssKb ?? "n/a"} KiB peak charged memory`,
    "",
    formatTable(
      [`code_gen-style verify (${verify.casesPerVerify} stdin cases, median of ${verify.verifies})`, "ms"],
      [
        ["one sandbox per case, one after another", fixed(verify.sequentialMs, 0)],
        [`one sandbox per case, ${verify.concurrency} at once`, fixed(verify.concurrentMs, 0)],
        ["all cases in one sandbox (a harness exec()s each, like NeMo Gym's process)", fixed(verify.oneSandboxHarnessMs, 0)],
      ],
    ),
    "",
    formatTable(
      ["maxConcurrent", "runs", "python3 -c pass runs/s"],
      result.throughput.map((t) => [t.concurrency, t.runs, fixed(t.runsPerSecond, 1)]),
    ),
  ].join("\n");
}
