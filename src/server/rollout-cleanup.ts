// A resources server's side of the gateway's cleanup contract. /seed_session tells us which session a
// rollout (`<_ng_task_index>-<_ng_rollout_index>`) uses; `POST /cleanup/:rolloutId` drops that session's
// state and `GET /cleanup/:rolloutId` proves whether any is still held.
import type { FastifyInstance } from "fastify";
import type { SessionStore } from "./session-store.ts";

export interface RolloutCleanupOptions {
  /** Rollouts remembered at most (oldest forgotten first); a forgotten rollout probes as clean. */
  maxTrackedRollouts?: number;
}

export interface RolloutSessions {
  /** Records the session of a seeded row; a row without both correlation indices is ignored. */
  track(row: unknown, sessionId: string): void | Promise<void>;
  sessionFor(rolloutId: string): string | undefined | Promise<string | undefined>;
}

const DEFAULT_MAX_TRACKED_ROLLOUTS = 100_000;
// Keyed by the app's HTTP server, which every encapsulated plugin scope of one app shares (`routes` runs in one).
const registered = new WeakMap<FastifyInstance["server"], RolloutSessions>();

const isIndex = (value: unknown): value is string | number => (typeof value === "string" && value !== "") || Number.isInteger(value);

/** The id an agent builds from a row: an explicit `_ng_rollout_id`, else `<task>-<rollout>` (integers from NeMo Gym, strings from the gateway). */
export function rolloutIdOfRow(row: unknown): string | undefined {
  if (typeof row !== "object" || row === null) return undefined;
  const { _ng_rollout_id: explicit, _ng_task_index: task, _ng_rollout_index: rollout } = row as Record<string, unknown>;
  if (typeof explicit === "string" && explicit !== "") return explicit;
  return isIndex(task) && isIndex(rollout) ? `${task}-${rollout}` : undefined;
}

/**
 * Adds the cleanup routes to a resources server and starts tracking its seeded sessions. Call it inside the
 * server's register, with the store its tools use.
 */
export function registerRolloutCleanup<State>(app: FastifyInstance, sessions: SessionStore<State>, options: RolloutCleanupOptions = {}): RolloutSessions {
  // Idempotent per app, so an environment's own `routes` may call it whether or not the library already has.
  const existing = registered.get(app.server);
  if (existing !== undefined) return existing;
  const maxTracked = options.maxTrackedRollouts ?? DEFAULT_MAX_TRACKED_ROLLOUTS;
  // Map order is insertion order: the first key is the oldest rollout.
  const sessionByRollout = new Map<string, string>();

  // A store shared by replicas keeps the index too: the cleanup call may reach another replica than the seed did.
  const shared = sessions.rollouts;
  const index: RolloutSessions = shared
    ? {
        async track(row, sessionId) {
          const rolloutId = rolloutIdOfRow(row);
          if (rolloutId !== undefined) await shared.track(rolloutId, sessionId);
        },
        sessionFor: (rolloutId) => shared.sessionFor(rolloutId),
      }
    : {
        track(row, sessionId) {
          const rolloutId = rolloutIdOfRow(row);
          if (rolloutId === undefined) return;
          sessionByRollout.delete(rolloutId);
          sessionByRollout.set(rolloutId, sessionId);
          if (sessionByRollout.size > maxTracked) sessionByRollout.delete(sessionByRollout.keys().next().value!);
        },
        sessionFor: (rolloutId) => sessionByRollout.get(rolloutId),
      };
  registered.set(app.server, index);

  // A hook rather than a change to /seed_session: the body is parsed and the session id decoded by now.
  app.addHook("preHandler", async (request) => {
    if (request.routeOptions.url === "/seed_session") await index.track(request.body, request.sessionId);
  });

  // The mapping outlives the POST on purpose: a tool call already in flight can write the state back, and
  // the probe must then report it instead of trusting that the POST happened.
  app.post<{ Params: { rolloutId: string } }>("/cleanup/:rolloutId", async (request) => {
    const sessionId = await index.sessionFor(request.params.rolloutId);
    if (sessionId !== undefined) await sessions.delete(sessionId);
    return { accepted: true };
  });

  app.get<{ Params: { rolloutId: string } }>("/cleanup/:rolloutId", async (request) => {
    const sessionId = await index.sessionFor(request.params.rolloutId);
    const held = sessionId !== undefined && (await sessions.get(sessionId)) !== undefined;
    return { clean: !held };
  });

  return index;
}
