// Layout is architecture: src/ is built in floors, and a file may import only from its own floor or a lower one.
// Server folders (resources_servers/, responses_api_agents/, responses_api_models/) are built on src/ alone. There is no
// import cycle between files. This test reads every import (type-only ones too: a type from a higher floor is still a
// dependency on it) with the TypeScript compiler's own pre-processor and fails naming each offending import.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The floors of src/, lowest first. */
export const FLOORS: Readonly<Record<string, number>> = {
  protocol: 0,
  python: 0,
  config: 1,
  metrics: 1,
  client: 2,
  server: 2,
  models: 2,
  ports: 3,
  rollouts: 4,
  gateway: 4,
  scaffold: 4,
  sandbox: 4,
  sql: 4,
  testing: 4,
  cli: 5,
};
const SERVER_FOLDERS = ["resources_servers", "responses_api_agents", "responses_api_models"];

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(ts|js|mjs)$/.test(entry) && !entry.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

/** Project-relative paths of the project files `file` imports (relative specifiers only). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => relative(root, resolve(dirname(file), spec)).split(sep).join("/"));
}

const toPosix = (path: string) => relative(root, path).split(sep).join("/");
const files = [join(root, "src"), ...SERVER_FOLDERS.map((d) => join(root, d))].flatMap(sourceFiles);
const graph = new Map(files.map((file) => [toPosix(file), importsOf(file)]));

/** The room of a src/ path (`src/server/x.ts` → `server`), or undefined outside src/. */
function roomOf(path: string): string | undefined {
  const parts = path.split("/");
  return parts[0] === "src" && parts.length > 2 ? parts[1] : undefined;
}
const serverFolderOf = (path: string) => (SERVER_FOLDERS.includes(path.split("/")[0]) ? path.split("/").slice(0, 2).join("/") : undefined);

test("every folder of src/ has a floor, and no file lies loose in src/", () => {
  const rooms = readdirSync(join(root, "src")).filter((e) => statSync(join(root, "src", e)).isDirectory());
  assert.deepEqual(rooms.filter((r) => !(r in FLOORS)), [], "a new folder of src/ needs its floor in FLOORS");
  const loose = readdirSync(join(root, "src")).filter((e) => !statSync(join(root, "src", e)).isDirectory());
  assert.deepEqual(loose, []);
});

test("a src/ file imports only from its own floor or a lower one", () => {
  const violations: string[] = [];
  for (const [file, imports] of graph) {
    const room = roomOf(file);
    if (room === undefined) continue;
    for (const target of imports) {
      const targetRoom = roomOf(target);
      if (targetRoom === undefined) {
        if (!target.startsWith("node_modules")) violations.push(`${file} → ${target} (outside src/)`);
        continue;
      }
      if (FLOORS[targetRoom] > FLOORS[room]) {
        violations.push(`${file} (${room}, floor ${FLOORS[room]}) → ${target} (${targetRoom}, floor ${FLOORS[targetRoom]})`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test("server folders import from src/ and their own folder only, never from tests/ or src/cli", () => {
  const violations: string[] = [];
  for (const [file, imports] of graph) {
    const own = serverFolderOf(file);
    if (own === undefined) continue;
    for (const target of imports) {
      if (target.startsWith(own + "/")) continue;
      if (roomOf(target) !== undefined && roomOf(target) !== "cli") continue;
      violations.push(`${file} → ${target}`);
    }
  }
  assert.deepEqual(violations, []);
});

test("no import cycle between files", () => {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (state.get(target) === "open") cycles.push([...stack.slice(stack.indexOf(target)), target].join(" → "));
      else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});

test("the import reader sees every kind of import (static, type-only, re-export, dynamic)", () => {
  const probe = ts.preProcessFile(
    `import a from "./a.ts"; import type { B } from "./b.ts"; export * from "./c.ts"; const d = await import("./d.ts");`,
    true,
    true,
  );
  assert.deepEqual(probe.importedFiles.map((f) => f.fileName), ["./a.ts", "./b.ts", "./c.ts", "./d.ts"]);
});
