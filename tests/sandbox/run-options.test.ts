// What a runtime or a request can add to a sandbox, each shown inside a real one: an opt-in /bin/sh, a run's own
// read-only files, and the stack limit.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubblewrapSandbox, pythonRuntime, shellRuntime } from "../../src/sandbox/index.ts";
import { checkRunBinds } from "../../src/sandbox/bubblewrap/args.ts";

let plain: BubblewrapSandbox;
let withShell: BubblewrapSandbox;
let hostDir: string;

before(async () => {
  plain = new BubblewrapSandbox({ maxConcurrent: 2 });
  withShell = new BubblewrapSandbox({ maxConcurrent: 2, runtimes: () => [pythonRuntime(), shellRuntime()] });
  await Promise.all([plain.ensureAvailable(), withShell.ensureAvailable()]);
  hostDir = mkdtempSync(join(tmpdir(), "ng-sandbox-binds-"));
  mkdirSync(join(hostDir, "a"));
  mkdirSync(join(hostDir, "b"));
  writeFileSync(join(hostDir, "a", "mine.txt"), "mine\n");
  writeFileSync(join(hostDir, "b", "theirs.txt"), "theirs\n");
});

after(async () => {
  await Promise.all([plain?.close(), withShell?.close()]);
  rmSync(hostDir, { recursive: true, force: true });
});

const SHELL_OUT = "import os, subprocess\nprint(os.path.exists('/bin/sh'), subprocess.run('echo $((6 * 7))', shell=True, capture_output=True, text=True).stdout.strip())";

test("the root has no /bin/sh; with shellRuntime a program can shell out, and gets sh's builtins only", async () => {
  const without = await plain.run({ command: ["python3", "-c", "import os, subprocess\nprint(os.path.exists('/bin/sh'))\nsubprocess.run('true', shell=True)"] });
  assert.match(without.stdout, /^False$/m);
  assert.match(without.stderr, /FileNotFoundError: .*'\/bin\/sh'/);

  const shelled = await withShell.run({ command: ["python3", "-c", SHELL_OUT] });
  assert.equal(shelled.exitCode, 0, shelled.stderr);
  assert.equal(shelled.stdout, "True 42\n");
  // A builtin works, a host tool does not: nothing but the shell was added.
  const tools = await withShell.run({ program: { language: "sh", source: "printf '%s\\n' builtin; ls / || echo no-ls\n" } });
  assert.equal(tools.stdout, "builtin\nno-ls\n");
});

test("a run's read-only bind shows that file alone, unwritable, and the next run does not see it", async () => {
  const probe = [
    "import os, json",
    "out = {'mine': open('/data/db/mine.txt').read(), 'listing': sorted(os.listdir('/data/db')), 'theirs': os.path.exists('/data/db/theirs.txt')}",
    "try:\n    open('/data/db/mine.txt', 'a').write('x')\n    out['write'] = 'written'\nexcept OSError as e:\n    out['write'] = e.strerror",
    "print(json.dumps(out))",
  ].join("\n");
  const result = await plain.run({ command: ["python3", "-c", probe], readOnlyBinds: [{ host: join(hostDir, "a", "mine.txt"), sandbox: "/data/db/mine.txt" }] });
  assert.equal(result.exitCode, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), { mine: "mine\n", listing: ["mine.txt"], theirs: false, write: "Read-only file system" });
  assert.equal(readFileSync(join(hostDir, "a", "mine.txt"), "utf8"), "mine\n");

  const next = await plain.run({ command: ["python3", "-c", "import os; print(os.path.exists('/data'))"] });
  assert.equal(next.stdout, "False\n");
  // A folder too, inside the work dir.
  const folder = await plain.run({ command: ["python3", "-c", "import os; print(os.listdir('inputs'))"], readOnlyBinds: [{ host: join(hostDir, "b"), sandbox: "/work/inputs" }] });
  assert.equal(folder.stdout, "['theirs.txt']\n", folder.stderr);
});

test("a bind over the sandbox's own root, a relative or .. path, or a missing host path is refused before anything runs", async () => {
  const file = join(hostDir, "a", "mine.txt");
  for (const [sandbox, why] of [
    ["/usr/lib/x", /inside \/usr/],
    ["/opt/python", /inside \/opt/],
    ["/etc/passwd", /inside \/etc/],
    ["/work", /would replace a writable dir/],
    ["data/x", /not an absolute, normalised path/],
    ["/data/../usr/x", /not an absolute, normalised path/],
    ["/data//x", /not an absolute, normalised path/],
  ] as const) {
    await assert.rejects(plain.run({ command: ["true"], readOnlyBinds: [{ host: file, sandbox }] }), why, sandbox);
  }
  assert.throws(() => checkRunBinds([{ host: join(hostDir, "nope"), sandbox: "/data/x" }]), /host path .* does not exist/);
});

test("stackBytes is the program's RLIMIT_STACK from its first instruction; the hard limit stays raisable", async () => {
  const show = "import resource; soft, hard = resource.getrlimit(resource.RLIMIT_STACK); print(soft, hard == resource.RLIM_INFINITY)";
  const byDefault = await plain.run({ command: ["python3", "-c", show] });
  assert.equal(byDefault.stdout, `${8 * 1024 * 1024} True\n`, byDefault.stderr);
  const big = 512 * 1024 * 1024;
  const raised = await plain.run({ command: ["python3", "-c", show], limits: { stackBytes: big } });
  assert.equal(raised.stdout, `${big} True\n`);
  // The limit is real: C recursion (json's decoder on 200 000 nested lists) overflows 1 MiB of stack, not 512 MiB.
  const deep = "import sys, json\nsys.setrecursionlimit(10**7)\njson.loads('[' * 200000 + ']' * 200000)\nprint('ok')";
  const small = await plain.run({ command: ["python3", "-c", deep], limits: { stackBytes: 1024 * 1024 } });
  const roomy = await plain.run({ command: ["python3", "-c", deep], limits: { stackBytes: big } });
  assert.equal(roomy.stdout, "ok\n", roomy.stderr);
  assert.equal(small.signal, "SIGSEGV");
  // Why code_gen raises its stack at run time instead: glibc sizes thread stacks by the soft limit at start.
  const threads = "import threading\nt = threading.Thread(target=print, args=('thread',)); t.start(); t.join()";
  const starved = await plain.run({ command: ["python3", "-c", threads], limits: { memoryBytes: big, stackBytes: big } });
  assert.match(starved.stderr, /can't start new thread/);
});
