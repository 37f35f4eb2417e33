// A fresh clone before its first install: `gym` says how to install, not Node's module-resolution stack trace.
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
