// One trial from the client's side: create it, keep its lease alive, poll until it is terminal, and on a stop
// cancel whatever request is in flight and ask the gateway to abort.
import { snapshotErrorCode } from "../protocol.ts";
import { TERMINAL_STATUSES, type TrialRequest, type TrialSnapshot } from "../types.ts";
import { RequestCancelled, TrialCancelled, TrialFailed } from "./errors.ts";
import type { GatewayClient } from "./gateway-client.ts";
import { sleepUnlessAborted } from "./sleep.ts";

export const CANCELLED_MESSAGE = "Managed session cancelled; remote trial abort requested";

export interface RunTrialOptions {
  client: GatewayClient;
  request: TrialRequest;
  /** Fires when the managed session is being stopped (SIGTERM/SIGINT). */
  stop: AbortSignal;
  pollIntervalS: number;
  /** Upper bound of a long-poll; 0 polls without `?wait=`. The effective wait is also capped at lease_s/3. */
  pollWaitS?: number;
}

/** Resolves with a `completed` or `truncated` snapshot; rejects with TrialCancelled, TrialFailed or a gateway error. */
export async function runTrial(options: RunTrialOptions): Promise<TrialSnapshot> {
  const { client, request, stop } = options;
  const requestId = request.request_id;
  let heartbeat: Heartbeat | undefined;

  const cancel = async (): Promise<TrialCancelled> => {
    // The heartbeat goes first so no renew races the abort.
    await heartbeat?.stop();
    await bestEffortAbort(client, requestId);
    return new TrialCancelled(CANCELLED_MESSAGE);
  };
  // A stop aborts the request through `stop` itself, so the socket is closed before the abort is sent.
  const unlessStopped = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (stop.aborted || error instanceof RequestCancelled) throw await cancel();
      throw error;
    }
  };

  const created = await unlessStopped(() => client.create(request, stop));
  if (TERMINAL_STATUSES.has(created.status)) return successOrThrow(created);

  heartbeat = startHeartbeat(client, requestId, request.lease_s);
  // Whole milliseconds keep the query readable (0.3 / 3 is 0.09999999999999999).
  const waitS = Math.round(Math.min(options.pollWaitS ?? 0, request.lease_s / 3) * 1000) / 1000;
  try {
    // With long-polling on, the first poll goes out at once: a gateway that holds it paces the loop itself, and
    // one that answers at once (a reference gateway) shows it by leaving out the header, and gets the pause.
    let pacedByGateway = waitS > 0;
    for (;;) {
      if (!pacedByGateway) await sleepUnlessAborted(options.pollIntervalS * 1000, stop);
      if (stop.aborted) throw await cancel();
      const heartbeatFailure = heartbeat.failure;
      if (heartbeatFailure !== null) {
        await bestEffortAbort(client, requestId);
        throw heartbeatFailure;
      }
      const poll = await unlessStopped(() => client.get(requestId, { waitS, signal: stop }));
      if (TERMINAL_STATUSES.has(poll.snapshot.status)) return successOrThrow(poll.snapshot);
      pacedByGateway = poll.longPolled;
    }
  } finally {
    await heartbeat.stop();
  }
}

function successOrThrow(snapshot: TrialSnapshot): TrialSnapshot {
  if (snapshot.status === "completed" || snapshot.status === "truncated") return snapshot;
  if (snapshot.status === "aborted") throw new TrialCancelled("Remote trial was aborted");
  throw new TrialFailed(`Remote trial failed with error code '${snapshotErrorCode(snapshot) ?? "unknown"}'`);
}

async function bestEffortAbort(client: GatewayClient, requestId: string): Promise<void> {
  try {
    await client.abort(requestId);
  } catch {
    // The lease or the deadline ends the trial anyway; a failed abort must not hide why the session stopped.
  }
}

interface Heartbeat {
  /** The error that ended renewing (after its retries), or null while it runs. */
  readonly failure: Error | null;
  stop(): Promise<void>;
}

/** Renews the lease every max(0.05, lease_s/3) seconds until stopped or a renew fails for good. */
function startHeartbeat(client: GatewayClient, requestId: string, leaseS: number): Heartbeat {
  const controller = new AbortController();
  const intervalMs = Math.max(0.05, leaseS / 3) * 1000;
  let failure: Error | null = null;
  const loop = (async () => {
    for (;;) {
      await sleepUnlessAborted(intervalMs, controller.signal);
      if (controller.signal.aborted) return;
      try {
        await client.renew(requestId, controller.signal);
      } catch (error) {
        if (!controller.signal.aborted) failure = error instanceof Error ? error : new Error(String(error));
        return;
      }
    }
  })();
  return {
    get failure() {
      return failure;
    },
    async stop() {
      controller.abort();
      await loop;
    },
  };
}
