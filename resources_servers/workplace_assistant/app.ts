// NeMo Gym's workplace_assistant (WorkBench): an office with email, calendar, analytics, project management, a
// CRM and a company directory; 27 tools; reward 1 iff the model's calls leave the tables as the expected calls do.
import { z } from "zod";
import { HttpError, RequestValidationError, resourcesServer, tool } from "../../src/server/index.ts";
import type { FunctionCall } from "../../src/protocol/index.ts";
import { Workbench, WORKBENCH_TOOLS, type WorkbenchSnapshot } from "./workbench/index.ts";
import { PyException } from "../../src/python/exception.ts";
import { describeUnknownIds, unknownGroundTruthIds } from "./workbench/ground-truth-ids.ts";
import { describeTables, prepareTables, tablesOf, TablesConfigSchema, type TablesConfig } from "./workbench/tables-source.ts";
import type { Kwargs } from "./workbench/tool-spec.ts";
import { isCorrect } from "./workbench/verify.ts";

const NOT_SEEDED = "Session not initialized. Please call seed_session first.";

/**
 * A row whose ground truth names ids these tables do not have was written for other tables: no reward could mean
 * anything, so it is a 501 naming the table and the id (a typed failure for the collector, never a 0 or a 1).
 */
function refuseRowForOtherTables(config: TablesConfig, groundTruth: unknown): void {
  const unknown = unknownGroundTruthIds(tablesOf(config), groundTruth);
  if (unknown.length > 0) throw new HttpError(501, describeUnknownIds(unknown, describeTables(config)));
}

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

const workplace = resourcesServer({
  name: "WorkbenchResourcesServer",
  config: TablesConfigSchema,
  // NeMo Gym's seed reads nothing of the row; the whole row is posted, so its ground truth is checked here first.
  seed: z.object({ ground_truth: z.unknown().optional() }),
  // Every seed is a fresh copy of the tables; a tool call on a session never seeded is a 400, as in NeMo Gym.
  state: (seed, { config }): Workbench | undefined => {
    if (seed === undefined) return undefined;
    refuseRowForOtherTables(config, seed.ground_truth);
    return new Workbench(tablesOf(config));
  },
  // For `session_store: redis://…`: only the tables a session changed travel (the rest are the shared originals).
  stateCodec: {
    encode: (workbench, config) => workbench?.snapshot(tablesOf(config)),
    decode: (snapshot, config) => Workbench.restore(tablesOf(config), snapshot as WorkbenchSnapshot),
  },
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
      refuseRowForOtherTables(config, ground_truth);
      const predicted = response.output.filter((item): item is FunctionCall => item.type === "function_call");
      return isCorrect(tablesOf(config), predicted, ground_truth);
    },
  },
});

// The tables are ready before the first request: NeMo Gym's are fetched and checked (a wrong digest or a failed
// fetch stops the start, naming the file), and either kind is parsed, so a missing CSV fails the start too.
const definition: typeof workplace = {
  ...workplace,
  async register(app, context) {
    await prepareTables(context.config, (file, bytes) => context.log.info(`fetched NeMo Gym's ${file} (${bytes} bytes)`));
    await workplace.register(app, context);
  },
};
export default definition;

