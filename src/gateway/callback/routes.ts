// The model-callback bridge: `POST /ng-rollout/<rollout_id>/v1/{chat/completions,responses,messages}`. A Gym
// agent running with observability on sends every model call there; the rollout id is the capability that
// picks the Relax session (endpoint, token, sampling parameters) the call is forwarded to.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Dispatcher } from "undici";
import type { Logger } from "../../server/logger.ts";
import type { GatewaySettings } from "../settings.ts";
import type { CallbackResource, CallbackTarget } from "../types.ts";
import {
  CallbackCancelledError,
  CallbackForwardError,
  createCallbackDispatcher,
  forwardCallback,
  type AttemptInfo,
  type CallbackClock,
  type ForwardResult,
} from "./forward.ts";
import { streamMessagesReply } from "./messages-stream.ts";
import { abbreviatedPath, JsonDepthError, parseRequestJson } from "../../protocol/wire-json.ts";

/** A callback's hold on its trial: the forwarding target, a signal that fires when the trial is cancelled. */
export interface CallbackLease {
  target: CallbackTarget;
  signal: AbortSignal;
  release(): void;
}

export interface CallbackCapabilities {
  /** null when the rollout id is unknown or its trial is no longer active (→ 410). */
  acquire(rolloutId: string): Promise<CallbackLease | null>;
}

export interface CallbackBridgeOptions {
  settings: Pick<GatewaySettings, "callbackTimeoutS" | "callbackProxy" | "verbose">;
  logger: Logger;
  clock?: CallbackClock;
  pingIntervalMs?: number;
  /** The outbound client; by default one built from `settings.callbackProxy` and destroyed with the app. */
  dispatcher?: Dispatcher;
  onAttempt?: (rolloutId: string, attempt: AttemptInfo) => void;
  /** Agents send whole conversations with tool outputs; 256 MiB unless given. */
  bodyLimitBytes?: number;
}

export const CALLBACK_RESOURCES: readonly CallbackResource[] = ["chat/completions", "responses", "messages"];
const UNAVAILABLE = { detail: "callback capability is unavailable" };
const INVALID_JSON = Symbol("invalid JSON");

export function registerCallbackBridge(app: FastifyInstance, capabilities: CallbackCapabilities, options: CallbackBridgeOptions): void {
  // Encapsulated, so the lenient body parsing below applies to these routes only.
  app.register(async (scope) => {
    const dispatcher = options.dispatcher ?? createCallbackDispatcher({ proxyUrl: options.settings.callbackProxy });
    if (!options.dispatcher) scope.addHook("onClose", async () => void (await dispatcher.destroy()));

    // Gym agents send JSON, whatever their content-type says; the reply to bad JSON is ours, not fastify's.
    scope.removeAllContentTypeParsers();
    // Python's JSON, as the agents' clients write it: NaN and Infinity parse; nesting is bounded before parsing.
    scope.addContentTypeParser("*", { parseAs: "string", bodyLimit: options.bodyLimitBytes ?? 256 * 1024 * 1024 }, (_request, text, done) => {
      try {
        done(null, parseRequestJson(text as string));
      } catch (error) {
        if (error instanceof JsonDepthError) {
          return done(Object.assign(new Error(`request body nests deeper than ${error.maxDepth} levels at ${abbreviatedPath(error.path)}`), { statusCode: 413 }), undefined);
        }
        done(null, INVALID_JSON);
      }
    });

    for (const resource of CALLBACK_RESOURCES) {
      scope.post<{ Params: { rolloutId: string } }>(`/ng-rollout/:rolloutId/v1/${resource}`, async (request, reply) => {
        const body = request.body;
        if (body === undefined || body === INVALID_JSON) return reply.code(400).send({ detail: "request body must be valid JSON" });
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          return reply.code(422).send({ detail: "Callback body must be a JSON object" });
        }
        const { rolloutId } = request.params;
        const lease = await capabilities.acquire(rolloutId);
        if (!lease) return reply.code(410).send(UNAVAILABLE);

        // Cancelled with the trial, and when the agent hangs up: nobody would read the answer.
        const cancel = new AbortController();
        const onTrialCancelled = () => cancel.abort(lease.signal.reason);
        const onHangUp = () => reply.raw.writableFinished || cancel.abort(new Error("agent disconnected"));
        if (lease.signal.aborted) cancel.abort(lease.signal.reason);
        lease.signal.addEventListener("abort", onTrialCancelled, { once: true });
        reply.raw.on("close", onHangUp);
        try {
          const forward = forwardCallback({
            rolloutId,
            resource,
            body,
            target: lease.target,
            callbackTimeoutS: options.settings.callbackTimeoutS,
            dispatcher,
            signal: cancel.signal,
            logger: options.logger,
            verbose: options.settings.verbose,
            clock: options.clock,
            onAttempt: options.onAttempt && ((attempt) => options.onAttempt!(rolloutId, attempt)),
          });
          if (resource === "messages" && (body as { stream?: unknown }).stream) {
            reply.hijack();
            await streamMessagesReply(reply.raw, forward, { pingIntervalMs: options.pingIntervalMs, logger: options.logger });
            return reply;
          }
          return sendResult(reply, await forward);
        } catch (error) {
          if (error instanceof CallbackForwardError) return reply.code(error.status).send({ detail: error.detail });
          if (error instanceof CallbackCancelledError) return reply.code(410).send(UNAVAILABLE);
          throw error;
        } finally {
          lease.signal.removeEventListener("abort", onTrialCancelled);
          reply.raw.off("close", onHangUp);
          lease.release();
        }
      });
    }
  });
}

function sendResult(reply: FastifyReply, result: ForwardResult): FastifyReply {
  if (result.status < 100 || result.status > 599) {
    return reply.code(502).send({ detail: "Upstream model callback answered with an invalid HTTP status" });
  }
  reply.code(result.status);
  if (result.contentType === "text/event-stream") {
    return reply.header("content-type", "text/event-stream; charset=utf-8").header("cache-control", "no-cache").header("x-accel-buffering", "no").send(result.body);
  }
  return reply.header("content-type", "application/json; charset=utf-8").send(JSON.stringify(result.body));
}
