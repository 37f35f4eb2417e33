// A Gymnasium-style resources server (NeMo Gym's resources_servers/gymnasium, GymnasiumServer): an environment says
// its `reset` and its `step`; POST /reset and POST /step, the per-rollout episode under the session cookie, its
// disposal when an episode ends, and the 422s of a bad body come from here. Driven by gymnasium_agent, which sums the
// rewards of an episode's steps into its /run answer.
//
// Beyond NeMo Gym's routes (/reset, /step, /aggregate_metrics, all under an optional /ng-rollout/<id> prefix), this
// port also answers /seed_session (the cookie alone), GET /tools (none) and /verify, which replays a stored rollout's
// turns on a fresh episode and sums their rewards as gymnasium_agent does (NeMo Gym's GymnasiumServer has no /verify;
// an environment whose episode cannot be replayed, `replayable: false`, answers it 501).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { AggregateMetricsRequestSchema, BaseRunRequestSchema, BaseVerifyRequestSchema } from "../protocol/index.ts";
import type { NeMoGymResponse } from "../protocol/index.ts";
import { computeAggregateMetrics, type MetricsHooks } from "../metrics/index.ts";
import { HttpError } from "../protocol/errors.ts";
import { FLOAT_FIELDS } from "../protocol/wire-json.ts";
import { pythonJsonDumps } from "../python/json-dumps.ts";
import { parseBody } from "./base-app.ts";
import { defineServer, type ServerContext, type ServerDefinition } from "./definition.ts";
import { RequestSignals } from "./request-abort.ts";
import { MemorySessionStore, type SessionStore } from "./session-store.ts";
import { registerRolloutCleanup } from "./rollout-cleanup.ts";
import type { ReverifyMode, ToolContext } from "./resources-server.ts";

/** What `reset` starts an episode with; every field optional (NeMo Gym's default reset is `(None, {})`). */
export interface GymnasiumReset<State> {
  /** This episode's state, handed to every `step` of it (kept under the rollout's session cookie). */
  state?: State;
  /** A first message for the model, appended to the prompt as a user message; none: the prompt is used as is. */
  observation?: string | null;
  info?: Record<string, unknown>;
}

/** One step's answer: Gymnasium's (observation, reward, terminated, truncated, info), each with NeMo Gym's default. */
export interface GymnasiumStep {
  /** The next user message to the model; none: no message is added. */
  observation?: string | null;
  /** Default 0; gymnasium_agent sums an episode's rewards. */
  reward?: number;
  /** The episode ended (solved, lost): its state is dropped. */
  terminated?: boolean;
  /** The episode was cut short (a step limit): its state is dropped. */
  truncated?: boolean;
  /** Anything the environment reports; `tool_outputs` (see toolOutput) become function_call_output items. */
  info?: Record<string, unknown>;
}

/** The context `reset` and `step` get: the session, the instance config, the graph, and a signal for a hang-up. */
export type GymnasiumContext<Config> = ToolContext<Config>;

export interface GymnasiumServerSpec<State, Config, Metadata extends z.ZodType> {
  /** NeMo Gym's Python class name (names the session cookie). */
  name: string;
  /** Instance config fields beyond NeMo Gym's base ones. */
  config?: z.ZodType<Config>;
  /** NeMo Gym config keys this server does not implement, each with why. */
  refusedConfigKeys?: Readonly<Record<string, string>>;
  /**
   * The row fields `reset` and `step` read (NeMo Gym's `metadata`: the body's fields besides responses_create_params
   * and response); a bad one is a 422 naming it. Default: none (an empty object).
   */
  metadata?: Metadata;
  /**
   * Starts an episode (once per rollout, before the first model call); a new reset in the same session replaces the
   * episode. Without it an episode is stateless and `step` may be called at once.
   */
  reset?: (metadata: z.output<Metadata>, context: GymnasiumContext<Config>) => GymnasiumReset<State> | Promise<GymnasiumReset<State>>;
  /**
   * One model response in, the environment's answer out. `state` is the episode's, changed in place; a step in a
   * session with no episode (never reset, or already ended) is a 400 when the spec has a `reset`.
   */
  step: (state: State, action: NeMoGymResponse, metadata: z.output<Metadata>, context: GymnasiumContext<Config>) => GymnasiumStep | Promise<GymnasiumStep>;
  /** Called when an episode's state is dropped: it ended, was replaced by a reset, or sat idle (NeMo Gym's close_session). */
  disposeState?: (state: State) => void | Promise<void>;
  /**
   * Whether replaying a rollout's actions on a fresh episode reproduces its rewards (false for an environment that
   * deals from an unseeded RNG): /verify answers 501 when false. Default true.
   */
  replayable?: boolean | ((metadata: z.output<Metadata>, config: Config) => boolean);
  computeMetrics?: (tasks: Parameters<NonNullable<MetricsHooks["computeMetrics"]>>[0], config: Config) => ReturnType<NonNullable<MetricsHooks["computeMetrics"]>>;
  keyMetrics?: MetricsHooks["keyMetrics"];
  /** `info` / verify fields Python types as float, written with a trailing ".0" when integral. */
  floatFields?: string[];
  /**
   * Extra routes (rare: an optional /close, say), in their own fastify scope, with the store of episodes (keyed by
   * `request.sessionId`; deleting one disposes its state).
   */
  routes?: (app: FastifyInstance, context: ServerContext<Config>, episodes: SessionStore<GymnasiumEpisode<State>>) => void | Promise<void>;
}

export interface GymnasiumServerDefinition<State, Config> extends ServerDefinition<Config> {
  readonly gymnasium: GymnasiumServerSpec<State, Config, any>;
}

/** NeMo Gym's extract_text: every message's text (a string content, or its output_text parts), joined without separator. */
export function extractText(response: { output?: readonly unknown[] }): string {
  const parts: string[] = [];
  for (const item of response.output ?? []) {
    const { type, content } = (item ?? {}) as { type?: unknown; content?: unknown };
    if (type !== "message") continue;
    if (typeof content === "string") parts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) if (part?.type === "output_text" && typeof part.text === "string") parts.push(part.text);
    }
  }
  return parts.join("");
}

/** NeMo Gym's GymnasiumServer.tool_output: the `{call_id, output}` gymnasium_agent turns into a function_call_output. */
export function toolOutput(call: { call_id: string }, result: unknown): { call_id: string; output: string } {
  return { call_id: call.call_id, output: pythonJsonDumps(result) };
}

/** The function_call items of a model response (what a tool-using environment executes). */
export function functionCalls(action: NeMoGymResponse): { call_id: string; name: string; arguments: string }[] {
  return (action.output as { type?: string }[]).filter((item) => item.type === "function_call") as unknown as { call_id: string; name: string; arguments: string }[];
}

const BaseGymnasiumConfigSchema = z.looseObject({
  host: z.string().nullish(),
  port: z.number().int().nullish(),
  entrypoint: z.string().nullish(),
  domain: z.string().nullish(),
  /** An episode untouched this long is dropped (NeMo Gym keeps it for the life of the process). */
  session_idle_ttl_s: z.number().positive().default(3600),
});

/** BaseResourcesServerConfig keys NeMo Gym's GymnasiumServer never reads (its own setup_webserver leaves them out). */
const GYMNASIUM_REFUSED_KEYS: Readonly<Record<string, string>> = {
  expose_tools_over_mcp: "a Gymnasium-style server serves no tools, so there is nothing to expose over MCP (NeMo Gym's GymnasiumServer registers no MCP route either)",
};

const ROUTE_FIELDS = new Set(["responses_create_params", "response"]);
const metadataOf = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([key]) => !ROUTE_FIELDS.has(key)));

/** An episode in the store: wrapped, so "reset returned no state" and "never reset" stay apart. */
export interface GymnasiumEpisode<State> {
  state: State;
}
type Episode<State> = GymnasiumEpisode<State>;

/** The model turns of a stored rollout's output: items between the function_call_output / user items the agent added. */
export function rolloutTurns(output: readonly unknown[]): unknown[][] {
  const turns: unknown[][] = [];
  let current: unknown[] = [];
  for (const item of output) {
    const { type, role } = (item ?? {}) as { type?: unknown; role?: unknown };
    const addedByAgent = type === "function_call_output" || role === "user";
    if (addedByAgent) {
      if (current.length > 0) turns.push(current);
      current = [];
    } else current.push(item);
  }
  if (current.length > 0) turns.push(current);
  return turns;
}

export function gymnasiumServer<State = undefined, Config = Record<string, unknown>, Metadata extends z.ZodType = z.ZodObject<{}>>(
  spec: GymnasiumServerSpec<State, Config, Metadata>,
): GymnasiumServerDefinition<State, Config> {
  const configSchema = (spec.config ? BaseGymnasiumConfigSchema.and(spec.config) : BaseGymnasiumConfigSchema) as z.ZodType<Config>;
  const metadataSchema = (spec.metadata ?? z.object({})) as z.ZodType;
  // responses_create_params (and response) first, then the fields the environment declares: each 422 names its field.
  const parseRequest = <S extends z.ZodType>(schema: S, request: FastifyRequest) => {
    const body = parseBody(schema, request) as z.output<S> & Record<string, unknown>;
    const metadata = parseBody(metadataSchema, { body: metadataOf(body) } as FastifyRequest) as z.output<Metadata>;
    return { body, metadata };
  };
  const floatFields = new Set([...FLOAT_FIELDS, ...(spec.floatFields ?? [])]);

  const checkedStep = (result: GymnasiumStep): Required<GymnasiumStep> => {
    const reward = result.reward ?? 0;
    if (typeof reward !== "number" || !Number.isFinite(reward)) throw new Error(`${spec.name}.step returned a non-numeric reward: ${String(reward)}`);
    if (result.observation !== undefined && result.observation !== null && typeof result.observation !== "string") throw new Error(`${spec.name}.step returned an observation that is not a string`);
    return { observation: result.observation ?? null, reward, terminated: result.terminated === true, truncated: result.truncated === true, info: result.info ?? {} };
  };
  const runReset = async (metadata: z.output<Metadata>, context: GymnasiumContext<Config>): Promise<Required<GymnasiumReset<State>>> => {
    const result: GymnasiumReset<State> = spec.reset ? await spec.reset(metadata, context) : {};
    if (result.observation !== undefined && result.observation !== null && typeof result.observation !== "string") throw new Error(`${spec.name}.reset returned an observation that is not a string`);
    return { state: result.state as State, observation: result.observation ?? null, info: result.info ?? {} };
  };

  const definition = defineServer<Config>({
    serverType: "resources_servers",
    className: spec.name,
    configSchema,
    refusedConfigKeys: { ...GYMNASIUM_REFUSED_KEYS, ...spec.refusedConfigKeys },
    // NeMo Gym's GymnasiumServer runs RolloutContextMiddleware: /ng-rollout/<id>/step is /step.
    stripRolloutPrefix: true,
    register(app, server) {
      const { session_idle_ttl_s } = server.config as { session_idle_ttl_s: number };
      const dispose = spec.disposeState;
      const episodes: SessionStore<Episode<State>> = new MemorySessionStore<Episode<State>>({
        idleTtlMs: session_idle_ttl_s * 1000,
        onEvict: dispose ? (_id, episode) => dispose(episode.state) : undefined,
      });
      app.addHook("onClose", async () => episodes.close?.());
      const signals = new RequestSignals();
      app.addHook("preClose", async () => signals.abortAll());
      registerRolloutCleanup(app, episodes);
      const contextOf = (request: FastifyRequest, reply: FastifyReply): GymnasiumContext<Config> => ({
        sessionId: request.sessionId,
        config: server.config,
        server,
        signal: signals.signalFor(reply.raw),
      });

      app.post("/reset", async (request, reply) => {
        const { metadata } = parseRequest(BaseRunRequestSchema, request);
        const { state, observation, info } = await runReset(metadata, contextOf(request, reply));
        // A new episode replaces the session's old one (disposed), as NeMo Gym's environments overwrite their slot.
        if ((await episodes.get(request.sessionId)) !== undefined) await episodes.delete(request.sessionId);
        await episodes.set(request.sessionId, { state });
        reply.wireFloatFields = floatFields;
        return { observation, info };
      });

      app.post("/step", async (request, reply) => {
        const { body, metadata } = parseRequest(BaseVerifyRequestSchema, request);
        const episode = await episodes.get(request.sessionId);
        if (episode === undefined && spec.reset) throw new HttpError(400, "Session not initialized. Call /reset first.");
        const state = (episode?.state ?? undefined) as State;
        const result = checkedStep(await spec.step(state, body.response, metadata, contextOf(request, reply)));
        if (result.terminated || result.truncated) await episodes.delete(request.sessionId);
        else if (episode !== undefined) await episodes.set(request.sessionId, episode);
        reply.wireFloatFields = floatFields;
        return result;
      });

      // The cookie alone: gymnasium_agent never seeds, but `gym env test` and reverify start a session this way.
      app.post("/seed_session", async () => ({}));
      app.get("/tools", async () => []);
      // A function decides per row (an episode replays when its row is seeded); some rows can, so reverify may try.
      const replayableRow = typeof spec.replayable === "function" ? spec.replayable : () => spec.replayable !== false;
      const reverifyMode: ReverifyMode = spec.replayable !== false ? "stateless" : "unsupported";
      app.get("/reverify_mode", async (_request, reply) => reply.type("application/json").send(JSON.stringify(reverifyMode)));

      app.post("/verify", async (request, reply) => {
        const { body, metadata } = parseRequest(BaseVerifyRequestSchema, request);
        if (!replayableRow(metadata, server.config)) {
          throw new HttpError(501, `${spec.name}: an episode cannot be replayed (its steps are not determined by the actions alone), so a stored rollout cannot be re-scored; its reward is the one gymnasium_agent summed`);
        }
        const context = contextOf(request, reply);
        // A private episode, never the session's: verify reads nothing but the request.
        const { state } = await runReset(metadata, context);
        let reward = 0;
        let last: Required<GymnasiumStep> = { observation: null, reward: 0, terminated: false, truncated: true, info: {} };
        try {
          for (const turn of rolloutTurns(body.response.output as unknown[])) {
            last = checkedStep(await spec.step(state, { ...body.response, output: turn } as NeMoGymResponse, metadata, context));
            reward += last.reward;
            if (last.terminated || last.truncated) break;
          }
        } finally {
          if (state !== undefined) await dispose?.(state);
        }
        const truncated = last.terminated || last.truncated ? last.truncated : true;
        reply.wireFloatFields = floatFields;
        return { responses_create_params: body.responses_create_params, response: body.response, reward, terminated: last.terminated, truncated, info: last.info };
      });

      app.post("/aggregate_metrics", async (request) => {
        const { verify_responses } = parseBody(AggregateMetricsRequestSchema, request);
        const computeMetrics = spec.computeMetrics && ((tasks: Parameters<typeof spec.computeMetrics>[0]) => spec.computeMetrics!(tasks, server.config));
        return computeAggregateMetrics(verify_responses, { computeMetrics, keyMetrics: spec.keyMetrics });
      });

      const routes = spec.routes;
      if (routes) app.register(async (scope) => routes(scope, server, episodes));
    },
  });
  return { ...definition, gymnasium: spec };
}
