// Attacks from inside the bubblewrap sandbox, each shown contained: the program gets nothing it should not, the
// server running alongside keeps answering, and no process of any run is left behind. Every attack program carries
// a marker in its argv, so a scan of /proc finds whatever of it is still alive.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import Fastify, { type FastifyInstance } from "fastify";
import { BubblewrapSandbox, pythonRuntime, type SandboxResult, type SandboxRunRequest } from "../../src/sandbox/index.ts";

const MARKER = `ngsbx${randomBytes(6).toString("hex")}`;
const SECRET = `secret-${randomBytes(12).toString("hex")}`;
let sandbox: BubblewrapSandbox;
let server: FastifyInstance;
let serverPort: number;
let secretDir: string;
let secretFile: string;

/** Pids whose command line contains the marker (none of this test's own processes carries it). */
function processesWithMarker(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "latin1").includes(MARKER)) found.push(Number(entry));
    } catch {
      // ended while we looked
    }
  }
  return found;
}

/** Runs a Python program with the marker as its last argument. */
const python = (source: string, extra: Partial<SandboxRunRequest> = {}): Promise<SandboxResult> =>
  sandbox.run({ command: ["python3", "-c", source, MARKER], ...extra });

const jsonOut = (result: SandboxResult) => {
  assert.equal(result.exitCode, 0, `the probe program failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").pop()!);
};

async function serverAnswers() {
  const reply = await server.inject({ method: "GET", url: "/" });
  assert.equal(reply.statusCode, 200);
  // And over the real socket, as a client on this host sees it.
  await new Promise<void>((resolve, reject) => {
    const socket = connect(serverPort, "127.0.0.1", () => (socket.end(), resolve()));
    socket.on("error", reject);
  });
}

before(async () => {
  process.env.NEMO_GYM_SANDBOX_TEST_SECRET = SECRET;
  secretDir = mkdtempSync(join(tmpdir(), "ng-sandbox-secret-"));
  secretFile = join(secretDir, "env.yaml");
  writeFileSync(secretFile, `policy_api_key: ${SECRET}\n`);
  sandbox = new BubblewrapSandbox({ maxConcurrent: 4, limits: { wallMs: 8000 } });
  await sandbox.ensureAvailable();
  server = Fastify();
  server.get("/", async () => ({ status: "ok" }));
  await server.listen({ host: "127.0.0.1", port: 0 });
  serverPort = (server.server.address() as { port: number }).port;
});

after(async () => {
  await sandbox?.close();
  await server?.close();
  rmSync(secretDir, { recursive: true, force: true });
  delete process.env.NEMO_GYM_SANDBOX_TEST_SECRET;
});

test("writing outside the work dir fails everywhere; the work dir, /tmp and /dev/shm are writable", async () => {
  const targets = ["/x", "/etc/x", "/usr/lib/x", "/opt/python/x", "/proc/x", secretDir + "/x", "/work/../x"];
  const result = await python(`
import json, sys
out = {}
for path in ${JSON.stringify(targets)}:
    try:
        open(path, "w").write("owned"); out[path] = "written"
    except OSError as e:
        out[path] = type(e).__name__
for path in ["/work/ok", "/tmp/ok", "/dev/shm/ok"]:
    open(path, "w").write("ok"); out[path] = "written"
print(json.dumps(out))`);
  const out = jsonOut(result);
  for (const path of targets) assert.notEqual(out[path], "written", `${path} was writable`);
  for (const path of ["/work/ok", "/tmp/ok", "/dev/shm/ok"]) assert.equal(out[path], "written");
  assert.equal(existsSync(join(secretDir, "x")), false);
});

test("the secret file, the server's /proc/<pid>/environ and its environment are out of reach", async () => {
  const result = await python(`
import json, os
out = {"env": dict(os.environ), "files": {}, "proc": sorted(p for p in os.listdir("/proc") if p.isdigit())}
for path in [${JSON.stringify(secretFile)}, "/proc/${process.pid}/environ", "/proc/${process.pid}/cmdline", "/root/.bashrc", "/etc/passwd", "/etc/shadow", "${process.cwd()}/package.json", "/run", "/home", "/root"]:
    try:
        out["files"][path] = open(path).read() if not os.path.isdir(path) else os.listdir(path)
    except OSError as e:
        out["files"][path] = type(e).__name__
for pid in out["proc"]:
    try:
        out["files"]["/proc/%s/environ" % pid] = open("/proc/%s/environ" % pid).read()
    except OSError as e:
        out["files"]["/proc/%s/environ" % pid] = type(e).__name__
print(json.dumps(out))`);
  assert.equal(result.stdout.includes(SECRET), false, "the secret reached the program");
  const out = jsonOut(result);
  const allowlist = new Set(["HOME", "LANG", "LD_LIBRARY_PATH", "PATH", "PWD", "PYTHONDONTWRITEBYTECODE", "PYTHONNOUSERSITE", "TMPDIR"]);
  for (const name of Object.keys(out.env)) assert.ok(allowlist.has(name), `${name} reached the program`);
  for (const path of [secretFile, `/proc/${process.pid}/environ`, `/proc/${process.pid}/cmdline`, "/root/.bashrc", "/etc/passwd", "/etc/shadow", `${process.cwd()}/package.json`, "/run", "/home", "/root"]) {
    assert.equal(out.files[path], "FileNotFoundError", `${path}: ${JSON.stringify(out.files[path])}`);
  }
  // Only the run's own processes exist in its /proc: bwrap's pid 1 and the program.
  assert.ok(out.proc.length <= 3, `processes visible: ${out.proc.join(", ")}`);
});

test("no network: loopback ports (this server, Redis), DNS and the outside are unreachable", async () => {
  const result = await python(`
import json, socket
out = {}
for name, addr in [("server", ("127.0.0.1", ${serverPort})), ("redis", ("127.0.0.1", 6379)), ("outside", ("1.1.1.1", 53))]:
    s = socket.socket(); s.settimeout(2)
    try:
        s.connect(addr); out[name] = "connected"
    except OSError as e:
        out[name] = type(e).__name__
try:
    out["dns"] = socket.getaddrinfo("example.com", 80)[0][4][0]
except OSError as e:
    out["dns"] = type(e).__name__
out["interfaces"] = [name for _, name in socket.if_nameindex()]
print(json.dumps(out))`);
  const out = jsonOut(result);
  assert.equal(out.server, "ConnectionRefusedError");
  assert.equal(out.redis, "ConnectionRefusedError");
  assert.notEqual(out.outside, "connected");
  assert.equal(out.dns, "gaierror");
  assert.deepEqual(out.interfaces, ["lo"]);
  await serverAnswers();
});

test("a fork bomb is capped by the process limit and ended by the wall clock; the server answers meanwhile", async () => {
  const bomb = python(
    `
import os
while True:
    try:
        os.fork()
    except OSError:
        pass`,
    { limits: { wallMs: 2000, processes: 32 } },
  );
  await new Promise((resolve) => setTimeout(resolve, 700));
  const alive = processesWithMarker().length;
  await serverAnswers();
  const result = await bomb;
  assert.equal(result.timedOut, true);
  assert.equal(result.signal, "SIGKILL");
  // The marker is in the argv of every fork; the pids cgroup (or RLIMIT_NPROC) keeps them at the limit.
  assert.ok(alive <= 32, `${alive} bomb processes were alive at once`);
  assert.deepEqual(processesWithMarker(), []);
});

test("an 8 GB allocation fails inside the program; filling memory past the limit is stopped", async () => {
  const big = await python("bytearray(8 * 1024 ** 3)");
  assert.equal(big.exitCode, 1);
  assert.match(big.stderr, /MemoryError/);
  const creep = await python("chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))", { limits: { memoryBytes: 256 * 1024 * 1024 } });
  assert.notEqual(creep.exitCode, 0);
  assert.ok(creep.signal === "SIGKILL" || /MemoryError/.test(creep.stderr), JSON.stringify(creep));
  if (creep.maxRssKb !== null) assert.ok(creep.maxRssKb <= 256 * 1024 + 1024, `peak ${creep.maxRssKb} KiB`);
  await serverAnswers();
});

test("an endless CPU loop is ended by the CPU-time limit", async () => {
  const result = await python("while True: pass", { limits: { cpuMs: 1000, wallMs: 20_000 } });
  assert.equal(result.timedOut, true);
  assert.ok(result.signal === "SIGXCPU" || result.signal === "SIGKILL", String(result.signal));
  if (result.cpuMs !== null) assert.ok(result.cpuMs < 3000, `${result.cpuMs} ms of CPU`);
});

test("sleeping forever is ended by the wall clock", async () => {
  const result = await python("import time\ntime.sleep(10 ** 6)", { limits: { wallMs: 1000 } });
  assert.equal(result.timedOut, true);
  assert.equal(result.signal, "SIGKILL");
  assert.equal(result.exitCode, null);
  assert.deepEqual(processesWithMarker(), []);
});

test("100 MB on stdout keeps the first outputBytes and ends the run", async () => {
  const result = await python("import sys\nsys.stdout.buffer.write(b'x' * (100 * 1024 * 1024))", { limits: { outputBytes: 1024 * 1024 } });
  assert.equal(result.outputTruncated, true);
  assert.equal(result.stdout.length, 1024 * 1024);
  assert.equal(result.signal, "SIGKILL");
});

test("kill -9 -1 kills only the run itself: a sandbox running beside it and this server live on", async () => {
  const neighbour = python("import time\ntime.sleep(1.5)\nprint('survived')");
  await new Promise((resolve) => setTimeout(resolve, 300));
  // kill(-1) spares the caller and pid 1; what it can reach is the run's own child, and nothing outside.
  const killer = await python(`
import os, signal, time
child = os.fork()
if child == 0:
    time.sleep(30)
    os._exit(0)
os.kill(-1, signal.SIGKILL)
_, status = os.waitpid(child, 0)
print("child killed by", os.WTERMSIG(status))`);
  assert.equal(killer.stdout, "child killed by 9\n");
  const beside = await neighbour;
  assert.equal(beside.stdout, "survived\n");
  await serverAnswers();
});

test("ptrace cannot reach this server: its pid does not exist inside", async () => {
  const result = await python(`
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH = 16
rc = libc.ptrace(PTRACE_ATTACH, ${process.pid}, None, None)
print(json.dumps({"rc": rc, "errno": ctypes.get_errno()}))`);
  const out = jsonOut(result);
  assert.equal(out.rc, -1);
  assert.ok(out.errno === 3 || out.errno === 1, `errno ${out.errno}`); // ESRCH (no such pid here) or EPERM
  await serverAnswers();
});

test("no new user namespace inside (--disable-userns): one less kernel surface to attack from", async () => {
  const result = await python(`
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
rc = libc.unshare(CLONE_NEWUSER)
print(json.dumps({"rc": rc, "errno": ctypes.get_errno()}))`);
  const out = jsonOut(result);
  assert.equal(out.rc, -1);
  assert.ok(out.errno === 28 || out.errno === 1, `errno ${out.errno}`); // ENOSPC (max_user_namespaces 0) or EPERM
});

test("a double-forked, setsid daemon does not outlive its run", async () => {
  const result = await python(`
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", sys.argv[-1]])
    os._exit(0)
time.sleep(0.3)
print("parent done")`);
  assert.equal(result.stdout, "parent done\n");
  assert.deepEqual(processesWithMarker(), [], "the daemon survived its run");
});

test("nothing left in /dev/shm, /tmp or the work dir reaches the next run", async () => {
  const first = await python("for d in ['/dev/shm', '/tmp', '/work']:\n    open(d + '/leftover', 'w').write('x')\nprint('ok')");
  assert.equal(first.stdout, "ok\n");
  const second = await python("import json, os\nprint(json.dumps({d: os.listdir(d) for d in ['/dev/shm', '/tmp', '/work']}))");
  assert.deepEqual(jsonOut(second), { "/dev/shm": [], "/tmp": [], "/work": [] });
  assert.equal(existsSync("/dev/shm/leftover"), false);
});

test("after every attack: the server answers and no process of any run is left", async () => {
  await serverAnswers();
  assert.deepEqual(processesWithMarker(), []);
});

// A root server without a pids cgroup starts bwrap as nobody (the kernel never applies RLIMIT_NPROC to uid 0): the
// fork bomb then meets RLIMIT_NPROC, counted in the run's own user namespace. Shown with the pids cgroup left out here.
const asNobody = process.getuid?.() === 0 && existsSync("/usr/bin/python3") ? false : "needs root and /usr/bin/python3";
test("as nobody (root, no pids cgroup): a fork bomb stops at RLIMIT_NPROC, counted for this run alone", { skip: asNobody }, async () => {
  const nobody = new BubblewrapSandbox({ cgroupControllers: ["memory", "cpuacct"], runtimes: () => [pythonRuntime("/usr/bin/python3")] });
  try {
    const result = await nobody.run({
      command: ["python3", "-c", "import os, time\nforks = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        forks += 1\nexcept OSError as e:\n    print(forks, os.getuid(), e.errno)", MARKER],
      limits: { processes: 20, wallMs: 5000 },
    });
    // 20 = bwrap's pid 1 + the program + 18 forks; EAGAIN (11) when the 19th is refused.
    assert.equal(result.stdout, "18 65534 11\n");
    assert.deepEqual(processesWithMarker(), []);
    await serverAnswers();
  } finally {
    await nobody.close();
  }
});
