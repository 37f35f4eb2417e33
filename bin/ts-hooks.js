// The module hook that lets Node 20 run this project's TypeScript: a `.ts` file is compiled by esbuild (the compiler
// tsx itself uses) and cached on disk by its content; every other module loads untouched. It replaces tsx on the
// hot paths (the `gym` CLI, the server children the launcher starts, the test runner) because tsx's resolve and load
// hooks cost every module a round trip through its own resolver: measured on this 2-core machine, importing
// src/server/index.ts took 1.2–1.3 s of CPU with tsx and 0.8 s with this hook (a no-op hook alone costs ~0.8 ms a
// module on Node 20, so there is no resolve hook here at all). What it does not do, and tsx does: resolve a
// specifier without its extension or a `.js` specifier to a `.ts` file. This project writes every import with its
// extension; set GYM_TS_LOADER=tsx to run code that does not.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const CACHE_DIR = join(tmpdir(), `nemo-gym-ts-${process.getuid?.() ?? "user"}`);
// Part of every cache key: a change here (or of esbuild) compiles everything again.
const OPTIONS = {
  loader: "ts",
  format: "esm",
  target: "es2023",
  sourcemap: "inline",
  // tsconfig.json's settings that change what esbuild emits (target ES2023: class fields are defined, not assigned).
  tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, verbatimModuleSyntax: false } },
};
// esbuild's version from its package.json, without loading esbuild: a warm cache never needs the compiler at all.
const esbuildVersion = createRequire(import.meta.url)("esbuild/package.json").version;
const OPTIONS_KEY = `${esbuildVersion}\0${JSON.stringify(OPTIONS)}`;
let esbuild;
let cacheReady = false;

async function compile(path) {
  const source = readFileSync(path, "utf8");
  const key = createHash("sha256").update(OPTIONS_KEY).update("\0").update(path).update("\0").update(source).digest("hex");
  const cached = join(CACHE_DIR, `${key}.mjs`);
  try {
    return readFileSync(cached, "utf8");
  } catch {
    // not compiled yet
  }
  esbuild ??= await import("esbuild");
  const { code } = await esbuild.transform(source, { ...OPTIONS, sourcefile: path });
  try {
    if (!cacheReady) mkdirSync(CACHE_DIR, { recursive: true, mode: 0o700 });
    cacheReady = true;
    // Written under a temporary name, then renamed: a process reading the cache never sees half a file.
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, cached);
  } catch {
    // An unwritable cache only costs the next process a compile.
  }
  return code;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !(url.endsWith(".ts") || url.endsWith(".mts"))) return nextLoad(url, context);
  return { format: "module", source: await compile(fileURLToPath(url)), shortCircuit: true };
}
