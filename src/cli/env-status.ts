// `gym env status`: ask the head server for its instances, then check each one's liveness.
import { HttpClient } from "../client/index.ts";
import type { ConfigDict } from "../config/index.ts";
import { arg, defineCommand, flag } from "./command.ts";
import type { InstanceRecord } from "./head-server.ts";

export const envStatusCommand = defineCommand({
  path: ["env", "status"],
  description: "list the servers the head server knows and whether they answer",
  examples: ["gym env status", "gym env status --json ++head_server.port=11001"],
  legacyNames: { ng_status: [] },
  args: { overrides: arg.overrides("Hydra-style overrides (e.g. ++head_server.port=PORT)") },
  flags: { json: flag.boolean("print JSON") },
  toConfig: (flags) => ({ overrides: flags.overrides }),
  run: ({ resolved }, { flags, print }) => envStatus(resolved, flags.json, print),
});

export async function envStatus(resolved: ConfigDict, asJson: boolean, print: (line: string) => void): Promise<number> {
  const head = (resolved.head_server ?? {}) as { host?: string; port?: number };
  const headUrl = `http://${head.host ?? "127.0.0.1"}:${head.port ?? 11000}`;
  const http = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 2000, maxRetries: 0 });
  try {
    let instances: InstanceRecord[];
    try {
      const answer = await http.request(`${headUrl}/server_instances`);
      instances = answer.json<InstanceRecord[]>();
    } catch (error) {
      print(`No head server at ${headUrl} (${(error as Error).message}). Start servers with \`gym env start --config …\`.`);
      return 1;
    }
    const checked = await Promise.all(
      instances.map(async (instance) => {
        const healthy = instance.url ? await http.request(`${instance.url}/`).then((a) => a.ok, () => false) : false;
        return { ...instance, healthy };
      }),
    );
    if (asJson) {
      print(JSON.stringify(checked, null, 2));
    } else {
      // Co-located servers (`co_located`) share a process: each line names the others in it.
      const together = (s: InstanceRecord) => checked.filter((other) => other !== s && other.pid !== null && other.pid === s.pid).map((other) => other.process_name);
      checked.forEach((s, i) => {
        const others = together(s);
        print(`[${i + 1}] ${s.healthy ? "✓" : "✗"} ${s.process_name} (${s.server_type}/${s.name}) port ${s.port ?? "-"} pid ${s.pid ?? "-"}${others.length ? ` (one process with ${others.join(", ")})` : ""} up ${Math.round(s.uptime_seconds)}s`);
      });
      const healthy = checked.filter((s) => s.healthy).length;
      print(`${checked.length} servers found (${healthy} healthy, ${checked.length - healthy} unhealthy)`);
    }
    return checked.every((s) => s.healthy) ? 0 : 1;
  } finally {
    await http.close();
  }
}
