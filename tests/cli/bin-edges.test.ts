// gym at the edges of a shell: a fresh clone before its first install, and output piped into a reader that stops early.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

test("bin/gym.js without node_modules prints one line naming npm ci and exits 2", () => {
  const clone = mkdtempSync(join(tmpdir(), "gym-no-deps-"));
  mkdirSync(join(clone, "bin"));
  copyFileSync(join(import.meta.dirname, "..", "..", "bin", "gym.js"), join(clone, "bin", "gym.js"));
  const result = spawnSync(process.execPath, [join(clone, "bin", "gym.js"), "--help"], { encoding: "utf8", cwd: clone });
  assert.equal(result.status, 2);
  assert.equal(result.stdout, "");
  assert.equal(result.stderr, "error: this checkout's dependencies are not installed: run `npm ci` (or `npm start` / `npm test`, which install them) in the project folder\n");
});

test("gym's output piped into a reader that stops early (| head) ends quietly, no EPIPE stack", async () => {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [join(import.meta.dirname, "..", "..", "bin", "gym.js"), "list", "environments"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  child.stdout.once("data", () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  assert.doesNotMatch(stderr, /EPIPE|Error/);
  assert.equal(code, 0);
});
