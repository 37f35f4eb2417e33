// A co-located group as several processes (`co_located_processes: N`, one per core): this process becomes the
// primary of a Node cluster and forks N workers, each running the whole group (child-main.ts). Every server of the
// group listens on one port shared by the workers (the cluster hands each new connection to the next worker), so the
// graph still sees one address per server; a /run's in-process calls stay in the worker it reached.
//
// Start-up is two-phase because ports are chosen at bind time: the first worker binds (a free port in the range, or
// the config's), and the others then listen on the same ports. The primary speaks for the group to the launcher:
// one "listening" and one "config-applied" per server once every worker has said it, a worker's "failed" as is, and
// any worker's death stops the group (the launcher then stops the graph, as when any server process dies).
import cluster, { type Worker } from "node:cluster";
import type { ChildMessage, LauncherMessage } from "./launcher-messages.ts";

/** Set on workers 2..N: the port every server of the group listens on (JSON `{instance: port}`). */
export const CO_LOCATED_PORTS_ENV = "NEMO_GYM_CO_LOCATED_PORTS";
/** Set on every worker: `<k>/<N>`, for its log lines. */
export const CO_LOCATED_WORKER_ENV = "NEMO_GYM_CO_LOCATED_WORKER";

export interface GroupPrimaryOptions {
  names: readonly string[];
  processes: number;
  /** The launcher's graph-secrets message, passed on to every worker. */
  secrets: LauncherMessage;
  /** Forwards a message to the launcher (or nowhere, started by hand). */
  send(message: ChildMessage): void;
}

export async function runGroupPrimary(options: GroupPrimaryOptions): Promise<void> {
  const { names, processes, send } = options;
  const workers: Worker[] = [];
  let stopping = false;

  const stopWorkers = async () => {
    const alive = workers.filter((worker) => worker.process.exitCode === null && worker.process.signalCode === null);
    const exits = alive.map((worker) => new Promise<void>((resolve) => worker.process.once("exit", () => resolve())));
    for (const worker of alive) worker.process.kill("SIGTERM");
    const force = setTimeout(() => alive.forEach((worker) => worker.process.kill("SIGKILL")), 3000);
    await Promise.all(exits);
    clearTimeout(force);
  };
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await stopWorkers();
    process.exit(code);
  };
  process.on("SIGTERM", () => void stop(0));
  process.on("SIGINT", () => void stop(0));
  // The launcher died (even by SIGKILL): never outlive it.
  process.on("disconnect", () => void stop(0));

  const fork = (index: number, ports: Record<string, number> | undefined): Worker => {
    const worker = cluster.fork({ [CO_LOCATED_WORKER_ENV]: `${index}/${processes}`, ...(ports ? { [CO_LOCATED_PORTS_ENV]: JSON.stringify(ports) } : {}) });
    workers.push(worker);
    worker.on("message", (message: ChildMessage) => {
      if (message?.type === "want-secrets") worker.send(options.secrets);
    });
    worker.process.once("exit", (code, signal) => {
      if (stopping) return;
      process.stderr.write(`ERROR co-located process ${index}/${processes} exited (${signal ?? `code ${code}`}); stopping the group\n`);
      void stop(1);
    });
    return worker;
  };

  /** Resolves with each server's "listening" message of `worker`; a "failed" one is passed on and stops the group. */
  const listening = (worker: Worker) =>
    new Promise<Map<string, Extract<ChildMessage, { type: "listening" }>>>((resolve) => {
      const seen = new Map<string, Extract<ChildMessage, { type: "listening" }>>();
      const onMessage = (message: ChildMessage) => {
        if (message?.type === "failed") {
          send(message);
          void stop(1);
        } else if (message?.type === "listening") {
          seen.set(message.instanceName, message);
          if (seen.size === names.length) {
            worker.off("message", onMessage);
            resolve(seen);
          }
        }
      };
      worker.on("message", onMessage);
    });

  // Phase one: the first worker chooses the ports; phase two: the others take the same.
  const first = fork(1, undefined);
  const bound = await listening(first);
  const ports = Object.fromEntries([...bound].map(([name, message]) => [name, message.port]));
  const rest = Array.from({ length: processes - 1 }, (_, i) => fork(i + 2, ports));
  await Promise.all(rest.map(listening));
  for (const name of names) send({ ...bound.get(name)!, pid: process.pid });

  // The final config: to every worker; "config-applied" for a server once every worker has applied it.
  const applied = new Map<string, number>();
  for (const worker of workers) {
    worker.on("message", (message: ChildMessage) => {
      if (message?.type !== "config-applied") return;
      const count = (applied.get(message.instanceName) ?? 0) + 1;
      applied.set(message.instanceName, count);
      if (count === workers.length) {
        applied.delete(message.instanceName);
        send(message);
      }
    });
  }
  process.on("message", (message: LauncherMessage) => {
    if (message?.type === "config") for (const worker of workers) worker.send(message);
  });
}
