// scripts/run-agent-app.sh as Relax launches it: a real bash + node process group against a real HTTP gateway stand-in
// (spec §3; reference test_run_agent_app.py, tests 73–76).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { PROTOCOL_VERSION } from "../../src/gateway/types.ts";

const SCRIPT = join(PROJECT_ROOT, "scripts", "run-agent-app.sh");
const REQUIRED_ENV: Record<string, string> = {
  RELAX_INPUT_JSON: "/tmp/input.json",
  RELAX_OUTPUT_JSON: "/tmp/output.json",
  RELAX_SESSION_ID: "session-id",
  RELAX_SESSION_IO_DIR: "/tmp/relax-agentic-command-test",
  RELAX_BASE_URL: "http://relax.example/agentic_api/",
  NEMO_GYM_URL: "http://gym.example",
  NEMO_GYM_ENVIRONMENT: "multi_step",
};

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface GatewayState {
  url: string;
  request: Record<string, any> | null;
  created: Promise<void>;
  aborted: boolean;
}

/** Answers create with `createStatus`, every GET with `running`, renew and abort with 204. */
async function fakeGateway(createStatus: "completed" | "running"): Promise<GatewayState> {
  let onCreated!: () => void;
  const state: GatewayState = { url: "", request: null, created: new Promise((resolve) => (onCreated = resolve)), aborted: false };
  const snapshot = (status: string) => ({
    protocol_version: PROTOCOL_VERSION,
    request_id: state.request?.request_id ?? null,
    status,
    reward: status === "completed" ? { scalar: 1.0, components: { verifier: 1.0 } } : null,
    metrics: status === "completed" ? { model_calls: 2 } : {},
    artifact_ref: null,
    error: null,
  });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://gateway").pathname;
      const json = (status: string) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(snapshot(status)));
      };
      if (req.method === "POST" && path === "/v1/trials") {
        state.request = JSON.parse(Buffer.concat(chunks).toString());
        json(createStatus);
        onCreated();
      } else if (req.method === "POST" && path.endsWith("/abort")) {
        state.aborted = true;
        res.writeHead(204).end();
      } else if (req.method === "POST" && path.endsWith("/renew")) {
        res.writeHead(204).end();
      } else if (req.method === "GET") {
        json("running");
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return state;
}

function sessionDir(input: unknown) {
  const dir = mkdtempSync(join(tmpdir(), "relax-session-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const inputPath = join(dir, "input.json");
  writeFileSync(inputPath, JSON.stringify(input));
  return { inputPath, outputPath: join(dir, "output.json") };
}

function run(env: NodeJS.ProcessEnv, options: { detached?: boolean } = {}) {
  const child = spawn("bash", [SCRIPT], { env, detached: options.detached ?? false, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }
  });
  return { child, exited };
}

test("run_agent_app_has_valid_bash_syntax", () => {
  const result = spawnSync("bash", ["-n", SCRIPT], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
});

for (const missingName of Object.keys(REQUIRED_ENV).filter((name) => name !== "NEMO_GYM_ENVIRONMENT").sort()) {
  test(`run_agent_app_fails_fast_when_required_env_is_missing[${missingName}]`, () => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", ...REQUIRED_ENV };
    delete env[missingName];
    const result = spawnSync("bash", [SCRIPT], { env, encoding: "utf8" });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, new RegExp(missingName));
  });
}

test("run_agent_app_completes_against_fake_gateway", async () => {
  const inputPayload = { messages: [{ role: "user", content: "solve" }], metadata: { task_id: "task-1" } };
  const { inputPath, outputPath } = sessionDir(inputPayload);
  const gateway = await fakeGateway("completed");

  const { exited } = run({ ...process.env, ...REQUIRED_ENV, RELAX_INPUT_JSON: inputPath, RELAX_OUTPUT_JSON: outputPath, NEMO_GYM_URL: gateway.url, NEMO_GYM_MAX_RETRIES: "0" });
  const result = await exited;

  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(readFileSync(outputPath, "utf8")), {
    reward: 1.0,
    metadata: {
      nemo_gym: {
        request_id: gateway.request!.request_id,
        status: "completed",
        metrics: { model_calls: 2 },
        reward_components: { verifier: 1.0 },
      },
    },
  });
  assert.deepEqual(gateway.request!.environment.task, inputPayload);
  assert.equal(gateway.request!.model_endpoint.api_key, "session-id");
  assert.doesNotMatch(gateway.request!.request_id, /session-id/);
  assert.doesNotMatch(result.stdout + result.stderr, /session-id/);
});

test("process_group_sigterm_requests_abort_without_writing_success", async () => {
  const { inputPath, outputPath } = sessionDir({ messages: [{ role: "user", content: "solve" }] });
  const gateway = await fakeGateway("running");
  const { child, exited } = run(
    {
      ...process.env,
      ...REQUIRED_ENV,
      RELAX_INPUT_JSON: inputPath,
      RELAX_OUTPUT_JSON: outputPath,
      NEMO_GYM_URL: gateway.url,
      NEMO_GYM_POLL_INTERVAL_S: "10",
      NEMO_GYM_ABORT_TIMEOUT_S: "1",
      NEMO_GYM_MAX_RETRIES: "0",
    },
    { detached: true },
  );

  await gateway.created;
  process.kill(-child.pid!, "SIGTERM");
  const result = await exited;

  assert.notEqual(result.code, 0, result.stdout);
  assert.match(result.stderr, /Managed session cancelled/);
  assert.equal(gateway.aborted, true);
  assert.equal(existsSync(outputPath), false);
  assert.doesNotMatch(result.stderr, /session-id/);
});
