// NeMo Gym's terminal_multi_harness comparison (its common/verification_utils.py and response_utils.py): the model's
// next action — a chat message, one tool call, or a batch of calls — against the expert's, with the harness's own
// rules for its tools (Codex, agent006, OpenCode, Stirrup). A tool call must validate against the declared tool's
// JSON Schema (openapi_schema_validator's OAS 3.1 validate, src/ports/structured/validate.ts) after stringified
// arrays and objects are decoded, name the expected tool, and use only keys the expected call has; then the
// harness's rule for that tool decides (difflib similarity of commands, queries, code; equality of paths, urls).
// Arguments are Python values as json.loads makes them, compared with Python's `==`.
import { z } from "zod";
import type { ResponseOutputItem } from "../../src/protocol/index.ts";
import { validateAgainstSchema } from "../../src/ports/structured/validate.ts";
import { sequenceRatio } from "../../src/python/difflib.ts";
import { AttributeError, PyJsonDecodeError } from "../../src/python/exception.ts";
import { pythonJsonDumpsTyped } from "../../src/python/json-dumps.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { compareStrings, pythonLower, pythonStrip } from "../../src/python/str.ts";
import { fromJsonValue, isPyDict, pythonEquals, type PyDict, type PyValue } from "../../src/python/values.ts";

// ---- actions ----

export const MessageActionSchema = z.object({ type: z.literal("message"), content: z.string() });
export const FunctionCallActionSchema = z.object({ type: z.literal("function_call"), name: z.string(), arguments: z.string() });
export const FunctionCallBatchActionSchema = z.object({ type: z.literal("function_call_batch"), calls: z.array(FunctionCallActionSchema), ordered: z.boolean().default(true) });
/** A row's `expected_action` (unknown keys dropped, as pydantic does). */
export const ActionSchema = z.discriminatedUnion("type", [MessageActionSchema, FunctionCallActionSchema, FunctionCallBatchActionSchema]);
export type FunctionCallAction = z.output<typeof FunctionCallActionSchema>;
export type Action = z.output<typeof ActionSchema>;

/** The text of a message's content: a string, or its output_text parts joined; null when there is none. */
function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts = content.filter((part) => part?.type === "output_text" && typeof part.text === "string").map((part) => part.text as string);
  return parts.length > 0 ? parts.join("") : null;
}

/**
 * The model's action: every function_call in output order (one → a call, several → a batch), else the assistant
 * messages' text joined (an empty text is still a message), else null.
 */
export function extractAction(output: readonly ResponseOutputItem[]): Action | null {
  const calls: FunctionCallAction[] = [];
  const texts: string[] = [];
  for (const item of output as { type: string; role?: string; name?: string; arguments?: string; content?: unknown }[]) {
    if (item.type === "function_call") calls.push({ type: "function_call", name: item.name!, arguments: item.arguments! });
    else if (item.type === "message" && item.role === "assistant") {
      const text = contentText(item.content);
      if (text !== null) texts.push(text);
    }
  }
  if (calls.length === 1) return calls[0]!;
  if (calls.length > 1) return { type: "function_call_batch", calls, ordered: true };
  return texts.length > 0 ? { type: "message", content: texts.join("") } : null;
}

// ---- results ----

/** NeMo Gym's StepRewardCategory: a verify response's `category` is the value. */
export const StepRewardCategory = {
  NO_ACTION_FOUND: "No tool call or chat message was found in the response",
  ACTION_TYPE_MISMATCH: "The actual action type does not match the expected action type",
  EMPTY_MESSAGE: "The assistant message is empty after trimming whitespace",
  EXPECTED_CHAT_MESSAGE_FOUND: "A chat message that matches the expected message was found",
  UNEXPECTED_TOOL: "The tool in a tool call is not the expected tool",
  ARGUMENTS_DECODE_ERROR: "An error occurred when decoding the arguments string in a tool call as JSON",
  ARGUMENTS_NOT_OBJECT: "The decoded tool-call arguments are not a JSON object",
  TOOL_SCHEMA_NOT_FOUND: "The declared tool schema for the tool call could not be found",
  TOOL_SCHEMA_VALIDATION_FAILED: "The actual tool-call arguments are not valid under the declared tool schema",
  UNEXPECTED_ARGUMENT_KEYS: "The actual tool-call arguments contain parameter keys absent from the expected answer",
  ARGUMENT_VALUE_MISMATCH: "The actual tool-call argument values do not match the expected answer",
  FUNCTION_CALL_BATCH_LENGTH_DIFFERENT: "The number of tool calls in a batch is different than expected",
  EXEC_COMMAND_MISSING_CMD: "The exec_command tool call does not contain a cmd argument",
  EXEC_COMMAND_CMD_SIMILARITY_BELOW_THRESHOLD: "The exec_command cmd similarity is below threshold",
  BASH_MISSING_COMMAND: "The bash tool call does not contain a command argument",
  BASH_COMMAND_SIMILARITY_BELOW_THRESHOLD: "The bash command similarity is below threshold",
  UPDATE_PLAN_EMPTY_PLAN: "The update_plan tool call does not contain a non-empty plan argument",
  EXECUTE_PYTHON_CODE_SIMILARITY_BELOW_THRESHOLD: "The execute_python code similarity is below threshold",
  RETURN_RESULT_SIMILARITY_BELOW_THRESHOLD: "The return_result result similarity is below threshold",
  TODOWRITE_EMPTY_TODOS: "The todowrite tool call does not contain a non-empty todos list",
  EXPECTED_TOOL_CALL: "A tool call that matches the expected tool call was found",
  EXPECTED_TOOL_CALL_BATCH: "A tool-call batch that matches the expected batch was found",
  WEB_SEARCH_QUERY_SIMILARITY_BELOW_THRESHOLD: "The web_search query similarity is below threshold",
  WEB_SEARCH_MISSING_QUERY: "The web_search tool call does not contain a query argument",
  FETCH_WEB_PAGE_MISSING_URL: "The fetch_web_page tool call does not contain a url argument",
  FETCH_WEB_PAGE_URLS_DO_NOT_MATCH: "The fetch_web_page urls do not match the expected urls",
  FINISH_MISSING_REASON: "The finish tool call does not contain a reason argument",
  FINISH_MISSING_PATHS: "The finish tool call does not contain a paths argument",
  FINISH_REASON_SIMILARITY_BELOW_THRESHOLD: "The finish reason similarity is below threshold",
  FINISH_PATHS_DO_NOT_MATCH: "The finish paths do not match the expected paths",
} as const;
export type StepRewardCategory = (typeof StepRewardCategory)[keyof typeof StepRewardCategory];

export interface Comparison {
  matches: boolean;
  category: StepRewardCategory;
  similarity_score?: number;
}

const miss = (category: StepRewardCategory, similarity_score?: number): Comparison => ({ matches: false, category, ...(similarity_score === undefined ? {} : { similarity_score }) });
const hit = (category: StepRewardCategory = StepRewardCategory.EXPECTED_TOOL_CALL, similarity_score?: number): Comparison => ({ matches: true, category, ...(similarity_score === undefined ? {} : { similarity_score }) });

/**
 * Arguments that are no JSON object: NeMo Gym's comparator hands its DecodedArgumentsResult up where a comparison
 * result is read, and verify fails on `.matches` (a 500). Kept: such a call gets no reward there, and none here.
 */
export class ArgumentsNotComparable extends AttributeError {
  constructor(readonly category: StepRewardCategory) {
    super("'DecodedArgumentsResult' object has no attribute 'matches'");
  }
}

export const ToolCallComparatorConfigSchema = z.object({
  string_similarity_threshold: z.number(),
  floating_point_comparison_threshold: z.number().default(1e-6),
  ignored_argument_keys_by_tool: z.record(z.string(), z.array(z.string())).default({}),
});
export type ToolCallComparatorConfig = z.output<typeof ToolCallComparatorConfigSchema>;

// ---- helpers with Python's meaning ----

type Args = PyDict;
const get = (args: Args, key: string): PyValue | null => (args.has(key) ? args.get(key)! : null);
const truthyString = (value: PyValue | null): value is string => typeof value === "string" && value !== "";
const normalizeCommand = (text: string) => pythonStrip(text.replace(/\r\n/g, "\n").replace(/\r/g, "\n"));
const normalizeWebText = (text: string) => pythonStrip(pythonLower(text));
const isListOfStrings = (value: PyValue | null): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");
const normalizePaths = (paths: string[]) => paths.map((path) => pythonStrip(path)).sort(compareStrings);

function isNonEmpty(value: PyValue | null): boolean {
  if (value === null) return false;
  if (typeof value === "string") return pythonStrip(value) !== "";
  if (Array.isArray(value)) return value.length > 0;
  if (isPyDict(value)) return value.size > 0;
  return true;
}

/** `json.loads(arguments)` that must give an object. */
function decodeArguments(text: string): Args {
  let decoded: PyValue;
  try {
    decoded = pythonJsonLoads(text);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) throw new ArgumentsNotComparable(StepRewardCategory.ARGUMENTS_DECODE_ERROR);
    throw error;
  }
  if (!isPyDict(decoded)) throw new ArgumentsNotComparable(StepRewardCategory.ARGUMENTS_NOT_OBJECT);
  return decoded;
}

/** A declared tool list as `{name: parameters schema}`: OpenAI's `{function: {name, parameters}}` or the flat form; a later one wins. */
export function declaredToolSchemas(declaredTools: readonly unknown[]): Map<string, PyDict> {
  const schemas = new Map<string, PyDict>();
  for (const tool of declaredTools) {
    if (typeof tool !== "object" || tool === null || Array.isArray(tool)) continue;
    const definition = tool as Record<string, unknown>;
    const fn = definition.function;
    const source = typeof fn === "object" && fn !== null && !Array.isArray(fn) ? (fn as Record<string, unknown>) : definition;
    const schema = source.parameters;
    if (typeof source.name === "string" && typeof schema === "object" && schema !== null && !Array.isArray(schema)) schemas.set(source.name, fromJsonValue(schema) as PyDict);
  }
  return schemas;
}

/** Top-level properties declared `array` / `object` whose value is a string holding one: decoded in place. */
function coerceJsonStringArguments(args: Args, schema: PyDict): void {
  const properties = schema.get("properties");
  if (!isPyDict(properties)) return;
  for (const [name, propertySchema] of properties) {
    if (!args.has(name) || !isPyDict(propertySchema)) continue;
    const value = args.get(name)!;
    if (typeof value !== "string") continue;
    let parsed: PyValue;
    try {
      parsed = pythonJsonLoads(value);
    } catch (error) {
      if (error instanceof PyJsonDecodeError) continue;
      throw error;
    }
    const declaredType = propertySchema.get("type");
    if ((declaredType === "array" && Array.isArray(parsed)) || (declaredType === "object" && isPyDict(parsed))) args.set(name, parsed);
  }
}

// ---- the comparator ----

export interface CompareOptions {
  declaredTools: readonly unknown[];
  thresholdOverride: number | null;
  harness: string;
}

export class ActionComparator {
  constructor(private readonly config: ToolCallComparatorConfig) {}

  private threshold(options: CompareOptions): number {
    return options.thresholdOverride ?? this.config.string_similarity_threshold;
  }

  /** The expected action against the model's; throws {@link ArgumentsNotComparable} where NeMo Gym's verify fails. */
  compareAction(expected: Action, actual: Action, options: CompareOptions): Comparison {
    const schemas = declaredToolSchemas(options.declaredTools);
    if (expected.type === "message") {
      if (actual.type !== "message") return miss(StepRewardCategory.ACTION_TYPE_MISMATCH);
      return pythonStrip(actual.content) !== "" ? hit(StepRewardCategory.EXPECTED_CHAT_MESSAGE_FOUND) : miss(StepRewardCategory.EMPTY_MESSAGE);
    }
    if (expected.type === "function_call") {
      if (actual.type !== "function_call") return miss(StepRewardCategory.ACTION_TYPE_MISMATCH);
      return this.compareToolCall(expected, actual, schemas, options);
    }
    if (actual.type !== "function_call_batch") return miss(StepRewardCategory.ACTION_TYPE_MISMATCH);
    if (expected.calls.length !== actual.calls.length) return miss(StepRewardCategory.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT);
    // Both sides in one canonical order (name, then the arguments' sorted compact JSON); `ordered` is not read.
    const sorted = (calls: FunctionCallAction[]) =>
      calls.map((call) => ({ call, key: [call.name, sortKeyArguments(call.arguments)] as const })).sort((a, b) => compareStrings(a.key[0], b.key[0]) || compareStrings(a.key[1], b.key[1])).map(({ call }) => call);
    const expectedCalls = sorted(expected.calls);
    const actualCalls = sorted(actual.calls);
    for (let i = 0; i < expectedCalls.length; i++) {
      const result = this.compareToolCall(expectedCalls[i]!, actualCalls[i]!, schemas, options);
      if (!result.matches) return result;
    }
    return hit(StepRewardCategory.EXPECTED_TOOL_CALL_BATCH);
  }

  private compareToolCall(expected: FunctionCallAction, actual: FunctionCallAction, schemas: Map<string, PyDict>, options: CompareOptions): Comparison {
    const expectedArgs = decodeArguments(expected.arguments);
    const actualArgs = decodeArguments(actual.arguments);
    const schema = schemas.get(actual.name);
    if (schema === undefined) return miss(StepRewardCategory.TOOL_SCHEMA_NOT_FOUND);
    coerceJsonStringArguments(actualArgs, schema);
    try {
      validateAgainstSchema(actualArgs, schema, pythonJsonDumpsTyped(schema));
    } catch {
      // NeMo Gym catches every exception of the validator (an invalid schema included).
      return miss(StepRewardCategory.TOOL_SCHEMA_VALIDATION_FAILED);
    }
    if (expected.name !== actual.name) return miss(StepRewardCategory.UNEXPECTED_TOOL);
    if ([...actualArgs.keys()].some((key) => !expectedArgs.has(key))) return miss(StepRewardCategory.UNEXPECTED_ARGUMENT_KEYS);
    return this.compareForHarness(options.harness, expected.name, expectedArgs, actualArgs, options) ?? hit();
  }

  private compareForHarness(harness: string, tool: string, expected: Args, actual: Args, options: CompareOptions): Comparison | null {
    const rules: Record<string, Record<string, () => Comparison>> = {
      codex: {
        exec_command: () => this.similarText(get(expected, "cmd"), get(actual, "cmd"), "EXEC_COMMAND", options),
        update_plan: () => (isNonEmpty(get(actual, "plan")) ? hit() : miss(StepRewardCategory.UPDATE_PLAN_EMPTY_PLAN)),
      },
      agent006: {
        execute_python: () => this.executePython(expected, actual, options),
        return_result: () => {
          const serialize = (args: Args) => pythonJsonDumpsTyped(get(args, "result"), { sortKeys: true });
          return this.scored(sequenceRatio(serialize(expected), serialize(actual)), StepRewardCategory.RETURN_RESULT_SIMILARITY_BELOW_THRESHOLD, options);
        },
      },
      opencode: {
        bash: () => this.similarText(get(expected, "command"), get(actual, "command"), "BASH", options),
        todowrite: () => todowrite(expected, actual),
        read: () => sameValues(expected, actual, ["filePath"]),
        write: () => sameValues(expected, actual, ["filePath"]),
        edit: () => edit(expected, actual),
        glob: () => sameValues(expected, actual, ["pattern", "path"]),
        grep: () => sameValues(expected, actual, ["pattern", "path", "include"]),
        webfetch: () => sameValues(expected, actual, ["url", "format"]),
        skill: () => sameValues(expected, actual, ["name"]),
        task: () => sameValues(expected, actual, ["subagent_type"]),
      },
      stirrup: {
        code_exec: () => this.similarText(get(expected, "cmd"), get(actual, "cmd"), "EXEC_COMMAND", options),
        web_search: () => this.webSearch(expected, actual, options),
        fetch_web_page: () => fetchWebPage(expected, actual),
        finish: () => this.finish(expected, actual, options),
      },
    };
    const rule = Object.hasOwn(rules, harness) && Object.hasOwn(rules[harness]!, tool) ? rules[harness]![tool]! : undefined;
    return rule ? rule() : null;
  }

  private scored(similarity: number, below: StepRewardCategory, options: CompareOptions): Comparison {
    return similarity < this.threshold(options) ? miss(below, similarity) : hit(StepRewardCategory.EXPECTED_TOOL_CALL, similarity);
  }

  /** exec_command / code_exec (`cmd`) and OpenCode's bash (`command`): both strings, line ends normalised, stripped. */
  private similarText(expected: PyValue | null, actual: PyValue | null, kind: "EXEC_COMMAND" | "BASH", options: CompareOptions): Comparison {
    const missing = kind === "EXEC_COMMAND" ? StepRewardCategory.EXEC_COMMAND_MISSING_CMD : StepRewardCategory.BASH_MISSING_COMMAND;
    if (typeof actual !== "string" || typeof expected !== "string") return miss(missing);
    const below = kind === "EXEC_COMMAND" ? StepRewardCategory.EXEC_COMMAND_CMD_SIMILARITY_BELOW_THRESHOLD : StepRewardCategory.BASH_COMMAND_SIMILARITY_BELOW_THRESHOLD;
    return this.scored(sequenceRatio(normalizeCommand(expected), normalizeCommand(actual)), below, options);
  }

  private executePython(expected: Args, actual: Args, options: CompareOptions): Comparison {
    const actualCode = get(actual, "code");
    const expectedCode = get(expected, "code");
    const nonBlank = (code: PyValue | null): code is string => typeof code === "string" && pythonStrip(code) !== "";
    if (!nonBlank(actualCode) || !nonBlank(expectedCode)) return miss(StepRewardCategory.ARGUMENT_VALUE_MISMATCH);
    return this.scored(sequenceRatio(expectedCode, actualCode), StepRewardCategory.EXECUTE_PYTHON_CODE_SIMILARITY_BELOW_THRESHOLD, options);
  }

  private webSearch(expected: Args, actual: Args, options: CompareOptions): Comparison {
    const actualQuery = get(actual, "query");
    const expectedQuery = get(expected, "query");
    if (!truthyString(actualQuery) || !truthyString(expectedQuery)) return miss(StepRewardCategory.WEB_SEARCH_MISSING_QUERY);
    return this.scored(sequenceRatio(normalizeWebText(expectedQuery), normalizeWebText(actualQuery)), StepRewardCategory.WEB_SEARCH_QUERY_SIMILARITY_BELOW_THRESHOLD, options);
  }

  private finish(expected: Args, actual: Args, options: CompareOptions): Comparison {
    const actualReason = get(actual, "reason");
    const expectedReason = get(expected, "reason");
    if (!truthyString(actualReason) || !truthyString(expectedReason)) return miss(StepRewardCategory.FINISH_MISSING_REASON);
    const actualPaths = get(actual, "paths");
    const expectedPaths = get(expected, "paths");
    if (!isListOfStrings(actualPaths) || actualPaths.length === 0 || !isListOfStrings(expectedPaths) || expectedPaths.length === 0) return miss(StepRewardCategory.FINISH_MISSING_PATHS);
    const [a, e] = [normalizePaths(actualPaths), normalizePaths(expectedPaths)];
    if (a.length !== e.length || a.some((path, i) => path !== e[i])) return miss(StepRewardCategory.FINISH_PATHS_DO_NOT_MATCH);
    // NeMo Gym compares the actual reason against the expected one here (difflib's ratio is not symmetric).
    return this.scored(sequenceRatio(normalizeWebText(actualReason), normalizeWebText(expectedReason)), StepRewardCategory.FINISH_REASON_SIMILARITY_BELOW_THRESHOLD, options);
  }
}

/** The batch sort key's arguments: `json.dumps(decoded, sort_keys=True, separators=(",", ":"))`, or the text itself. */
function sortKeyArguments(text: string): string {
  let decoded: PyValue;
  try {
    decoded = pythonJsonLoads(text);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) return text;
    throw error;
  }
  if (!isPyDict(decoded)) return text;
  return pythonJsonDumpsTyped(decoded, { sortKeys: true, separators: [",", ":"] });
}

const sameValues = (expected: Args, actual: Args, keys: string[]): Comparison =>
  keys.every((key) => pythonEquals(get(expected, key), get(actual, key))) ? hit() : miss(StepRewardCategory.ARGUMENT_VALUE_MISMATCH);

function edit(expected: Args, actual: Args): Comparison {
  if (!pythonEquals(get(expected, "filePath"), get(actual, "filePath"))) return miss(StepRewardCategory.ARGUMENT_VALUE_MISMATCH);
  if (pythonEquals(get(actual, "oldString"), get(actual, "newString"))) return miss(StepRewardCategory.ARGUMENT_VALUE_MISMATCH);
  return pythonEquals(get(expected, "replaceAll"), get(actual, "replaceAll")) ? hit() : miss(StepRewardCategory.ARGUMENT_VALUE_MISMATCH);
}

function todowrite(expected: Args, actual: Args): Comparison {
  const expectedTodos = get(expected, "todos");
  const actualTodos = get(actual, "todos");
  if (Array.isArray(expectedTodos) && expectedTodos.length === 0) {
    return Array.isArray(actualTodos) && actualTodos.length === 0 ? hit() : miss(StepRewardCategory.ARGUMENT_VALUE_MISMATCH);
  }
  if (!Array.isArray(expectedTodos) || !Array.isArray(actualTodos)) return miss(StepRewardCategory.TODOWRITE_EMPTY_TODOS);
  if (expectedTodos.length !== actualTodos.length) return miss(StepRewardCategory.ARGUMENT_VALUE_MISMATCH);
  for (let i = 0; i < expectedTodos.length; i++) {
    const [e, a] = [expectedTodos[i]!, actualTodos[i]!];
    if (!isPyDict(e) || !isPyDict(a)) return miss(StepRewardCategory.ARGUMENT_VALUE_MISMATCH);
    for (const key of ["status", "priority"]) if (!pythonEquals(get(e, key), get(a, key))) return miss(StepRewardCategory.ARGUMENT_VALUE_MISMATCH);
  }
  return hit();
}

function fetchWebPage(expected: Args, actual: Args): Comparison {
  const actualUrl = get(actual, "url");
  const expectedUrl = get(expected, "url");
  if (!truthyString(actualUrl) || !truthyString(expectedUrl)) return miss(StepRewardCategory.FETCH_WEB_PAGE_MISSING_URL);
  return normalizeWebText(expectedUrl) === normalizeWebText(actualUrl) ? hit() : miss(StepRewardCategory.FETCH_WEB_PAGE_URLS_DO_NOT_MATCH);
}
