import { fork } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadGlobalConfig, getServerInstanceConfig, PROJECT_ROOT } from "../src/config/index.ts";
import { ServerClient } from "../src/client/index.ts";
import { collectRollouts } from "../src/rollouts/collect.ts";
import { launchServers } from "../src/cli/launcher.ts";
import { processCpuMs } from "./proc-stats.ts";
import { Writable } from "node:stream";
const silent = () => Object.assign(new Writable({ write: (_c, _e, d) => d() }), { isTTY: false }) as any;
const cfg = async () => loadGlobalConfig({ configPaths: ["resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml", "responses_api_models/scripted_model/configs/scripted_model.yaml"], overrides: ["++head_server.port=0"], envYamlPath: null, requireServers: true, logger: { warn: () => {} } });
if (process.argv[2] === "child") {
  const { startInProcess } = await import("../src/testing/in-process.ts");
  const { resolved } = await cfg();
  const g = await startInProcess(resolved);
  process.send!({ config: g.config });
  process.on("disconnect", () => process.exit(0));
} else {
  const dir = mkdtempSync(join(tmpdir(), "exp-"));
  async function measure(label: string, config: any, pids: number[], c: number, n: number) {
    const client = new ServerClient({ globalConfig: config });
    const before = pids.map((p) => processCpuMs(p)!); const self = process.cpuUsage(); const t = performance.now();
    await collectRollouts({ client, inputPath: join(PROJECT_ROOT, "resources_servers/example_single_tool_call/data/example.jsonl"), outputPath: join(dir, `${label}-${c}-${Math.random()}.jsonl`), agentName: "example_single_tool_call_simple_agent", numRepeats: n / 5, concurrency: c, print: () => {}, progressStream: silent() });
    const s = (performance.now() - t) / 1000; const su = process.cpuUsage(self);
    const cpu = pids.map((p, i) => processCpuMs(p)! - before[i]!);
    console.log(label, "c", c, (n / s).toFixed(0), "rollouts/s; CPU ms/rollout servers", (cpu.reduce((a, b) => a + b, 0) / n).toFixed(2), "collector", ((su.user + su.system) / 1000 / n).toFixed(2));
    await client.close();
  }
  const mode = process.argv[2];
  if (mode === "one") {
    const child = fork(new URL(import.meta.url).pathname, ["child"], { execArgv: ["--import", "tsx", "--max-semi-space-size=64"] });
    const [msg] = await new Promise<any[]>((r) => child.once("message", (m) => r([m])));
    for (const c of [64, 64, 1024]) await measure("one-process", msg.config, [child.pid!], c, c === 1024 ? 10000 : 4000);
    child.kill();
  } else {
    const { raw, resolved } = await cfg();
    const running = await launchServers({ raw, resolved, log: () => {} });
    for (const c of [64, 64, 1024]) await measure("three-processes", running.resolved, running.instances.map((i) => i.pid!), c, c === 1024 ? 10000 : 4000);
    await running.stop();
  }
}
