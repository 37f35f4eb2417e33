// Admission shared by gateway replicas: one BullMQ queue per environment with a global concurrency of its
// max_concurrency. BullMQ's job lock is what makes exactly one replica drive a trial; when a replica dies its
// jobs stall and another replica's worker receives them (and reconciles the orphaned run).
import { createHash } from "node:crypto";
import { Queue, Worker } from "bullmq";
import type { DriveTrial, EnvironmentSlots, TrialDispatcher } from "./dispatcher.ts";

export interface BullmqDispatcherOptions {
  redisUrl: string;
  namespace: string;
  /** How long a dead replica keeps its jobs before they stall over to another (BullMQ lockDuration). */
  lockDurationMs: number;
}

const hashOf = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);

function connectionOf(url: string) {
  const parsed = new URL(url);
  return {
    host: parsed.hostname || "127.0.0.1",
    port: Number(parsed.port || 6379),
    username: parsed.username || undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined,
    maxRetriesPerRequest: null,
  };
}

export class BullmqDispatcher implements TrialDispatcher {
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];

  private constructor() {}

  static async start(environments: EnvironmentSlots[], drive: DriveTrial, options: BullmqDispatcherOptions): Promise<BullmqDispatcher> {
    const dispatcher = new BullmqDispatcher();
    const connection = connectionOf(options.redisUrl);
    const prefix = `ng-gw-${options.namespace}`;
    for (const { envKey, maxConcurrency } of environments) {
      // Queue names may not contain ':'; the environment key may.
      const name = `trials-${hashOf(envKey)}`;
      const queue = new Queue(name, { connection, prefix });
      await queue.setGlobalConcurrency(maxConcurrency);
      dispatcher.queues.set(envKey, queue);
      const worker = new Worker(name, async (job) => drive((job.data as { request_id: string }).request_id), {
        connection,
        prefix,
        concurrency: maxConcurrency,
        lockDuration: options.lockDurationMs,
        stalledInterval: Math.max(500, Math.floor(options.lockDurationMs / 2)),
        // A trial is never abandoned because replicas kept dying under it.
        maxStalledCount: 1000,
      });
      dispatcher.workers.push(worker);
    }
    await Promise.all(dispatcher.workers.map((worker) => worker.waitUntilReady()));
    return dispatcher;
  }

  async enqueue(envKey: string, requestId: string): Promise<void> {
    const queue = this.queues.get(envKey);
    if (!queue) throw new Error(`no registered environment ${JSON.stringify(envKey)}`);
    await queue.add("trial", { request_id: requestId }, { jobId: hashOf(requestId), removeOnComplete: true, removeOnFail: true });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}
