// The gateway's HTTP surface: the trial API (relax-nemo-gym/v1), health and readiness, and the model-callback
// bridge under /ng-rollout/<rollout_id>/v1/….
import { timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { PROTOCOL_VERSION } from "./types.ts";
import { TrialApiError, type TrialService } from "./trial-service.ts";
import { registerCallbackBridge } from "./callback/routes.ts";
import type { GatewaySettings } from "./settings.ts";
import { redactForLog } from "./redact.ts";
import { registerHttpMetrics } from "../server/metrics.ts";
import { registerRequestTracing } from "../server/tracing.ts";
import { trialsByStateGauge } from "./metrics.ts";
import { abbreviatedPath, JsonDepthError, JsonSyntaxError, parseRequestJson } from "../protocol/wire-json.ts";

export interface GatewayAppOptions {
  service: TrialService;
  settings: GatewaySettings;
  /** Upper bound of `GET /v1/trials/{id}?wait=S`. */
  maxWaitS?: number;
  /** Largest request body the gateway's own server accepts (a 413 above it); GATEWAY_MAX_BODY_BYTES unless given. */
  bodyLimitBytes?: number;
}

/** 256 MiB: a body becomes one string, and V8 refuses strings past ~512 MiB. */
export const GATEWAY_MAX_BODY_BYTES = 256 * 1024 * 1024;

const MAX_WAIT_S = 60;

export function createGatewayApp(options: GatewayAppOptions): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: options.bodyLimitBytes ?? options.settings.maxBodyBytes ?? GATEWAY_MAX_BODY_BYTES, keepAliveTimeout: 30_000, requestTimeout: 0 });
  registerHttpMetrics(app, undefined, "gateway");
  registerRequestTracing(app, "gateway");
  registerGatewayRoutes(app, options);
  return app;
}

/** Adds every gateway route to `app` (its own server, or a Gym model-server instance). */
export function registerGatewayRoutes(app: FastifyInstance, { service, settings, maxWaitS = MAX_WAIT_S }: GatewayAppOptions): void {
  const logger = service.logger;
  // In a Gym model-server instance the app has its registry already (base-app.ts); the gateway's own app too.
  if (app.hasDecorator("metrics")) trialsByStateGauge(app.metrics, service.store);

  // ---- trial API ----
  app.register(async (trials) => {
    trials.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
      if (error instanceof TrialApiError) return reply.code(error.statusCode).send({ detail: error.detail });
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) logger.error({ err: error }, "gateway request failed");
      return reply.code(status).send({ detail: status === 500 ? "Internal Server Error" : error.message });
    });
    trials.removeAllContentTypeParsers();
    // Python's JSON, as the reference reads it: NaN and Infinity parse (the protocol then refuses them with a 422);
    // an empty body or one that is not JSON is a 400; nesting past MAX_JSON_DEPTH is a 413 naming where.
    trials.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
      const text = (body as string).trim();
      if (text === "") return done(new TrialApiError(400, "request body is empty (a JSON object is required)"), undefined);
      try {
        done(null, parseRequestJson(text));
      } catch (error) {
        if (error instanceof JsonDepthError) return done(new TrialApiError(413, `request body nests deeper than ${error.maxDepth} levels at ${abbreviatedPath(error.path)}`), undefined);
        const reason = error instanceof JsonSyntaxError ? `: ${error.pythonMessage} (char ${error.position})` : "";
        done(new TrialApiError(400, `request body is not valid JSON${reason}`), undefined);
      }
    });
    if (settings.authToken) {
      const expected = Buffer.from(`Bearer ${settings.authToken}`);
      trials.addHook("onRequest", async (request) => {
        const given = Buffer.from(request.headers.authorization ?? "");
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new TrialApiError(401, "missing or invalid bearer token");
      });
    }

    trials.post("/v1/trials", async (request, reply) => {
      if (settings.verbose) logger.info({ payload: redactForLog(request.body) }, "create trial");
      return reply.code(202).send(await service.create(request.body));
    });

    trials.get<{ Params: { id: string }; Querystring: { wait?: string } }>("/v1/trials/:id", async (request, reply) => {
      const wait = request.query.wait === undefined ? 0 : Number(request.query.wait);
      if (!Number.isFinite(wait) || wait < 0) throw new TrialApiError(422, "wait must be a non-negative number of seconds");
      const snapshot = await service.snapshot(request.params.id, Math.min(wait, maxWaitS) * 1000);
      // Tells a long-polling client it may ask again at once (a reference gateway ignores `wait`).
      if (request.query.wait !== undefined) reply.header("x-ng-long-poll", "1");
      return snapshot;
    });

    trials.post<{ Params: { id: string } }>("/v1/trials/:id/renew", async (request, reply) => {
      await service.renew(request.params.id);
      return reply.code(204).send();
    });

    trials.post<{ Params: { id: string } }>("/v1/trials/:id/abort", async (request, reply) => {
      return reply.code(202).send(await service.abort(request.params.id));
    });
  });

  // ---- health ----
  const metadata = async () => {
    const counts = await service.store.counts();
    return {
      protocol_version: PROTOCOL_VERSION,
      service_epoch: service.serviceEpoch,
      gym_commit: settings.gymCommit ?? null,
      config_fingerprint: settings.configFingerprint,
      trials: counts.trials,
      active_trials: counts.active,
      terminal_trials: counts.terminal,
      janitor_healthy: service.janitorHealthy,
      state_backend: service.store.backend,
      replica_id: service.replicaId,
    };
  };
  app.get("/healthz", metadata);
  app.get("/readyz", async (_request: FastifyRequest, reply: FastifyReply) => {
    const ready = await service.ready();
    return reply.code(ready ? 200 : 503).send({ ...(await metadata()), ready });
  });

  // ---- model callbacks ----
  registerCallbackBridge(app, { acquire: (rolloutId) => service.acquireCallback(rolloutId) }, { settings, logger, bodyLimitBytes: settings.maxBodyBytes });
}
