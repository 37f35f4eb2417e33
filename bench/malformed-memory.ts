// The memory figure of the hardening issue: a resources server's resident memory (VmRSS) before and after 2,000
// malformed requests, among them 10 MB bodies (not JSON, too deep, non-UTF-8, over a 16 MB per-server limit,
// NaN in an int field, empty). The server runs in its own process, started as the launcher starts one; every
// answer must be a 4xx, and the server must still answer afterwards.
//   node --import tsx bench/malformed-memory.ts   (prints the figures; exits 1 if RSS grew by 300 MB or more)
import { spawn } from "node:child_process";
import { join } from "node:path";
import { stringify } from "yaml";
import { PROJECT_ROOT } from "../src/config/index.ts";
import { HttpClient } from "../src/client/http-client.ts";
import { readFileSync } from "node:fs";

/** /proc/<pid>/status VmRSS, in bytes. */
const residentBytes = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

const REQUESTS = 2_000;
const MAX_GROWTH_BYTES = 300 * 1024 * 1024;
const MB = 1024 * 1024;

const config = {
  counter: { resources_servers: { example_session_state_mgmt: { entrypoint: "app.ts", domain: "agent", max_body_bytes: 16 * MB } } },
};
const child = spawn(process.execPath, ["--import", "tsx", join(PROJECT_ROOT, "src/server/child-main.ts")], {
  cwd: PROJECT_ROOT,
  env: { ...process.env, NEMO_GYM_CONFIG_DICT: stringify(config), NEMO_GYM_CONFIG_PATH: "counter" },
  stdio: ["ignore", "ignore", "pipe", "ipc"],
});
const url = await new Promise<string>((resolve, reject) => {
  let text = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    const match = /listening on (http:\/\/\S+)/.exec(text);
    if (match) resolve(match[1]!);
  });
  child.on("exit", (code) => reject(new Error(`the server exited (${code}) before listening:\n${text}`)));
});
// The launcher would send the final config; this one is final already.
child.on("message", (message: { type?: string }) => {
  if (message.type === "listening") child.send({ type: "config", rawYaml: stringify(config) });
});

const tenMegabytes = "x".repeat(10 * MB);
const bodies: (() => string | Buffer)[] = [
  () => `{"value": "${tenMegabytes}`, // unterminated: not JSON
  () => `{"metadata": ${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}`, // too deep
  () => Buffer.concat([Buffer.from('{"value": "'), Buffer.alloc(10 * MB, 0xff), Buffer.from('"}')]), // not UTF-8
  () => `{"value": "${tenMegabytes}${tenMegabytes}"}`, // over the 16 MB limit
  () => '{"initial_count": NaN, "count": NaN}', // pydantic's finite_number
  () => "", // missing body
  () => `{"initial_count": "${tenMegabytes}", "count": "${tenMegabytes}"}`, // a 10 MB string in an int field
  () => "{nope",
];

const client = new HttpClient({ connectTimeoutMs: 5_000, deadlineMs: 60_000, maxRetries: 0 });
try {
  const ok = await client.request(`${url}/`);
  if (ok.status !== 200) throw new Error(`GET / answered ${ok.status}`);
  const before = residentBytes(child.pid!)!;
  const statuses = new Map<number | string, number>();
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const path = i % 2 === 0 ? "/seed_session" : "/increment_counter";
    let outcome: number | string;
    try {
      const answer = await client.request(`${url}${path}`, { method: "POST", rawBody: bodies[i % bodies.length]!() as string, headers: { "content-type": "application/json" } });
      outcome = answer.status;
    } catch (error) {
      // Over the limit, the server answers 413 at once and closes the connection while the upload is still
      // going: the client may see the close (EPIPE, ECONNRESET) before the answer.
      outcome = `closed (${(error as { code?: string }).code ?? "?"})`;
    }
    statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
  }
  const seconds = (performance.now() - started) / 1000;
  const after = residentBytes(child.pid!)!;
  const still = await client.request(`${url}/`);
  const growth = after - before;
  console.log(`${REQUESTS} malformed requests (${bodies.length} kinds, 10 MB bodies among them) in ${seconds.toFixed(1)} s`);
  console.log(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`);
  console.log(`VmRSS before: ${(before / MB).toFixed(1)} MB, after: ${(after / MB).toFixed(1)} MB, growth: ${(growth / MB).toFixed(1)} MB (bound ${MAX_GROWTH_BYTES / MB} MB)`);
  console.log(`the server still answers GET /: ${still.status}`);
  const fiveHundreds = [...statuses.keys()].filter((status) => typeof status === "number" && status >= 500);
  if (growth >= MAX_GROWTH_BYTES || still.status !== 200 || fiveHundreds.length > 0) process.exitCode = 1;
} finally {
  await client.close();
  child.kill("SIGTERM");
}
