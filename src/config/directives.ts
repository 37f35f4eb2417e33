// NeMo Gym's config directives, applied after merging and before interpolation:
//   key: {_inherit_from: a.b, ...overrides}   key becomes a.b merged with the overrides; a.b is REMOVED
//   key: "${inherit_from:a.b}"                same, without overrides
//   key: {_copy: a.b, ...overrides}           like _inherit_from, but a.b stays
//   key: "${copy:a.b}"
//   key: {_delete_key: "k1, k2", ...}          drop k1 and k2 from the node (after inheriting/copying)
// Sources are read from the config as it was before any directive ran (so two nodes can inherit from the same
// source). If a source itself carries directives, they are applied to the copy too.
import { ConfigError } from "./errors.ts";
import { deepClone, deepMerge, formatPath, hasOwn, isDict, type PathSegment } from "./dict.ts";
import { COPY_KEY, DELETE_KEY_KEY, INHERIT_FROM_KEY, MISSING_VALUE, type ConfigDict } from "./types.ts";

interface Directive {
  mode: "inherit" | "copy";
  source: string;
}

const STRING_DIRECTIVE = /^\$\{\s*(inherit_from|copy)\s*:\s*([^}]*?)\s*\}$/;

/** Apply `_inherit_from` / `_copy` / `_delete_key` (and their `${...}` string forms). Returns a new dict. */
export function applyDirectives(config: ConfigDict): ConfigDict {
  const root = deepClone(config);
  const frozen = deepClone(config);
  const context: Context = { root, frozen };
  for (const key of Object.keys(root)) processEntry(context, root, key, [key], []);
  return root;
}

interface Context {
  root: ConfigDict;
  frozen: ConfigDict;
}

type Container = ConfigDict | unknown[];

function getChild(container: Container, key: string | number): unknown {
  return Array.isArray(container) ? container[key as number] : container[key as string];
}

function setChild(container: Container, key: string | number, value: unknown): void {
  if (Array.isArray(container)) container[key as number] = value;
  else container[key as string] = value;
}

function processEntry(context: Context, container: Container, key: string | number, path: PathSegment[], chain: string[]): void {
  // An earlier inherit may have removed this entry already.
  if (!Array.isArray(container) && !hasOwn(container, key as string)) return;
  const value = getChild(container, key);
  const where = formatPath(path);

  // Delete first, so deleted keys are never inherited into or resolved; keys that only arrive with the
  // inherited/copied source are deleted after the swap below.
  let pendingDeletes: string[] = [];
  if (isDict(value) && hasOwn(value, DELETE_KEY_KEY)) {
    const keys = parseDeleteKeys(value[DELETE_KEY_KEY], where);
    delete value[DELETE_KEY_KEY];
    for (const name of keys) {
      if (hasOwn(value, name)) delete value[name];
      else pendingDeletes.push(name);
    }
  }

  const directive = detectDirective(value, where);
  if (isDict(value)) {
    for (const childKey of Object.keys(value)) processEntry(context, value, childKey, [...path, childKey], chain);
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) processEntry(context, value, index, [...path, index], chain);
  }
  if (!directive) return;

  if (chain.includes(directive.source)) {
    throw new ConfigError(
      `Circular ${directive.mode === "inherit" ? "_inherit_from" : "_copy"} at '${where}': ${[...chain, directive.source].join(" -> ")}.`,
      "directive",
    );
  }
  const sourcePath = directive.source.split(".");
  const source = lookupSource(context.frozen, sourcePath, where, directive);
  if (directive.mode === "inherit") removeSource(context.root, sourcePath);

  if (source === MISSING) {
    // The source is unset; the target becomes unset too and the `???` check reports both.
    setChild(container, key, MISSING_VALUE);
    return;
  }

  let replacement = deepClone(source);
  if (isDict(value)) {
    const overrides = { ...value };
    delete overrides[INHERIT_FROM_KEY];
    delete overrides[COPY_KEY];
    if (Object.keys(overrides).length > 0) {
      if (!isDict(replacement)) {
        throw new ConfigError(
          `Cannot apply '${where}': its source '${directive.source}' is not a mapping, so the other keys of '${where}' cannot be merged into it.`,
          "directive",
        );
      }
      replacement = deepMerge(replacement, overrides);
    }
  }
  setChild(container, key, replacement);

  for (const name of pendingDeletes) {
    if (!isDict(replacement) || !hasOwn(replacement, name)) {
      throw new ConfigError(`_delete_key at '${where}' names '${name}', which is not a key of '${where}'.`, "directive");
    }
    delete replacement[name];
  }
  pendingDeletes = [];

  // The source may itself use directives; apply them to this copy.
  if (containsDirective(replacement)) processEntry(context, container, key, path, [...chain, directive.source]);
}

function detectDirective(value: unknown, where: string): Directive | undefined {
  if (typeof value === "string") {
    const match = STRING_DIRECTIVE.exec(value.trim());
    if (!match) return undefined;
    return { mode: match[1] === "inherit_from" ? "inherit" : "copy", source: checkSource(match[2], where) };
  }
  if (!isDict(value)) return undefined;
  const inherits = hasOwn(value, INHERIT_FROM_KEY);
  const copies = hasOwn(value, COPY_KEY);
  if (inherits && copies) {
    throw new ConfigError(`'${where}' has both _inherit_from and _copy; use one.`, "directive");
  }
  if (inherits) return { mode: "inherit", source: checkSource(value[INHERIT_FROM_KEY], where) };
  if (copies) return { mode: "copy", source: checkSource(value[COPY_KEY], where) };
  return undefined;
}

function checkSource(source: unknown, where: string): string {
  if (typeof source !== "string" || source.trim() === "" || source.split(".").some((part) => part.trim() === "")) {
    throw new ConfigError(`'${where}' must name its source as a dotted path (e.g. 'generic_server'), got ${JSON.stringify(source)}.`, "directive");
  }
  return source.trim();
}

function containsDirective(value: unknown): boolean {
  if (typeof value === "string") return STRING_DIRECTIVE.test(value.trim());
  if (Array.isArray(value)) return value.some(containsDirective);
  if (!isDict(value)) return false;
  if (hasOwn(value, INHERIT_FROM_KEY) || hasOwn(value, COPY_KEY) || hasOwn(value, DELETE_KEY_KEY)) return true;
  return Object.values(value).some(containsDirective);
}

function parseDeleteKeys(spec: unknown, where: string): string[] {
  if (typeof spec === "string") return spec.split(",").map((name) => name.trim()).filter((name) => name !== "");
  if (Array.isArray(spec) && spec.every((name) => typeof name === "string")) return spec.map((name) => name.trim());
  throw new ConfigError(`_delete_key at '${where}' must be a comma-separated string of keys, got ${JSON.stringify(spec)}.`, "directive");
}

const MISSING = Symbol("missing source");

function lookupSource(frozen: ConfigDict, sourcePath: string[], where: string, directive: Directive): unknown {
  let node: unknown = frozen;
  for (let i = 0; i < sourcePath.length; i++) {
    if (node === MISSING_VALUE) return MISSING;
    if (!isDict(node) || !hasOwn(node, sourcePath[i])) {
      const directiveName = directive.mode === "inherit" ? "_inherit_from" : "_copy";
      throw new ConfigError(
        `'${where}' uses ${directiveName} '${directive.source}', but '${formatPath(sourcePath.slice(0, i + 1))}' does not exist in the merged config.`,
        "directive",
      );
    }
    node = node[sourcePath[i]];
  }
  return node === MISSING_VALUE ? MISSING : node;
}

function removeSource(root: ConfigDict, sourcePath: string[]): void {
  let node: unknown = root;
  for (const segment of sourcePath.slice(0, -1)) {
    if (!isDict(node) || !hasOwn(node, segment)) return;
    node = node[segment];
  }
  if (isDict(node)) delete node[sourcePath[sourcePath.length - 1]];
}

/** Dotted paths (`a.b[1].c`) of every value that is still `???`. */
export function collectMissingPaths(config: ConfigDict): string[] {
  const missing: string[] = [];
  const walk = (node: unknown, path: PathSegment[]): void => {
    if (node === MISSING_VALUE) missing.push(formatPath(path));
    else if (Array.isArray(node)) node.forEach((item, index) => walk(item, [...path, index]));
    else if (isDict(node)) for (const [key, item] of Object.entries(node)) walk(item, [...path, key]);
  };
  walk(config, []);
  return missing;
}

/** One ConfigError listing every unset `???` value, with override examples. */
export function raiseOnMissingValues(config: ConfigDict): void {
  const missing = collectMissingPaths(config);
  if (missing.length === 0) return;
  const list = missing.map((path) => `  - ${path}`).join("\n");
  const examples = missing
    .slice(0, 3)
    .map((path) => `  ++${path}=<value>`)
    .join("\n");
  throw new ConfigError(
    `${missing.length} required config value(s) are unset (still '???') after merging:\n${list}\n\n` +
      `Provide each value via a CLI override, in env.yaml, or in a config you pass via config_paths.\n` +
      `For example, on the command line:\n${examples}`,
    "missing_values",
    { paths: missing },
  );
}
