// The trial lifecycle of relax-nemo-gym/v1 over a shared store: create (validate, admit, idempotency), start
// under the environment's concurrency, finish from `/run`, or cancel → revoke callbacks → clean up → terminal.
//
// Ownership rules that make it safe across restarts and replicas:
// - every transition is a compare-and-set in the store, so the first terminal path wins;
// - whoever cancels a trial that never started finalizes it at once (nothing to clean up);
// - a started trial is cleaned up only by its driver (the process holding its `/run` and its dispatcher slot);
//   a driver that died leaves an orphan, which the next driver (restart, or the BullMQ stall) reconciles
//   through the environment's cleanup URLs.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { Logger } from "../server/logger.ts";
import { CANCEL_STATUS, type CallbackTarget, type CancelCause, type EnvironmentRegistration, type TrialRequest, type TrialSnapshot } from "./types.ts";
import { envKey, snapshotOf, type TrialRecord, type TrialStore } from "./store/record.ts";
import type { TrialDispatcher } from "./dispatch/dispatcher.ts";
import { parseTrialRequest, requestFingerprintJson, TrialProtocolError } from "./protocol.ts";
import { checkCallbackUrl } from "./allowlist.ts";
import { findRegistration, GatewayConfigError, type GatewaySettings } from "./settings.ts";
import { cleanupRun, type CleanupStep, type HttpRunAdapter, type RunHandle } from "./run-adapter.ts";
import type { CallbackLease } from "./callback/routes.ts";

/** An answer other than 2xx for the trial API: FastAPI's `{"detail": …}`. */
export class TrialApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export interface TrialServiceOptions {
  settings: GatewaySettings;
  store: TrialStore;
  adapters: Map<string, HttpRunAdapter>;
  logger: Logger;
  /** How often a driver re-reads its trial in case a cancel notification was lost (shared stores only). */
  cancelPollMs?: number;
  now?: () => number;
}

const TERMINAL_POLL_MS = 1000;
const PURGE_EVERY_MS = 10_000;

export class TrialService {
  readonly replicaId = randomUUID();
  readonly serviceEpoch = randomBytes(16).toString("hex");
  janitorHealthy = true;
  private dispatcher: TrialDispatcher | null = null;
  private fingerprintKey: Buffer | null = null;
  private janitorTimer: NodeJS.Timeout | null = null;
  private janitorRunning = false;
  private lastPurge = 0;
  private closing = false;
  /** Per trial: controllers of callbacks in flight here, aborted by a cancel event. */
  private readonly callbacksInFlight = new Map<string, Set<AbortController>>();
  /** Per trial driven here: wakes its supervisor when the trial is cancelled. */
  private readonly cancelWatchers = new Map<string, () => void>();
  private readonly terminalWaiters = new Map<string, Set<() => void>>();
  private readonly driving = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly options: TrialServiceOptions) {
    this.now = options.now ?? Date.now;
    options.store.subscribe((event) => {
      if (event.kind === "cancel") {
        for (const controller of this.callbacksInFlight.get(event.request_id) ?? []) controller.abort();
        this.cancelWatchers.get(event.request_id)?.();
      } else {
        for (const wake of this.terminalWaiters.get(event.request_id) ?? []) wake();
      }
    });
  }

  get logger(): Logger {
    return this.options.logger;
  }

  get store(): TrialStore {
    return this.options.store;
  }

  get closingOrClosed(): boolean {
    return this.closing;
  }

  get janitorAlive(): boolean {
    return this.janitorTimer !== null;
  }

  /** Starts admission, the janitor, and reconciles what a previous process left behind. */
  async start(dispatcher: TrialDispatcher): Promise<void> {
    this.dispatcher = dispatcher;
    this.fingerprintKey = await this.options.store.fingerprintKey();
    for (const record of await this.options.store.nonTerminal()) {
      // Registered before the restart but not now: nothing here can run or clean it, so it ends (see reconcileOrphan).
      const registered = this.options.adapters.has(record.env_key);
      if (registered && record.phase === "active" && record.status === "queued") await dispatcher.enqueue(record.env_key, record.request_id);
      // A shared store's orphans arrive through the stalled job; a single process's are all here.
      else if (!registered || this.options.store.backend === "sqlite") void this.reconcileOrphan(record.request_id);
    }
    const interval = this.options.settings.leaseScanIntervalS * 1000;
    this.janitorTimer = setInterval(() => void this.janitor(), interval);
  }

  // ---- trial API ----

  async create(payload: unknown): Promise<TrialSnapshot> {
    let request: TrialRequest;
    try {
      request = parseTrialRequest(payload);
    } catch (error) {
      if (error instanceof TrialProtocolError) throw new TrialApiError(422, error.message);
      throw error;
    }
    const registration = this.admissible(request);
    const fingerprint = createHmac("sha256", this.fingerprintKey!).update(requestFingerprintJson(payload)).digest("hex");
    const now = this.now();
    const record: TrialRecord = {
      request_id: request.request_id,
      fingerprint,
      env_key: envKey(registration.environment, registration.config),
      rollout_id: `${randomBytes(16).toString("hex")}-0`,
      phase: "active",
      status: "queued",
      cause: null,
      reward: null,
      metrics: {},
      artifact_ref: null,
      error: null,
      request,
      created_at: now,
      deadline_at: now + request.deadline_s * 1000,
      lease_expires_at: now + request.lease_s * 1000,
      terminal_at: null,
      driver: null,
    };
    const outcome = await this.options.store.insert(record, registration.max_concurrency + registration.queue_capacity);
    if (outcome.kind === "full") throw new TrialApiError(429, "environment queue is full");
    if (outcome.kind === "exists") {
      const same = Buffer.from(outcome.record.fingerprint, "hex");
      if (same.length !== 32 || !timingSafeEqual(same, Buffer.from(fingerprint, "hex"))) {
        throw new TrialApiError(409, "request_id already exists with a different payload");
      }
      return snapshotOf(outcome.record);
    }
    await this.dispatcher!.enqueue(record.env_key, record.request_id);
    return snapshotOf(record);
  }

  async snapshot(requestId: string, waitMs = 0): Promise<TrialSnapshot> {
    let record = await this.options.store.get(requestId);
    if (!record) throw new TrialApiError(404, "trial not found");
    if (waitMs > 0 && record.phase !== "terminal") {
      await this.untilTerminal(requestId, waitMs);
      record = (await this.options.store.get(requestId)) ?? record;
    }
    return snapshotOf(record);
  }

  async renew(requestId: string): Promise<void> {
    const record = await this.options.store.get(requestId);
    if (!record) throw new TrialApiError(404, "trial not found");
    if (record.phase !== "active" || !record.request) return;
    await this.options.store.update(requestId, { phases: ["active"] }, { lease_expires_at: this.now() + record.request.lease_s * 1000 });
  }

  async abort(requestId: string): Promise<TrialSnapshot> {
    if (!(await this.options.store.get(requestId))) throw new TrialApiError(404, "trial not found");
    await this.cancel(requestId, "aborted");
    return snapshotOf((await this.options.store.get(requestId))!);
  }

  // ---- callback capabilities ----

  async acquireCallback(rolloutId: string): Promise<CallbackLease | null> {
    const requestId = await this.options.store.requestIdForRollout(rolloutId);
    if (!requestId) return null;
    // Registered before the record is read, so a cancel landing in between still reaches this callback.
    const controller = new AbortController();
    let controllers = this.callbacksInFlight.get(requestId);
    if (!controllers) this.callbacksInFlight.set(requestId, (controllers = new Set()));
    controllers.add(controller);
    const release = () => {
      controllers!.delete(controller);
      if (controllers!.size === 0) this.callbacksInFlight.delete(requestId);
    };
    const record = await this.options.store.get(requestId);
    if (!record || record.phase !== "active" || !record.request || record.rollout_id !== rolloutId) return release(), null;
    const now = this.now();
    // Expiry is enforced here too, not only at the next janitor scan.
    const expired: CancelCause | null = now >= record.deadline_at ? "deadline_exceeded" : now >= record.lease_expires_at ? "lease_expired" : null;
    if (expired) {
      release();
      await this.cancel(requestId, expired);
      return null;
    }
    const target: CallbackTarget = { ...record.request.model_endpoint, generation: record.request.generation, remaining_s: (record.deadline_at - now) / 1000 };
    return { target, signal: controller.signal, release };
  }

  // ---- lifecycle ----

  /**
   * ACTIVE → CANCELLING. Revokes the callback capability (the store drops the rollout mapping) and tells every
   * process; a trial that never started is finalized here, a started one by its driver.
   */
  async cancel(requestId: string, cause: CancelCause): Promise<boolean> {
    const record = await this.options.store.update(requestId, { phases: ["active"] }, { phase: "cancelling", cause });
    if (!record) return false;
    this.options.logger.info(`trial ${requestId} cancelling: ${cause}`);
    await this.options.store.publish({ kind: "cancel", request_id: requestId });
    if (record.status === "queued") await this.finalizeCancelled(requestId, cause, { confirmed: true });
    return true;
  }

  /** The dispatcher's job: runs the trial once a slot is free, and returns only when it is terminal. */
  readonly drive = async (requestId: string): Promise<void> => {
    // A job handed back to the replica that is still driving it (its lock lapsed): that run goes on.
    if (this.driving.has(requestId)) return this.untilTerminal(requestId);
    this.driving.add(requestId);
    try {
      const record = await this.options.store.get(requestId);
      if (!record || record.phase === "terminal") return;
      if (record.phase === "active" && record.status === "queued") await this.runTrial(record);
      else await this.reconcileOrphan(requestId);
      await this.untilTerminal(requestId);
    } catch (error) {
      this.options.logger.error({ err: error }, `trial ${requestId}: driver failed; reconciling through cleanup`);
      await this.reconcileOrphan(requestId).catch(() => undefined);
    } finally {
      this.driving.delete(requestId);
    }
  };

  private async runTrial(queued: TrialRecord): Promise<void> {
    const requestId = queued.request_id;
    const cancelled = this.watchCancel(requestId);
    try {
      const record = await this.options.store.update(requestId, { phases: ["active"], statuses: ["queued"] }, { status: "running", driver: this.replicaId });
      // Cancelled while queued: the canceller has finalized it.
      if (!record) return;
      const handle = this.adapterFor(record).start(record.request!, record.rollout_id);
      const outcome = await Promise.race([
        handle.result.then(
          (result) => ({ kind: "result" as const, result }),
          (error: unknown) => ({ kind: "error" as const, error }),
        ),
        cancelled.promise.then(() => ({ kind: "cancelled" as const })),
      ]);
      if (outcome.kind === "result") {
        const { result } = outcome;
        const finished = await this.options.store.update(
          requestId,
          { phases: ["active"] },
          { phase: "terminal", status: result.status, reward: result.reward, metrics: result.metrics, artifact_ref: result.artifact_ref, error: null, request: null, terminal_at: this.now() },
        );
        if (finished) return void (await this.options.store.publish({ kind: "terminal", request_id: requestId }));
        // A cancellation won the race; the late result is dropped and the run is cleaned up below.
      } else if (outcome.kind === "error") {
        this.options.logger.error({ err: outcome.error }, `trial ${requestId}: /run failed`);
        await this.cancel(requestId, "agent_error");
      }
      await this.cleanUp(requestId, handle);
    } finally {
      cancelled.dispose();
    }
  }

  /** A started trial whose driver is gone: its `/run` is lost, so only the cleanup URLs can prove it ended. */
  private async reconcileOrphan(requestId: string): Promise<void> {
    await this.cancel(requestId, "gateway_restarted");
    const record = await this.options.store.get(requestId);
    if (!record || record.phase !== "cancelling") return;
    const cause = record.cause ?? "gateway_restarted";
    if (record.status === "queued") return this.finalizeCancelled(requestId, cause, { confirmed: true });
    const adapter = this.options.adapters.get(record.env_key);
    // Its environment is no longer registered: there are no cleanup URLs to prove anything with.
    if (!adapter) return this.finalizeCancelled(requestId, cause, { confirmed: false, code: "cleanup_unverified" });
    await this.cleanUp(requestId, adapter.handleFor(record.rollout_id));
  }

  private async cleanUp(requestId: string, handle: RunHandle): Promise<void> {
    const record = await this.options.store.get(requestId);
    if (!record || record.phase !== "cancelling") return;
    const step = await cleanupRun(handle);
    await this.finalizeCancelled(requestId, record.cause ?? "aborted", step);
  }

  private async finalizeCancelled(requestId: string, cause: CancelCause, step: CleanupStep): Promise<void> {
    const outcome = step.confirmed
      ? { status: CANCEL_STATUS[cause], error: { code: cause } }
      : { status: "failed" as const, error: { code: step.code ?? "cleanup_unverified", type: "CleanupError", cause } };
    const done = await this.options.store.update(requestId, { phases: ["cancelling"] }, { ...outcome, phase: "terminal", request: null, terminal_at: this.now() });
    if (done) await this.options.store.publish({ kind: "terminal", request_id: requestId });
  }

  private watchCancel(requestId: string): { promise: Promise<void>; dispose(): void } {
    let wake!: () => void;
    const promise = new Promise<void>((resolve) => (wake = resolve));
    this.cancelWatchers.set(requestId, wake);
    // A shared store's notifications are fire-and-forget; re-reading the record bounds a lost one.
    const poll =
      this.options.store.backend === "redis"
        ? setInterval(async () => {
            const record = await this.options.store.get(requestId).catch(() => null);
            if (record && record.phase !== "active") wake();
          }, this.options.cancelPollMs ?? 1000)
        : null;
    return {
      promise,
      dispose: () => {
        this.cancelWatchers.delete(requestId);
        if (poll) clearInterval(poll);
      },
    };
  }

  /** Resolves when the trial is terminal (or after `timeoutMs`). */
  async untilTerminal(requestId: string, timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
    const started = this.now();
    let waiters = this.terminalWaiters.get(requestId);
    if (!waiters) this.terminalWaiters.set(requestId, (waiters = new Set()));
    try {
      for (;;) {
        const record = await this.options.store.get(requestId);
        if (!record || record.phase === "terminal") return;
        const left = timeoutMs - (this.now() - started);
        if (left <= 0) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(left, TERMINAL_POLL_MS));
          function done() {
            clearTimeout(timer);
            waiters!.delete(done);
            resolve();
          }
          waiters!.add(done);
        });
      }
    } finally {
      if (waiters.size === 0) this.terminalWaiters.delete(requestId);
    }
  }

  private async janitor(): Promise<void> {
    if (this.janitorRunning) return;
    this.janitorRunning = true;
    try {
      const now = this.now();
      for (const record of await this.options.store.expiredActive(now)) {
        try {
          await this.cancel(record.request_id, now >= record.deadline_at ? "deadline_exceeded" : "lease_expired");
        } catch (error) {
          this.janitorHealthy = false;
          this.options.logger.error({ err: error }, `janitor: trial ${record.request_id}`);
        }
      }
      if (now - this.lastPurge >= PURGE_EVERY_MS) await this.purgeExpired(now);
    } catch (error) {
      this.janitorHealthy = false;
      this.options.logger.error({ err: error }, "janitor scan failed");
    } finally {
      this.janitorRunning = false;
    }
  }

  /** Forgets terminal trials older than the TTL (their request_id becomes free again). */
  async purgeExpired(now: number): Promise<number> {
    this.lastPurge = now;
    return this.options.store.purgeTerminal(now - this.options.settings.terminalTtlS * 1000);
  }

  // ---- health ----

  async ready(): Promise<boolean> {
    if (this.closing || !this.janitorAlive || !this.janitorHealthy) return false;
    const answers = await Promise.all([...this.options.adapters.values()].map((adapter) => adapter.ready().catch(() => false)));
    return answers.every(Boolean);
  }

  /**
   * Stops the janitor and admission, cancels the trials this process is running (service_shutdown) and waits
   * for their cleanup. Queued trials stay queued in the store for the next process or another replica.
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.janitorTimer) clearInterval(this.janitorTimer);
    this.janitorTimer = null;
    const mine = (await this.options.store.nonTerminal()).filter((record) => record.driver === this.replicaId && record.phase === "active");
    await Promise.all(mine.map((record) => this.cancel(record.request_id, "service_shutdown").catch(() => false)));
    await this.dispatcher?.close();
  }

  // ---- helpers ----

  private admissible(request: TrialRequest): EnvironmentRegistration {
    const { settings } = this.options;
    try {
      const registration = findRegistration(settings, request.environment.name, request.environment.config);
      if (!registration) {
        throw new GatewayConfigError(`environment ${JSON.stringify(request.environment.name)} with config ${JSON.stringify(request.environment.config)} is not registered on this gateway`);
      }
      if (request.interrupt_policy !== registration.interrupt_policy) {
        throw new GatewayConfigError(`interrupt_policy ${JSON.stringify(request.interrupt_policy)} does not match the registered ${JSON.stringify(registration.interrupt_policy)}`);
      }
      if (request.deadline_s > registration.max_deadline_s) {
        throw new GatewayConfigError(`deadline_s ${request.deadline_s} exceeds max_deadline_s ${registration.max_deadline_s}`);
      }
      checkCallbackUrl(settings.allowlist, request.model_endpoint.base_url, { proxyEnabled: settings.callbackProxy !== undefined && settings.callbackProxy !== null });
      return registration;
    } catch (error) {
      if (error instanceof GatewayConfigError) throw new TrialApiError(400, error.message);
      throw error;
    }
  }

  private adapterFor(record: TrialRecord): HttpRunAdapter {
    const adapter = this.options.adapters.get(record.env_key);
    if (!adapter) throw new Error(`trial ${record.request_id}: environment is no longer registered`);
    return adapter;
  }
}
