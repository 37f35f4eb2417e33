// A resources server (an environment) declared once: its per-session state, its tools with their zod
// input schemas, and its verify. Cookies, routing, 422s, /tools and /aggregate_metrics come from here.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from "fastify";
import { z } from "zod";
import { AggregateMetricsRequestSchema, BaseVerifyRequestSchema } from "../protocol/index.ts";
import type { NeMoGymResponse, ResponseCreateParams } from "../protocol/index.ts";
import { computeAggregateMetrics, type MetricsHooks } from "../metrics/index.ts";
import { parseBody } from "./base-app.ts";
import { defineServer, type ServerContext, type ServerDefinition } from "./definition.ts";
import { FLOAT_FIELDS } from "../protocol/wire-json.ts";
import { functionToolDefinition, type FunctionToolDefinition, type ToolParametersSource } from "./tool-schema.ts";
import { RequestSignals } from "./request-abort.ts";
import { MemorySessionStore, type SessionStore } from "./session-store.ts";
import { registerRolloutCleanup } from "./rollout-cleanup.ts";
import { MCP_SESSION_TOKEN_HEADER, registerMcp, withBareToolNames } from "./mcp.ts";
import { IdempotentReplies, type Claim } from "./idempotent-replies.ts";
import { IDEMPOTENCY_KEY_HEADER } from "../protocol/failures.ts";
import { JudgeError, judgeFailedRow } from "./judge.ts";
import { lockedToolCalls } from "./locked-tool-calls.ts";
import { DEFAULT_SESSION_LOCK_LEASE_S, SESSION_LOCK_LEASE_KEY, SESSION_STORE_KEY, SessionStoreSettingSchema, type SessionStoreSetting } from "./session-store-setting.ts";
import { stateTextCodec, type StateCodecSpec } from "./state-codec.ts";
import { ServerConfigError } from "./config-error.ts";
import { sessionsHeldGauge, verifyMetrics } from "./resources-metrics.ts";
import { inProcessRoutesOf, type InProcessAnswer, type InProcessCall } from "./in-process-route.ts";

export interface ToolContext<Config> {
  sessionId: string;
  config: Config;
  server: ServerContext<Config>;
  /** Fires when the caller disconnects before the answer is written, or when the server starts closing. */
  signal: AbortSignal;
}

export interface Tool<State, Config, Input extends z.ZodType = z.ZodType, Output = unknown> {
  description?: string;
  /** Validates the body of POST /<name> (a FastAPI 422 otherwise); the model is shown its JSON Schema unless `modelSchema` is given. */
  input: Input;
  /**
   * The parameters GET /tools shows the model, when they are not `input`'s (NeMo Gym sometimes shows a stricter schema
   * than its request model enforces): a zod schema, converted as `input` would be, or a JSON Schema, served verbatim.
   */
  modelSchema?: ToolParametersSource;
  /** OpenAI's `strict` flag in the definition GET /tools serves; default true. */
  strict?: boolean;
  /** Writes the reply body (sent as `application/json`) from what `run` returned; default: the library's JSON encoding. */
  formatOutput?(output: NoInfer<Awaited<Output>>): string;
  // A property, not a method: its parameters are then contravariant, so an unannotated tool's `any` state is no
  // inference candidate for the spec's state type (a method's bivariant parameter would make it one, and win).
  run: (state: State, args: z.output<Input>, context: ToolContext<Config>) => Output | Promise<Output>;
}

/**
 * Declares a tool; the identity function exists so `args` is typed from `input` without annotations.
 * `state` is typed by an annotation on `run`'s first parameter (checked against the spec's state type); without one
 * it is `any`: TypeScript does not carry a spec's state type into a generic call nested in the same object literal.
 */
export function tool<State = any, Input extends z.ZodType = z.ZodType, Output = unknown, Config = any>(
  definition: Tool<State, Config, Input, Output>,
): Tool<State, Config, Input, Output> {
  return definition;
}

/** Answers POST /<name> for a name that is no tool (NeMo Gym servers with a catch-all `/{path}` route). */
export interface UnknownTool<State, Config, Input extends z.ZodType = z.ZodType> {
  /** Validates the body first (a FastAPI 422 otherwise); default: any body. */
  input?: Input;
  run(state: State, name: string, args: z.output<Input>, context: ToolContext<Config>): unknown;
}

export type VerifyRequest<Fields> = Fields & {
  responses_create_params: ResponseCreateParams;
  response: NeMoGymResponse;
};

/** A verify result: the reward alone, or the reward plus the extra fields the environment reports. */
export type VerifyResult = number | ({ reward: number } & Record<string, unknown>);

export interface Verify<State, Config, Input extends z.ZodType> {
  /** The dataset fields verify needs; a missing one is a 422. Undeclared row fields are ignored. */
  input?: Input;
  run(state: State | undefined, request: VerifyRequest<z.output<Input>>, context: ToolContext<Config>): VerifyResult | Promise<VerifyResult>;
}

export interface ResourcesServerSpec<State, Config, Seed extends z.ZodType, VerifyInput extends z.ZodType, UnknownInput extends z.ZodType = z.ZodType> {
  /** NeMo Gym's Python class name (names the session cookie). */
  name: string;
  /** Instance config fields beyond NeMo Gym's base ones (host, port, entrypoint, domain, …). */
  config?: z.ZodType<Config>;
  /** NeMo Gym config keys this server does not implement, each with why (see ServerDefinition.refusedConfigKeys). */
  refusedConfigKeys?: Readonly<Record<string, string>>;
  /** Fields /seed_session reads from the dataset row (the whole row is posted; other fields are ignored). */
  seed?: Seed;
  /**
   * Builds a session's state from its seed (`undefined` when a tool is called before /seed_session); its return type
   * is the spec's state type.
   */
  state?: (seed: z.output<Seed> | undefined, context: ToolContext<Config>) => State | Promise<State>;
  /** Called when a session's state is dropped (disposal of sandboxes, files, …). */
  disposeState?: (state: State) => void | Promise<void>;
  tools: Record<string, Tool<State, Config, any, any>>;
  /** POST /<name> for any other name; without it such a call is a 404. */
  unknownTool?: UnknownTool<State, Config, UnknownInput>;
  verify: Verify<State, Config, VerifyInput>;
  /** Environment metrics over per-task groups of verify responses (NeMo Gym's compute_metrics); `config` is the instance's (NeMo Gym's self.config). */
  computeMetrics?: (tasks: Parameters<NonNullable<MetricsHooks["computeMetrics"]>>[0], config: Config) => ReturnType<NonNullable<MetricsHooks["computeMetrics"]>>;
  keyMetrics?: MetricsHooks["keyMetrics"];
  /** Verify fields that Python types as float, written with a trailing ".0" when integral (e.g. `set_overlap`). */
  floatFields?: string[];
  /** Further float-typed fields of one verify result whose names depend on the row (e.g. asr_with_pc's `wer_<suffix>`). */
  resultFloatFields?: (result: Record<string, unknown>) => Iterable<string>;
  /** A custom store; otherwise the instance's `session_store` (memory by default). */
  sessionStore?: (config: Config) => SessionStore<State>;
  /**
   * How the state crosses processes, for `session_store: redis://…` (replicas sharing sessions): `"json"` for plain
   * data, or an encode/decode pair for a class instance. Without it (state that cannot be serialised: sandboxes,
   * handles, functions) asking for Redis fails at start.
   */
  stateCodec?: StateCodecSpec<State, Config>;
  /**
   * What `GET /reverify_mode` reports to NeMo Gym's `reverify`, which re-posts stored rollouts to /verify alone and
   * refuses a server that is not `stateless` (its verify reads nothing but the request). Default `unknown`.
   */
  reverifyMode?: ReverifyMode;
  /**
   * Extra routes that are not tools (rare). They are registered in their own fastify plugin scope, so a hook added
   * there runs for those routes only, never for the tool routes.
   */
  routes?: (app: FastifyInstance, context: ServerContext<Config>, sessions: SessionStore<State>) => void | Promise<void>;
  /**
   * What GET /tools serves when the tools are known only once the instance has started (an adapter that discovers
   * its environment's tools and serves them from `routes`); default: the declared `tools`' definitions.
   */
  servedTools?: (context: ServerContext<Config>) => FunctionToolDefinition[];
}

/**
 * Route hooks that make a tool route honour `x-ng-idempotency-key` in a session (the caller sent its cookie): before
 * the handler, claim the key (or answer from memory); when the answer is sent, whatever it is (the tool's output, its
 * 422, its 500), store it; when the exchange ends without one, release the claim. A replay with the same key gets the
 * stored answer even if its body differs: the key names the call.
 */
function idempotentToolRoute(replies: IdempotentReplies, sessionCookieName: string): RouteShorthandOptions {
  const claims = new WeakMap<FastifyRequest, Claim & { kind: "run" }>();
  return {
    async preHandler(request, reply) {
      const key = request.headers[IDEMPOTENCY_KEY_HEADER];
      if (typeof key !== "string" || key === "") return;
      // Without the session cookie every request is a new session: a replay could never find the answer.
      if (request.cookies[sessionCookieName] === undefined) return;
      const claim = await replies.claim(request.sessionId, key);
      if (claim.kind === "replay") {
        const { status, contentType, body } = claim.reply;
        if (contentType !== undefined) reply.header("content-type", contentType);
        return reply.code(status).send(body);
      }
      claims.set(request, claim);
      reply.raw.once("close", () => claim.release());
    },
    async onSend(request, reply, payload) {
      const claim = claims.get(request);
      if (claim === undefined) return payload;
      claims.delete(request);
      if (typeof payload === "string" || Buffer.isBuffer(payload)) {
        const contentType = reply.getHeader("content-type");
        claim.complete({ status: reply.statusCode, contentType: contentType === undefined ? undefined : String(contentType), body: Buffer.from(payload) });
      } else {
        claim.release();
      }
      return payload;
    },
  };
}

// /seed_session receives the whole dataset row; only its being an object is checked here.
const SeedSessionRowSchema = z.record(z.string(), z.unknown());

export const RESERVED_TOOL_NAMES = new Set(["verify", "seed_session", "aggregate_metrics", "mcp", "tools", "reverify_mode"]);

export const REVERIFY_MODES = ["stateless", "unsupported", "unknown"] as const;
export type ReverifyMode = (typeof REVERIFY_MODES)[number];

const BaseResourcesServerConfigSchema = z.looseObject({
  host: z.string().nullish(),
  port: z.number().int().nullish(),
  entrypoint: z.string().nullish(),
  domain: z.string().nullish(),
  expose_tools_over_mcp: z.boolean().default(false),
  /** Per-rollout state untouched this long is dropped (NeMo Gym keeps it for the life of the process). */
  session_idle_ttl_s: z.number().positive().default(3600),
  /** Where per-rollout state lives: `memory`, or `redis://…` shared by replicas of this server. */
  session_store: SessionStoreSettingSchema.default({ kind: "memory" }),
  session_lock_lease_s: z.number().positive().optional(),
});

/** Why this server cannot keep its sessions in Redis, or undefined when it can. */
function whyNotSharedSessions(spec: ResourcesServerSpec<any, any, any, any>): string | undefined {
  if (spec.sessionStore) return `${spec.name} brings its own session store`;
  if (spec.disposeState) return `${spec.name} disposes of each session's state (disposeState), which a shared store cannot do when a session expires; use ${SESSION_STORE_KEY}: memory`;
  if (spec.state && !spec.stateCodec) return `${spec.name} keeps per-session state it declares no way to serialise (no stateCodec), so replicas could not share it; use ${SESSION_STORE_KEY}: memory`;
  return undefined;
}

export interface ResourcesServerDefinition<State, Config> extends ServerDefinition<Config> {
  readonly toolDefinitions: FunctionToolDefinition[];
  readonly spec: ResourcesServerSpec<State, Config, any, any>;
}

export function resourcesServer<
  State = undefined,
  Config = Record<string, unknown>,
  Seed extends z.ZodType = z.ZodObject<{}>,
  VerifyInput extends z.ZodType = z.ZodObject<{}>,
  UnknownInput extends z.ZodType = z.ZodUnknown,
>(spec: ResourcesServerSpec<State, Config, Seed, VerifyInput, UnknownInput>): ResourcesServerDefinition<State, Config> {
  for (const name of Object.keys(spec.tools)) {
    if (RESERVED_TOOL_NAMES.has(name)) throw new Error(`${spec.name}: '${name}' is reserved and cannot be a tool name`);
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`${spec.name}: tool name '${name}' must match [A-Za-z0-9_.-]+`);
  }
  const toolDefinitions = Object.entries(spec.tools).map(([name, t]) => functionToolDefinition(name, t.description, t.modelSchema ?? t.input, t.strict ?? true));
  const whyNotShared = whyNotSharedSessions(spec);
  const configSchema = (spec.config ? BaseResourcesServerConfigSchema.and(spec.config) : BaseResourcesServerConfigSchema).superRefine((config, context) => {
    // Undefined when session_store itself was refused (its own issue says why).
    const redis = (config as { session_store?: SessionStoreSetting }).session_store?.kind === "redis";
    if (whyNotShared !== undefined && redis) context.addIssue({ code: "custom", path: [SESSION_STORE_KEY], message: `${SESSION_STORE_KEY} redis cannot be used: ${whyNotShared}` });
    // A key that would change nothing is refused, never ignored.
    if (!redis && (config as { session_lock_lease_s?: unknown }).session_lock_lease_s !== undefined) {
      context.addIssue({ code: "custom", path: [SESSION_LOCK_LEASE_KEY], message: `${SESSION_LOCK_LEASE_KEY} applies to ${SESSION_STORE_KEY}: redis://… only (${SESSION_STORE_KEY} is memory)` });
    }
  }) as unknown as z.ZodType<Config>;
  const seedSchema = (spec.seed ?? z.object({})) as z.ZodType;
  // Without fields of its own, the base model alone: the same output and errors as intersecting it with an empty
  // object (the walk checks the right side only on a dict, which an empty object never refuses), at a fifth less.
  const verifySchema = spec.verify.input === undefined ? BaseVerifyRequestSchema : BaseVerifyRequestSchema.and(spec.verify.input as z.ZodType);

  const definition = defineServer<Config>({
    serverType: "resources_servers",
    className: spec.name,
    configSchema,
    refusedConfigKeys: spec.refusedConfigKeys,
    async register(app, server) {
      const { session_idle_ttl_s, session_store: storeSetting, session_lock_lease_s } = server.config as { session_idle_ttl_s: number; session_store: SessionStoreSetting; session_lock_lease_s?: number };
      const sessions: SessionStore<State> =
        spec.sessionStore?.(server.config) ??
        (storeSetting.kind === "redis"
          ? await redisSessions(spec, server, storeSetting.url, session_idle_ttl_s * 1000, (session_lock_lease_s ?? DEFAULT_SESSION_LOCK_LEASE_S) * 1000)
          : new MemorySessionStore<State>({
              idleTtlMs: session_idle_ttl_s * 1000,
              onEvict: spec.disposeState ? (_id, state) => spec.disposeState!(state) : undefined,
            }));
      app.addHook("onClose", async () => sessions.close?.());
      const locked = sessions.lock === undefined ? undefined : lockedToolCalls(sessions as SessionStore<State> & Required<Pick<SessionStore<State>, "lock">>, `${spec.name}___${server.instanceName}`);
      sessionsHeldGauge(server.metrics, () => sessions.size());
      const verifyFigures = verifyMetrics(server.metrics);
      // Before fastify waits for in-flight requests: a tool still running hears that nobody will read its answer.
      const signals = new RequestSignals();
      app.addHook("preClose", async () => signals.abortAll());
      // The Relax gateway proves a cancelled rollout left no state behind: POST/GET /cleanup/:rolloutId.
      registerRolloutCleanup(app, sessions);
      const toolContext = (sessionId: string, signal: AbortSignal): ToolContext<Config> => ({ sessionId, config: server.config, server, signal });
      const contextOf = (request: FastifyRequest, reply: FastifyReply) => toolContext(request.sessionId, signals.signalFor(reply.raw));
      // The same for a call answered in-process: its signal hears the caller give up, as a reply hears it hang up.
      // Made when the code first reads it (most tools never do), and let go when the call has its answer.
      const callContextOf = (call: InProcessCall): ToolContext<Config> => {
        let tracked: { signal: AbortSignal; done(): void } | undefined;
        let settled = false;
        call.onSettled(() => {
          settled = true;
          tracked?.done();
        });
        return {
          sessionId: call.sessionId,
          config: server.config,
          server,
          get signal() {
            if (tracked === undefined) {
              tracked = signals.signalForCall(call.signal);
              if (settled) tracked.done();
            }
            return tracked.signal;
          },
        };
      };
      // Hot routes answered in-process too, for servers co-located with this one (in-process-route.ts).
      const inProcess = inProcessRoutesOf(app);

      // A tool call with an idempotency key runs once per session: a replay gets the first call's answer, byte for byte
      // (kept with the state in a shared store, so any replica replays it).
      const sessionCookieName = `${spec.name}___${server.instanceName}`;
      let idempotentTool: RouteShorthandOptions;
      let replies: IdempotentReplies | undefined;
      if (locked) idempotentTool = locked.routeOptions;
      else {
        const memory = (replies = new IdempotentReplies(session_idle_ttl_s * 1000));
        app.addHook("onClose", async () => memory.close());
        idempotentTool = idempotentToolRoute(memory, sessionCookieName);
      }
      /** idempotentToolRoute's hooks for a call in-process: a stored answer to replay, else undefined (the claim, if any, settles with the answer). */
      const claimInProcess = async (memory: IdempotentReplies, call: InProcessCall): Promise<InProcessAnswer | undefined> => {
        const key = call.headers[IDEMPOTENCY_KEY_HEADER];
        if (key === undefined || key === "" || call.cookies[sessionCookieName] === undefined) return undefined;
        const claim = await memory.claim(call.sessionId, key);
        if (claim.kind === "replay") {
          const { status, contentType, body } = claim.reply;
          // fastify's type for a Buffer sent without one.
          return { status, jsonText: body.toString("utf8"), contentType: contentType ?? "application/octet-stream" };
        }
        call.onSettled((answer) => (answer === undefined ? claim.release() : claim.complete({ status: answer.status, contentType: answer.contentType, body: Buffer.from(answer.text) })));
        return undefined;
      };

      const createState = async (seed: z.output<Seed> | undefined, context: ToolContext<Config>) => (await spec.state!(seed, context)) as State;

      const overMcp = (server.config as { expose_tools_over_mcp: boolean }).expose_tools_over_mcp;
      // NeMo Gym's MCP auto-exposure: the seed answer tells an MCP agent where the tools are and hands it the signed
      // session token it sends on every tools/call (X-NeMo-Gym-Session-Token), which binds the call to this session.
      const seedAnswer = (sessionId: string) =>
        overMcp
          ? { mcp: { server_name: server.instanceName, url_path: "/mcp", transport: "http", headers: { [MCP_SESSION_TOKEN_HEADER]: app.sessionCookies.mcpToken.dumps({ sid: sessionId, tools: null }) } } }
          : {};

      const seedSession = async (row: { body: unknown }, sessionId: string, contextFor: () => ToolContext<Config>) => {
        parseBody(SeedSessionRowSchema, row);
        const seed = parseBody(seedSchema, row) as z.output<Seed>;
        if (!spec.state) return seedAnswer(sessionId);
        // Seeding is idempotent: an existing session keeps its state (NeMo Gym's counter example relies on it).
        if (locked) {
          const lock = await sessions.lock!(sessionId);
          try {
            const fresh = (await lock.state()) === undefined ? await createState(seed, contextFor()) : undefined;
            await lock.commit(fresh === undefined ? {} : { state: fresh });
          } finally {
            await lock.release();
          }
        } else if ((await sessions.get(sessionId)) === undefined) {
          await sessions.set(sessionId, await createState(seed, contextFor()));
        }
        return seedAnswer(sessionId);
      };
      app.post("/seed_session", async (request, reply) => seedSession(request, request.sessionId, () => contextOf(request, reply)));
      inProcess.post("/seed_session", async (call) => ({ body: await seedSession(call, call.sessionId, () => callContextOf(call)) }));

      // A shared store: the state under the session's lock (the tool route's, else one taken for this call, as MCP's).
      const withLockedState = async <T>(context: ToolContext<Config>, run: (state: State) => T | Promise<T>, request: FastifyRequest | undefined): Promise<T> => {
        const routeLock = request && locked!.lockOf(request);
        const lock = routeLock ?? (await sessions.lock!(context.sessionId));
        try {
          let state = (await lock.state()) as State;
          if (spec.state && state === undefined) state = await createState(undefined, context);
          let output: T;
          try {
            output = await run(state);
          } finally {
            // As in memory, where the tool changes the one state object in place, a tool that threw keeps its changes.
            if (spec.state && routeLock) locked!.stage(request!, state);
          }
          if (!routeLock) await lock.commit(spec.state ? { state } : {});
          return output;
        } finally {
          if (!routeLock) await lock.release();
        }
      };

      // One way to run against a session's state, for tool routes, the unknown-name route and MCP alike.
      const withState = async <T>(context: ToolContext<Config>, run: (state: State) => T | Promise<T>, request?: FastifyRequest): Promise<T> => {
        if (locked) return withLockedState(context, run, request);
        let state = (await sessions.get(context.sessionId)) as State;
        if (spec.state && state === undefined) state = await createState(undefined, context);
        const output = await run(state);
        if (spec.state) await sessions.set(context.sessionId, state);
        return output;
      };
      const runTool = (t: Tool<State, Config>, args: unknown, context: ToolContext<Config>, request?: FastifyRequest) => withState(context, (state) => t.run(state, args, context), request);

      for (const [name, t] of Object.entries(spec.tools)) {
        app.post(`/${name}`, idempotentTool, async (request, reply) => {
          // An agent relays a tool's reply text verbatim to the model: it is always plain JSON.
          reply.wireArrayEncoding = "json";
          const output = await runTool(t, parseBody(t.input, request), contextOf(request, reply), request);
          return t.formatOutput ? reply.type("application/json").send(t.formatOutput(output)) : output;
        });
        // In-process, with the idempotency claim the route's hooks take (a shared store's locks stay HTTP's alone).
        if (replies === undefined) continue;
        inProcess.post(`/${name}`, async (call) => {
          const replay = await claimInProcess(replies, call);
          if (replay !== undefined) return replay;
          const output = await runTool(t, parseBody(t.input, call), callContextOf(call));
          return t.formatOutput ? { status: 200, jsonText: t.formatOutput(output) } : { body: output };
        });
      }

      const unknownTool = spec.unknownTool;
      if (unknownTool) {
        const unknownInput = (unknownTool.input ?? z.unknown()) as z.ZodType;
        // Static routes (the tools, verify, …) win over this parametric one; a path of more segments stays a 404.
        app.post("/:name", idempotentTool, async (request, reply) => {
          reply.wireArrayEncoding = "json";
          const { name } = request.params as { name: string };
          const args = parseBody(unknownInput, request) as z.output<UnknownInput>;
          const context = contextOf(request, reply);
          return withState(context, (state) => unknownTool.run(state, name, args, context), request);
        });
      }

      if (overMcp) {
        registerMcp(app, {
          serverName: server.instanceName,
          sessionCookieName,
          tools: toolDefinitions.map((definition) => {
            const t = spec.tools[definition.name]!;
            return { ...definition, input: t.input, formatOutput: t.formatOutput };
          }),
          runTool: (name, args, sessionId, signal) => runTool(spec.tools[name]!, args, toolContext(sessionId, signal)),
          signals,
        });
      }

      app.get("/tools", async () => spec.servedTools?.(server) ?? toolDefinitions);
      // A JSON string, as FastAPI sends an enum (fastify would send a returned string as text).
      app.get("/reverify_mode", async (_request, reply) => reply.type("application/json").send(JSON.stringify(spec.reverifyMode ?? "unknown")));

      const verifyFloatFields = new Set([...FLOAT_FIELDS, ...(spec.floatFields ?? [])]);
      /** /verify's answer; `useFloatFields` sets the answer's Python floats (its errors' too, as reply.wireFloatFields). */
      const verify = async (request: { body: unknown }, sessionId: string, contextFor: () => ToolContext<Config>, useFloatFields: (fields: ReadonlySet<string>) => void) => {
        useFloatFields(verifyFloatFields);
        const body = parseBody(verifySchema, request) as VerifyRequest<z.output<VerifyInput>>;
        const state = spec.state ? await sessions.get(sessionId) : undefined;
        let result: VerifyResult;
        const verifyStart = performance.now();
        try {
          // Served over MCP, an MCP-native agent records `mcp__<server>__<tool>`: verify scores the bare names, and the
          // response echoes the names as the model emitted them (NeMo Gym's normalize_tool_name).
          const scored = overMcp ? withBareToolNames(body, server.instanceName) : body;
          result = await spec.verify.run(state, scored, contextFor());
        } catch (error) {
          // NeMo Gym's judge_failsafe: a failed judge call is a failure row (collection files it apart), never a reward.
          if (error instanceof JudgeError) {
            server.log.warn(`verify: judge call failed: ${error.message}`);
            return judgeFailedRow(request.body as Record<string, unknown>, error);
          }
          throw error;
        }
        const { reward, ...extras } = typeof result === "number" ? { reward: result } : result;
        if (spec.resultFloatFields) useFloatFields(new Set([...verifyFloatFields, ...spec.resultFloatFields(extras)]));
        if (typeof reward !== "number" || Number.isNaN(reward)) throw new Error(`${spec.name}.verify returned a non-numeric reward: ${String(reward)}`);
        verifyFigures.observe(reward, (performance.now() - verifyStart) / 1000);
        return { responses_create_params: body.responses_create_params, response: body.response, reward, ...extras };
      };
      app.post("/verify", async (request, reply) => verify(request, request.sessionId, () => contextOf(request, reply), (fields) => (reply.wireFloatFields = fields)));
      inProcess.post("/verify", async (call) => ({ body: await verify(call, call.sessionId, () => callContextOf(call), (fields) => (call.floatFields = fields)) }));

      app.post("/aggregate_metrics", async (request) => {
        const { verify_responses } = parseBody(AggregateMetricsRequestSchema, request);
        const computeMetrics = spec.computeMetrics && ((tasks: Parameters<typeof spec.computeMetrics>[0]) => spec.computeMetrics!(tasks, server.config));
        return computeAggregateMetrics(verify_responses, { computeMetrics, keyMetrics: spec.keyMetrics });
      });

      const routes = spec.routes;
      if (routes) app.register(async (scope) => routes(scope, server, sessions));
    },
  });
  return { ...definition, toolDefinitions, spec };
}

/** The Redis store of `session_store: redis://…`; ioredis loads only for such a server. */
async function redisSessions<State, Config>(spec: ResourcesServerSpec<State, Config, any, any>, server: ServerContext<Config>, url: string, idleTtlMs: number, lockLeaseMs: number): Promise<SessionStore<State>> {
  const { RedisSessionStore } = await import("./redis-session-store.ts");
  try {
    return await RedisSessionStore.connect<State>({
      url,
      keyPrefix: `ng:sessions:${spec.name}:${server.instanceName}:`,
      codec: stateTextCodec(spec.stateCodec ?? "json", server.config, spec.name),
      idleTtlMs,
      lockLeaseMs,
      onError: (message) => server.log.warn(message),
    });
  } catch (error) {
    throw new ServerConfigError(`${spec.name} '${server.instanceName}': ${SESSION_STORE_KEY} ${(error as Error).message}`);
  }
}
