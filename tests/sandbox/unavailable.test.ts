// No sandbox, no run: a missing bubblewrap or one the kernel refuses namespaces is a SandboxUnavailableError naming
// the cause and the fix, and an environment that meets it answers 503 — never a reward, never an unsandboxed run.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubblewrapSandbox, pythonRuntime, SandboxUnavailableError } from "../../src/sandbox/index.ts";
import { resourcesServer } from "../../src/server/index.ts";
import { injectServer } from "../../src/testing/index.ts";

const scratch = mkdtempSync(join(tmpdir(), "ng-sandbox-unavailable-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("without bubblewrap, run() rejects with a 503 naming bwrap and the apt-get command", async () => {
  const sandbox = new BubblewrapSandbox({ bwrapPath: join(scratch, "no-such-bwrap") });
  const error = await sandbox.run({ command: ["python3", "-c", "pass"] }).catch((e: unknown) => e);
  assert.ok(error instanceof SandboxUnavailableError, String(error));
  assert.equal(error.statusCode, 503);
  assert.match(error.reason, /bubblewrap \(bwrap\) is not installed/);
  assert.match(error.fix, /apt-get install -y bubblewrap/);
  await sandbox.close();
});

test("a bwrap the kernel refuses namespaces is a 503 with bwrap's words and the sysctl that fixes it", async () => {
  // A real executable that answers --version and then fails as bwrap does on a host without user namespaces.
  const fakeBwrap = join(scratch, "bwrap");
  writeFileSync(
    fakeBwrap,
    `#!/bin/sh
if [ "$1" = "--version" ]; then echo "bubblewrap 0.8.0"; exit 0; fi
echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2
exit 1
`,
  );
  chmodSync(fakeBwrap, 0o755);
  const sandbox = new BubblewrapSandbox({ bwrapPath: fakeBwrap });
  const error = await sandbox.ensureAvailable().catch((e: unknown) => e);
  assert.ok(error instanceof SandboxUnavailableError, String(error));
  assert.match(error.reason, /cannot create its namespaces here \(bwrap: No permissions to creating new namespace/);
  assert.match(error.fix, /user\.max_user_namespaces/);
  await sandbox.close();
});

test("an environment whose sandbox is unavailable answers 503 with the cause and the fix", async () => {
  const sandbox = new BubblewrapSandbox({ bwrapPath: join(scratch, "no-such-bwrap") });
  const environment = resourcesServer({
    name: "SandboxedResourcesServer",
    tools: {},
    verify: {
      run: async () => {
        const result = await sandbox.run({ program: { language: "python", source: "print(1)" } });
        return result.stdout === "1\n" ? 1 : 0;
      },
    },
  });
  const env = await injectServer(environment);
  try {
    const answer = await env.post("/verify", {
      responses_create_params: { input: [] },
      response: { id: "r", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] },
    });
    assert.equal(answer.status, 503);
    const detail = answer.json<{ detail: string }>().detail;
    assert.match(detail, /^Sandbox unavailable: bubblewrap \(bwrap\) is not installed\. Fix: apt-get install -y bubblewrap/);
  } finally {
    await env.close();
    await sandbox.close();
  }
});

const pyenvUnderRoot = process.getuid?.() === 0 && pythonRuntime().hostInterpreter.startsWith("/root/") ? false : "needs root and a python3 under /root (pyenv)";
test("as nobody (root, no pids cgroup), a Python under /root is a 503 naming the path and what to use instead", { skip: pyenvUnderRoot }, async () => {
  const sandbox = new BubblewrapSandbox({ cgroupControllers: [] });
  const error = await sandbox.ensureAvailable().catch((e: unknown) => e);
  assert.ok(error instanceof SandboxUnavailableError, String(error));
  assert.match(error.reason, /cannot bind \/root\/\S+ into the sandbox: Permission denied; bwrap runs as nobody/);
  assert.match(error.fix, /\/usr\/bin\/python3/);
  await sandbox.close();
});
