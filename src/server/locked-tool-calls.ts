// Tool routes over a store shared by replicas (one with `lock`): the session's lock is taken before the handler and
// kept until the answer is written, and the new state and the answer of an idempotency key are committed together.
// A replay of the key, on this replica or any other, then gets the stored answer byte for byte, and a replica killed
// before the commit leaves neither (the replay runs the call once). Without a key, the lock alone serialises a
// rollout's concurrent calls, as one process does.
import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from "fastify";
import { IDEMPOTENCY_KEY_HEADER } from "../protocol/failures.ts";
import { HttpError } from "../protocol/errors.ts";
import type { SessionLock, SessionStore } from "./session-store.ts";

interface Held<State> {
  lock: SessionLock<State>;
  idempotencyKey: string | undefined;
  staged: { state: State } | undefined;
}

export interface LockedToolCalls<State> {
  /** The hooks of every tool route (named tools and the unknown-name route). */
  readonly routeOptions: RouteShorthandOptions;
  /** The lock the hooks took for this request (undefined outside a tool route). */
  lockOf(request: FastifyRequest): SessionLock<State> | undefined;
  /** The state to commit with the answer (the state object the tool ran on, changed or not). */
  stage(request: FastifyRequest, state: State): void;
}

const detailBody = (detail: string) => JSON.stringify({ detail });

export function lockedToolCalls<State>(sessions: SessionStore<State> & Required<Pick<SessionStore<State>, "lock">>, sessionCookieName: string): LockedToolCalls<State> {
  const held = new WeakMap<FastifyRequest, Held<State>>();
  return {
    lockOf: (request) => held.get(request)?.lock,
    stage(request, state) {
      const entry = held.get(request);
      if (entry) entry.staged = { state };
    },
    routeOptions: {
      async preHandler(request, reply) {
        const key = request.headers[IDEMPOTENCY_KEY_HEADER];
        // Without the session cookie every request is a new session: a replay could never find the answer.
        const idempotencyKey = typeof key === "string" && key !== "" && request.cookies[sessionCookieName] !== undefined ? key : undefined;
        const lock = await sessions.lock(request.sessionId);
        try {
          const stored = idempotencyKey === undefined ? undefined : await lock.storedReply(idempotencyKey);
          if (stored !== undefined) {
            await lock.release();
            if (stored.contentType !== undefined) reply.header("content-type", stored.contentType);
            return reply.code(stored.status).send(stored.body);
          }
        } catch (error) {
          await lock.release();
          throw error;
        }
        held.set(request, { lock, idempotencyKey, staged: undefined });
      },
      async onSend(request, reply, payload) {
        const entry = held.get(request);
        if (entry === undefined) return payload;
        held.delete(request);
        const bytes = typeof payload === "string" || Buffer.isBuffer(payload) ? Buffer.from(payload) : undefined;
        // A 503 is the infrastructure's (the store failed): the next try of the key must run, not replay it.
        const keepReply = entry.idempotencyKey !== undefined && bytes !== undefined && reply.statusCode !== 503;
        const contentType = reply.getHeader("content-type");
        try {
          await entry.lock.commit({
            state: entry.staged?.state,
            reply: keepReply ? { idempotencyKey: entry.idempotencyKey!, reply: { status: reply.statusCode, contentType: contentType === undefined ? undefined : String(contentType), body: bytes! } } : undefined,
          });
        } catch (error) {
          // Nothing was written: the caller must not read this call's answer as done.
          return unavailable(reply, error);
        }
        return payload;
      },
    },
  };
}

/** The answer instead of the tool's when its commit failed: the store's 503, or a 500 for a state that did not encode. */
function unavailable(reply: FastifyReply, error: unknown): string {
  const detail = error instanceof HttpError ? String(error.detail) : `session state not written: ${(error as Error).message}`;
  reply.log.warn(detail);
  reply.code(error instanceof HttpError ? error.statusCode : 500).header("content-type", "application/json");
  return detailBody(detail);
}
