// Installs the pinned dependencies when they are missing or older than package-lock.json, so that
// `npm start` and `npm test` work on a fresh clone without a separate install step; and bubblewrap (below).
import { accessSync, constants, existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const lock = join(root, "package-lock.json");
const installedMarker = join(root, "node_modules", ".package-lock.json");

const upToDate = existsSync(installedMarker) && statSync(installedMarker).mtimeMs >= statSync(lock).mtimeMs;
// A symlinked node_modules is an install shared with another checkout (a git worktree): `npm ci` here would empty
// the folder it points to under everyone using it, so it is left to that checkout.
const shared = existsSync(join(root, "node_modules")) && lstatSync(join(root, "node_modules")).isSymbolicLink();
if (!upToDate && shared) {
  console.log(`[setup] node_modules is a link to ${realpathSync(join(root, "node_modules"))}, older than package-lock.json: run npm ci there`);
} else if (!upToDate) {
  console.log("[setup] installing pinned dependencies (npm ci)…");
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error("[setup] npm ci failed; see the output above");
    process.exit(result.status ?? 1);
  }
}

// bubblewrap: the sandbox that environments running untrusted code need (src/sandbox). Installed here when missing
// and this is root on Debian/Ubuntu; otherwise the exact command is printed. Never fails the setup: only sandbox
// users need it, and they get a 503 naming the same fix.
function onPath(name) {
  const dirs = [...(process.env.PATH ?? "").split(":").filter(Boolean), "/usr/bin", "/bin", "/usr/sbin"];
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function ensureBubblewrap() {
  if (process.platform !== "linux" || onPath("bwrap") || process.env.NEMO_GYM_SKIP_BUBBLEWRAP === "1") return;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !onPath("apt-get")) {
    console.log("[setup] bubblewrap (bwrap) is missing: sandboxed environments answer 503 until you run: sudo apt-get install -y bubblewrap");
    return;
  }
  console.log("[setup] installing bubblewrap (the sandbox for untrusted code): apt-get install -y bubblewrap");
  const quiet = { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } };
  let result = spawnSync("apt-get", ["install", "-y", "--no-install-recommends", "bubblewrap"], quiet);
  if (result.status !== 0) {
    // A fresh image has no package lists yet.
    spawnSync("apt-get", ["update"], quiet);
    result = spawnSync("apt-get", ["install", "-y", "--no-install-recommends", "bubblewrap"], quiet);
  }
  if (result.status !== 0) console.log("[setup] could not install bubblewrap; sandboxed environments answer 503 until: apt-get install -y bubblewrap");
}

ensureBubblewrap();
