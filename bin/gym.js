#!/usr/bin/env node
// Entry point for `gym` and its NeMo Gym aliases (`ng`, `ng_run`, `ng_collect_rollouts`, …).
// TypeScript runs directly through tsx, so there is no build step between a clone and a run.
import { register } from "tsx/esm/api";
import { basename } from "node:path";

register();
const { main } = await import("../src/cli/main.ts");
const exitCode = await main(basename(process.argv[1] ?? "gym"), process.argv.slice(2));
process.exitCode = exitCode;
