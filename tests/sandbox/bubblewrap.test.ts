// The bubblewrap provider as an environment uses it: a program with stdin and files in, what it did out; its
// runtimes; its concurrency limit; the requests it refuses; and what its sandbox root is made of.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { BubblewrapSandbox, DEFAULT_LIMITS, pythonRuntime, resolveLimits, SandboxUnavailableError } from "../../src/sandbox/index.ts";
import { baseRoot, bwrapArgs, sandboxEnv } from "../../src/sandbox/bubblewrap/args.ts";
import { launchCommand } from "../../src/sandbox/bubblewrap/launcher.ts";

let sandbox: BubblewrapSandbox;
before(async () => {
  sandbox = new BubblewrapSandbox({ maxConcurrent: 2 });
  await sandbox.ensureAvailable();
});
after(() => sandbox.close());

test("a program reads its stdin and its files, and its exit code, output and usage come back", async () => {
  const result = await sandbox.run({
    program: { language: "python", source: "import sys\nprint(open('data/n.txt').read().strip(), sys.stdin.read().upper())\nprint('to stderr', file=sys.stderr)\nsys.exit(3)", args: [] },
    files: { "data/n.txt": "seven\n" },
    stdin: "from stdin",
  });
  assert.equal(result.exitCode, 3);
  assert.equal(result.signal, null);
  assert.equal(result.stdout, "seven FROM STDIN\n");
  assert.equal(result.stderr, "to stderr\n");
  assert.equal(result.timedOut, false);
  assert.equal(result.outputTruncated, false);
  assert.ok(result.wallMs > 0);
  // Measured from the run's cgroups where this host has them (it does here: cgroup v1 is writable).
  if (result.cpuMs !== null) assert.ok(result.cpuMs > 0);
  if (result.maxRssKb !== null) assert.ok(result.maxRssKb > 0);
});

test("a signal that ends the program is reported as the signal, not as an exit code", async () => {
  const result = await sandbox.run({ command: ["python3", "-c", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"] });
  assert.equal(result.exitCode, null);
  assert.equal(result.signal, "SIGSEGV");
});

test("Debian's /usr/bin/python3 runs as well as the pyenv one", { skip: existsSync("/usr/bin/python3") ? false : "no /usr/bin/python3 here" }, async () => {
  const debian = new BubblewrapSandbox({ runtimes: () => [pythonRuntime("/usr/bin/python3")] });
  try {
    const result = await debian.run({ program: { language: "python", source: "import sys, json\nprint(json.dumps([sys.executable, sys.prefix]))" } });
    assert.equal(result.exitCode, 0, result.stderr);
    const [executable, prefix] = JSON.parse(result.stdout);
    assert.equal(prefix, "/usr");
    assert.match(executable, /^\/usr\/bin\/python3/);
  } finally {
    await debian.close();
  }
});

test("a pyenv-style Python is bound at /opt/python, never under /root", () => {
  const runtime = pythonRuntime();
  for (const bind of runtime.binds) assert.equal(/^\/(root|home)(\/|$)/.test(bind.dest), false, `${bind.source} → ${bind.dest}`);
});

test("no more than maxConcurrent programs run at once; the rest wait their turn", async () => {
  const marker = `ngconc${randomBytes(4).toString("hex")}`;
  let mostAtOnce = 0;
  const poll = setInterval(() => {
    // A sandbox in flight is a bwrap whose argv carries the marker and whose parent is no such bwrap (bwrap forks its
    // own pid 1 with the same argv): counted from launch to exit, however slow the interpreter starts on a busy host.
    const bwraps = new Map<number, number>();
    for (const entry of readdirSync("/proc")) {
      try {
        const argv = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0");
        if (!argv[0]!.endsWith("bwrap") || !argv.includes(marker)) continue;
        bwraps.set(Number(entry), Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1]));
      } catch {
        // ended while we looked
      }
    }
    // An inner bwrap whose outer one has just exited is re-parented to pid 1 for a moment: not a run of its own.
    const outer = [...bwraps.values()].filter((parent) => !bwraps.has(parent) && parent !== 1).length;
    mostAtOnce = Math.max(mostAtOnce, outer);
  }, 20);
  try {
    const results = await Promise.all(Array.from({ length: 5 }, () => sandbox.run({ command: ["python3", "-c", "import time; time.sleep(1)", marker] })));
    for (const result of results) assert.equal(result.exitCode, 0, result.stderr);
  } finally {
    clearInterval(poll);
  }
  assert.equal(mostAtOnce, 2);
});

test("aborting a run kills it and says so", async () => {
  const controller = new AbortController();
  const run = sandbox.run({ command: ["python3", "-c", "import time; time.sleep(30)"], signal: controller.signal });
  setTimeout(() => controller.abort(), 300);
  const result = await run;
  assert.equal(result.signal, "SIGKILL");
  assert.equal(result.timedOut, false);
});

test("requests that are not runs are refused before anything starts", async () => {
  await assert.rejects(sandbox.run({}), /exactly one of `command` and `program`/);
  await assert.rejects(sandbox.run({ command: ["true"], program: { language: "python", source: "" } }), /exactly one/);
  await assert.rejects(sandbox.run({ command: ["true"], files: { "../escape": "x" } }), /not a relative path inside the work dir/);
  await assert.rejects(sandbox.run({ command: ["true"], files: { "/etc/passwd": "x" } }), /not a relative path/);
  await assert.rejects(sandbox.run({ program: { language: "cobol", source: "" } }), /no "cobol" runtime; this provider runs python/);
  await assert.rejects(sandbox.run({ command: ["true"], limits: { wallMs: 0 } }), /wallMs must be a positive integer/);
  await assert.rejects(sandbox.run({ command: ["true"], env: { "BAD NAME": "x" } }), /not an environment variable name/);
  assert.throws(() => resolveLimits(DEFAULT_LIMITS, { memory: 1 } as never), /unknown limit "memory"/);
});

test("no descriptor this server inherited reaches the program", async () => {
  // The child inherits a pipe as fd 40, as a server started by a supervisor might. (Node itself marks the inherited
  // fds up to the first gap past 15 close-on-exec; one beyond that stays inheritable, as fd 251 of a shell job does.)
  const stdio = ["ignore", "pipe", "inherit", ...Array<"ignore">(37).fill("ignore"), "pipe"] as const;
  const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "fixtures/sandbox-fds.ts")], { stdio: [...stdio] });
  let out = "";
  child.stdout!.on("data", (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0);
  const fds: Record<string, string> = JSON.parse(out);
  const leaked = Object.entries(fds).filter(([fd, target]) => Number(fd) > 2 && /^(pipe|socket):/.test(target));
  assert.deepEqual(leaked, []);
});

test("the sandbox root holds libraries, prlimit and the runtime; no /root, /home, /run, /etc or project folder", () => {
  const runtime = pythonRuntime();
  const args = bwrapArgs({
    root: baseRoot("/usr/bin/prlimit"),
    runtimes: [runtime],
    limits: DEFAULT_LIMITS,
    files: [{ fd: 4, path: "main.py" }],
    setupDoneFd: 3,
    env: sandboxEnv([runtime]),
    argv: ["python3", "main.py"],
    canDisableUserns: true,
  });
  for (const flag of ["--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup", "--die-with-parent", "--new-session", "--clearenv", "--disable-userns"]) {
    assert.ok(args.includes(flag), `${flag} missing`);
  }
  assert.equal(args.includes("--bind"), false, "nothing of the host is bound writable");
  assert.equal(args.includes("--share-net"), false);
  const sources = args.flatMap((arg, i) => (arg === "--ro-bind" ? [args[i + 1]!] : []));
  const dests = args.flatMap((arg, i) => (arg === "--ro-bind" ? [args[i + 2]!] : []));
  for (const dest of dests) assert.equal(/^\/(root|home|run|var|srv|tmp|proc|sys)(\/|$)/.test(dest), false, `${dest} is bound`);
  for (const source of sources) assert.equal(source.startsWith(process.cwd()), false, `the project folder is bound (${source})`);
  assert.deepEqual(dests.filter((dest) => dest.startsWith("/etc")), ["/etc/ld.so.cache"]);
  const afterCommand = args.slice(args.indexOf("--") + 1);
  assert.equal(afterCommand[0], "/usr/bin/prlimit");
  assert.deepEqual(afterCommand.slice(-2), ["python3", "main.py"]);
});

test("the launcher joins the cgroups and closes inherited descriptors before it becomes bwrap", () => {
  assert.deepEqual(launchCommand(undefined, "/usr/bin/bwrap", ["--x"], [], []), { file: "/usr/bin/bwrap", args: ["--x"] });
  const launch = launchCommand("/bin/bash", "/usr/bin/bwrap", ["--x"], ["/cg/a/cgroup.procs", "/cg/b/cgroup.procs"], [9, 251]);
  assert.equal(launch.file, "/bin/bash");
  const script = launch.args[launch.args.indexOf("-c") + 1]!;
  assert.match(script, /exec 9>&-; exec 251>&-/);
  assert.ok(script.indexOf("cgroup.procs") === -1, "paths travel as arguments, not inside the script");
  assert.deepEqual(launch.args.slice(-5), ["/cg/a/cgroup.procs", "/cg/b/cgroup.procs", "--", "/usr/bin/bwrap", "--x"]);
});

test("each run's cgroups are removed after it, and a dead server's leftover groups at the next start", async (t) => {
  const { cgroups } = await sandbox.describe();
  const parents = Object.values(cgroups.parents);
  if (parents.length === 0) return t.skip(`no writable cgroups here: ${JSON.stringify(cgroups.missing)}`);
  await sandbox.run({ command: ["python3", "-c", "pass"] });
  for (const parent of parents) assert.deepEqual(readdirSync(parent, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name), [], parent);
  // A pid that has just exited stands for a server that died without closing its provider.
  const dead = spawn("true");
  await new Promise((resolve) => dead.on("close", resolve));
  const stale = join(dirname(parents[0]!), `nemo-gym-sandbox-${dead.pid}-1`);
  mkdirSync(join(stale, "run-7"), { recursive: true });
  const next = new BubblewrapSandbox();
  try {
    await next.ensureAvailable();
    assert.equal(existsSync(stale), false);
  } finally {
    await next.close();
  }
});

test("a sandbox bwrap fails to build is no program result; a program that imitates bwrap's error is one", async () => {
  // `main.py/x` makes bwrap create main.py as a directory, so copying the program to main.py fails during setup.
  const error = await sandbox.run({ program: { language: "python", source: "print(1)" }, files: { "main.py/x": "" } }).catch((e: unknown) => e);
  assert.ok(error instanceof SandboxUnavailableError, String(error));
  assert.match(error.reason, /bubblewrap could not start the sandbox \(bwrap: /);
  const imitation = await sandbox.run({ command: ["python3", "-c", "import sys\nprint('bwrap: Can\\'t find source path /x: Permission denied', file=sys.stderr)\nsys.exit(1)"] });
  assert.equal(imitation.exitCode, 1);
  assert.match(imitation.stderr, /^bwrap: Can't find source path/);
});
