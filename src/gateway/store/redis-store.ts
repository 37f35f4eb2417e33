// Trial state in Redis, shared by every gateway replica behind one address. Admission+insert and each
// compare-and-set run as one Lua script, so two replicas can never both accept a transition.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { decodeRecord, encodePatch, type CasCondition, type InsertOutcome, type TrialEvent, type TrialRecord, type TrialStore } from "./record.ts";

const INSERT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[1]) then return 'full' end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('SET', KEYS[4], ARGV[2])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[6], ARGV[4], ARGV[2])
return 'inserted'
`;

// KEYS: trial, live-in-env, live, rollout, expiry, terminal. ARGV: phases, statuses, id, ttl_s, expiry score, field/value...
const UPDATE = `
local phase = redis.call('HGET', KEYS[1], 'phase')
if not phase then return 0 end
if not string.find(ARGV[1], ',' .. phase .. ',', 1, true) then return 0 end
if ARGV[2] ~= '' then
  local status = redis.call('HGET', KEYS[1], 'status')
  if not string.find(ARGV[2], ',' .. status .. ',', 1, true) then return 0 end
end
if #ARGV >= 7 then redis.call('HSET', KEYS[1], unpack(ARGV, 6)) end
local now_phase = redis.call('HGET', KEYS[1], 'phase')
if now_phase ~= 'active' then
  redis.call('DEL', KEYS[4])
  redis.call('ZREM', KEYS[5], ARGV[3])
elseif ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[5], ARGV[5], ARGV[3])
end
if now_phase == 'terminal' and phase ~= 'terminal' then
  redis.call('SREM', KEYS[2], ARGV[3])
  redis.call('SREM', KEYS[3], ARGV[3])
  redis.call('ZADD', KEYS[6], redis.call('HGET', KEYS[1], 'terminal_at'), ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
end
return 1
`;

export interface RedisTrialStoreOptions {
  url: string;
  /** Separates deployments (and test runs) sharing one Redis. */
  namespace: string;
  terminalTtlS: number;
}

export class RedisTrialStore implements TrialStore {
  readonly backend = "redis" as const;
  private readonly redis: Redis;
  private subscriber: Redis | null = null;
  private subscribed: Promise<unknown> = Promise.resolve();
  private readonly listeners: ((event: TrialEvent) => void)[] = [];
  private readonly prefix: string;

  constructor(private readonly options: RedisTrialStoreOptions) {
    this.redis = new Redis(options.url, { maxRetriesPerRequest: 3, connectTimeout: 10_000, lazyConnect: false });
    this.prefix = `ng:gw:${options.namespace}:`;
  }

  private key = (...parts: string[]) => this.prefix + parts.join(":");
  private trialKey = (id: string) => this.key("trial", id);
  private liveInEnv = (envKey: string) => this.key("live-env", Buffer.from(envKey).toString("base64url"));

  async fingerprintKey(): Promise<Buffer> {
    await this.redis.set(this.key("fingerprint-key"), randomBytes(32), "NX");
    return (await this.redis.getBuffer(this.key("fingerprint-key")))!;
  }

  async insert(record: TrialRecord, capacity: number): Promise<InsertOutcome> {
    const keys = [this.trialKey(record.request_id), this.liveInEnv(record.env_key), this.key("live"), this.key("rollout", record.rollout_id), this.key("expiry"), this.key("trials")];
    const args = [String(capacity), record.request_id, String(Math.min(record.deadline_at, record.lease_expires_at)), String(record.created_at), ...Object.entries(encodePatch(record)).flat()];
    const outcome = (await this.redis.eval(INSERT, keys.length, ...keys, ...args)) as string;
    if (outcome === "full") return { kind: "full" };
    if (outcome === "inserted") return { kind: "inserted", record };
    const existing = await this.get(record.request_id);
    // Expired between the script and the read: the id is free again, so try once more.
    return existing ? { kind: "exists", record: existing } : this.insert(record, capacity);
  }

  async get(requestId: string): Promise<TrialRecord | null> {
    const fields = await this.redis.hgetall(this.trialKey(requestId));
    return fields.phase ? decodeRecord(fields) : null;
  }

  async requestIdForRollout(rolloutId: string): Promise<string | null> {
    return this.redis.get(this.key("rollout", rolloutId));
  }

  async update(requestId: string, condition: CasCondition, patch: Partial<TrialRecord>): Promise<TrialRecord | null> {
    const current = await this.get(requestId);
    if (!current) return null;
    const next = { ...current, ...patch };
    const keys = [this.trialKey(requestId), this.liveInEnv(current.env_key), this.key("live"), this.key("rollout", current.rollout_id), this.key("expiry"), this.key("terminal")];
    const expiry = "lease_expires_at" in patch ? String(Math.min(next.deadline_at, next.lease_expires_at)) : "";
    const args = [`,${condition.phases.join(",")},`, condition.statuses ? `,${condition.statuses.join(",")},` : "", requestId, String(Math.ceil(this.options.terminalTtlS)), expiry, ...Object.entries(encodePatch(patch)).flat()];
    const applied = (await this.redis.eval(UPDATE, keys.length, ...keys, ...args)) as number;
    return applied === 1 ? this.get(requestId) : null;
  }

  async expiredActive(now: number): Promise<TrialRecord[]> {
    const ids = await this.redis.zrangebyscore(this.key("expiry"), "-inf", now);
    return this.records(ids);
  }

  async nonTerminal(): Promise<TrialRecord[]> {
    return this.records(await this.redis.smembers(this.key("live")));
  }

  async counts() {
    const [trials, active] = await Promise.all([this.redis.zcard(this.key("trials")), this.redis.scard(this.key("live"))]);
    return { trials, active, terminal: trials - active };
  }

  async purgeTerminal(before: number): Promise<number> {
    const ids = await this.redis.zrangebyscore(this.key("terminal"), "-inf", `(${before}`);
    if (ids.length === 0) return 0;
    // The hashes expire on their own (EXPIRE at the terminal transition); these are the indexes.
    await this.redis.multi().zrem(this.key("terminal"), ...ids).zrem(this.key("trials"), ...ids).del(...ids.map(this.trialKey)).exec();
    return ids.length;
  }

  async publish(event: TrialEvent): Promise<void> {
    await this.redis.publish(this.key("events"), JSON.stringify(event));
  }

  subscribe(listener: (event: TrialEvent) => void): void {
    this.listeners.push(listener);
    if (this.subscriber) return;
    this.subscriber = this.redis.duplicate();
    this.subscribed = this.subscriber.subscribe(this.key("events"));
    this.subscriber.on("message", (_channel: string, message: string) => {
      const event = JSON.parse(message) as TrialEvent;
      for (const each of this.listeners) each(event);
    });
  }

  /** Resolves once connected and listening (events published before that are missed). */
  async ready(): Promise<void> {
    await Promise.all([this.redis.ping(), this.subscribed]);
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async records(ids: string[]): Promise<TrialRecord[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.trialKey(id));
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([, fields]) => fields as Record<string, string>).filter((fields) => fields?.phase).map(decodeRecord);
  }
}

