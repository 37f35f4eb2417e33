// In-process FIFO admission: one gateway process owns every slot (the SQLite backend).
import type { DriveTrial, EnvironmentSlots, TrialDispatcher } from "./dispatcher.ts";

interface Lane {
  limit: number;
  running: number;
  waiting: string[];
  known: Set<string>;
}

export class LocalDispatcher implements TrialDispatcher {
  private readonly lanes = new Map<string, Lane>();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    environments: EnvironmentSlots[],
    private readonly drive: DriveTrial,
    private readonly onError: (requestId: string, error: unknown) => void,
  ) {
    for (const { envKey, maxConcurrency } of environments) this.lanes.set(envKey, { limit: maxConcurrency, running: 0, waiting: [], known: new Set() });
  }

  async enqueue(envKey: string, requestId: string): Promise<void> {
    const lane = this.lanes.get(envKey);
    if (!lane) throw new Error(`no registered environment ${JSON.stringify(envKey)}`);
    if (lane.known.has(requestId)) return;
    lane.known.add(requestId);
    lane.waiting.push(requestId);
    this.pump(lane);
  }

  private pump(lane: Lane): void {
    while (!this.closed && lane.running < lane.limit && lane.waiting.length > 0) {
      const requestId = lane.waiting.shift()!;
      lane.running++;
      const run = this.drive(requestId)
        .catch((error) => this.onError(requestId, error))
        .finally(() => {
          lane.running--;
          lane.known.delete(requestId);
          this.inFlight.delete(run);
          this.pump(lane);
        });
      this.inFlight.add(run);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
  }
}
