// Installs the pinned dependencies when they are missing or older than package-lock.json, so that
// `npm start` and `npm test` work on a fresh clone without a separate install step.
import { existsSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const lock = join(root, "package-lock.json");
const installedMarker = join(root, "node_modules", ".package-lock.json");

const upToDate = existsSync(installedMarker) && statSync(installedMarker).mtimeMs >= statSync(lock).mtimeMs;
if (!upToDate) {
  console.log("[setup] installing pinned dependencies (npm ci)…");
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error("[setup] npm ci failed; see the output above");
    process.exit(result.status ?? 1);
  }
}
