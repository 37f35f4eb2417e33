// Command-line overrides in the subset of Hydra's grammar NeMo Gym users write:
//   +a.b=v   add (the key must not exist yet)
//   ++a.b=v  add or replace
//   a.b=v    replace (the key must exist)
//   ~a.b     delete (`~a.b=v` deletes only if the current value is v)
// Values: int, float, true/false, null, 'quoted' / "quoted" strings, [lists], {dicts}, bare strings
// (which may hold `${...}` interpolations, resolved later like any config value).
import { ConfigError } from "./errors.ts";
import { childOf, deepClone, formatPath, isDict } from "./dict.ts";
import type { ConfigDict } from "./types.ts";

export type OverrideOp = "add" | "upsert" | "replace" | "delete";

export interface ParsedOverride {
  op: OverrideOp;
  /** Dotted key as written, e.g. `responses_create_params.temperature`. */
  key: string;
  path: string[];
  /** Parsed value; `undefined` only for a delete without `=value`. */
  value: unknown;
  hasValue: boolean;
  /** The override exactly as given, for messages. */
  text: string;
}

const KEY_PATTERN = /^[A-Za-z0-9_\-/]+(?:\.[A-Za-z0-9_\-/]+)*$/;

export function parseOverride(arg: string): ParsedOverride {
  const text = arg;
  let rest = arg.trim();
  let op: OverrideOp = "replace";
  if (rest.startsWith("++")) {
    op = "upsert";
    rest = rest.slice(2);
  } else if (rest.startsWith("+")) {
    op = "add";
    rest = rest.slice(1);
  } else if (rest.startsWith("~")) {
    op = "delete";
    rest = rest.slice(1);
  }
  const equals = rest.indexOf("=");
  if (equals < 0 && op !== "delete") {
    throw new ConfigError(
      `Malformed override '${text}': expected key=value (e.g. '++${rest || "key"}=value').`,
      "override",
    );
  }
  const key = (equals < 0 ? rest : rest.slice(0, equals)).trim();
  if (!KEY_PATTERN.test(key)) {
    throw new ConfigError(
      `Malformed override '${text}': '${key}' is not a valid key (use dotted names such as 'a.b.c').`,
      "override",
    );
  }
  const hasValue = equals >= 0;
  let value: unknown = undefined;
  if (hasValue) {
    try {
      value = parseOverrideValue(rest.slice(equals + 1));
    } catch (error) {
      if (error instanceof ConfigError) {
        throw new ConfigError(`Malformed override '${text}': ${error.message}`, "override", { cause: error });
      }
      throw error;
    }
  }
  return { op, key, path: key.split("."), value, hasValue, text };
}

const INT_PATTERN = /^[+-]?(?:0|[1-9](?:_?\d)*)$/;
const FLOAT_PATTERN =
  /^[+-]?(?:(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.)(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*[eE][+-]?\d(?:_?\d)*)$/;
const INF_NAN_PATTERN = /^([+-]?)(inf|nan)$/i;

/** Type an unquoted scalar the way Hydra does: int, float, bool, null, else the string itself. */
export function decodePrimitive(text: string): unknown {
  if (/^null$/i.test(text)) return null;
  if (/^true$/i.test(text)) return true;
  if (/^false$/i.test(text)) return false;
  if (INT_PATTERN.test(text)) return Number(text.replace(/_/g, ""));
  if (FLOAT_PATTERN.test(text)) return Number(text.replace(/_/g, ""));
  const special = INF_NAN_PATTERN.exec(text);
  if (special) {
    if (special[2].toLowerCase() === "nan") return NaN;
    return special[1] === "-" ? -Infinity : Infinity;
  }
  return text;
}

/** Parse the right-hand side of an override (`[a,b]`, `{k: v}`, `'text'`, `0.7`, `null`, …). */
export function parseOverrideValue(text: string): unknown {
  return new ValueParser(text).parseTop();
}

class ValueParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseTop(): unknown {
    this.skipSpace();
    if (this.atEnd()) return "";
    const ch = this.peek();
    if (ch === "[" || ch === "{" || ch === "'" || ch === '"') {
      const value = this.parseElement();
      this.skipSpace();
      if (!this.atEnd()) {
        const tail = this.text.slice(this.pos);
        if (this.peek() === ",") throw this.sweepError();
        throw new ConfigError(`unexpected '${tail}' after the value; quote the whole value if it is a string.`, "override");
      }
      return value;
    }
    return this.parsePrimitive(false);
  }

  private parseElement(): unknown {
    this.skipSpace();
    const ch = this.peek();
    if (ch === "[") return this.parseList();
    if (ch === "{") return this.parseDict();
    if (ch === "'" || ch === '"') return this.parseQuoted();
    return this.parsePrimitive(true);
  }

  private parseList(): unknown[] {
    this.pos++; // [
    const items: unknown[] = [];
    this.skipSpace();
    if (this.peek() === "]") {
      this.pos++;
      return items;
    }
    for (;;) {
      items.push(this.parseElement());
      this.skipSpace();
      const ch = this.peek();
      this.pos++;
      if (ch === ",") continue;
      if (ch === "]") return items;
      throw new ConfigError(`expected ',' or ']' in list '${this.text}'.`, "override");
    }
  }

  private parseDict(): ConfigDict {
    this.pos++; // {
    const dict: ConfigDict = {};
    this.skipSpace();
    if (this.peek() === "}") {
      this.pos++;
      return dict;
    }
    for (;;) {
      this.skipSpace();
      const key = this.peek() === "'" || this.peek() === '"' ? this.parseQuoted() : this.scanUntil(":,{}[]").trim();
      if (key === "") throw new ConfigError(`missing key in dict '${this.text}'.`, "override");
      this.skipSpace();
      if (this.peek() !== ":") throw new ConfigError(`expected ':' after key '${key}' in dict '${this.text}'.`, "override");
      this.pos++;
      dict[key] = this.parseElement();
      this.skipSpace();
      const ch = this.peek();
      this.pos++;
      if (ch === ",") continue;
      if (ch === "}") return dict;
      throw new ConfigError(`expected ',' or '}' in dict '${this.text}'.`, "override");
    }
  }

  private parseQuoted(): string {
    const quote = this.text[this.pos++];
    let value = "";
    while (!this.atEnd()) {
      const ch = this.text[this.pos++];
      if (ch === "\\" && (this.peek() === quote || this.peek() === "\\")) {
        value += this.text[this.pos++];
        continue;
      }
      if (ch === quote) return value;
      value += ch;
    }
    throw new ConfigError(`unterminated ${quote}quoted${quote} string in '${this.text}'.`, "override");
  }

  private parsePrimitive(nested: boolean): unknown {
    const start = this.pos;
    const raw = this.scanUntil(nested ? ",]}" : ",");
    if (!nested && !this.atEnd()) throw this.sweepError();
    const trimmed = raw.trim();
    if (trimmed === "" && nested) throw new ConfigError(`empty element at column ${start + 1} of '${this.text}'.`, "override");
    if (this.text.slice(start, this.pos).includes("\\")) return unescapePrimitive(trimmed);
    return decodePrimitive(trimmed);
  }

  /** Characters up to one of `stops` outside `${...}`; backslash escapes are kept for the caller. */
  private scanUntil(stops: string): string {
    let out = "";
    while (!this.atEnd()) {
      const ch = this.peek();
      if (ch === "\\" && this.pos + 1 < this.text.length) {
        out += ch + this.text[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (ch === "$" && this.text[this.pos + 1] === "{") {
        const end = matchingBrace(this.text, this.pos + 2);
        if (end < 0) throw new ConfigError(`unterminated interpolation in '${this.text}'.`, "override");
        out += this.text.slice(this.pos, end + 1);
        this.pos = end + 1;
        continue;
      }
      if (stops.includes(ch)) break;
      out += ch;
      this.pos++;
    }
    return out;
  }

  private sweepError(): ConfigError {
    return new ConfigError(
      `'${this.text}' has a top-level comma (Hydra would read it as a sweep). Write a list as [a,b] or quote the string.`,
      "override",
    );
  }

  private skipSpace(): void {
    while (!this.atEnd() && /\s/.test(this.text[this.pos])) this.pos++;
  }

  private peek(): string {
    return this.text[this.pos] ?? "";
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }
}

function unescapePrimitive(text: string): string {
  return text.replace(/\\(.)/g, "$1");
}

/** Index of the `}` closing a `${` whose body starts at `start`, or -1. */
export function matchingBrace(text: string, start: number): number {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return i;
  }
  return -1;
}

/**
 * Apply overrides to a copy of `dict` with Hydra's rules (`+` must not exist, plain must exist, `++` either,
 * `~` must exist). Returns the new dict; `dict` is not modified.
 */
export function applyOverrides(dict: ConfigDict, overrides: readonly string[]): ConfigDict {
  const result = deepClone(dict);
  for (const override of overrides) applyParsedOverride(result, parseOverride(override));
  return result;
}

/** Apply one parsed override in place. */
export function applyParsedOverride(target: ConfigDict, override: ParsedOverride): void {
  const { op, path, text } = override;
  const parentPath = path.slice(0, -1);
  const leaf = path[path.length - 1];
  const where = formatPath(path);

  // Walk to the parent, creating dicts on the way for additions.
  let parent: unknown = target;
  for (let i = 0; i < parentPath.length; i++) {
    const child = childOf(parent, parentPath[i]);
    if (child.found && (isDict(child.value) || Array.isArray(child.value))) {
      parent = child.value;
      continue;
    }
    if (child.found || op === "replace" || op === "delete" || !isDict(parent)) {
      const reason = child.found ? `'${formatPath(path.slice(0, i + 1))}' is not a mapping` : "the key is not in the config";
      throw new ConfigError(
        `Could not apply override '${text}': ${reason}.${!child.found && op === "replace" ? ` To add '${where}', write '+${override.key}=...'.` : ""}`,
        "override",
      );
    }
    const created: ConfigDict = {};
    parent[parentPath[i]] = created;
    parent = created;
  }

  const existing = childOf(parent, leaf);
  const value = deepClone(override.value);
  switch (op) {
    case "add":
      if (existing.found) {
        throw new ConfigError(
          `Could not add '${where}' (override '${text}'): it is already set. Use '++${override.key}=...' to replace it.`,
          "override",
        );
      }
      break;
    case "replace":
      if (!existing.found) throw missingReplaceTarget(override);
      break;
    case "delete":
      if (!existing.found) {
        throw new ConfigError(`Could not delete '${where}' (override '${text}'): the key is not in the config.`, "override");
      }
      if (override.hasValue && JSON.stringify(existing.value) !== JSON.stringify(override.value)) {
        throw new ConfigError(
          `Could not delete '${where}' (override '${text}'): its value is ${JSON.stringify(existing.value)}, not ${JSON.stringify(override.value)}.`,
          "override",
        );
      }
      if (Array.isArray(parent)) parent.splice(Number(leaf), 1);
      else delete (parent as ConfigDict)[leaf];
      return;
    case "upsert":
      break;
  }
  if (Array.isArray(parent)) {
    if (!existing.found) {
      throw new ConfigError(`Could not apply override '${text}': index ${leaf} is outside the list '${formatPath(parentPath)}'.`, "override");
    }
    parent[Number(leaf)] = value;
  } else {
    (parent as ConfigDict)[leaf] = value;
  }
}

/** The error for a plain `a.b=v` whose key is not in the config. */
export function missingReplaceTarget(override: ParsedOverride): ConfigError {
  return new ConfigError(
    `Could not override '${override.key}' (override '${override.text}'): the key is not in the config. ` +
      `Use '+${override.key}=...' to add it, or '++${override.key}=...' to add or replace it.`,
    "override",
  );
}
