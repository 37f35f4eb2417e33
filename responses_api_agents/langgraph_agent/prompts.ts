// The graphs' prompt texts are NeMo Gym's (project rule: their text is never committed here). They sit in NeMo Gym's
// graph modules as module constants (DECOMPOSE_PROMPT, PLAN_PROMPT, DEFAULT_PERSPECTIVE_PROMPTS, …) and a few
// string literals inside the nodes (the critique question, the sub-task instruction, the fill-in perspective). The
// module is read as data: `prompts_module_fpath` when set, else NeMo Gym's own file at the pinned commit, fetched on
// first use into nemo_gym/ (git-ignored) and checked against its sha256. A module that is neither here nor fetchable
// is a 501 naming it; one whose texts cannot be read is a 500 naming what is missing.
import { isAbsolute, join } from "node:path";
import { extractNemoGymText, readNemoGymServerFile } from "../../src/server/index.ts";
import { readPythonConstants } from "../../src/python/literal.ts";

export type GraphModule = "orchestrator_agent" | "parallel_thinking_agent" | "reflection_agent" | "rewoo_agent";

/** The module's source: the configured file, or NeMo Gym's pinned copy (fetched into nemo_gym/ when absent). */
export function readGraphModule(graph: GraphModule, fpath: string | undefined): Promise<string> {
  if (fpath !== undefined) {
    const path = isAbsolute(fpath) ? fpath : join(import.meta.dirname, fpath);
    return readNemoGymServerFile(path, undefined);
  }
  return readNemoGymServerFile(join(import.meta.dirname, "nemo_gym", `${graph}.py`), `responses_api_agents/langgraph_agent/${graph}.py`, "set prompts_module_fpath");
}

/** A module-level `NAME = """..."""` string constant (only its own assignment is read). */
export function moduleString(source: string, graph: GraphModule, name: string): string {
  return extractNemoGymText(source, { repoPath: `responses_api_agents/langgraph_agent/${graph}.py`, extract: { kind: "python_constant", name } });
}

/** A module-level `NAME = [\n  "...",\n]` list of strings (its assignment up to the `]` that closes it at column 0). */
export function moduleStringList(source: string, graph: GraphModule, name: string): string[] {
  const start = new RegExp(`^${name}\\s*=\\s*\\[`, "m").exec(source);
  const end = start ? source.indexOf("\n]", start.index) : -1;
  if (!start || end < 0) throw new Error(`${graph}.py has no module-level list ${name}`);
  const value = readPythonConstants(`${source.slice(start.index, end + 2)}\n`, [name])[name];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) throw new Error(`${graph}.py: ${name} is not a list of strings`);
  return value;
}

/**
 * The double-quoted string literal (one line, Python escapes) that `before` is followed by in the module: `before`
 * is a regular expression source for the code just in front of the opening quote.
 */
export function literalAfter(source: string, graph: GraphModule, before: string, what: string): string {
  const found = new RegExp(`${before}"((?:[^"\\\\\\n]|\\\\.)*)"`).exec(source);
  if (!found) throw new Error(`${graph}.py: cannot find ${what}`);
  const value = readPythonConstants(`TEXT = "${found[1]}"\n`, ["TEXT"]).TEXT;
  if (typeof value !== "string") throw new Error(`${graph}.py: ${what} is not a string`);
  return value;
}

/** An f-string's text used as a template: its one `{field}` is replaced by the value (literally, once). */
export function fillFString(template: string, field: string, value: string, graph: GraphModule): string {
  const marker = `{${field}}`;
  const at = template.indexOf(marker);
  if (at < 0 || template.indexOf(marker, at + 1) >= 0 || /\{\{|\}\}/.test(template)) throw new Error(`${graph}.py: the f-string ${JSON.stringify(template)} is not one {${field}} in plain text`);
  return template.slice(0, at) + value + template.slice(at + marker.length);
}

/** Texts read once per (graph, configured path): the source stays pinned, so they never change within a process. */
const cache = new Map<string, Promise<unknown>>();
export function cachedTexts<Texts>(graph: GraphModule, fpath: string | undefined, read: (source: string) => Texts): Promise<Texts> {
  const key = `${graph}\0${fpath ?? ""}`;
  let texts = cache.get(key) as Promise<Texts> | undefined;
  if (!texts) {
    texts = readGraphModule(graph, fpath).then(read);
    cache.set(key, texts);
    texts.catch(() => cache.delete(key));
  }
  return texts;
}
