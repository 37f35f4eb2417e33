// Per-session state behind a small interface: in memory by default, or shared by replicas (Redis,
// redis-session-store.ts) without touching environments, because every access goes through get → handler → set.
import type { StoredReply } from "./idempotent-replies.ts";

export interface SessionStore<State> {
  get(sessionId: string): Promise<State | undefined>;
  set(sessionId: string, state: State): Promise<void>;
  delete(sessionId: string): Promise<void>;
  size(): Promise<number>;
  close?(): Promise<void>;
  /**
   * A store shared by several processes hands out the session's state under a lock, so a rollout's concurrent tool
   * calls run one after the other whichever replica each reaches. A store without it lives in one process, whose
   * state objects every call of the session shares (the memory store).
   */
  lock?(sessionId: string): Promise<SessionLock<State>>;
  /** A shared store also keeps which session each rollout seeded (the gateway's cleanup asks any replica). */
  rollouts?: RolloutIndex;
}

export interface RolloutIndex {
  track(rolloutId: string, sessionId: string): Promise<void>;
  sessionFor(rolloutId: string): Promise<string | undefined>;
}

/**
 * One request's hold on a session: read its state (and the stored answer of an idempotency key), then either commit
 * (the new state and the answer, in one write, only if the lock is still ours) or release without writing.
 */
export interface SessionLock<State> {
  state(): Promise<State | undefined>;
  storedReply(idempotencyKey: string): Promise<StoredReply | undefined>;
  /** Writes what is given and releases; a store failure or a lost lock rejects (nothing of it is then written). */
  commit(changes: { state?: State; reply?: { idempotencyKey: string; reply: StoredReply } }): Promise<void>;
  /** Releases without writing; harmless after commit. */
  release(): Promise<void>;
}

export interface MemorySessionStoreOptions<S> {
  /** Sessions untouched this long are dropped (the cookie itself expires after 14 days). */
  idleTtlMs?: number;
  sweepIntervalMs?: number;
  /** Called with the state of a session that is dropped (idle or deleted), e.g. to dispose a sandbox. */
  onEvict?: (sessionId: string, state: S) => void | Promise<void>;
  /** The clock idle time is measured on (milliseconds; `Date.now` by default, a test's own clock in tests). */
  now?: () => number;
}

export class MemorySessionStore<S> implements SessionStore<S> {
  private readonly entries = new Map<string, { state: S; touchedAt: number }>();
  private readonly sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: MemorySessionStoreOptions<S> = {}) {
    this.now = options.now ?? Date.now;
    const idleTtlMs = options.idleTtlMs ?? 24 * 60 * 60 * 1000;
    if (Number.isFinite(idleTtlMs)) {
      this.sweeper = setInterval(() => void this.sweep(idleTtlMs), options.sweepIntervalMs ?? Math.min(idleTtlMs, 60_000));
      this.sweeper.unref();
    }
  }

  async get(sessionId: string): Promise<S | undefined> {
    const entry = this.entries.get(sessionId);
    if (entry) entry.touchedAt = this.now();
    return entry?.state;
  }

  async set(sessionId: string, state: S): Promise<void> {
    this.entries.set(sessionId, { state, touchedAt: this.now() });
  }

  async delete(sessionId: string): Promise<void> {
    const entry = this.entries.get(sessionId);
    this.entries.delete(sessionId);
    if (entry) await this.options.onEvict?.(sessionId, entry.state);
  }

  async size(): Promise<number> {
    return this.entries.size;
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const id of [...this.entries.keys()]) await this.delete(id);
  }

  private async sweep(idleTtlMs: number): Promise<void> {
    const cutoff = this.now() - idleTtlMs;
    for (const [id, entry] of this.entries) if (entry.touchedAt < cutoff) await this.delete(id);
  }
}
