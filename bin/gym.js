#!/usr/bin/env node
// Entry point for `gym` and its NeMo Gym aliases (`ng`, `ng_run`, `ng_collect_rollouts`, …).
// TypeScript runs directly (compiled on load by bin/ts-hooks.js), so there is no build step between a clone and a run.
import { basename } from "node:path";

try {
  // TypeScript through esbuild (bin/ts-hooks.js); GYM_TS_LOADER=tsx for tsx.
  await import("./ts-register.js");
} catch (error) {
  // A fresh clone before its first install: say how to install instead of printing Node's resolver stack.
  if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
  process.stderr.write("error: this checkout's dependencies are not installed: run `npm ci` (or `npm start` / `npm test`, which install them) in the project folder\n");
  process.exit(2);
}
// `gym list … | head`: the reader went away, which ends the output, not the program with an EPIPE stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { main } = await import("../src/cli/main.ts");
const exitCode = await main(basename(process.argv[1] ?? "gym"), process.argv.slice(2));
process.exitCode = exitCode;
