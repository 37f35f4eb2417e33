// Throughput of the code environments for training (issue 17 part 2): each server started by the test kit in this
// process on a loopback port, driven over real HTTP, every program in a real bubblewrap sandbox.
//
//   1. code_gen: POST /verify per second on a typical row (10 stdin tests, a correct program) with 1, 2, 4 and 8
//      requests in flight, for num_processes 2 and 4 (the server's sandbox limit), latency p50 / p99.
//   2. math_with_code: the latency of execute_python call 1 … 5 of one session. A session's state is the replay of its
//      earlier cells in a fresh sandbox (python-session.ts), so call 5 pays for cells 1–4 again: the replay cost. Once
//      with quick cells (a model's arithmetic: the interpreter's start dominates) and once with cells that compute.
//   3. spider2_lite: POST /verify per second on a small SQLite database (the example shop, built here), gold_sql mode.
//   4. evalplus: POST /verify latency on the example problems file (a right function, base + plus inputs).
//
// Each figure is a closed loop of a few seconds: `BENCH_CODE_SECONDS=5 npm run bench code` (default 3). Every answer
// is checked (status 200, the expected reward), so a figure never counts failures as work done.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { PROJECT_ROOT } from "../src/config/index.ts";
import { HttpClient } from "../src/client/index.ts";
import { assistantMessage, overHttp, responseWith, startServers, type ServerCalls } from "../src/testing/index.ts";
import codeGen from "../resources_servers/code_gen/app.ts";
import mathWithCode from "../resources_servers/math_with_code/app.ts";
import spider2Lite from "../resources_servers/spider2_lite/app.ts";
import { buildShopDatabase } from "../resources_servers/spider2_lite/data/build-example-db.ts";
import evalplus from "../resources_servers/evalplus/app.ts";
import { fixed, formatTable, percentile } from "./measure.ts";
import { CASES, SOLUTION } from "./sandbox.ts";

export interface LoadFigure {
  concurrency: number;
  calls: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface MathSessionFigures {
  /** Which cells the sessions sent. */
  cells: string;
  sessions: number;
  calls: { call: number; replayedCells: number; p50Ms: number; p99Ms: number }[];
  call5OverCall1: number;
}

export interface CodeBench {
  /** 1, 5 and 15 minute load averages when the suite started: other work on the machine shows here. */
  loadAverage: number[];
  secondsPerFigure: number;
  codeGen: { numProcesses: number; tests: number; figures: LoadFigure[] }[];
  mathWithCode: MathSessionFigures[];
  spider2Lite: LoadFigure[];
  evalplus: LoadFigure[];
}

const fenced = (language: string, code: string) => `Here it is:\n\`\`\`${language}\n${code}\n\`\`\`\n`;

/**
 * `concurrency` callers, each sending its next request when the last one answered, until `seconds` have passed
 * (after one untimed call each). Requests per second over the whole loop, latency percentiles of every call.
 */
async function closedLoop(concurrency: number, seconds: number, call: () => Promise<void>): Promise<LoadFigure> {
  await Promise.all(Array.from({ length: concurrency }, call));
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const begun = performance.now();
        await call();
        latencies.push(performance.now() - begun);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { concurrency, calls: latencies.length, seconds: elapsed, perSecond: latencies.length / elapsed, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

/** POSTs `body` to `path` and checks the answer: 200 and the reward a right answer earns. */
function verifyCall(server: ServerCalls, body: unknown, name: string): () => Promise<void> {
  return async () => {
    const answer = await server.post("/verify", body);
    if (answer.status !== 200) throw new Error(`${name}: /verify answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    const reward = answer.json<{ reward: number }>().reward;
    if (reward !== 1) throw new Error(`${name}: the benchmark's right answer scored ${reward}: ${answer.text.slice(0, 500)}`);
  };
}

async function codeGenBench(client: HttpClient, seconds: number): Promise<CodeBench["codeGen"]> {
  const row = {
    responses_create_params: { input: [{ role: "user", content: "Read n and n numbers; print their sum and maximum." }] },
    verifier_metadata: { unit_tests: { inputs: CASES.map((c) => c.input), outputs: CASES.map((c) => c.output), fn_name: null } },
    response: responseWith([assistantMessage(fenced("python", SOLUTION))]),
  };
  const results: CodeBench["codeGen"] = [];
  for (const numProcesses of [2, 4]) {
    const graph = await startServers({ code_gen: [codeGen, { num_processes: numProcesses, unit_test_timeout_secs: 10, debug: false, reasoning_format_penalty: 0 }] });
    try {
      const call = verifyCall(overHttp(graph.url("code_gen"), client), row, "code_gen");
      const figures: LoadFigure[] = [];
      for (const concurrency of [1, 2, 4, 8]) figures.push(await closedLoop(concurrency, seconds, call));
      results.push({ numProcesses, tests: CASES.length, figures });
    } finally {
      await graph.close();
    }
  }
  return results;
}

/**
 * Five cells a model might send while solving a problem, each building on the ones before. Plain loops, no
 * comprehensions over the cell's names: NeMo Gym exec()s with separate globals and locals, where a comprehension
 * does not see the cell's variables.
 */
const MATH_CELLS = [
  "n = 360\nfactors = []\nfor d in range(1, n + 1):\n    if n % d == 0:\n        factors.append(d)\nlen(factors)",
  "total = sum(factors)\ntotal",
  "arr = np.array(factors)\nint((arr % 2 == 0).sum())",
  "squares = 0\nfor f in factors:\n    if f < 50:\n        squares += f * f\nsquares",
  "print(total, squares, total // n)",
];
/** Cells with real work in them (a loop of ~0.3 M steps each): what the replay costs when a cell is not instant. */
const BUSY_CELLS = Array.from({ length: 5 }, (_, i) => `acc${i} = 0\nfor k in range(300000):\n    acc${i} += k % ${i + 7}\nacc${i}`);

async function mathWithCodeBench(client: HttpClient, seconds: number): Promise<MathSessionFigures[]> {
  const graph = await startServers({ math_with_code: [mathWithCode, { max_execution_time: 10 }] });
  try {
    const env = overHttp(graph.url("math_with_code"), client);
    return [
      await mathSessions(env, "quick cells (a model's arithmetic)", MATH_CELLS, seconds),
      await mathSessions(env, "busy cells (a 0.3 M-step loop each)", BUSY_CELLS, seconds),
    ];
  } finally {
    await graph.close();
  }
}

/** Sessions of `cells`, one after another: at least 5, for about twice the other figures' time (5 calls each). */
async function mathSessions(env: ServerCalls, label: string, cells: string[], seconds: number): Promise<MathSessionFigures> {
  const perCall = cells.map(() => [] as number[]);
  const oneSession = async (timed: boolean) => {
    const session = env.session();
    for (const [index, code] of cells.entries()) {
      const begun = performance.now();
      const answer = await session.post("/execute_python", { code });
      const ms = performance.now() - begun;
      if (answer.status !== 200 || answer.json<{ success: boolean }>().success !== true) throw new Error(`math_with_code: cell ${index + 1} failed: ${answer.status} ${answer.text.slice(0, 300)}`);
      if (timed) perCall[index]!.push(ms);
    }
  };
  await oneSession(false);
  const end = performance.now() + 2 * seconds * 1000;
  let sessions = 0;
  while (sessions < 5 || performance.now() < end) {
    await oneSession(true);
    sessions++;
  }
  const calls = perCall.map((latencies, index) => {
    latencies.sort((a, b) => a - b);
    return { call: index + 1, replayedCells: index, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
  });
  return { cells: label, sessions, calls, call5OverCall1: calls[4]!.p50Ms / calls[0]!.p50Ms };
}

async function spider2LiteBench(client: HttpClient, seconds: number): Promise<LoadFigure[]> {
  const base = mkdtempSync(join(tmpdir(), "bench-spider2-"));
  buildShopDatabase(join(base, "sqlite", "shop.sqlite"));
  const graph = await startServers({ spider2_lite: [spider2Lite, { spider2_lite_dir: base, databases_url: null, sql_execution_timeout_s: 30, max_concurrency: 32 }] });
  try {
    const gold = "SELECT c.name, SUM(o.amount) AS total FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name";
    const answer = "SELECT (SELECT name FROM customers WHERE id = customer_id), SUM(amount) FROM orders GROUP BY customer_id";
    const row = {
      responses_create_params: { input: [{ role: "user", content: "What is the total order amount of each customer who ordered anything?" }] },
      response: responseWith([assistantMessage(fenced("sql", answer))]),
      db_id: "shop",
      instance_id: "shop001",
      question: "What is the total order amount of each customer who ordered anything?",
      gold_sql: gold,
      ignore_order: true,
    };
    const call = verifyCall(overHttp(graph.url("spider2_lite"), client), row, "spider2_lite");
    return [await closedLoop(1, seconds, call), await closedLoop(4, seconds, call)];
  } finally {
    await graph.close();
    rmSync(base, { recursive: true, force: true });
  }
}

async function evalplusBench(client: HttpClient, seconds: number): Promise<LoadFigure[]> {
  const problemsFile = join(PROJECT_ROOT, "resources_servers/evalplus/data/example_problems.jsonl");
  const graph = await startServers({ evalplus: [evalplus, { dataset: "humaneval", num_processes: 8, min_time_limit: 1.0, gt_time_limit_factor: 4.0, problems_file: problemsFile }] });
  try {
    const row = {
      responses_create_params: { input: [] },
      response: responseWith([assistantMessage(fenced("python", "def sum_of_squares(numbers):\n    return sum(n * n for n in numbers)"))]),
      verifier_metadata: { task_id: "Example/0" },
    };
    const call = verifyCall(overHttp(graph.url("evalplus"), client), row, "evalplus");
    return [await closedLoop(1, seconds, call), await closedLoop(4, seconds, call)];
  } finally {
    await graph.close();
  }
}

export async function codeBench(): Promise<CodeBench> {
  const seconds = Number(process.env.BENCH_CODE_SECONDS ?? 3);
  const loadAverage = loadavg();
  const client = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 120_000, maxRetries: 0 });
  try {
    return {
      loadAverage,
      secondsPerFigure: seconds,
      codeGen: await codeGenBench(client, seconds),
      mathWithCode: await mathWithCodeBench(client, seconds),
      spider2Lite: await spider2LiteBench(client, seconds),
      evalplus: await evalplusBench(client, seconds),
    };
  } finally {
    await client.close();
  }
}

const loadRow = (label: string | number, f: LoadFigure) => [label, f.concurrency, f.calls, fixed(f.perSecond, 1), fixed(f.p50Ms, 0), fixed(f.p99Ms, 0)];
const LOAD_HEADERS = ["in flight", "calls", "verifies/s", "p50 ms", "p99 ms"];

export function formatCode(result: CodeBench): string {
  return [
    `load average when the suite started: ${result.loadAverage.map((v) => fixed(v, 2)).join(" / ")} (1 / 5 / 15 min); ~${result.secondsPerFigure} s per figure`,
    "",
    formatTable(
      [`code_gen POST /verify (${result.codeGen[0]?.tests ?? 0} stdin tests, right program): num_processes`, ...LOAD_HEADERS],
      result.codeGen.flatMap(({ numProcesses, figures }) => figures.map((f) => loadRow(numProcesses, f))),
    ),
    "",
    formatTable(
      ["math_with_code POST /execute_python", "sessions", "cells replayed", "p50 ms", "p99 ms"],
      result.mathWithCode.flatMap((m) => m.calls.map((c) => [`${m.cells}: call ${c.call}`, m.sessions, c.replayedCells, fixed(c.p50Ms, 0), fixed(c.p99Ms, 0)])),
    ),
    ...result.mathWithCode.map((m) => `${m.cells}: call 5 / call 1 (p50) ${fixed(m.call5OverCall1)}x — the replay of the session's earlier cells`),
    "",
    formatTable(["POST /verify", ...LOAD_HEADERS], [
      ...result.spider2Lite.map((f) => loadRow("spider2_lite (shop.sqlite, gold_sql)", f)),
      ...result.evalplus.map((f) => loadRow("evalplus (Example/0, base + plus)", f)),
    ]),
  ].join("\n");
}
