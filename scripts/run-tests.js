// Runs the type checker, then every test file with node:test (through tsx).
// Test files: tests/**/*.test.ts and <server kind>/<name>/tests/**/*.test.ts.
import { readdirSync, statSync, existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
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

const filter = process.argv.slice(2);
const files = ["tests", "resources_servers", "responses_api_agents", "responses_api_models"]
  .flatMap((d) => findTests(join(root, d)))
  .map((f) => relative(root, f))
  .filter((f) => filter.length === 0 || filter.some((pattern) => f.includes(pattern)))
  .sort();

if (filter.length === 0) {
  console.log("[test] type-checking (tsc --noEmit)…");
  const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", "tsconfig.json"], { cwd: root, stdio: "inherit" });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}

console.log(`[test] ${files.length} test files`);
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-reporter=spec", "--test-concurrency=2", "--test-timeout=120000", ...files],
  { cwd: root, stdio: "inherit", env: { ...process.env, NODE_ENV: "test" } },
);
process.exit(result.status ?? 1);
