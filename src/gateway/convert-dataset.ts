// NeMo Gym task rows → Relax rollout rows ({input, metadata}). The Relax prompt is the row's
// responses_create_params.input; everything a verifier or the gateway needs travels in metadata, from which the
// gateway rebuilds the /run body (tools, parallel_tool_calls, developer_message, leftover responses params).
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { InputError } from "../rollouts/jsonl.ts";
import type { JsonObject, JsonValue } from "./types.ts";
import { jsonTruthy } from "../python/json-value.ts";

export interface RelaxRow {
  input: JsonValue[];
  metadata: JsonObject;
}

const GSM8K_PROMPT_PREFIX = "Solve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{}.\n\n";
// Fields of responses_create_params that have their own place in a Relax row.
const LIFTED_PARAMS = new Set(["input", "tools", "parallel_tool_calls", "instructions"]);

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

// Python truthiness, as the reference converter tests `instructions`.
const truthy = jsonTruthy;

/** GSM8K benchmark rows carry `question` and `expected_answer` instead of responses_create_params. */
function gsm8kParams(row: JsonObject): JsonObject {
  if (typeof row.question !== "string" || !("expected_answer" in row)) {
    throw new InputError("NeMo Gym row must contain responses_create_params, or GSM8K question and expected_answer fields");
  }
  return { input: [{ role: "user", content: `${GSM8K_PROMPT_PREFIX}${row.question}` }] };
}

export function convertRow(source: JsonObject): RelaxRow {
  const row = structuredClone(source);
  const isGsm8k = row.responses_create_params === undefined || row.responses_create_params === null;
  const params = isGsm8k ? gsm8kParams(row) : row.responses_create_params;
  if (!isObject(params)) throw new InputError("responses_create_params must be an object");
  const messages = params.input;
  if (!Array.isArray(messages)) throw new InputError("responses_create_params.input must be a messages array");

  const metadata: JsonObject = {};
  for (const [key, value] of Object.entries(row)) if (key !== "responses_create_params") metadata[key] = value;
  const keptParams: JsonObject = {};
  for (const [key, value] of Object.entries(params)) if (!LIFTED_PARAMS.has(key)) keptParams[key] = value;

  let input = messages;
  // R2E rows leave the prompt empty and describe the task in problem_statement; Gym must still see input: [].
  if (messages.length === 0 && typeof row.problem_statement === "string" && row.problem_statement.trim() !== "") {
    input = [{ role: "user", content: row.problem_statement }];
    keptParams.input = [];
  }
  if (Object.keys(keptParams).length > 0) metadata.responses_create_params = keptParams;
  // Gym's GSM8K data has numeric answers, but the math verifier validates expected_answer as a string.
  if (isGsm8k) metadata.expected_answer = typeof row.expected_answer === "string" ? row.expected_answer : JSON.stringify(row.expected_answer);
  for (const key of ["tools", "parallel_tool_calls"]) if (key in params) metadata[key] = params[key]!;
  if (truthy(params.instructions)) metadata.developer_message = params.instructions!;
  return { input, metadata };
}

/** Refuses an output that is the input under another name: same path, relative path, symlink or hardlink. */
async function assertDistinctFiles(inputPath: string, outputPath: string): Promise<void> {
  const refuse = () => {
    throw new InputError(`Input and output must refer to different files: ${inputPath} -> ${outputPath}`);
  };
  if (resolve(inputPath) === resolve(outputPath)) refuse();
  const [input, output] = await Promise.all([stat(inputPath).catch(() => null), stat(outputPath).catch(() => null)]);
  // stat follows symlinks, so device + inode equality catches symlinks and hardlinks alike.
  if (input && output && input.dev === output.dev && input.ino === output.ino) refuse();
}

/**
 * Converts a JSONL file row by row and returns the number of rows written. Rows stream into a temporary file that
 * is renamed into place at the end, so a failure never leaves a half-written output and never touches the input.
 */
export async function convertFile(inputPath: string, outputPath: string, options: { limit?: number } = {}): Promise<number> {
  const limit = options.limit;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) throw new InputError("limit must be an integer greater than zero");
  await assertDistinctFiles(inputPath, outputPath);
  const input = await open(inputPath, "r").catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`cannot read ${inputPath} (${error.code ?? "read error"})`);
  });
  const outputDir = dirname(resolve(outputPath));
  await mkdir(outputDir, { recursive: true });
  const temporaryPath = join(outputDir, `.${basename(outputPath)}.tmp`);
  const output = await open(temporaryPath, "w");
  let converted = 0;
  try {
    let lineNumber = 0;
    for await (const line of input.readLines({ encoding: "utf8" })) {
      lineNumber++;
      if (limit !== undefined && converted >= limit) break;
      if (line.trim() === "") continue;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        throw new InputError(`Invalid JSON at ${inputPath}:${lineNumber}`);
      }
      if (!isObject(row)) throw new InputError(`Expected an object at ${inputPath}:${lineNumber}`);
      let convertedLine: string;
      try {
        convertedLine = JSON.stringify(convertRow(row));
      } catch (error) {
        throw new InputError(`${inputPath}:${lineNumber}: ${(error as Error).message}`);
      }
      await output.write(`${convertedLine}\n`);
      converted++;
    }
    if (converted === 0) throw new InputError(`No rows converted from ${inputPath}`);
    await output.close();
    await rename(temporaryPath, outputPath);
    return converted;
  } catch (error) {
    await output.close().catch(() => undefined);
    await rm(temporaryPath, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    await input.close().catch(() => undefined);
  }
}
