// The Redis behind `--queue redis://…`: the URL read once (a bad one is one line naming the flag), the
// connection options every BullMQ client of a run shares (a connect timeout and a bounded reconnect), and a
// probe that says "cannot reach Redis" before any server is started or any job is enqueued.
import type { ConnectionOptions } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { UserError } from "../../config/errors.ts";

export interface QueueAddress {
  /** What BullMQ and ioredis connect with. */
  connection: RedisOptions;
  /** Every key of the run lives under it (`?prefix=` in the URL; default `ng-eval`), so runs on one Redis can be kept apart. */
  prefix: string;
  /** The URL without its password, for messages. */
  display: string;
}

const CONNECT_TIMEOUT_MS = 5000;
/** Reconnects after a lost connection, ~30 s in all; then the process says so and stops rather than hang. */
const MAX_RECONNECTS = 15;

export const DEFAULT_QUEUE_PREFIX = "ng-eval";

const USAGE = "redis://[user:password@]host[:port][/db][?prefix=name]";

export function parseQueueUrl(url: string, flagName = "--queue"): QueueAddress {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UserError(`${flagName} ${url}: not a URL; give ${USAGE}`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") throw new UserError(`${flagName} ${url}: not a Redis URL (${parsed.protocol}); give ${USAGE}`);
  if (!parsed.hostname) throw new UserError(`${flagName} ${url}: no host; give ${USAGE}`);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new UserError(`${flagName} ${url}: the database '${parsed.pathname.slice(1)}' is not a number; give ${USAGE}`);
  const prefix = parsed.searchParams.get("prefix") ?? DEFAULT_QUEUE_PREFIX;
  if (!/^[\w.-]+$/.test(prefix)) throw new UserError(`${flagName} ${url}: prefix '${prefix}' may hold only letters, digits, '_', '.', '-'`);
  const display = parsed.password ? url.replace(`:${parsed.password}@`, ":***@") : url;
  return {
    prefix,
    display,
    connection: {
      host: parsed.hostname.replace(/^\[|\]$/g, ""),
      port: Number(parsed.port || 6379),
      username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
      password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
      db,
      ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
      connectTimeout: CONNECT_TIMEOUT_MS,
      // BullMQ's workers block on Redis: a command must wait for a reconnect rather than fail at once.
      maxRetriesPerRequest: null,
      retryStrategy: (times: number) => (times > MAX_RECONNECTS ? null : Math.min(250 * times, 2000)),
    },
  };
}

/** Resolves once Redis answered PING; else one line naming the URL (a refused port, a timeout, a wrong password). */
export async function checkRedisReachable(address: QueueAddress, flagName = "--queue"): Promise<void> {
  const probe = new Redis({ ...address.connection, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  // The socket's error (ECONNREFUSED, ETIMEDOUT, …) says more than connect()'s "Connection is closed".
  let socketError: Error | undefined;
  probe.on("error", (error: Error) => (socketError ??= error));
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    throw new UserError(`${flagName} ${address.display}: cannot reach Redis (${(socketError ?? (error as Error)).message || String(error)})`);
  } finally {
    probe.disconnect();
  }
}

/** A plain client of the run's Redis (registry, run metadata), after the probe; `onError` hears each lost connection. */
export async function connectRedis(address: QueueAddress, onError: (error: Error) => void, flagName = "--queue"): Promise<Redis> {
  await checkRedisReachable(address, flagName);
  const redis = new Redis(address.connection);
  redis.on("error", onError);
  return redis;
}

/** The same options as BullMQ takes them (its RedisOptions type is its own, not ioredis's). */
export const bullmqConnection = (address: QueueAddress) => address.connection as ConnectionOptions;
