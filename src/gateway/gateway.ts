// Assembles one gateway process: its store (SQLite file or Redis), one run adapter per registered environment,
// the trial service, the dispatcher that matches the store, and the HTTP app.
import type { FastifyInstance } from "fastify";
import { HttpClient } from "../client/http-client.ts";
import type { Logger } from "../server/logger.ts";
import { envKey, type TrialStore } from "./store/record.ts";
import { SqliteTrialStore } from "./store/sqlite-store.ts";
import { LocalDispatcher } from "./dispatch/local-dispatcher.ts";
import type { TrialDispatcher } from "./dispatch/dispatcher.ts";
import { HttpRunAdapter } from "./run-adapter.ts";
import { TrialService } from "./trial-service.ts";
import { createGatewayApp } from "./app.ts";
import { startTracingFromConfig } from "../metrics/tracing.ts";
import type { GatewaySettings } from "./settings.ts";

export interface GatewayOptions {
  settings: GatewaySettings;
  logger: Logger;
  host?: string;
  port?: number;
  /** Separates deployments sharing one Redis. */
  namespace?: string;
  /** BullMQ lock: how long a dead replica's trials wait before another replica reconciles them. */
  lockDurationMs?: number;
}

export interface RunningGateway {
  url: string;
  app: FastifyInstance;
  service: TrialService;
  close(): Promise<void>;
}

const isRedisUrl = (url: string) => /^rediss?:\/\//.test(url);

// ioredis and BullMQ load only for a Redis-backed gateway: every other process (the CLI, SQLite gateways) skips them.
async function openStore(settings: GatewaySettings, namespace: string): Promise<TrialStore> {
  if (!isRedisUrl(settings.stateUrl)) return new SqliteTrialStore(settings.stateUrl);
  const { RedisTrialStore } = await import("./store/redis-store.ts");
  const store = new RedisTrialStore({ url: settings.stateUrl, namespace, terminalTtlS: settings.terminalTtlS });
  await store.ready();
  return store;
}

export interface GatewayService {
  service: TrialService;
  close(): Promise<void>;
}

/** Store, adapters, dispatcher and the trial service: everything but the HTTP listener. */
export async function startGatewayService(options: Omit<GatewayOptions, "host" | "port">): Promise<GatewayService> {
  const { settings, logger } = options;
  const namespace = options.namespace ?? "default";
  const store = await openStore(settings, namespace);
  // /run has no timeout of its own: the trial deadline (janitor → abort) bounds it.
  const http = new HttpClient({ connectTimeoutMs: 10_000, deadlineMs: 7 * 24 * 3600 * 1000, maxRetries: 0 });
  const adapters = new Map(
    settings.environments.map((registration) => [
      envKey(registration.environment, registration.config),
      new HttpRunAdapter(registration, { http, cleanupGraceS: settings.cleanupGraceS, artifactRoot: settings.artifactRoot ?? undefined, logger }),
    ]),
  );
  const service = new TrialService({ settings, store, adapters, logger });
  const slots = settings.environments.map((registration) => ({ envKey: envKey(registration.environment, registration.config), maxConcurrency: registration.max_concurrency }));
  const dispatcher: TrialDispatcher =
    store.backend === "redis"
      ? await (await import("./dispatch/bullmq-dispatcher.ts")).BullmqDispatcher.start(slots, service.drive, { redisUrl: settings.stateUrl, namespace, lockDurationMs: options.lockDurationMs ?? 30_000 })
      : new LocalDispatcher(slots, service.drive, (requestId, error) => logger.error({ err: error }, `trial ${requestId}: driver failed`));
  await service.start(dispatcher);
  let closed: Promise<void> | null = null;
  return {
    service,
    close: () =>
      (closed ??= (async () => {
        await service.close();
        await http.close();
        await store.close();
      })()),
  };
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const running = await startGatewayService(options);
  // The gateway has no Gym config: tracing follows the standard OTEL_EXPORTER_OTLP_ENDPOINT alone.
  await startTracingFromConfig({}, "gateway");
  const app = createGatewayApp({ service: running.service, settings: options.settings });
  const address = await app.listen({ host: options.host ?? "127.0.0.1", port: options.port ?? 0 });
  options.logger.info(`gateway listening on ${address} (state: ${running.service.store.backend}, ${options.settings.environments.length} environment(s))`);
  return {
    url: address,
    app,
    service: running.service,
    close: async () => {
      // Trials end (service_shutdown) while the server still answers their clients; then it stops listening.
      await running.close();
      await app.close();
    },
  };
}
