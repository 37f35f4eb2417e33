// NeMo Gym's workplace_assistant (WorkBench): an office with email, calendar, analytics, project management, a
// CRM and a company directory; 27 tools; reward 1 iff the model's calls leave the tables as the expected calls do.
import { z } from "zod";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
import { HttpError, RequestValidationError, resourcesServer, tool } from "../../src/server/index.ts";
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
 * NeMo Gym's catch-all tool route (every name, a tool or not): null arguments are dropped, the tool runs on the
 * session's workbench and its answer (errors included, as strings the model can read) is `{"output": ...}`.
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

/** NeMo Gym's `WorkbenchRequest` (a model with `extra="allow"`): any object, its fields the keyword arguments. */
const WorkbenchRequest = z.unknown().transform((body): Kwargs => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new RequestValidationError([{ type: "model_attributes_type", loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", input: body }]);
  }
  return body as Kwargs;
});

export default resourcesServer({
  name: "WorkbenchResourcesServer",
  config: ConfigSchema,
  // Every seed is a fresh copy of the tables; a tool call on a session never seeded is a 400, as in NeMo Gym.
  state: (seed, { config }): Workbench | undefined => (seed === undefined ? undefined : new Workbench(tablesOf(config))),
  tools: Object.fromEntries(
    Object.entries(WORKBENCH_TOOLS).map(([name, workbenchTool]) => [
      name,
      // NeMo Gym declares its tools with `strict: false`; GET /tools serves them as its dataset rows offer them.
      tool({ description: workbenchTool.description, input: workbenchTool.input, strict: false, run: (workbench: Workbench | undefined, args) => runAsPythonRoute(workbench, name, args) }),
    ]),
  ),
  // Any other name is a KeyError the model reads, from the same catch-all route.
  unknownTool: { input: WorkbenchRequest, run: (workbench, name, args) => runAsPythonRoute(workbench, name, args) },
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
});

