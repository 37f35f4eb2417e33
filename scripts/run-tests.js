// Runs the type checker beside every test file with node:test (TypeScript through bin/ts-register.js).
// Test files: tests/**/*.test.ts and <server kind>/<name>/tests/**/*.test.ts.
import { readdirSync, statSync, existsSync } from "node:fs";
import { spawn } from "node:child_process";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function findTests(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (entry.endsWith(".test.ts")) found.push(path);
  }
  return found;
}

// The slowest files start first, so the run does not end waiting on one long file started last (node:test takes
// files in the order given). Seconds each, measured on this 2-core machine (2026-12-02, top-level test time).
const SLOW_FIRST = [
  "tests/cli/launcher.test.ts", // 56, before its failure cases moved to launcher-failures
  "tests/cli/launcher-failures.test.ts",
  "tests/cli/eval-reverify-modes.test.ts", // 41
  "tests/cli/eval-prepare.test.ts", // 37
  "tests/cli/failures-you-can-read.test.ts", // 36
  "tests/cli/list.test.ts", // 33
  "tests/e2e/fault-injection.test.ts", // 33
  "tests/cli/dataset-download.test.ts", // 33
  "tests/cli/eval-run.test.ts", // 33
  "tests/cli/agent-ask.test.ts", // 30
  "tests/scaffold/env-test-code-servers.test.ts", // 26
  "resources_servers/competitive_coding_challenges/tests/app.test.ts", // 25
  "tests/rollouts/outage.test.ts", // 25
  "tests/cli/eval-tools.test.ts", // 24
  "tests/cli/config-keys.test.ts", // 21
  "tests/gateway/e2e.test.ts", // 20
  "tests/scaffold/init.test.ts", // 18
  "tests/cli/env-init-workload.test.ts", // 16
];
const slowRank = (file) => {
  const rank = SLOW_FIRST.indexOf(file);
  return rank === -1 ? SLOW_FIRST.length : rank;
};

const filter = process.argv.slice(2);
const files = ["tests", "resources_servers", "responses_api_agents", "responses_api_models"]
  .flatMap((d) => findTests(join(root, d)))
  .map((f) => relative(root, f))
  .filter((f) => filter.length === 0 || filter.some((pattern) => f.includes(pattern)))
  .sort()
  .sort((a, b) => slowRank(a) - slowRank(b));

// The type checker runs beside the tests, not before them: it is one process on one core for ~40 s, and the
// test run leaves a core idle a good part of the time (servers starting, processes waiting on each other).
// Its output is held and printed after the tests, so the two never interleave.
function run(args, options) {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, args, { cwd: root, ...options });
    let held = "";
    child.stdout?.on("data", (chunk) => (held += chunk));
    child.stderr?.on("data", (chunk) => (held += chunk));
    child.on("close", (code, signal) => resolveRun({ code: code ?? (signal ? 1 : 0), held }));
  });
}

// Three files at a time on two cores: measured on this 2-core machine, two left a core idle about 40% of the
// run (the CPU time was 1.6 of the wall time), mostly waiting on child servers and loopback round trips.
const concurrency = process.env.GYM_TEST_CONCURRENCY ?? "3";
// The project, then gym view's page (its own tsconfig: the browser's DOM types and preact's JSX).
// Incremental, its state under node_modules/.cache (never committed): a run after a small change checks what the change
// touches instead of the whole project again — 33 s of wall (45 s of CPU) for the project on a fresh checkout here.
const typecheckProject = (project) =>
  run([join(root, "node_modules/typescript/bin/tsc"), "--noEmit", "--incremental", "--tsBuildInfoFile", join(root, "node_modules/.cache/tsc", `${project.replace(/[^A-Za-z0-9]+/g, "_")}.tsbuildinfo`), "-p", project], { stdio: ["ignore", "pipe", "pipe"] });
// node:test applies --test-timeout to each file as a whole too, not only to each test: a long CLI file on a loaded
// machine (the launcher's took 120 s under load, 56 s idle) must not be killed for being slow.
const typecheck = filter.length === 0
  ? (console.log("[test] type-checking (tsc --noEmit) beside the tests…"),
    typecheckProject("tsconfig.json").then((result) => (result.code === 0 ? typecheckProject("src/cli/view/app/tsconfig.json") : result)))
  : Promise.resolve({ code: 0, held: "" });

console.log(`[test] ${files.length} test files, ${concurrency} at a time`);
const tests = run(
  ["--import", "./bin/ts-register.js", "--test", "--test-reporter=spec", ...(process.env.GYM_TEST_TIMES ? ["--test-reporter-destination=stdout", "--test-reporter=" + process.env.GYM_TEST_TIMES, "--test-reporter-destination=/tmp/file-times.txt"] : []), `--test-concurrency=${concurrency}`, "--test-timeout=240000", ...files],
  { stdio: "inherit", env: { ...process.env, NODE_ENV: "test" } },
);
const [typecheckResult, testResult] = await Promise.all([typecheck, tests]);
if (typecheckResult.code !== 0) {
  process.stdout.write(typecheckResult.held);
  console.log("[test] the type check failed (above)");
  process.exit(typecheckResult.code);
}
if (filter.length === 0) console.log("[test] type check passed");
process.exit(testResult.code);
