// OmegaConf-style interpolation over plain data.
//
//   ${a.b.c}              value at an absolute dotted path (typed when it is the whole string)
//   ${.sibling} ${..x}    relative to the node holding the value (one dot per level up)
//   ${a.list[0]} ${a.0}   list elements
//   ${oc.env:VAR}         environment variable (always a string); error when unset
//   ${oc.env:VAR,default} default when unset (`null` gives null; other defaults are kept as written, as text)
//   ${oc.select:key,default}  value at key, default when the key is absent
//   ${oc.decode:text}     parse text with the override value grammar (int, bool, [list], {dict}, …)
//   \${...}               a literal `${...}`
// Inside a longer string each interpolation is converted to text (numbers/booleans as JS prints them,
// null as "null", lists/dicts as JSON). Resolution is lazy and recursive (a value may point at a value that
// itself interpolates) with cycle detection.
import { ConfigError } from "./errors.ts";
import { childOf, deepClone, formatPath, isDict, type PathSegment } from "./dict.ts";
import { decodePrimitive, matchingBrace, parseOverrideValue } from "./overrides.ts";
import { MISSING_VALUE, type ConfigDict } from "./types.ts";

type Env = NodeJS.ProcessEnv;

type TemplatePart = { kind: "text"; text: string } | { kind: "interpolation"; body: string; source: string };

export function hasInterpolation(value: unknown): value is string {
  return typeof value === "string" && value.includes("${");
}

/** Resolve every interpolation in `raw`; returns a new dict (`raw` is untouched). `???` values are kept. */
export function resolveConfig(raw: ConfigDict, env: Env = process.env): ConfigDict {
  return new Resolver(raw, env).resolveNode([], raw) as ConfigDict;
}

/** Resolve the value at one path of `root` (and only what it depends on). */
export function resolveValueAt(root: ConfigDict, path: readonly PathSegment[], env: Env = process.env): unknown {
  const resolver = new Resolver(root, env);
  let node: unknown = root;
  for (const segment of path) {
    const child = childOf(node, segment);
    if (!child.found) return undefined;
    node = child.value;
  }
  return resolver.resolveNode([...path], node);
}

function parseTemplate(text: string, where: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\\") {
      let end = i;
      while (end < text.length && text[end] === "\\") end++;
      const count = end - i;
      if (text.startsWith("${", end)) {
        // Backslashes only escape when they precede `${`: `\${x}` is literal, `\\${x}` is `\` + value.
        literal += "\\".repeat(Math.floor(count / 2));
        if (count % 2 === 1) {
          literal += "${";
          i = end + 2;
        } else {
          i = end;
        }
        continue;
      }
      literal += text.slice(i, end);
      i = end;
      continue;
    }
    if (ch === "$" && text[i + 1] === "{") {
      const close = matchingBrace(text, i + 2);
      if (close < 0) {
        throw new ConfigError(`Config value '${where}' has an unterminated interpolation: '${text}'.`, "interpolation");
      }
      if (literal !== "") parts.push({ kind: "text", text: literal });
      literal = "";
      parts.push({ kind: "interpolation", body: text.slice(i + 2, close), source: text.slice(i, close + 1) });
      i = close + 1;
      continue;
    }
    literal += ch;
    i++;
  }
  if (literal !== "") parts.push({ kind: "text", text: literal });
  return parts;
}

/** Split resolver arguments on top-level commas (outside quotes, brackets and nested interpolations). */
function splitArguments(text: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let quote = "";
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\" && i + 1 < text.length) {
      current += ch + text[i + 1];
      i++;
      continue;
    }
    if (quote) {
      if (ch === quote) quote = "";
      current += ch;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") depth--;
    else if (ch === "," && depth === 0) {
      args.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  args.push(current);
  return args;
}

export function valueToText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "null";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

interface Argument {
  value: unknown;
  /** The argument exactly as written (trimmed), for defaults that keep their spelling. */
  text: string;
  quoted: boolean;
}

class Resolver {
  private readonly cache = new Map<string, unknown>();
  private readonly inProgress: string[] = [];

  constructor(
    private readonly root: ConfigDict,
    private readonly env: Env,
  ) {}

  /** Resolved copy of `value`, which sits at `path`. */
  resolveNode(path: PathSegment[], value: unknown): unknown {
    const key = pathKey(path);
    if (this.cache.has(key)) return deepClone(this.cache.get(key));
    if (!hasInterpolation(value) && !isDict(value) && !Array.isArray(value)) return value;
    if (this.inProgress.includes(key)) {
      const chain = [...this.inProgress.slice(this.inProgress.indexOf(key)), key].map(displayKey);
      throw new ConfigError(`Interpolation cycle: ${chain.join(" -> ")}.`, "interpolation");
    }
    this.inProgress.push(key);
    try {
      let result: unknown;
      if (typeof value === "string") {
        result = this.evaluateString(value, path);
      } else if (Array.isArray(value)) {
        result = value.map((item, index) => this.resolveNode([...path, index], item));
      } else {
        const dict: ConfigDict = {};
        for (const [childKey, child] of Object.entries(value as ConfigDict)) {
          dict[childKey] = this.resolveNode([...path, childKey], child);
        }
        result = dict;
      }
      this.cache.set(key, result);
      return deepClone(result);
    } finally {
      this.inProgress.pop();
    }
  }

  private evaluateString(text: string, path: PathSegment[]): unknown {
    const where = formatPath(path);
    const parts = parseTemplate(text, where);
    if (parts.length === 1 && parts[0].kind === "interpolation") {
      return this.evaluateExpression(parts[0].body, parts[0].source, path);
    }
    let out = "";
    for (const part of parts) {
      out += part.kind === "text" ? part.text : valueToText(this.evaluateExpression(part.body, part.source, path));
    }
    return out;
  }

  private evaluateExpression(body: string, source: string, path: PathSegment[]): unknown {
    const resolverMatch = /^\s*([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\s*:([\s\S]*)$/.exec(body);
    if (resolverMatch) return this.callResolver(resolverMatch[1], resolverMatch[2], source, path);
    const keyText = hasInterpolation(body) ? valueToText(this.evaluateString(body, path)) : body;
    return this.lookup(keyText, source, path);
  }

  private callResolver(name: string, argsText: string, source: string, path: PathSegment[]): unknown {
    const where = formatPath(path);
    const args = argsText.trim() === "" ? [] : splitArguments(argsText).map((arg) => this.evaluateArgument(arg, path));
    switch (name) {
      case "oc.env": {
        if (args.length < 1 || args.length > 2) {
          throw new ConfigError(`Config value '${where}': '${source}' takes a variable name and an optional default.`, "interpolation");
        }
        const variable = valueToText(args[0].value);
        const fromEnv = this.env[variable];
        if (fromEnv !== undefined) return fromEnv;
        if (args.length === 2) {
          const fallback = args[1];
          if (fallback.value === null || (!fallback.quoted && /^null$/i.test(fallback.text))) return null;
          return typeof fallback.value === "string" ? fallback.value : valueToText(fallback.value);
        }
        throw new ConfigError(
          `Config value '${where}' uses '${source}', but environment variable '${variable}' is not set. ` +
            `Set it, or give a default: \${oc.env:${variable},<default>}.`,
          "interpolation",
        );
      }
      case "oc.select": {
        if (args.length < 1 || args.length > 2) {
          throw new ConfigError(`Config value '${where}': '${source}' takes a key and an optional default.`, "interpolation");
        }
        const found = this.tryLookup(valueToText(args[0].value), source, path);
        if (found.found) return found.value;
        if (args.length < 2) return null;
        const fallback = args[1];
        // An unquoted literal default is typed like an override value (`7` → 7); quoted or interpolated ones are kept.
        return fallback.quoted || fallback.text.includes("${") || typeof fallback.value !== "string"
          ? fallback.value
          : decodePrimitive(fallback.value);
      }
      case "oc.decode": {
        if (args.length !== 1) throw new ConfigError(`Config value '${where}': '${source}' takes one argument.`, "interpolation");
        const input = args[0].value;
        if (input === null) return null;
        if (typeof input !== "string") return input;
        try {
          return parseOverrideValue(input);
        } catch (error) {
          throw new ConfigError(`Config value '${where}': cannot decode '${input}' in '${source}'.`, "interpolation", { cause: error });
        }
      }
      // NeMo Gym's directive resolvers return their own text; the directives themselves run before resolution.
      case "inherit_from":
      case "copy":
        return source;
      default:
        throw new ConfigError(
          `Config value '${where}' uses an unsupported resolver '${name}' in '${source}'. Supported: oc.env, oc.select, oc.decode.`,
          "interpolation",
        );
    }
  }

  private evaluateArgument(raw: string, path: PathSegment[]): Argument {
    const text = raw.trim();
    const quote = text[0];
    if ((quote === "'" || quote === '"') && text.length >= 2 && text.endsWith(quote)) {
      const inner = text.slice(1, -1).replace(new RegExp(`\\\\([\\\\${quote}])`, "g"), "$1");
      const value = inner.includes("${") ? valueToText(this.evaluateString(inner, path)) : inner;
      return { value, text, quoted: true };
    }
    if (text.includes("${")) return { value: this.evaluateString(text, path), text, quoted: false };
    return { value: text.replace(/\\(.)/g, "$1"), text, quoted: false };
  }

  private lookup(keyText: string, source: string, path: PathSegment[]): unknown {
    const found = this.tryLookup(keyText, source, path);
    if (found.found) return found.value;
    const where = formatPath(path);
    const missing = formatPath(found.target);
    const suggestion = found.target.length > 0 ? `++${missing}=<value>` : "";
    throw new ConfigError(
      `Config value '${where}' references '${missing}' (in '${source}'), which is not set after merging.\n` +
        `Provide it via a CLI override${suggestion ? ` (${suggestion})` : ""}, in env.yaml, or in a config you pass via config_paths.`,
      "interpolation",
      { paths: [missing] },
    );
  }

  private tryLookup(keyText: string, source: string, path: PathSegment[]): { found: boolean; value: unknown; target: PathSegment[] } {
    const target = parseKeyPath(keyText, path, source);
    let node: unknown = this.root;
    let nodePath: PathSegment[] = [];
    let detached = false; // walked through a resolved interpolation: values below are already resolved
    for (let i = 0; i <= target.length; i++) {
      if (!detached && hasInterpolation(node)) {
        node = this.resolveNode(nodePath, node);
        detached = true;
      }
      if (node === MISSING_VALUE) {
        const unset = formatPath(nodePath);
        throw new ConfigError(
          `Config value '${formatPath(path)}' references '${formatPath(target)}' (in '${source}'), but '${unset}' is unset ('???').\n` +
            `Provide it via a CLI override (++${unset}=<value>), in env.yaml, or in a config you pass via config_paths.`,
          "interpolation",
          { paths: [unset] },
        );
      }
      if (i === target.length) break;
      const segment = target[i];
      const child = childOf(node, segment);
      if (!child.found) return { found: false, value: undefined, target };
      // Keep list indices numeric so a value has one cache/cycle key however it is reached.
      nodePath = [...nodePath, Array.isArray(node) ? Number(segment) : segment];
      node = child.value;
    }
    const value = detached ? deepClone(node) : this.resolveNode(nodePath, node);
    return { found: true, value, target };
  }
}

/** `a.b[0].c`, `.sibling`, `..uncle` → absolute path segments. */
function parseKeyPath(keyText: string, from: PathSegment[], source: string): PathSegment[] {
  let text = keyText.trim();
  let base: PathSegment[] = [];
  if (text.startsWith(".")) {
    let ups = 0;
    while (text.startsWith(".")) {
      ups++;
      text = text.slice(1);
    }
    // One dot = the container of the value being resolved; each further dot goes one level up.
    if (ups > from.length) {
      throw new ConfigError(`Interpolation '${source}' in '${formatPath(from)}' goes above the top of the config.`, "interpolation");
    }
    base = from.slice(0, from.length - ups);
  }
  const segments: PathSegment[] = [...base];
  if (text === "") return segments;
  for (const piece of text.split(".")) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(piece);
    if (!match || (match[1] === "" && match[2] === "")) {
      throw new ConfigError(`Interpolation '${source}' in '${formatPath(from)}' has a malformed key '${keyText}'.`, "interpolation");
    }
    if (match[1] !== "") segments.push(match[1]);
    for (const index of match[2].matchAll(/\[(\d+)\]/g)) segments.push(Number(index[1]));
  }
  return segments;
}

function pathKey(path: readonly PathSegment[]): string {
  return JSON.stringify(path);
}

function displayKey(key: string): string {
  return formatPath(JSON.parse(key) as PathSegment[]) || "<root>";
}
