// Python's compiled pattern object over a translated pattern (translate.ts): `search`, `match`, `fullmatch`,
// `finditer`, `findall`, `split` and `sub` with Python's semantics, and `re.compile` with its cache.
//
// `findall` / `finditer` / `split` / `sub` follow Python ≥ 3.7 on empty matches: after an empty match at p, the
// next match may start at p only if it is non-empty (that retry reads the rest of the text, so a pattern that
// matches empty at most positions of a long text is slow). Positions (`start`, `end`, spans) are JS string indices
// (UTF-16), which slice JS strings as Python's code-point indices slice Python strings. `sub` reads its
// replacement as Python's template (`\1`, `\g<name>`, `\n`, …).
import { IndexError, PyRegexError } from "../exception.ts";
import { ANY, AT_END, SIMPLE_ESCAPES, Translator, modeOf, type PythonRegexFlags, type Translation } from "./translate.ts";

/** One match, as Python's Match object exposes it. Index 0 is the whole match; a group that did not take part is undefined. */
export interface PythonMatch {
  start: number;
  end: number;
  /** group(0), group(1), …; undefined where the group did not participate. */
  groups: (string | undefined)[];
  /** span of each group, undefined where it did not participate (computed when first read). */
  readonly spans: ([number, number] | undefined)[];
  /** `groupdict()`. */
  named: Record<string, string | undefined>;
}

/** What `re.findall` yields for one match: the whole match, the one group, or a tuple of all groups ('' for a non-participating group). */
export type FindallItem = string | string[];

/** A match whose group spans are found only when read: the `d` flag costs several times the match itself. */
class FoundMatch implements PythonMatch {
  private computedSpans: ([number, number] | undefined)[] | undefined;

  constructor(
    readonly start: number,
    readonly end: number,
    readonly groups: (string | undefined)[],
    readonly named: Record<string, string | undefined>,
    private readonly found: { pattern: PythonPattern; regex: RegExp; text: string },
  ) {}

  get spans(): ([number, number] | undefined)[] {
    return (this.computedSpans ??= this.found.pattern.spansAt(this.found.regex, this.found.text, this.start, this.end));
  }
}

/** What `re.sub` puts in place of one match: a template (`\1`, `\g<name>`, …) or a function of the match. */
export type PythonReplacement = string | ((match: PythonMatch) => string);

/** A compiled Python pattern: Python's `search`, `match`, `fullmatch`, `finditer`, `findall`, `split` and `sub`. */
export class PythonPattern {
  readonly groupCount: number;
  readonly groupNames: ReadonlyMap<string, number>;
  private readonly searcher: RegExp;
  private readonly matcher: RegExp;
  private readonly fullMatcher: RegExp;
  private readonly nonEmptyMatcher: RegExp;
  /** Each matcher's twin with the `d` flag (indices), made when a match's spans are first read. */
  private readonly withIndices = new Map<RegExp, RegExp>();

  constructor(
    readonly pattern: string,
    translation: Translation,
  ) {
    this.groupCount = translation.groupCount;
    this.groupNames = translation.groupNames;
    // No `d`: indices cost several times the match itself, and few callers read group spans.
    const flags = `v${translation.ignoreCase ? "i" : ""}`;
    const source = translation.source;
    try {
      this.searcher = new RegExp(source, `${flags}g`);
    } catch (error) {
      // Python accepted it as far as the translation checks; JS's own checks (e.g. a bad range) are Python's too.
      throw new PyRegexError(`${(error as Error).message.replace(/^Invalid regular expression: /, "")} (pattern ${JSON.stringify(pattern)})`);
    }
    this.matcher = new RegExp(source, `${flags}y`);
    this.fullMatcher = new RegExp(`(?:${source})${AT_END}`, `${flags}y`);
    // Anchored where it starts, it rejects ending there: `rest` (all the text from the start) no longer fits
    // after the end once anything was consumed.
    this.nonEmptyMatcher = new RegExp(`(?=(?<rest>${ANY}*))(?:${source})(?!\\k<rest>)`, `${flags}y`);
  }

  /** `pattern.search(text, pos)`. */
  search(text: string, pos = 0): PythonMatch | undefined {
    return this.run(this.searcher, text, pos);
  }

  /** `pattern.match(text)`: anchored at the start. */
  match(text: string): PythonMatch | undefined {
    return this.run(this.matcher, text, 0);
  }

  /** `pattern.fullmatch(text)`: the whole string. */
  fullmatch(text: string): PythonMatch | undefined {
    return this.run(this.fullMatcher, text, 0);
  }

  /** `pattern.finditer(text)`, with Python's rule for matches next to an empty one. */
  *finditer(text: string): Generator<PythonMatch> {
    let pos = 0;
    let previousEmpty = false;
    while (pos <= text.length) {
      let found: PythonMatch | undefined;
      if (previousEmpty) {
        // Python retries at the same place but rejects an empty match there, then searches on.
        found = this.run(this.nonEmptyMatcher, text, pos);
        if (found === undefined) {
          if (pos >= text.length) return;
          found = this.search(text, pos + String.fromCodePoint(text.codePointAt(pos)!).length);
        }
      } else {
        found = this.search(text, pos);
      }
      if (found === undefined) return;
      yield found;
      previousEmpty = found.end === found.start;
      pos = found.end;
    }
  }

  /** `pattern.findall(text)`; a caller that knows the pattern has at most one group may narrow `Item` to string. */
  findall<Item extends FindallItem = FindallItem>(text: string): Item[] {
    const items: FindallItem[] = [];
    for (const found of this.finditer(text)) {
      if (this.groupCount === 0) items.push(found.groups[0]!);
      else if (this.groupCount === 1) items.push(found.groups[1] ?? "");
      else items.push(found.groups.slice(1).map((group) => group ?? ""));
    }
    return items as Item[];
  }

  /**
   * `pattern.split(text, maxsplit)`: the pieces between matches, each match's groups between them (undefined
   * for Python's None); a caller that knows no group can miss may narrow `Piece` to string.
   */
  split<Piece extends string | undefined = string | undefined>(text: string, maxsplit = 0): Piece[] {
    const pieces: (string | undefined)[] = [];
    let last = 0;
    let splits = 0;
    for (const found of this.finditer(text)) {
      if (maxsplit > 0 && splits >= maxsplit) break;
      pieces.push(text.slice(last, found.start), ...found.groups.slice(1));
      last = found.end;
      splits++;
    }
    pieces.push(text.slice(last));
    return pieces as Piece[];
  }

  /** `pattern.sub(replacement, text, count)`. */
  sub(replacement: PythonReplacement, text: string, count = 0): string {
    const replace = typeof replacement === "string" ? this.template(replacement) : replacement;
    let out = "";
    let last = 0;
    let replaced = 0;
    for (const found of this.finditer(text)) {
      if (count > 0 && replaced >= count) break;
      out += text.slice(last, found.start) + replace(found);
      last = found.end;
      replaced++;
    }
    return out + text.slice(last);
  }

  /** Python's replacement template: `\1`…`\99` and `\g<n>` / `\g<name>` (empty when unmatched), `\n`-style and octal escapes. */
  private template(template: string): (match: PythonMatch) => string {
    const parts: (string | number)[] = [];
    let literalText = "";
    const group = (index: number, at: number) => {
      if (index > this.groupCount) throw new PyRegexError(`invalid group reference ${index} at position ${at}`);
      parts.push(literalText, index);
      literalText = "";
    };
    for (let i = 0; i < template.length; ) {
      const start = i;
      const ch = String.fromCodePoint(template.codePointAt(i)!);
      i += ch.length;
      if (ch !== "\\") {
        literalText += ch;
        continue;
      }
      const letter = template[i];
      if (letter === undefined) throw new PyRegexError(`bad escape (end of pattern) at position ${start}`);
      i++;
      if (letter === "g") {
        if (template[i] !== "<") throw new PyRegexError(`missing < at position ${i}`);
        const close = template.indexOf(">", i + 1);
        const name = template.slice(i + 1, close < 0 ? template.length : close);
        if (name === "") throw new PyRegexError(`missing group name at position ${i + 1}`);
        if (close < 0) throw new PyRegexError(`missing >, unterminated name at position ${i + 1}`);
        i = close + 1;
        if (/^[\p{ID_Start}_][\p{ID_Continue}]*$/u.test(name)) {
          const index = this.groupNames.get(name);
          if (index === undefined) throw new IndexError(`unknown group name '${name}'`);
          group(index, start + 3);
        } else if (/^[0-9]+$/.test(name)) group(Number(name), start + 3);
        else throw new PyRegexError(`bad character in group name '${name}' at position ${start + 3}`);
      } else if (letter === "0") {
        let digits = "";
        while (digits.length < 2 && /[0-7]/.test(template[i] ?? "")) digits += template[i++];
        literalText += String.fromCharCode(parseInt(`0${digits}`, 8) & 0xff);
      } else if (/[1-9]/.test(letter)) {
        let digits = letter;
        if (/[0-9]/.test(template[i] ?? "")) digits += template[i++];
        if (digits.length === 2 && /^[0-7]{2}$/.test(digits) && /[0-7]/.test(template[i] ?? "")) {
          const value = parseInt(digits + template[i++], 8);
          if (value > 0o377) throw new PyRegexError(`octal escape value \\${digits}${template[i - 1]} outside of range 0-0o377 at position ${start}`);
          literalText += String.fromCharCode(value);
        } else group(Number(digits), start + 1);
      } else if (letter in SIMPLE_ESCAPES || letter === "b") {
        literalText += String.fromCharCode(SIMPLE_ESCAPES[letter] ?? 8);
      } else if (/[A-Za-z]/.test(letter)) {
        throw new PyRegexError(`bad escape \\${letter} at position ${start}`);
      } else {
        // Python keeps an unknown escape of a non-letter as it is, backslash included.
        literalText += `\\${letter}`;
      }
    }
    parts.push(literalText);
    return (match) => parts.map((part) => (typeof part === "string" ? part : (match.groups[part] ?? ""))).join("");
  }

  private run(regex: RegExp, text: string, pos: number): PythonMatch | undefined {
    regex.lastIndex = pos;
    const found = regex.exec(text);
    if (found === null) return undefined;
    const start = found.index;
    const end = start + found[0].length;
    const groups: (string | undefined)[] = [found[0]];
    for (let group = 1; group <= this.groupCount; group++) groups.push(found.groups![`p${group}`]);
    const named: Record<string, string | undefined> = {};
    for (const [name, index] of this.groupNames) named[name] = groups[index];
    return new FoundMatch(start, end, groups, named, { pattern: this, regex, text });
  }

  /** @internal A match's group spans (read lazily): the match `regex` found at `start` again, sticky there, with indices. */
  spansAt(regex: RegExp, text: string, start: number, end: number): ([number, number] | undefined)[] {
    const spans: ([number, number] | undefined)[] = [[start, end]];
    if (this.groupCount === 0) return spans;
    let twin = this.withIndices.get(regex);
    if (twin === undefined) {
      twin = new RegExp(regex.source, `${regex.flags.replace(/[gy]/g, "")}dy`);
      this.withIndices.set(regex, twin);
    }
    twin.lastIndex = start;
    const indices = twin.exec(text)!.indices!.groups!;
    for (let group = 1; group <= this.groupCount; group++) spans.push(indices[`p${group}`]);
    return spans;
  }
}

const cache = new Map<string, PythonPattern>();
const CACHE_LIMIT = 1024;

/** `re.compile(pattern, flags)`; throws PyRegexError (Python's re.error) or UnsupportedPythonRegexError. */
export function compilePythonRegex(pattern: string, flags: PythonRegexFlags = {}): PythonPattern {
  const key = `${flags.ignoreCase ? 1 : 0}${flags.multiline ? 1 : 0}${flags.dotAll ? 1 : 0}${flags.verbose ? 1 : 0}${flags.ascii ? 1 : 0}:${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const compiled = new PythonPattern(pattern, new Translator(pattern, modeOf(flags)).translate());
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

/**
 * `re.compile(value)` for a pattern read from a dataset, which may not be a string: a list or dict fails as
 * Python's cache lookup does (unhashable), anything else as `re.compile` does.
 */
export function compilePythonRegexValue(value: unknown, flags?: PythonRegexFlags): PythonPattern {
  if (typeof value === "string") return compilePythonRegex(value, flags);
  if (value !== null && typeof value === "object") throw new TypeError(`unhashable type: '${Array.isArray(value) ? "list" : "dict"}'`);
  throw new TypeError("first argument must be string or compiled pattern");
}

/** `re.search(pattern, text, flags)`. */
export const pythonSearch = (pattern: string, text: string, flags?: PythonRegexFlags): PythonMatch | undefined => compilePythonRegex(pattern, flags).search(text);

/** `re.match(pattern, text, flags)`: anchored at the start. */
export const pythonMatch = (pattern: string, text: string, flags?: PythonRegexFlags): PythonMatch | undefined => compilePythonRegex(pattern, flags).match(text);

/** `re.fullmatch(pattern, text, flags)`: the whole string. */
export const pythonFullmatch = (pattern: string, text: string, flags?: PythonRegexFlags): PythonMatch | undefined => compilePythonRegex(pattern, flags).fullmatch(text);

/** `re.finditer(pattern, text, flags)`. */
export const pythonFinditer = (pattern: string, text: string, flags?: PythonRegexFlags): PythonMatch[] => [...compilePythonRegex(pattern, flags).finditer(text)];

/** `re.findall(pattern, text, flags)`: whole matches without groups, the group with one, tuples with several. */
export const pythonFindall = <Item extends FindallItem = FindallItem>(pattern: string, text: string, flags?: PythonRegexFlags): Item[] => compilePythonRegex(pattern, flags).findall<Item>(text);

/** `re.split(pattern, text, flags=flags)`: pieces, with each match's groups between them (undefined for None). */
export const pythonSplit = <Piece extends string | undefined = string | undefined>(pattern: string, text: string, flags?: PythonRegexFlags): Piece[] =>
  compilePythonRegex(pattern, flags).split<Piece>(text);

/** `re.sub(pattern, replacement, text, flags=flags)`. */
export const pythonSub = (pattern: string, replacement: PythonReplacement, text: string, flags?: PythonRegexFlags): string => compilePythonRegex(pattern, flags).sub(replacement, text);
