// NeMo-Skills tools (ns_tools): the model calls NeMo-Skills tools by name; verify is delegated to another resources
// server (math_with_judge by default) and answers its reward plus tool timing. Of NeMo-Skills' tools, the Python one
// (DirectPythonTool, `stateful_python_code_exec`) runs here, on the project's sandbox (python-tool.ts); the others
// need the nemo-skills Python package and remote services (arXiv, Wikipedia, CoolProp, …) and are refused by name
// when the server starts.
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { HttpError, resourcesServer, tool, type ServerContext } from "../../src/server/index.ts";
import { BubblewrapSandbox, type SandboxProvider } from "../../src/sandbox/index.ts";
import { executeStatefulPython, newPythonToolSession, resetPythonToolSession, type PythonToolSession } from "./python-tool.ts";

const PYTHON_TOOL = "stateful_python_code_exec";
/** The module specs that name DirectPythonTool (PythonTool is its subclass in nemo-skills). */
const PYTHON_TOOL_SPECS = new Set(["nemo_skills.mcp.servers.python_tool::DirectPythonTool", "nemo_skills.mcp.servers.python_tool::PythonTool"]);
const DEFAULT_EXEC_TIMEOUT_S = 10;

const PythonToolOverrides = z.strictObject({
  exec_timeout_s: z.number().positive().default(DEFAULT_EXEC_TIMEOUT_S),
  // Which arguments a model may not set (DirectPythonTool strips them from the call): session_id and timeout.
  hide_args: z.record(z.string(), z.array(z.string())).optional(),
});

const Config = z.looseObject({
  default_verifier: z.string().default("math_with_judge"),
  verifiers: z.record(z.string(), z.looseObject({ type: z.string().optional(), name: z.string() })).default({}),
  nemo_skills_tools: z.array(z.string()).default([]),
  nemo_skills_tool_overrides: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  // The NeMo-Skills sandbox service's address. Cells run in this project's sandbox, so nothing is sent there.
  sandbox_host: z.union([z.string(), z.number()]).default("127.0.0.1"),
  sandbox_port: z.union([z.string(), z.number()]).default("6000"),
  // The legacy HTTP PythonTool sidecar's port: that variant is not supported, so it is never opened.
  python_tool_port: z.number().int().default(8765),
  verbose_tool_logging: z.boolean().default(false),
  disable_session_restore: z.boolean().default(false),
});
type Config = z.output<typeof Config>;

interface ToolTiming {
  seconds: number;
  internalTimeout: boolean;
  requestTimeout: boolean;
}

interface Session {
  python: PythonToolSession;
  timings: ToolTiming[];
}

interface PythonToolSetup {
  timeoutSeconds: number;
  hiddenArgs: Set<string>;
}

/** The configured tools, or a startup error naming each one this port cannot run and why. */
function pythonToolSetup(config: Config): PythonToolSetup | undefined {
  const refused = config.nemo_skills_tools.filter((spec) => !PYTHON_TOOL_SPECS.has(spec));
  if (refused.length > 0) {
    throw new Error(
      `ns_tools: nemo_skills_tools ${refused.map((spec) => JSON.stringify(spec)).join(", ")} cannot run here: only NeMo-Skills' Python tool (${[...PYTHON_TOOL_SPECS].join(" or ")}) is ported; the others are nemo-skills Python modules that call remote services`,
    );
  }
  if (config.nemo_skills_tools.length === 0) return undefined;
  const unknownOverrides = Object.keys(config.nemo_skills_tool_overrides).filter((name) => name !== "DirectPythonTool" && name !== "PythonTool");
  if (unknownOverrides.length > 0) throw new Error(`ns_tools: nemo_skills_tool_overrides for ${unknownOverrides.join(", ")}: no such tool is configured`);
  const raw = { ...config.nemo_skills_tool_overrides.PythonTool, ...config.nemo_skills_tool_overrides.DirectPythonTool };
  const parsed = PythonToolOverrides.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`ns_tools: nemo_skills_tool_overrides.DirectPythonTool: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(keys)"}: ${issue.message}`).join("; ")} (supported: exec_timeout_s, hide_args; the NeMo-Skills sandbox and MCP client keys do not apply to the project's sandbox)`);
  }
  const hidden = parsed.data.hide_args?.[PYTHON_TOOL] ?? ["session_id", "timeout"];
  return { timeoutSeconds: parsed.data.exec_timeout_s, hiddenArgs: new Set(hidden) };
}

const toolDescription = (timeoutSeconds: number) =>
  `Call this function to execute Python code in a stateful Jupyter notebook environment. Python will respond with the output of the execution or time out after ${timeoutSeconds.toFixed(1)} seconds.`;

export interface NsToolsOptions {
  sandbox?: () => SandboxProvider;
  /** Run one real sandbox at startup when the Python tool is configured (default true). */
  probeAtStartup?: boolean;
}

export function nsTools({ sandbox = () => new BubblewrapSandbox(), probeAtStartup = true }: NsToolsOptions = {}) {
  const instances = new WeakMap<ServerContext<Config>, { provider: SandboxProvider; python: PythonToolSetup | undefined }>();
  const instanceOf = (server: ServerContext<Config>) => instances.get(server)!;

  async function timed(session: Session, name: string, server: ServerContext<Config>, run: () => Promise<string>): Promise<string> {
    const started = performance.now();
    // A sandbox that cannot run propagates (a 503) and is not counted as a tool call.
    const text = await run();
    const seconds = (performance.now() - started) / 1000;
    // NeMo Gym counts an internal timeout when the tool's text is a JSON object with process_status "timeout";
    // DirectPythonTool returns plain output text, so in practice this stays 0 (as it does there).
    const internalTimeout = processStatusOf(text) === "timeout";
    session.timings.push({ seconds, internalTimeout, requestTimeout: false });
    if (server.config.verbose_tool_logging) server.log.info(`Tool '${name}' executed in ${seconds.toFixed(3)}s${internalTimeout ? " [INTERNAL_TIMEOUT]" : ""}`);
    return text;
  }

  return resourcesServer({
    name: "NSToolsResourcesServer",
    config: Config,
    state: (): Session => ({ python: newPythonToolSession(), timings: [] }),
    tools: {
      [PYTHON_TOOL]: tool({
        description: toolDescription(DEFAULT_EXEC_TIMEOUT_S),
        // NeMo Gym reads the raw JSON body; a missing `code` is the tool's own error text, not a 422.
        input: z.record(z.string(), z.unknown()),
        modelSchema: { type: "object", properties: { code: { type: "string", description: "Code to execute" } }, required: ["code"] },
        formatOutput: (text: string) => text,
        async run(session: Session, args, { server, signal }) {
          const { provider, python } = instanceOf(server);
          if (!python) throw new HttpError(404, "Not Found");
          const visible = Object.fromEntries(Object.entries(args).filter(([key]) => !python.hiddenArgs.has(key)));
          return timed(session, PYTHON_TOOL, server, async () => {
            const output = await executeStatefulPython(session.python, visible.code, { sandbox: provider, timeoutSeconds: python.timeoutSeconds, disableSessionRestore: server.config.disable_session_restore, signal });
            return output.text;
          });
        },
      }),
    },
    // NeMo Gym's catch-all /{tool_name}: a name that is no loaded tool answers its error as the tool text.
    unknownTool: {
      run(_session: Session, name, _args, { server }) {
        if (!instanceOf(server).python) throw new HttpError(404, "Not Found");
        return JSON.stringify({ error: `Unknown tool: ${name}` });
      },
    },
    verify: {
      input: z.looseObject({ verifier_type: z.string().nullish() }),
      async run(session, body, { config, server }) {
        const timings = session?.timings ?? [];
        try {
          const verifierType = body.verifier_type || config.default_verifier;
          const verifier = config.verifiers[verifierType];
          if (!verifier) throw new Error(`Unknown verifier: ${verifierType}. Configure it in 'verifiers' or check 'default_verifier'.`);
          const { responses_create_params, response, verifier_type, ...rowFields } = body;
          const forwarded = { responses_create_params, verifier_type: verifier_type ?? null, response, ...rowFields };
          const answer = await server.client.post(verifier.name, "/verify", { json: forwarded });
          const delegated = answer.json<Record<string, unknown>>();
          if (delegated === null || typeof delegated !== "object" || !("reward" in delegated)) throw new Error(`Verifier did not return 'reward' field. Response: ${answer.text.slice(0, 500)}`);
          const total = timings.reduce((sum, t) => sum + t.seconds, 0);
          return {
            reward: delegated.reward as number,
            delegated_response: delegated,
            total_tool_execution_time_seconds: total,
            num_tool_calls: timings.length,
            avg_tool_call_time_seconds: timings.length > 0 ? total / timings.length : 0,
            tool_timeout_count: timings.filter((t) => t.internalTimeout).length,
            tool_request_timeout_count: timings.filter((t) => t.requestTimeout).length,
            verifier_type: verifier_type ?? null,
            ...rowFields,
          };
        } finally {
          if (session) {
            session.timings = [];
            resetPythonToolSession(session.python);
          }
        }
      },
    },
    floatFields: ["total_tool_execution_time_seconds", "avg_tool_call_time_seconds"],
    async routes(app, server) {
      const python = pythonToolSetup(server.config);
      const provider = sandbox();
      instances.set(server, { provider, python });
      app.addHook("onClose", () => provider.close());
      if (python && probeAtStartup) await provider.ensureAvailable();
    },
  });
}

function processStatusOf(text: string): unknown {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>).process_status : undefined;
  } catch {
    return undefined;
  }
}

export default nsTools();
