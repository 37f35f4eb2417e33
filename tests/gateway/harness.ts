// A gateway for tests: in this process (startTestGateway) or as a real `gym gateway` child process
// (spawnGateway), with the reference suite's settings (fast janitor, short cleanup grace).
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { HttpClient, type HttpResponse } from "../../src/client/http-client.ts";
import { startGateway, type RunningGateway } from "../../src/gateway/gateway.ts";
import { loadGatewaySettings } from "../../src/gateway/settings.ts";
import type { TrialSnapshot } from "../../src/gateway/types.ts";
import { registration } from "./fake-gym.ts";

export const COMMIT = "a85670eb167ba9b48cc53a36a070eed815e6c40d";

export function gatewayEnv(agentUrl: string, env: Record<string, string> = {}, registrationOverrides: Record<string, unknown> = {}): Record<string, string> {
  return {
    NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({ "workplace-assistant-v1": registration(agentUrl, registrationOverrides) }),
    NEMO_GYM_CALLBACK_ALLOWED_HOSTS: "127.0.0.1,relax-one.example,relax-two.example",
    NEMO_GYM_LEASE_SCAN_INTERVAL_S: "0.01",
    NEMO_GYM_CLEANUP_GRACE_S: "5",
    NEMO_GYM_GATEWAY_STATE: ":memory:",
    NEMO_GYM_COMMIT: COMMIT,
    ...env,
  };
}

export interface TestGateway extends RunningGateway {
  logs: string[];
  client: HttpClient;
  post(path: string, json?: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  get(path: string, headers?: Record<string, string>): Promise<HttpResponse>;
  /** Long-polls until the trial is terminal. */
  terminal(requestId: string): Promise<TrialSnapshot>;
}

export async function startTestGateway(env: Record<string, string>): Promise<TestGateway> {
  const logs: string[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (logs.push(String(chunk)), done()) });
  const gateway = await startGateway({ settings: loadGatewaySettings(env), logger: pino({ level: "info" }, sink), port: 0 });
  return withClient(gateway.url, { ...gateway, logs });
}

function withClient<T extends object>(url: string, base: T): T & Omit<TestGateway, keyof RunningGateway | "logs"> {
  const client = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 30_000, maxRetries: 0 });
  const api = {
    client,
    post: (path: string, json?: unknown, headers?: Record<string, string>) => client.request(url + path, { method: "POST", json, headers }),
    get: (path: string, headers?: Record<string, string>) => client.request(url + path, { headers }),
    async terminal(requestId: string): Promise<TrialSnapshot> {
      for (;;) {
        const answer = await client.request(`${url}/v1/trials/${requestId}?wait=5`);
        const snapshot = answer.json<TrialSnapshot>();
        if (!["queued", "running"].includes(snapshot.status)) return snapshot;
      }
    },
  };
  return Object.assign(base, api);
}

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  client: HttpClient;
  post(path: string, json?: unknown): Promise<HttpResponse>;
  get(path: string): Promise<HttpResponse>;
  terminal(requestId: string): Promise<TrialSnapshot>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `gym gateway` as a child process; resolves once it prints its address. */
export async function spawnGateway(env: Record<string, string>, args: string[] = []): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, "bin/gym.js"), "gateway", "--port", "0", ...args], {
    env: { ...process.env, ...env, GYM_LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${output}`)), 30_000);
    const check = () => {
      const match = /^gateway (http:\/\/\S+)$/m.exec(output);
      if (match) clearTimeout(timer), resolve(match[1]!);
    };
    child.stdout!.on("data", check);
    void exited.then(() => (clearTimeout(timer), reject(new Error(`gateway exited:\n${output}`))));
  });
  const base = {
    url,
    child,
    output: () => output,
    kill: async (signal: NodeJS.Signals = "SIGKILL") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  return withClient(url, base) as GatewayProcess;
}
