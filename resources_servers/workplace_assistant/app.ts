// NeMo Gym's workplace_assistant (WorkBench): an office with email, calendar, analytics, project management, a
// CRM and a company directory; 27 tools; reward 1 iff the model's calls leave the tables as the expected calls do.
import { z } from "zod";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
import { HttpError, RequestValidationError, functionToolDefinition, resourcesServer, tool } from "../../src/server/index.ts";
import type { FunctionCall } from "../../src/protocol/index.ts";
import { Workbench, WORKBENCH_TOOLS } from "./workbench/index.ts";
import { PyException } from "../../src/python/exception.ts";
import { loadTables, type WorkbenchTables } from "./workbench/tables-dir.ts";
import type { Kwargs } from "./workbench/tool-spec.ts";
import { isCorrect } from "./workbench/verify.ts";

const DEFAULT_TABLES_DIR = "resources_servers/workplace_assistant/data/tables";
const NOT_SEEDED = "Session not initialized. Please call seed_session first.";

const ConfigSchema = z.object({
  /** Folder of the six CSVs (NeMo Gym's `csv_data/` layout: `processed/` + `raw/`); relative to cwd or the project. */
  tables_dir: z.string().default(DEFAULT_TABLES_DIR),
});
type Config = z.output<typeof ConfigSchema>;

const tablesOf = (config: unknown): WorkbenchTables => loadTables(resolveUnderRoots((config as Config).tables_dir, searchRoots()).path);

/**
 * NeMo Gym's catch-all tool route: null arguments are dropped, the tool runs on the session's workbench and its
 * answer (errors included, as strings the model can read) is `{"output": ...}`.
 */
function runAsPythonRoute(workbench: Workbench | undefined, name: string, args: Kwargs): { output: unknown } {
  if (!workbench) throw new HttpError(400, NOT_SEEDED);
  const kwargs = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
  try {
    return { output: workbench.call(name, kwargs) };
  } catch (error) {
    if (error instanceof PyException) return { output: `Error executing tool '${name}': ${error.message}` };
    throw error;
  }
}

const definition = resourcesServer({
  name: "WorkbenchResourcesServer",
  config: ConfigSchema,
  // Every seed is a fresh copy of the tables; a tool call on a session never seeded is a 400, as in NeMo Gym.
  state: (seed, { config }): Workbench | undefined => (seed === undefined ? undefined : new Workbench(tablesOf(config))),
  tools: Object.fromEntries(
    Object.entries(WORKBENCH_TOOLS).map(([name, workbenchTool]) => [
      name,
      tool({ description: workbenchTool.description, input: workbenchTool.input, run: (workbench: Workbench | undefined, args) => runAsPythonRoute(workbench, name, args) }),
    ]),
  ),
  verify: {
    input: z.object({
      ground_truth: z.union([z.array(z.record(z.string(), z.string())), z.string()]),
      id: z.union([z.number().int(), z.boolean(), z.string().regex(/^\s*[+-]?\d+(?:\.0*)?\s*$/)]),
      category: z.string(),
      environment_name: z.string(),
    }),
    // The session's own state is not used: NeMo Gym replays the response's calls on a fresh copy.
    run: (_state, { response, ground_truth }, { config }) => {
      const predicted = response.output.filter((item): item is FunctionCall => item.type === "function_call");
      return isCorrect(tablesOf(config), predicted, ground_truth);
    },
  },
  routes(app, _server, sessions) {
    // NeMo Gym serves its tools with `strict: false`; the library's definitions say true (see README, Parity).
    app.addHook("preSerialization", async (request, _reply, payload) => (request.routeOptions.url === "/tools" ? NEMO_GYM_TOOL_DEFINITIONS : payload));
    // Any other POST /<name> is NeMo Gym's catch-all route: an unknown tool is a KeyError the model reads.
    app.post("/:path", async (request) => {
      const body = request.body ?? {};
      if (typeof body !== "object" || Array.isArray(body)) {
        throw new RequestValidationError([{ type: "model_attributes_type", loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", input: body }]);
      }
      const workbench = (await sessions.get(request.sessionId)) as Workbench | undefined;
      const name = (request.params as { path: string }).path;
      return runAsPythonRoute(workbench, name, body as Kwargs);
    });
  },
});

/** GET /tools exactly as NeMo Gym's rows offer the tools to the model. */
const NEMO_GYM_TOOL_DEFINITIONS = Object.entries(WORKBENCH_TOOLS).map(([name, t]) => functionToolDefinition(name, t.description, t.input, false));

export default { ...definition, toolDefinitions: NEMO_GYM_TOOL_DEFINITIONS };
