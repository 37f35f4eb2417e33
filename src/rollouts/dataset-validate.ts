// `gym dataset validate`: a dataset JSONL checked against the protocol and against the environment that will
// score it, before any server starts. Every problem names the file, the line and the field path, worded as
// the 422 the server would answer (`responses_create_params.input.0.role: Input should be …`).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { z } from "zod";
import { ResponseCreateParamsSchema } from "../protocol/index.ts";
import { isServerDefinition, validationErrorFromZod, type FunctionToolDefinition, type ResourcesServerDefinition } from "../server/index.ts";
import { describeValue, toolDrift } from "../testing/tool-drift.ts";
import { InputError, type Row } from "./jsonl.ts";

export interface DatasetProblem {
  file: string;
  line: number;
  /** Dotted field path inside the row ("" for the line as a whole). */
  path: string;
  message: string;
}

export function formatProblem(problem: DatasetProblem): string {
  return `${problem.file}:${problem.line}: ${problem.path ? `${problem.path}: ` : ""}${problem.message}`;
}

/** What an environment declares about the rows it scores. */
export interface EnvironmentSchema {
  /** For messages: the class name, e.g. StatefulCounterResourcesServer. */
  name: string;
  /** Fields /seed_session reads from the row. */
  seed?: z.ZodType;
  /** Dataset fields /verify needs. */
  verifyInput?: z.ZodType;
  /** The function tools the server serves (GET /tools). */
  tools?: FunctionToolDefinition[];
}

export function environmentFromDefinition(definition: ResourcesServerDefinition<any, any>): EnvironmentSchema {
  return { name: definition.className, seed: definition.spec.seed, verifyInput: definition.spec.verify.input, tools: definition.toolDefinitions };
}

/** Imports an environment's app.ts and reads its declarations; an error says why it cannot be used. */
export async function loadEnvironment(entrypointPath: string): Promise<EnvironmentSchema> {
  let loaded: unknown;
  try {
    loaded = (await import(pathToFileURL(entrypointPath).href)).default;
  } catch (error) {
    throw new InputError(`cannot load the environment ${entrypointPath}: ${(error as Error).message}`);
  }
  if (!isServerDefinition(loaded) || loaded.serverType !== "resources_servers") throw new InputError(`${entrypointPath} does not default-export a resources server definition`);
  const definition = loaded as ResourcesServerDefinition<any, any>;
  // A definition built without resourcesServer() declares nothing: only the protocol can be checked.
  if (!definition.spec) return { name: definition.className, tools: definition.toolDefinitions };
  return environmentFromDefinition(definition);
}

/** Why a row has no environment, reported as a problem of its line. */
export interface NoEnvironment {
  problemPath: string;
  message: string;
}

/** For each row: its environment, none (protocol checks only), or why it cannot have one. */
export type EnvironmentFor = (row: Row) => EnvironmentSchema | NoEnvironment | undefined | Promise<EnvironmentSchema | NoEnvironment | undefined>;

export async function validateDatasetFile(file: string, environmentFor: EnvironmentFor = () => undefined): Promise<DatasetProblem[]> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new InputError(`cannot read '${file}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return validateDatasetText(file, text, environmentFor);
}

export async function validateDatasetText(file: string, text: string, environmentFor: EnvironmentFor = () => undefined): Promise<DatasetProblem[]> {
  const problems: DatasetProblem[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    const add = (path: string, message: string) => problems.push({ file, line: i + 1, path, message });
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      add("", `not valid JSON (${(error as Error).message})`);
      continue;
    }
    if (row === null || typeof row !== "object" || Array.isArray(row)) {
      add("", "each line must be a JSON object");
      continue;
    }
    checkProtocol(row as Row, add);
    const environment = await environmentFor(row as Row);
    if (environment && "problemPath" in environment) add(environment.problemPath, environment.message);
    else if (environment) checkEnvironment(row as Row, environment, add);
  }
  return problems;
}

type Add = (path: string, message: string) => void;

const dotted = (loc: (string | number)[]) => loc.join(".");

function addZodIssues(schema: z.ZodType, value: unknown, locPrefix: (string | number)[], add: Add, suffix = ""): void {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return;
  for (const detail of validationErrorFromZod(parsed.error, value, locPrefix).detail) add(dotted(detail.loc), `${detail.msg}${suffix}`);
}

function checkProtocol(row: Row, add: Add): void {
  if (row.responses_create_params === undefined) add("responses_create_params", "Field required");
  else addZodIssues(ResponseCreateParamsSchema, row.responses_create_params, ["responses_create_params"], add);

  if (row.agent_ref !== undefined) {
    const ref = row.agent_ref as Row | null;
    if (ref === null || typeof ref !== "object" || Array.isArray(ref)) add("agent_ref", 'Input should be an object like {"name": "<agent instance>"}');
    else {
      if (typeof ref.name !== "string" || ref.name === "") add("agent_ref.name", ref.name === undefined ? "Field required" : "Input should be a non-empty string");
      if (ref.type !== undefined && ref.type !== "responses_api_agents") add("agent_ref.type", "Input should be 'responses_api_agents'");
    }
  }
  for (const key of ["_ng_task_index", "_ng_rollout_index", "_ng_attempt_index"]) {
    const value = row[key];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) add(key, "Input should be a non-negative integer");
  }
}

function checkEnvironment(row: Row, environment: EnvironmentSchema, add: Add): void {
  if (environment.seed) addZodIssues(environment.seed, row, [], add, ` (${environment.name}'s /seed_session reads it)`);
  if (environment.verifyInput) addZodIssues(environment.verifyInput, row, [], add, ` (${environment.name}'s /verify needs it)`);
  const tools = (row.responses_create_params as Row | undefined)?.tools;
  if (environment.tools && Array.isArray(tools)) checkTools(tools, environment, add);
}

/**
 * Function tools offered to the model must be tools the environment serves, with the same argument shape: the kit's
 * tool-drift rule (src/testing/tool-drift.ts), under which descriptions, titles and strict may differ.
 */
export function checkTools(offered: unknown[], environment: Pick<EnvironmentSchema, "name" | "tools">, add: Add): void {
  const served = environment.tools ?? [];
  for (const drift of toolDrift(offered, served)) {
    if (drift.kind === "unknown_tool") add(drift.path, `'${drift.tool}' is not a tool of ${environment.name} (it serves: ${served.map((t) => t.name).join(", ") || "none"})`);
    else add(drift.path, `the dataset offers ${describeValue(drift.offered)}, ${environment.name}'s '${drift.tool}' takes ${describeValue(drift.served)}`);
  }
}
