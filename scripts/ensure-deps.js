// Installs the pinned dependencies when they are missing or older than package-lock.json, so that
// `npm start` and `npm test` work on a fresh clone without a separate install step; and the system tools (below).
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

// System tools the environments need, installed here when missing and this is root on Debian/Ubuntu (one apt-get
// for all of them); otherwise the exact command is printed. Never fails the setup: only their users need them, and
// those get a 503/501 naming the same fix. When everything is there this is PATH lookups only.
//   bubblewrap — the sandbox for untrusted code (src/sandbox);
//   iverilog   — Icarus Verilog, which cvdp simulates designs with (its tests fail without it);
//   chromium   — the headless browser `gym view`'s tests drive (through playwright-core), Debian's package.
const SYSTEM_TOOLS = [
  { binary: "bwrap", pkg: "bubblewrap", what: "the sandbox for untrusted code", without: "sandboxed environments answer 503", skip: "NEMO_GYM_SKIP_BUBBLEWRAP" },
  { binary: "iverilog", pkg: "iverilog", what: "Icarus Verilog, for cvdp", without: "cvdp answers 501", skip: "NEMO_GYM_SKIP_IVERILOG" },
  { binary: "chromium", pkg: "chromium", what: "a headless browser, for gym view's tests", without: "gym view's browser tests are skipped", skip: "NEMO_GYM_SKIP_CHROMIUM" },
];

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

function ensureSystemTools() {
  if (process.platform !== "linux") return;
  const missing = SYSTEM_TOOLS.filter((tool) => process.env[tool.skip] !== "1" && !onPath(tool.binary));
  if (missing.length === 0) return;
  const packages = missing.map((tool) => tool.pkg);
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !onPath("apt-get")) {
    for (const tool of missing) console.log(`[setup] ${tool.binary} (${tool.what}) is missing: ${tool.without} until you run: sudo apt-get install -y ${tool.pkg}`);
    return;
  }
  console.log(`[setup] installing ${missing.map((tool) => `${tool.pkg} (${tool.what})`).join(", ")}: apt-get install -y ${packages.join(" ")}`);
  const quiet = { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } };
  const install = () => spawnSync("apt-get", ["install", "-y", "--no-install-recommends", ...packages], quiet);
  let result = install();
  if (result.status !== 0) {
    // A fresh image has no package lists yet.
    spawnSync("apt-get", ["update"], quiet);
    result = install();
  }
  for (const tool of missing) {
    if (!onPath(tool.binary)) console.log(`[setup] could not install ${tool.pkg}; ${tool.without} until: apt-get install -y ${tool.pkg}`);
  }
}

ensureSystemTools();
