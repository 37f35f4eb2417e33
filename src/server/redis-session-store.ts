// Per-rollout state in Redis, shared by every replica of one resources server (`session_store: redis://…`).
//
// Keys (one hash slot per session, `{<session id>}`): `<prefix>{sid}:state` (the encoded state), `:replies` (a hash of
// idempotency key → stored answer) and `:lock`. Both data keys expire after the idle TTL, refreshed on every access.
// `<prefix>rollout:<id>` names the session a rollout seeded, for the gateway's cleanup on any replica.
// A request holds the session's lock from before it reads the state until its answer is written: the standard
// single-instance Redis lock (SET NX PX with a random token, renewed while held, released by compare-and-delete),
// and the commit of the new state and the answer is one script that writes only while the token is still ours, so a
// holder that lost its lease (paused, partitioned) can never overwrite a newer state. A replica killed mid-call
// leaves its lock to expire (the lease) and its state as it was before the call.
//
// Redis failing is an infrastructure failure: every error here is a 503 (never scored), never a made-up state.
import { randomBytes } from "node:crypto";
import { Redis, type Result } from "ioredis";
import { HttpError } from "../protocol/errors.ts";
import type { StoredReply } from "./idempotent-replies.ts";
import type { RolloutIndex, SessionLock, SessionStore } from "./session-store.ts";
import type { StateTextCodec } from "./state-codec.ts";
import { redactedRedisUrl } from "./session-store-setting.ts";

/** The session store could not answer (Redis down or slow, a lock not had in time or lost): a 503. */
export class SessionStoreUnavailableError extends HttpError {
  constructor(message: string) {
    super(503, message);
    this.name = "SessionStoreUnavailableError";
  }
}

export interface RedisSessionStoreOptions<State> {
  url: string;
  /** Separates servers sharing one Redis: the replicas of one server share it. */
  keyPrefix: string;
  codec: StateTextCodec<State>;
  idleTtlMs: number;
  /** How long a lock outlives a holder that stopped renewing it (killed): the longest a retry elsewhere waits. */
  lockLeaseMs?: number;
  /** How long a request waits for a session's lock before answering 503. */
  lockWaitMs?: number;
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
  /** Reconnect attempts a command waits through before it fails (then a 503). */
  maxRetriesPerRequest?: number;
  /** Told once per outage (first error after a healthy spell). */
  onError?: (message: string) => void;
}

const COMMIT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '1' then redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[2]) else redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[5], ARGV[6]) end
redis.call('PEXPIRE', KEYS[3], ARGV[2])
redis.call('DEL', KEYS[1])
return 1
`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const LOAD = `
local value = redis.call('GET', KEYS[1])
if value then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return value
`;

declare module "ioredis" {
  interface RedisCommander<Context> {
    sessionCommit(lock: string, state: string, replies: string, token: string, ttlMs: number, writeState: string, stateText: string, replyKey: string, replyText: string): Result<number, Context>;
    sessionRelease(lock: string, token: string): Result<number, Context>;
    sessionRenew(lock: string, token: string, leaseMs: number): Result<number, Context>;
    sessionLoad(state: string, ttlMs: number): Result<string | null, Context>;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function encodeReply(reply: StoredReply): string {
  return JSON.stringify({ status: reply.status, contentType: reply.contentType ?? null, body: reply.body.toString("base64") });
}

function decodeReply(text: string): StoredReply {
  const { status, contentType, body } = JSON.parse(text) as { status: number; contentType: string | null; body: string };
  return { status, contentType: contentType ?? undefined, body: Buffer.from(body, "base64") };
}

export class RedisSessionStore<State> implements SessionStore<State> {
  private readonly redis: Redis;
  private readonly label: string;
  private readonly leaseMs: number;
  private readonly waitMs: number;
  /** This process's holders and waiters per session, in order: only the head polls Redis. */
  private readonly localTails = new Map<string, Promise<void>>();
  private healthy = true;

  private constructor(private readonly options: RedisSessionStoreOptions<State>) {
    this.label = `session store ${redactedRedisUrl(options.url)}`;
    this.leaseMs = options.lockLeaseMs ?? 10_000;
    this.waitMs = options.lockWaitMs ?? 30_000;
    this.redis = new Redis(options.url, {
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs ?? 2_000,
      commandTimeout: options.commandTimeoutMs ?? 2_000,
      maxRetriesPerRequest: options.maxRetriesPerRequest ?? 2,
      retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
    });
    this.redis.on("error", (error: Error) => {
      if (this.healthy) options.onError?.(`${this.label}: ${error.message}`);
      this.healthy = false;
    });
    this.redis.on("ready", () => (this.healthy = true));
    this.redis.defineCommand("sessionCommit", { numberOfKeys: 3, lua: COMMIT });
    this.redis.defineCommand("sessionRelease", { numberOfKeys: 1, lua: RELEASE });
    this.redis.defineCommand("sessionRenew", { numberOfKeys: 1, lua: RENEW });
    this.redis.defineCommand("sessionLoad", { numberOfKeys: 1, lua: LOAD });
  }

  /** A store whose Redis answered a PING; otherwise an error whose message is one line naming the URL. */
  static async connect<State>(options: RedisSessionStoreOptions<State>): Promise<RedisSessionStore<State>> {
    const store = new RedisSessionStore(options);
    try {
      await store.redis.connect();
      await store.redis.ping();
    } catch (error) {
      store.redis.disconnect();
      throw new Error(`${store.label}: cannot reach Redis (${(error as Error).message})`);
    }
    return store;
  }

  private key(sessionId: string, part: "state" | "replies" | "lock"): string {
    return `${this.options.keyPrefix}{${sessionId}}:${part}`;
  }

  /** Runs one Redis exchange; any failure is a 503. */
  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof HttpError) throw error;
      throw new SessionStoreUnavailableError(`${this.label}: ${what} failed: ${(error as Error).message}`);
    }
  }

  async get(sessionId: string): Promise<State | undefined> {
    const text = await this.call("read", () => this.redis.sessionLoad(this.key(sessionId, "state"), this.options.idleTtlMs));
    return text === null ? undefined : this.options.codec.decode(text);
  }

  async set(sessionId: string, state: State): Promise<void> {
    const text = this.options.codec.encode(state);
    await this.call("write", () => this.redis.set(this.key(sessionId, "state"), text, "PX", this.options.idleTtlMs));
  }

  async delete(sessionId: string): Promise<void> {
    await this.call("delete", () => this.redis.del(this.key(sessionId, "state"), this.key(sessionId, "replies")));
  }

  async size(): Promise<number> {
    return this.call("count", async () => {
      let count = 0;
      let cursor = "0";
      do {
        const [next, keys] = await this.redis.scan(cursor, "MATCH", `${this.options.keyPrefix}*:state`, "COUNT", 1000);
        cursor = next;
        count += keys.length;
      } while (cursor !== "0");
      return count;
    });
  }

  /** Rollout → session, kept as long as a session is (the idle TTL from the seed). */
  readonly rollouts: RolloutIndex = {
    track: async (rolloutId, sessionId) => {
      await this.call("write", () => this.redis.set(this.rolloutKey(rolloutId), sessionId, "PX", this.options.idleTtlMs));
    },
    sessionFor: async (rolloutId) => (await this.call("read", () => this.redis.get(this.rolloutKey(rolloutId)))) ?? undefined,
  };

  private rolloutKey(rolloutId: string): string {
    return `${this.options.keyPrefix}rollout:${rolloutId}`;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  async lock(sessionId: string): Promise<SessionLock<State>> {
    const deadline = Date.now() + this.waitMs;
    const releaseLocal = await this.waitLocalTurn(sessionId, deadline);
    let token: string;
    try {
      token = await this.acquire(sessionId, deadline);
    } catch (error) {
      releaseLocal();
      throw error;
    }
    return this.heldLock(sessionId, token, releaseLocal);
  }

  /** Queues behind this process's earlier requests on the session; resolves to the function that ends our turn. */
  private async waitLocalTurn(sessionId: string, deadline: number): Promise<() => void> {
    const previous = this.localTails.get(sessionId);
    let endTurn!: () => void;
    const ours = new Promise<void>((resolve) => (endTurn = resolve));
    const tail = previous === undefined ? ours : previous.then(() => ours);
    this.localTails.set(sessionId, tail);
    const releaseLocal = () => {
      endTurn();
      if (this.localTails.get(sessionId) === tail) this.localTails.delete(sessionId);
    };
    if (previous !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), Math.max(0, deadline - Date.now()))));
      const outcome = await Promise.race([previous.then(() => "turn" as const), timedOut]);
      clearTimeout(timer);
      if (outcome === "timeout") {
        // Our turn may still come: pass it straight on, so the queue behind us is not stuck.
        void previous.then(releaseLocal);
        throw new SessionStoreUnavailableError(`${this.label}: session busy: another call of it held it for ${this.waitMs} ms`);
      }
    }
    return releaseLocal;
  }

  private async acquire(sessionId: string, deadline: number): Promise<string> {
    const token = randomBytes(16).toString("base64url");
    const lockKey = this.key(sessionId, "lock");
    for (let attempt = 0; ; attempt++) {
      const acquired = await this.call("lock", () => this.redis.set(lockKey, token, "PX", this.leaseMs, "NX"));
      if (acquired === "OK") return token;
      if (Date.now() >= deadline) throw new SessionStoreUnavailableError(`${this.label}: session busy: another replica held it for ${this.waitMs} ms`);
      // A short wait first (a peer's call takes milliseconds), longer while a dead holder's lease runs out.
      await sleep(Math.min(5 * 2 ** Math.min(attempt, 4), 80) * (0.5 + Math.random()));
    }
  }

  private heldLock(sessionId: string, token: string, releaseLocal: () => void): SessionLock<State> {
    const lockKey = this.key(sessionId, "lock");
    let lost = false;
    let done = false;
    const renewer = setInterval(() => {
      this.redis.sessionRenew(lockKey, token, this.leaseMs).then(
        (renewed) => (lost ||= renewed === 0),
        () => undefined, // Redis unreachable: the commit will fail and say so.
      );
    }, this.leaseMs / 3);
    renewer.unref();
    const finish = () => {
      done = true;
      clearInterval(renewer);
      releaseLocal();
    };
    return {
      state: () => this.get(sessionId),
      storedReply: async (idempotencyKey) => {
        const text = await this.call("read", () => this.redis.hget(this.key(sessionId, "replies"), idempotencyKey));
        return text === null ? undefined : decodeReply(text);
      },
      commit: async ({ state, reply }) => {
        if (done) throw new Error("session lock committed or released twice");
        let committed = 0;
        try {
          if (lost) throw new SessionStoreUnavailableError(`${this.label}: the session's lock expired while this call ran (longer than ${this.leaseMs} ms without renewal)`);
          const stateText = state === undefined ? "" : this.options.codec.encode(state);
          const replyText = reply === undefined ? "" : encodeReply(reply.reply);
          committed = await this.call("write", () =>
            this.redis.sessionCommit(lockKey, this.key(sessionId, "state"), this.key(sessionId, "replies"), token, this.options.idleTtlMs, state === undefined ? "0" : "1", stateText, reply?.idempotencyKey ?? "", replyText),
          );
          if (committed === 0) throw new SessionStoreUnavailableError(`${this.label}: the session's lock expired before this call's state was written; nothing was written`);
        } finally {
          finish();
          // Not written (a state that does not encode, Redis down): free the lock now rather than after its lease.
          if (committed === 0) void this.redis.sessionRelease(lockKey, token).catch(() => undefined);
        }
      },
      release: async () => {
        if (done) return;
        finish();
        await this.redis.sessionRelease(lockKey, token).catch(() => undefined); // the lease frees it otherwise
      },
    };
  }
}
