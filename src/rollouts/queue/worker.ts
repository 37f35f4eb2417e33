// `gym eval worker`: serves every queued run registered on a Redis whose servers are this worker's graph's
// (same config fingerprint), with a BullMQ Worker per run. BullMQ's job lock is what makes one worker run a
// job; a worker killed mid-job stops renewing its locks and any live worker's stalled-job check moves those
// jobs back to wait, so they run again elsewhere. Results are the jobs' return values: the coordinator writes them.
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { ServerClient } from "../../client/index.ts";
import { listServerInstances, type ConfigDict } from "../../config/index.ts";
import { UserError } from "../../config/errors.ts";
import { livenessProbe, serversUsedBy, type StackHealth } from "../outage.ts";
import { runFingerprint } from "../resume.ts";
import { bullmqConnection, connectRedis, type QueueAddress } from "./connection.ts";
import { fingerprintDifferences, registryKey, settingsKey, type QueuedRunSettings, type RolloutJobData, type RolloutJobResult } from "./jobs.ts";
import { JobGivenBackError, runRolloutJob } from "./run-job.ts";

export interface QueueWorkerOptions {
  address: QueueAddress;
  client: ServerClient;
  /** The graph's config: its fingerprint must be the run's. */
  config: ConfigDict;
  /** Rollouts in flight at most, per run. */
  concurrency: number;
  /** Shown in the coordinator's progress (default host:pid). */
  name?: string;
  /** How long a killed worker's jobs stay locked before another worker takes them over (BullMQ lockDuration). */
  lockDurationMs: number;
  /** How often the registry of runs is read. */
  pollMs?: number;
  print?: (line: string) => void;
  warn?: (line: string) => void;
  /** Aborted to stop: jobs in flight are given back to the queue, then the worker ends. */
  signal: AbortSignal;
  /** Probe the graph's servers after a failed attempt (outages not counted), as a local run does (default true). */
  probeHealth?: boolean;
}

export interface QueueWorkerSummary {
  worker: string;
  /** Rollouts brought to an end here (result, dropped or failed for good), by run. */
  doneByRun: Record<string, number>;
}

const defaultWorkerName = () => `${hostname()}:${process.pid}`;

export async function serveQueue(options: QueueWorkerOptions): Promise<QueueWorkerSummary> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const workerName = options.name ?? defaultWorkerName();
  const { address } = options;
  const ownFingerprint = runFingerprint(options.config);
  let lostRedis: Error | undefined;
  let closing = false;
  const redis: Redis = await connectRedis(address, (error) => warn(`gym eval worker: Redis at ${address.display}: ${error.message}; reconnecting`));
  // ioredis gives up after the bounded reconnects: the worker ends with that, not hang.
  const gaveUp = new Promise<void>((resolve) => redis.once("end", () => ((lostRedis ??= closing ? undefined : new UserError(`gym eval worker: lost the connection to Redis at ${address.display} for good`)), resolve())));
  const agents = listServerInstances(options.config, { errorOnAlmostServers: false, logger: { warn: () => undefined } })
    .filter((instance) => instance.serverType === "responses_api_agents")
    .map((instance) => instance.instanceName);
  const health: StackHealth | undefined = options.probeHealth === false ? undefined : livenessProbe(options.client, serversUsedBy(options.config, agents));

  const served = new Map<string, { worker: Worker<RolloutJobData, RolloutJobResult>; settings: QueuedRunSettings }>();
  const refused = new Set<string>();
  const doneByRun: Record<string, number> = {};
  const jobsStop = new AbortController();
  // Every job in flight listens to it (there are `concurrency` per run).
  setMaxListeners(0, jobsStop.signal);
  let active = 0;

  const serve = (queueName: string, settings: QueuedRunSettings) => {
    const processor = async (job: Job<RolloutJobData, RolloutJobResult>) => {
      active++;
      try {
        const result = await runRolloutJob(job.data, { client: options.client, settings, health, worker: workerName, warn, signal: jobsStop.signal });
        doneByRun[queueName] = (doneByRun[queueName] ?? 0) + 1;
        return result;
      } catch (error) {
        if (error instanceof UserError || error instanceof JobGivenBackError) warn(`gym eval worker: job ${job.id} of ${queueName} given back: ${error.message}`);
        throw error;
      } finally {
        active--;
      }
    };
    const worker = new Worker<RolloutJobData, RolloutJobResult>(queueName, processor, {
      connection: bullmqConnection(address),
      prefix: address.prefix,
      name: workerName,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      stalledInterval: Math.max(500, Math.floor(options.lockDurationMs / 2)),
      // A rollout is never abandoned because workers kept dying under it: the coordinator's attempt budget bounds it.
      maxStalledCount: 1000,
    });
    const seenErrors = new Set<string>();
    worker.on("error", (error) => {
      if (seenErrors.has(error.message)) return;
      seenErrors.add(error.message);
      warn(`gym eval worker: ${queueName}: ${error.message}`);
    });
    served.set(queueName, { worker, settings });
    print(`gym eval worker ${workerName}: serving ${settings.outputPath} (queue ${queueName}, ${options.concurrency} in flight at most)`);
  };

  const refresh = async () => {
    const names = new Set(await redis.smembers(registryKey(address.prefix)));
    for (const name of names) {
      if (served.has(name) || refused.has(name)) continue;
      const text = await redis.get(settingsKey(address.prefix, name));
      if (text === null) continue;
      const settings = JSON.parse(text) as QueuedRunSettings;
      const differs = fingerprintDifferences(settings.fingerprint, ownFingerprint);
      if (differs.length > 0) {
        refused.add(name);
        warn(`gym eval worker ${workerName}: not serving ${settings.outputPath} (queue ${name}): this graph's servers differ from the run's (${differs.join(", ")} ${differs.length === 1 ? "differs" : "differ"}); start the worker on the same config`);
        continue;
      }
      serve(name, settings);
    }
    for (const [name, { worker, settings }] of served) {
      if (names.has(name)) continue;
      served.delete(name);
      await worker.close();
      print(`gym eval worker ${workerName}: ${settings.outputPath} is finished (${doneByRun[name] ?? 0} rollouts here)`);
    }
  };

  const stopped = new Promise<void>((resolve) => (options.signal.aborted ? resolve() : options.signal.addEventListener("abort", () => resolve(), { once: true })));
  let lastStatus = "";
  let lastStatusAt = 0;
  try {
    while (!options.signal.aborted && !lostRedis) {
      try {
        await refresh();
      } catch (error) {
        // Redis gone for good ends the loop below; anything else (a blip) is said and tried again.
        if (!lostRedis) warn(`gym eval worker ${workerName}: reading the runs on ${address.display} failed: ${(error as Error).message}`);
      }
      const status = `${Object.values(doneByRun).reduce((a, b) => a + b, 0)} done, ${active} active`;
      if (status !== lastStatus && Date.now() - lastStatusAt > 5000) {
        print(`gym eval worker ${workerName}: ${status}`);
        lastStatus = status;
        lastStatusAt = Date.now();
      }
      await Promise.race([stopped, gaveUp, new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250))]);
    }
  } finally {
    // Jobs in flight are given back at once (each throws, so BullMQ retries it), not waited out.
    jobsStop.abort(new Error("the worker is stopping"));
    await Promise.all([...served.values()].map(({ worker }) => worker.close()));
    await health?.close();
    closing = true;
    redis.disconnect();
  }
  if (lostRedis) throw lostRedis;
  return { worker: workerName, doneByRun };
}
