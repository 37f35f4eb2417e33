// NeMo Gym's swe_pivot checks, apart from the server: the tool categories, the argument extractors and the layered
// comparison of the model's next tool call with the expert's (tool name, target, argument similarity, edit size).
// Arguments are Python values (src/python/values.ts) as json.loads makes them, and every operation keeps Python's
// meaning on them — `key in args` of a string is a substring test, `args.get` of a list is an AttributeError —
// because NeMo Gym's verify turns any exception into failure_reason `unknown_error` (reward 0), and so does this port.
import { sequenceRatio } from "../../src/python/difflib.ts";
import { AttributeError, OverflowError, PyJsonDecodeError, ValueError } from "../../src/python/exception.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { trueDivide } from "../../src/python/math.ts";
import { pythonIntBig } from "../../src/python/numbers.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonLen, pythonLower, pythonRstrip, pythonSlice, pythonStrip, splitWhitespace } from "../../src/python/str.ts";
import { isPyDict, pythonContains, pythonGetItem, pythonStr, pythonTypeName, type PyValue } from "../../src/python/values.ts";

// ---- tool categories ----

const CATEGORY_NAMES: [string, string[]][] = [
  ["edit", ["str_replace_editor", "text_editor", "file_editor", "code_editor", "edit_file", "modify_file", "update_file", "file_edit", "edit", "modify", "apply_patch", "patch_file", "apply_diff", "apply_changes", "write", "write_file", "save_file", "create_file"]],
  ["bash", ["execute_bash", "run_bash", "bash_exec", "shell_run", "shell", "bash", "terminal", "shell_command", "shell_cmd", "run_shell_cmd", "exec_command", "exec_cmd"]],
  ["search", ["grep", "search_text", "find_pattern", "text_search", "glob", "find_files", "file_glob", "match_files", "grep_files", "search_files", "find_in_files", "code_search", "list_dir", "ls", "show_dir", "ls_dir", "list_directory"]],
  ["read", ["read", "read_file", "view_file", "cat_file", "view", "file_view", "inspect", "show_file", "read_file_content"]],
  ["finish", ["finish", "submit"]],
  ["think", ["think"]],
  ["planning", ["task_tracker", "todo_tracker", "plan_tracker", "todo_read", "todo_write", "update_plan", "list_tasks", "update_tasks", "read_todos", "write_todos", "edit_plan", "modify_plan"]],
];

/** Lower-cased tool name → category: every name and its CamelCase form (`StrReplaceEditor`), a later one winning. */
const TOOL_CATEGORIES = new Map<string, string>();
for (const [category, names] of CATEGORY_NAMES) {
  for (const name of names) {
    TOOL_CATEGORIES.set(name.toLowerCase(), category);
    const camel = name.split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()).join("");
    TOOL_CATEGORIES.set(camel.toLowerCase(), category);
  }
}

/** `name.lower()`: a tool name that is no string is Python's AttributeError. */
function lower(name: PyValue): string {
  if (typeof name !== "string") throw new AttributeError(`'${pythonTypeName(name)}' object has no attribute 'lower'`);
  return pythonLower(name);
}

export const toolCategory = (name: PyValue): string => TOOL_CATEGORIES.get(lower(name)) ?? "unknown";

// ---- Python's dict operations on whatever the arguments decoded to ----

/** `args.get(key, fallback)`: only a dict has `.get`. */
function get(args: PyValue, key: string, fallback: PyValue): PyValue {
  if (!isPyDict(args)) throw new AttributeError(`'${pythonTypeName(args)}' object has no attribute 'get'`);
  return args.has(key) ? args.get(key)! : fallback;
}

const has = (args: PyValue, key: string): boolean => pythonContains(args, key);

/** `_parse_arguments`: a dict as it is, a string decoded (`{}` when it is no JSON), anything else `{}`. */
export function parseArguments(raw: PyValue): PyValue {
  if (isPyDict(raw)) return raw;
  if (typeof raw === "string") {
    try {
      return pythonJsonLoads(raw);
    } catch (error) {
      if (error instanceof PyJsonDecodeError) return new Map();
      throw error;
    }
  }
  return new Map();
}

/** The target file: the first of path, file, file_path, filename, file_name present, as str() and stripped. */
export function extractFilePath(args: PyValue): string {
  for (const key of ["path", "file", "file_path", "filename", "file_name"]) if (has(args, key)) return pythonStrip(pythonStr(pythonGetItem(args, key)));
  return "";
}

/** The last `n` components of a path (a leading or trailing "/" ignored). */
export function pathSuffix(path: string, components = 3): string {
  return pythonStrip(path, "/").split("/").slice(-components).join("/");
}

/** The shell command: `command`, else `cmd`, as str() and stripped. */
export function extractCommand(args: PyValue): string {
  for (const key of ["command", "cmd"]) if (has(args, key)) return pythonStrip(pythonStr(pythonGetItem(args, key)));
  return "";
}

/** What an edit writes: old_str and new_str (one per line), else the patch, the diff, or the content / file_text. */
export function extractEditContent(args: PyValue): string {
  const parts: string[] = [];
  if (has(args, "new_str")) parts.push(pythonStr(get(args, "old_str", "")), pythonStr(pythonGetItem(args, "new_str")));
  else if (has(args, "patch")) parts.push(pythonStr(pythonGetItem(args, "patch")));
  else if (has(args, "diff")) parts.push(pythonStr(pythonGetItem(args, "diff")));
  else if (has(args, "content") || has(args, "file_text")) {
    const fileText = get(args, "file_text", "");
    parts.push(pythonStr(get(args, "content", fileText)));
  }
  return parts.join("\n");
}

/** The command's first word without its directory (`/usr/bin/grep` → `grep`). */
export function extractCommandVerb(command: string): string {
  const words = splitWhitespace(pythonStrip(command));
  if (words.length === 0) return "";
  return words[0]!.slice(words[0]!.lastIndexOf("/") + 1);
}

// Absolute paths, ./ or ../ relative ones, and dir/file words, after whitespace, =, a quote, ( or the start.
const PATH_IN_COMMAND = compilePythonRegex(String.raw`(?:^|[\s='"(])((?:/[\w._-]+)+|\.\.?/[\w._/-]+|[\w._-]+/[\w._/-]+)`);

/** The paths a shell command names (options and paths of two characters or fewer left out). */
export function pathsInCommand(command: string): string[] {
  if (!command) return [];
  return PATH_IN_COMMAND.findall<string>(command).filter((path) => !path.startsWith("--") && pythonLen(path) > 2);
}

const editorCommand = (args: PyValue): string => pythonStr(get(args, "command", ""));

/** Python's `int(value)` of a decoded JSON value: ints, bools, floats truncated, digit strings; else ValueError / TypeError. */
function pythonIntOf(value: PyValue): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "boolean") return value ? 1n : 0n;
  if (typeof value === "number") {
    if (Number.isNaN(value)) throw new ValueError("cannot convert float NaN to integer");
    if (!Number.isFinite(value)) throw new OverflowError("cannot convert float infinity to integer");
    return BigInt(Math.trunc(value));
  }
  if (typeof value === "string") return pythonIntBig(value);
  throw new TypeError(`int() argument must be a string, a bytes-like object or a real number, not '${pythonTypeName(value)}'`);
}

/** `_parse_view_range`: a `[start, end]` list (or its JSON text) as ints; null for anything else. An infinite bound raises. */
export function parseViewRange(raw: PyValue): [bigint, bigint] | null {
  const pair = (list: PyValue): [bigint, bigint] | null => {
    try {
      return [pythonIntOf((list as PyValue[])[0]!), pythonIntOf((list as PyValue[])[1]!)];
    } catch (error) {
      if (error instanceof ValueError || error instanceof TypeError) return null;
      throw error;
    }
  };
  if (raw === null) return null;
  if (Array.isArray(raw) && raw.length === 2) return pair(raw);
  if (typeof raw === "string") {
    let parsed: PyValue;
    try {
      parsed = pythonJsonLoads(raw);
    } catch (error) {
      if (error instanceof PyJsonDecodeError) return null;
      throw error;
    }
    if (Array.isArray(parsed) && parsed.length === 2) return pair(parsed);
  }
  return null;
}

// ---- the levels ----

export interface ToolCall {
  name: PyValue;
  category: string;
  args: PyValue;
}

/** `extract_tool_info`: the name, its category and the decoded arguments of a `{name, arguments}` call. */
export function toolInfo(call: { name: PyValue; arguments: PyValue }): ToolCall {
  const args = parseArguments(call.arguments);
  return { name: call.name, category: toolCategory(call.name), args };
}

/** Level 0: the same tool (names equal ignoring case), or tools of the same known category. */
export function toolNameMatches(rollout: ToolCall, expected: ToolCall): boolean {
  if (lower(rollout.name) === lower(expected.name)) return true;
  return rollout.category === expected.category && rollout.category !== "unknown";
}

const BASH_TARGET_SIMILARITY_FLOOR = 0.3;
const MAX_SIMILARITY_CHARS = 2000;

/** difflib's ratio of the first 2000 characters of each. */
export const cappedSimilarity = (a: string, b: string): number => sequenceRatio(pythonSlice(a, 0, MAX_SIMILARITY_CHARS), pythonSlice(b, 0, MAX_SIMILARITY_CHARS));

/** Level 1: does the call work on the same target (file, editor sub-command, view range, command and its paths)? */
export function targetMatches(rollout: ToolCall, expected: ToolCall): boolean {
  const [r, e] = [rollout.args, expected.args];
  if (rollout.category === "edit" && expected.category === "edit") {
    const rCommand = editorCommand(r);
    const eCommand = editorCommand(e);
    if (rCommand && eCommand && rCommand !== eCommand) return false;
    const rFile = extractFilePath(r);
    const eFile = extractFilePath(e);
    if (rFile && eFile && pathSuffix(rFile, 2) !== pathSuffix(eFile, 2)) return false;
    if (rCommand === "view" && eCommand === "view") {
      const rRange = parseViewRange(get(r, "view_range", null));
      const eRange = parseViewRange(get(e, "view_range", null));
      // No range views the whole file, which covers any expected range.
      if (rRange && eRange) {
        const overlapStart = rRange[0] > eRange[0] ? rRange[0] : eRange[0];
        const overlapEnd = rRange[1] < eRange[1] ? rRange[1] : eRange[1];
        const overlapSize = overlapEnd - overlapStart > 0n ? overlapEnd - overlapStart : 0n;
        const expectedSize = eRange[1] - eRange[0] > 1n ? eRange[1] - eRange[0] : 1n;
        if (trueDivide(overlapSize, expectedSize) < 0.8) return false;
      }
    }
    return true;
  }
  if (rollout.category === "bash" && expected.category === "bash") {
    const rCommand = extractCommand(r);
    const eCommand = extractCommand(e);
    const rVerb = extractCommandVerb(rCommand);
    const eVerb = extractCommandVerb(eCommand);
    if (rVerb && eVerb && rVerb !== eVerb) return false;
    const rPaths = pathsInCommand(rCommand);
    const ePaths = pathsInCommand(eCommand);
    if (rPaths.length > 0 && ePaths.length > 0) {
      const suffixes = (paths: string[]) => new Set(paths.map((path) => pathSuffix(pythonRstrip(path, "/"))).filter((suffix) => suffix !== ""));
      const rSuffixes = suffixes(rPaths);
      const eSuffixes = suffixes(ePaths);
      if (rSuffixes.size > 0 && eSuffixes.size > 0 && ![...rSuffixes].some((suffix) => eSuffixes.has(suffix))) return false;
    }
    if (rCommand && eCommand && cappedSimilarity(rCommand, eCommand) < BASH_TARGET_SIMILARITY_FLOOR) return false;
    return true;
  }
  const readsOrSearches = (category: string) => category === "search" || category === "read";
  if (readsOrSearches(rollout.category) && readsOrSearches(expected.category)) {
    const rFile = extractFilePath(r);
    const eFile = extractFilePath(e);
    if (rFile && eFile) return pathSuffix(rFile) === pathSuffix(eFile);
    return true;
  }
  return true;
}

/** Level 2: how alike the arguments are — for a str_replace the smaller of the old_str and new_str ratios. */
export function argumentSimilarity(rollout: ToolCall, expected: ToolCall): number {
  const [r, e] = [rollout.args, expected.args];
  if (rollout.category === "edit" && expected.category === "edit") {
    const rOld = pythonStr(get(r, "old_str", ""));
    const eOld = pythonStr(get(e, "old_str", ""));
    const rNew = pythonStr(get(r, "new_str", ""));
    const eNew = pythonStr(get(e, "new_str", ""));
    if ((rOld || rNew) && (eOld || eNew)) {
      const ratio = (a: string, b: string) => (a && b ? cappedSimilarity(a, b) : a === b ? 1.0 : 0.0);
      return Math.min(ratio(rOld, eOld), ratio(rNew, eNew));
    }
    const rContent = extractEditContent(r);
    const eContent = extractEditContent(e);
    if (rContent && eContent) return cappedSimilarity(rContent, eContent);
    if (Boolean(rContent) !== Boolean(eContent)) return 0.0;
    return 1.0;
  }
  if (rollout.category === "bash" && expected.category === "bash") {
    const rCommand = extractCommand(r);
    const eCommand = extractCommand(e);
    return rCommand && eCommand ? cappedSimilarity(rCommand, eCommand) : 1.0;
  }
  return 1.0;
}

/** Level 4: alpha × min(size of the edit / 500, 1) for an edit, else 0. */
export function diffSizePenalty(rollout: ToolCall, alpha: number): number {
  if (rollout.category !== "edit") return 0.0;
  const content = extractEditContent(rollout.args);
  if (!content) return 0.0;
  return alpha * Math.min(pythonLen(content) / 500, 1.0);
}
