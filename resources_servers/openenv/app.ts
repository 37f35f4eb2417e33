// NeMo Gym's OpenEnv adapter (resources_servers/openenv/app.py): one OpenEnv environment per rollout. /seed_session
// resets a new environment (with the config's reset_kwargs); the tools step it, each step's reward is added to the
// rollout's total; /verify returns that total and ends the environment. An MCP environment (is_mcp) exposes one tool
// per MCP tool it lists at startup; any other exposes POST /step, whose body is the action.
//
// NeMo Gym imports the environment's Python class into its own process. Here every environment is reached over
// OpenEnv's own protocol (WS /ws, src/ports/openenv): by default the three environments of NeMo Gym's configs (echo,
// coding, maze, in envs/) are served by this server itself on a loopback port it picks at startup, so the configs
// run offline; `openenv_base_url` points the adapter at any other OpenEnv server instead (a Docker image, a Space).
//
// A fault is never a reward: a connection that fails, closes or misses its deadline is a 502/504 for that call and
// for the rollout's /verify, never the total so far. The environment's own error answer (an exception in its step)
// is shown to the model in-band as NeMo Gym does ({"error": str(e), "result": null}); an action its Action model
// refuses is a 422 naming the field (NeMo Gym answers that in-band too; the project's rule for bad input is a 4xx).
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { HttpError, RequestValidationError, resourcesServer, toPythonJson, type FunctionToolDefinition, type ServerContext, type ValidationDetail } from "../../src/server/index.ts";
import { BubblewrapSandbox, type SandboxProvider } from "../../src/sandbox/index.ts";
import { OpenEnvEnvironmentError, OpenEnvSession, OpenEnvTransportError, type OpenEnvClientOptions } from "../../src/ports/openenv/client.ts";
import { startOpenEnvServer, type RunningOpenEnvServer } from "../../src/ports/openenv/env-server.ts";
import { formatValidationIssues, isRecord, type OpenEnvStepResult, type ValidationIssue } from "../../src/ports/openenv/protocol.ts";
import { pythonStringRepr } from "../../src/python/repr.ts";
import { BUILTIN_ENVIRONMENTS } from "./envs/index.ts";

const Config = z.looseObject({
  // NeMo Gym's OpenEnvResourcesServerConfig.
  env_class: z.string().min(1),
  action_class: z.string().min(1),
  reset_kwargs: z.record(z.string(), z.unknown()).default({}),
  is_mcp: z.boolean().default(false),
  // This port's: where the environment is served, and the bounds of every exchange with it.
  openenv_base_url: z.string().url().nullish(),
  openenv_connect_timeout_s: z.number().positive().default(10),
  openenv_message_timeout_s: z.number().positive().default(60),
  openenv_connect_retries: z.number().int().min(0).max(10).default(2),
  /** Wall clock of one code cell of the built-in coding environment. */
  coding_cell_timeout_s: z.number().positive().default(10),
});
type Config = z.output<typeof Config>;

/** One rollout: its environment's session and what NeMo Gym's SessionState keeps. */
interface Rollout {
  session: OpenEnvSession | undefined;
  accumulatedReward: number;
  stepCount: number;
  done: boolean;
  lastObservation?: Record<string, unknown>;
  /** The transport failure that broke the session: every later call and /verify answer it, never a reward. */
  fault?: HttpError;
}

interface McpTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

interface Runtime {
  baseUrl: string;
  clientOptions: OpenEnvClientOptions;
  /** The Action class's name, for NeMo Gym's validation message (`1 validation error for MazeAction`). */
  actionModel: string;
  /** The type discriminator an MCP action class adds to the body. */
  actionType?: "call_tool" | "list_tools";
  mcpTools: McpTool[];
  /** What GET /tools serves: the MCP tools as listed, or the built-in environment's step tool. */
  served: FunctionToolDefinition[];
}

const NO_SESSION = { error: "No active session. Call /seed_session first.", result: null };
const EPISODE_ENDED = { error: "Episode has ended.", result: null };

export interface OpenEnvServerOptions {
  /** The sandbox of the built-in coding environment (default: bubblewrap); made when the instance starts. */
  sandbox?: () => SandboxProvider;
  /** Run one real sandbox at startup (coding only), so a host without one fails to start (default true). */
  probeAtStartup?: boolean;
}

/** What a config names, checked before anything starts: a built-in environment, or any with openenv_base_url. */
export function resolveEnvironment(config: Pick<Config, "env_class" | "action_class" | "is_mcp" | "openenv_base_url">) {
  const builtin = BUILTIN_ENVIRONMENTS[config.env_class];
  if (config.openenv_base_url == null) {
    if (!builtin) {
      throw new Error(
        `openenv: env_class '${config.env_class}' is not served here (built in: ${Object.keys(BUILTIN_ENVIRONMENTS).join(", ")}); ` +
          "start that environment's OpenEnv server yourself and set openenv_base_url to its URL",
      );
    }
    if (config.action_class !== builtin.actionClass) throw new Error(`openenv: ${config.env_class} takes action_class '${builtin.actionClass}', not '${config.action_class}'`);
    if (config.is_mcp !== builtin.isMcp) throw new Error(`openenv: ${config.env_class} is ${builtin.isMcp ? "an MCP environment: set is_mcp: true" : "not an MCP environment: set is_mcp: false"}`);
  }
  return builtin;
}

/** Python's str() of OpenEnv's ToolError: `error_type=<ToolErrorType.TIMEOUT: 'timeout'> message='…'`. */
function toolErrorText(error: unknown): string | null {
  if (error === null || error === undefined || error === false || error === "") return null;
  if (isRecord(error) && typeof error.error_type === "string" && typeof error.message === "string") {
    return `error_type=<ToolErrorType.${error.error_type.toUpperCase()}: ${pythonStringRepr(error.error_type)}> message=${pythonStringRepr(error.message)}`;
  }
  return typeof error === "string" ? error : JSON.stringify(error);
}

/** pydantic's lax coercion of one body field to the JSON type an MCP tool's schema names (NeMo's _json_type_to_python). */
function coerceArgument(value: unknown, type: string, field: string): { value: unknown } | ValidationDetail {
  const loc = ["body", field];
  switch (type) {
    case "integer":
      if (typeof value === "number" && Number.isInteger(value)) return { value };
      if (typeof value === "boolean") return { value: value ? 1 : 0 };
      if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) return { value: Number.parseInt(value, 10) };
      return { type: "int_parsing", loc, msg: "Input should be a valid integer", input: value };
    case "number":
      if (typeof value === "number") return { value };
      if (typeof value === "boolean") return { value: value ? 1 : 0 };
      if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return { value: Number(value) };
      return { type: "float_parsing", loc, msg: "Input should be a valid number", input: value };
    case "boolean":
      if (typeof value === "boolean") return { value };
      if (value === 0 || value === 1) return { value: value === 1 };
      if (typeof value === "string" && ["true", "false", "1", "0", "yes", "no", "on", "off", "t", "f", "y", "n"].includes(value.toLowerCase())) return { value: ["true", "1", "yes", "on", "t", "y"].includes(value.toLowerCase()) };
      return { type: "bool_parsing", loc, msg: "Input should be a valid boolean", input: value };
    case "object":
      return isRecord(value) ? { value } : { type: "dict_type", loc, msg: "Input should be a valid dictionary", input: value };
    case "array":
      return Array.isArray(value) ? { value } : { type: "list_type", loc, msg: "Input should be a valid list", input: value };
    default:
      return typeof value === "string" ? { value } : { type: "string_type", loc, msg: "Input should be a valid string", input: value };
  }
}

/** NeMo Gym's request model of an MCP tool (_schema_to_pydantic): its fields, required or None, extras dropped. */
export function mcpArguments(schema: Record<string, unknown>, body: unknown): Record<string, unknown> {
  if (!isRecord(body)) throw new RequestValidationError([{ type: "model_attributes_type", loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", input: body }]);
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const args: Record<string, unknown> = {};
  const problems: ValidationDetail[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const type = isRecord(property) && typeof property.type === "string" ? property.type : "string";
    const value = body[name];
    if (value === undefined || (value === null && !required.has(name))) {
      if (required.has(name)) problems.push({ type: "missing", loc: ["body", name], msg: "Field required", input: body });
      else args[name] = null;
      continue;
    }
    const coerced = coerceArgument(value, type, name);
    if ("value" in coerced) args[name] = coerced.value;
    else problems.push(coerced);
  }
  if (problems.length > 0) throw new RequestValidationError(problems);
  return args;
}

export function openenvServer({ sandbox = () => new BubblewrapSandbox(), probeAtStartup = true }: OpenEnvServerOptions = {}) {
  const runtimes = new WeakMap<ServerContext<Config>, Runtime>();
  const runtimeOf = (server: ServerContext<Config>) => {
    const runtime = runtimes.get(server);
    if (!runtime) throw new Error("openenv: the environment is reached once the server has started");
    return runtime;
  };

  /** One step of a rollout's environment, with NeMo Gym's bookkeeping; a broken connection becomes the rollout's fault. */
  async function step(rollout: Rollout, runtime: Runtime, action: Record<string, unknown>): Promise<{ result: OpenEnvStepResult } | { envError: string }> {
    try {
      const result = await rollout.session!.step(action);
      if (result.reward !== null) rollout.accumulatedReward += result.reward;
      rollout.stepCount += 1;
      rollout.done = result.done;
      return { result };
    } catch (error) {
      if (error instanceof OpenEnvTransportError) {
        rollout.fault = error;
        rollout.session?.close();
        throw error;
      }
      if (error instanceof OpenEnvEnvironmentError) {
        const data = error.data;
        if (data.environment_unavailable === true) {
          rollout.fault = new HttpError(typeof data.status === "number" ? data.status : 503, data.message);
          rollout.session?.close();
          throw rollout.fault;
        }
        if (data.code === "VALIDATION_ERROR" && Array.isArray(data.errors)) {
          const issues = data.errors as ValidationIssue[];
          throw new RequestValidationError(issues.map((issue) => ({ type: String(issue.type), loc: ["body", ...(Array.isArray(issue.loc) ? issue.loc : [])], msg: String(issue.msg), input: issue.input })));
        }
        // NeMo Gym: `except Exception as e: return {"error": str(e), "result": None}`.
        return { envError: data.code === "VALIDATION_ERROR" && Array.isArray(data.errors) ? formatValidationIssues(runtime.actionModel, data.errors as ValidationIssue[]) : data.message };
      }
      throw error;
    }
  }

  /** The rollout a tool call acts on, or the in-band answer NeMo Gym gives when there is none to act on. */
  async function activeRollout(request: FastifyRequest, sessions: { get(id: string): Promise<Rollout | undefined> | Rollout | undefined }): Promise<Rollout | typeof NO_SESSION | typeof EPISODE_ENDED> {
    const rollout = await sessions.get(request.sessionId);
    if (rollout === undefined || rollout.session === undefined) return NO_SESSION;
    if (rollout.fault) throw rollout.fault;
    if (rollout.done) return EPISODE_ENDED;
    return rollout;
  }

  const sendJson = (reply: FastifyReply, value: unknown, floatFields: ReadonlySet<string> = new Set()) => reply.type("application/json").send(toPythonJson(value, floatFields));

  return resourcesServer({
    name: "OpenEnvResourcesServer",
    config: Config,
    reverifyMode: "unsupported",
    async state(_seed, { config, server }): Promise<Rollout> {
      const runtime = runtimeOf(server);
      try {
        const { session, initial } = await OpenEnvSession.openSession(runtime.baseUrl, config.reset_kwargs, runtime.clientOptions);
        return { session, accumulatedReward: initial.reward ?? 0, stepCount: 0, done: initial.done };
      } catch (error) {
        if (error instanceof OpenEnvEnvironmentError) {
          const status = error.data.environment_unavailable === true ? 503 : 502;
          throw new HttpError(status, `openenv: the environment refused the reset: ${error.data.message} (code: ${error.data.code})`);
        }
        throw error;
      }
    },
    disposeState: (rollout) => rollout.session?.close(),
    tools: {},
    // The tools are known once the environment is reached (an MCP environment lists its own); an environment at
    // openenv_base_url that is not MCP serves none here (its Action schema is its own).
    servedTools: (server) => runtimes.get(server)?.served ?? [],
    verify: {
      run(rollout) {
        // Never seeded: NeMo Gym's 0.0. A session whose connection broke: its failure, not the total so far.
        if (rollout === undefined || rollout.session === undefined) return 0.0;
        if (rollout.fault) throw rollout.fault;
        const reward = rollout.accumulatedReward;
        rollout.session.close();
        rollout.session = undefined;
        return reward;
      },
    },
    async routes(app, server, sessions) {
      const config = server.config;
      const builtin = resolveEnvironment(config);
      const clientOptions: OpenEnvClientOptions = {
        connectTimeoutMs: config.openenv_connect_timeout_s * 1000,
        messageTimeoutMs: config.openenv_message_timeout_s * 1000,
        connectRetries: config.openenv_connect_retries,
      };
      let baseUrl = config.openenv_base_url ?? undefined;
      let hosted: RunningOpenEnvServer | undefined;
      if (baseUrl === undefined && builtin) {
        let provider: SandboxProvider | undefined;
        if (builtin.needsSandbox) {
          provider = sandbox();
          app.addHook("onClose", () => provider!.close());
          if (probeAtStartup) await provider.ensureAvailable();
        }
        // One WS session per live rollout; the rollouts in flight bound them (the sandbox bounds coding's runs).
        hosted = await startOpenEnvServer(builtin.spec({ sandbox: provider, cellTimeoutMs: config.coding_cell_timeout_s * 1000 }), { host: "127.0.0.1", port: 0, maxSessions: Number.POSITIVE_INFINITY });
        app.addHook("onClose", () => hosted!.close());
        baseUrl = hosted.url;
        server.log.info(`openenv: serving ${config.env_class} (OpenEnv protocol) at ${hosted.url}`);
      }
      const actionModel = config.action_class.split(".").pop()!;
      const runtime: Runtime = {
        baseUrl: baseUrl!,
        clientOptions,
        actionModel,
        actionType: actionModel === "CallToolAction" ? "call_tool" : actionModel === "ListToolsAction" ? "list_tools" : undefined,
        mcpTools: [],
        served: [],
      };

      if (config.is_mcp) {
        // NeMo Gym: a throwaway environment, reset, then ListToolsAction; one POST route per tool.
        const { session } = await OpenEnvSession.openSession(runtime.baseUrl, {}, clientOptions);
        try {
          const listed = await session.step({ type: "list_tools" });
          const tools = listed.observation.tools;
          if (!Array.isArray(tools)) throw new Error(`openenv: list_tools answered no tools: ${JSON.stringify(listed.observation).slice(0, 300)}`);
          runtime.mcpTools = tools.filter((t): t is McpTool => isRecord(t) && typeof t.name === "string").map((t) => ({ name: t.name, description: String(t.description ?? ""), input_schema: isRecord(t.input_schema) ? t.input_schema : {} }));
        } finally {
          session.close();
        }
      }
      runtime.served = config.is_mcp
        ? runtime.mcpTools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.input_schema, strict: true }))
        : builtin?.stepParameters && config.openenv_base_url == null
          ? [{ type: "function", name: "step", description: builtin.stepDescription ?? "", parameters: builtin.stepParameters, strict: true }]
          : [];
      runtimes.set(server, runtime);

      if (config.is_mcp) {
        for (const tool of runtime.mcpTools) {
          if (!/^[A-Za-z0-9_.-]+$/.test(tool.name) || ["verify", "seed_session", "aggregate_metrics", "tools", "mcp", "reverify_mode"].includes(tool.name)) {
            throw new Error(`openenv: the environment lists a tool named '${tool.name}', which cannot be a route here`);
          }
          app.post(`/${tool.name}`, async (request, reply) => {
            const args = mcpArguments(tool.input_schema, request.body);
            const rollout = await activeRollout(request, sessions);
            if (!("accumulatedReward" in rollout)) return sendJson(reply, rollout);
            const outcome = await step(rollout, runtime, { type: "call_tool", tool_name: tool.name, arguments: args });
            await sessions.set(request.sessionId, rollout);
            if ("envError" in outcome) return sendJson(reply, { error: outcome.envError, result: null });
            const observation = outcome.result.observation;
            return sendJson(reply, { result: observation.result ?? null, error: toolErrorText(observation.error) });
          });
        }
      } else {
        app.post("/step", async (request, reply) => {
          const body = request.body ?? {};
          if (!isRecord(body)) throw new RequestValidationError([{ type: "dict_type", loc: ["body"], msg: "Input should be a valid dictionary", input: body }]);
          const rollout = await activeRollout(request, sessions);
          if (!("accumulatedReward" in rollout)) return sendJson(reply, rollout);
          const action = runtime.actionType ? { ...body, type: runtime.actionType } : body;
          const outcome = await step(rollout, runtime, action);
          if ("envError" in outcome) {
            await sessions.set(request.sessionId, rollout);
            return sendJson(reply, { error: outcome.envError, result: null });
          }
          // NeMo Gym answers obs.model_dump(): the Observation's base fields first, then its own.
          const { observation, reward, done, metadata } = outcome.result;
          const dumped = { done, reward, metadata: metadata ?? {}, ...observation };
          rollout.lastObservation = dumped;
          await sessions.set(request.sessionId, rollout);
          return sendJson(reply, dumped, new Set(["reward"]));
        });
      }
    },
  });
}

export default openenvServer();
