// Python `re` patterns translated to JS RegExp source, with Python 3.11's meaning on JS strings (the compiled
// pattern object that runs them is pattern.ts).
//
// The pattern is translated, not passed through: JS and Python agree on little beyond literals. Python's `\d \w \s`
// are Unicode classes (`\w` = letters, numbers and `_`; `\s` includes \x1c–\x1f and \x85 but not \ufeff), `\b` is
// built on that `\w`, `.` excludes only `\n`, `$` also matches before a final `\n`, `\A` / `\Z` exist, names are
// `(?P<name>…)` / `(?P=name)`, inline flags `(?imsx)` open the pattern, `{,n}` is a quantifier and a stray `{`, `}`
// or `]` is a literal. The translation emits explicit classes and look-arounds for all of them and compiles with
// the `v` flag (nested classes make `[\W\d]` expressible); only `i` is left to JS. Python group n becomes the JS
// named group `p<n>` (back-references use the name), so helper groups never shift Python's numbering.
//
// Python 3.11's atomic groups `(?>x)` and possessive quantifiers `x*+` have no JS syntax, but a look-ahead is
// atomic in JS: `(?=(?<aK>x))\k<aK>` matches what `x` matches first and never backtracks into it.
//
// Two kinds of failure: PyRegexError is Python's `re.error` (the pattern is invalid in Python too);
// UnsupportedPythonRegexError is a valid Python pattern JS cannot express (conditionals, `\N{…}`, a scoped
// `(?i:…)` that differs from the whole pattern's case mode, an atomic group or possessive quantifier inside a
// look-behind). Known gaps, accepted silently: Python rejects variable-width look-behind (JS runs it), a
// back-reference to a group that did not participate fails in Python and matches empty in JS, a group inside a
// repeated group keeps its last capture in Python but is reset by each JS iteration, and characters assigned
// after Unicode 14 (Python 3.11's tables) are classified by Node's newer tables.

import { PYTHON_SPACE_CHARS, PYTHON_WORD_CHARS } from "../chars.ts";
import { PyRegexError } from "../exception.ts";

/**
 * A pattern Python compiles but this translation cannot express in JS: a limit of this port, not a Python
 * exception (Python's own `re.error` is exception.ts's PyRegexError).
 */
export class UnsupportedPythonRegexError extends Error {
  override name = "UnsupportedPythonRegexError";
}

export interface PythonRegexFlags {
  /** re.IGNORECASE */
  ignoreCase?: boolean;
  /** re.MULTILINE */
  multiline?: boolean;
  /** re.DOTALL */
  dotAll?: boolean;
  /** re.VERBOSE */
  verbose?: boolean;
  /** re.ASCII: \d \w \s \b ASCII-only. */
  ascii?: boolean;
}

// ---- the character classes Python gives str patterns ----

/**
 * A class of every character but `members` (class contents). Not `[^members]`: Node 20's V8 mis-matches a negated
 * class inside a repeated group under the `v` flag (`/(?:[^x]*a)+b/v` finds "aab" at 1 in "zaab", not "zaab" at 0,
 * and `/(?:[^x]a)+b/v` nothing), which the set difference does not.
 */
const notIn = (members: string): string => String.raw`[\p{Any}--[${members}]]`;

const UNICODE_WORD = `[${PYTHON_WORD_CHARS}]`;
const UNICODE_NOT_WORD = notIn(PYTHON_WORD_CHARS);
const ASCII_WORD = "[A-Za-z0-9_]";
const ASCII_NOT_WORD = notIn("A-Za-z0-9_");
const ASCII_SPACE_CHARS = String.raw`\t\n\v\f\r\x20`;
export const ANY = String.raw`[\s\S]`;
const AT_START = String.raw`(?<![\s\S])`;
export const AT_END = String.raw`(?![\s\S])`;

export interface Mode {
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
  verbose: boolean;
  ascii: boolean;
}

function classEscape(letter: string, mode: Mode): string | undefined {
  switch (letter) {
    case "d":
      return mode.ascii ? "[0-9]" : String.raw`\p{Nd}`;
    case "D":
      return mode.ascii ? notIn("0-9") : String.raw`\P{Nd}`;
    case "w":
      return mode.ascii ? ASCII_WORD : UNICODE_WORD;
    case "W":
      return mode.ascii ? ASCII_NOT_WORD : UNICODE_NOT_WORD;
    case "s":
      return `[${mode.ascii ? ASCII_SPACE_CHARS : PYTHON_SPACE_CHARS}]`;
    case "S":
      return notIn(mode.ascii ? ASCII_SPACE_CHARS : PYTHON_SPACE_CHARS);
    default:
      return undefined;
  }
}

function wordBoundary(mode: Mode, negated: boolean): string {
  const w = mode.ascii ? ASCII_WORD : UNICODE_WORD;
  if (!negated) return `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`;
  // Python 3.11's \B never matches in an empty string.
  return `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w})(?:(?<=${ANY})|(?=${ANY})))`;
}

/** A literal code point, safe inside and outside a v-mode class. */
const literal = (codePoint: number): string => (/^[A-Za-z0-9]$/.test(String.fromCodePoint(codePoint)) ? String.fromCodePoint(codePoint) : `\\u{${codePoint.toString(16)}}`);

// Python's IGNORECASE makes I, i, İ (U+0130, whose lower case is i) and ı (U+0131, which sre pairs with i) one letter;
// JS's case folding leaves İ and ı apart. A literal or a class holding any of the four gets all four (not under
// re.ASCII, whose IGNORECASE is ASCII's).
const DOTTED_AND_DOTLESS_I = [0x49, 0x69, 0x130, 0x131];
const ANY_I = `[${DOTTED_AND_DOTLESS_I.map(literal).join("")}]`;
const caseLiteral = (codePoint: number, mode: Mode): string => (mode.ignoreCase && !mode.ascii && DOTTED_AND_DOTLESS_I.includes(codePoint) ? ANY_I : literal(codePoint));

export const SIMPLE_ESCAPES: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92 };
const VERBOSE_WHITESPACE = " \t\n\r\v\f";
const FLAG_LETTERS = "aiLmsux";

// ---- translation ----

export interface Translation {
  source: string;
  ignoreCase: boolean;
  groupCount: number;
  groupNames: Map<string, number>;
}

export class Translator {
  private pos = 0;
  private groupCount = 0;
  private atomicCount = 0;
  /** How many look-behinds enclose the current position (JS runs them right to left). */
  private lookbehindDepth = 0;
  private readonly openGroups = new Set<number>();
  readonly groupNames = new Map<string, number>();

  constructor(
    private readonly pattern: string,
    private readonly initial: Mode,
  ) {}

  translate(): Translation {
    const mode = { ...this.initial };
    // Global inline flags: only at the very start, possibly several groups of them.
    while (this.pattern.startsWith("(?", this.pos) && this.isGlobalFlagGroup(this.pos + 2)) {
      this.pos += 2;
      const flags = this.readFlagLetters();
      this.expect(")", "missing -, : or )");
      this.applyFlags(mode, flags, true);
    }
    this.globalIgnoreCase = mode.ignoreCase;
    const source = this.alternation(mode, 0);
    if (this.pos < this.pattern.length) throw this.error("unbalanced parenthesis", this.pos);
    return { source, ignoreCase: mode.ignoreCase, groupCount: this.groupCount, groupNames: this.groupNames };
  }

  /** The case mode of the whole pattern (JS can only set `i` for all of it). */
  private globalIgnoreCase = false;

  private error(message: string, at = this.pos): PyRegexError {
    return new PyRegexError(`${message} at position ${at}`);
  }

  private unsupported(what: string, at = this.pos): UnsupportedPythonRegexError {
    return new UnsupportedPythonRegexError(`${what} (position ${at} of ${JSON.stringify(this.pattern)}) has no JavaScript equivalent`);
  }

  private peek(offset = 0): string | undefined {
    const ch = this.pattern.codePointAt(this.pos + offset);
    return ch === undefined ? undefined : String.fromCodePoint(ch);
  }

  private next(): string {
    const ch = this.peek();
    if (ch === undefined) throw this.error("unexpected end of pattern");
    this.pos += ch.length;
    return ch;
  }

  private expect(text: string, message: string): void {
    if (!this.pattern.startsWith(text, this.pos)) throw this.error(message);
    this.pos += text.length;
  }

  private isGlobalFlagGroup(at: number): boolean {
    let i = at;
    while (i < this.pattern.length && FLAG_LETTERS.includes(this.pattern[i]!)) i++;
    return i > at && this.pattern[i] === ")";
  }

  private readFlagLetters(): string {
    let flags = "";
    while (this.peek() !== undefined && FLAG_LETTERS.includes(this.peek()!)) flags += this.next();
    return flags;
  }

  /** `a|b|…` up to an unmatched `)` or the end. */
  private alternation(mode: Mode, depth: number): string {
    const branches = [this.sequence(mode, depth)];
    while (this.peek() === "|") {
      this.pos++;
      branches.push(this.sequence(mode, depth));
    }
    return branches.join("|");
  }

  private skipVerbose(mode: Mode): void {
    if (!mode.verbose) return;
    for (;;) {
      const ch = this.peek();
      if (ch !== undefined && VERBOSE_WHITESPACE.includes(ch)) this.pos++;
      else if (ch === "#") {
        while (this.peek() !== undefined && this.peek() !== "\n") this.pos++;
      } else return;
    }
  }

  /** Atoms and their quantifiers up to `|`, `)` or the end. */
  private sequence(mode: Mode, depth: number): string {
    let out = "";
    // What the last item was: nothing to repeat, an anchor (Python cannot repeat it), an atom, or already repeated.
    let last: "none" | "anchor" | "atom" | "repeated" = "none";
    // Where the last atom starts in `out`: a possessive quantifier makes atom + quantifier atomic.
    let atomStart = 0;
    for (;;) {
      this.skipVerbose(mode);
      const ch = this.peek();
      if (ch === undefined || ch === "|") return out;
      if (ch === ")") {
        if (depth === 0) throw this.error("unbalanced parenthesis");
        return out;
      }
      const quantifier = this.quantifier();
      if (quantifier !== undefined) {
        if (last === "none" || last === "anchor") throw this.error("nothing to repeat", this.pos - quantifier.length);
        if (last === "repeated") throw this.error("multiple repeat", this.pos - quantifier.length);
        if (this.peek() === "?") out += quantifier + this.next();
        else if (this.peek() === "+") {
          const at = this.pos;
          this.pos++;
          out = out.slice(0, atomStart) + this.atomic(out.slice(atomStart) + quantifier, "a possessive quantifier", at);
        } else out += quantifier;
        last = "repeated";
        continue;
      }
      const item = this.atom(mode, depth);
      if (item === undefined) continue;
      atomStart = out.length;
      out += item.source;
      last = item.kind;
    }
  }

  /** `*`, `+`, `?` or a Python `{m,n}` quantifier at the current position (translated), or undefined. */
  private quantifier(): string | undefined {
    const ch = this.peek();
    if (ch === "*" || ch === "+" || ch === "?") {
      this.pos++;
      return ch;
    }
    if (ch !== "{") return undefined;
    const match = /^\{(\d*)(?:(,)(\d*))?\}/.exec(this.pattern.slice(this.pos));
    // `{` that is not a quantifier is a literal in Python.
    if (!match || (match[1] === "" && match[2] === undefined)) return undefined;
    const [whole, min, comma, max] = match;
    if (min !== "" && max !== undefined && max !== "" && Number(min) > Number(max)) throw this.error("min repeat greater than max repeat", this.pos + 1);
    this.pos += whole.length;
    return comma === undefined ? `{${Number(min)}}` : `{${min === "" ? 0 : Number(min)},${max === "" || max === undefined ? "" : Number(max)}}`;
  }

  private atom(mode: Mode, depth: number): { source: string; kind: "anchor" | "atom" } | undefined {
    const start = this.pos;
    const ch = this.next();
    switch (ch) {
      case ".":
        return { source: mode.dotAll ? ANY : notIn(String.raw`\n`), kind: "atom" };
      case "^":
        return { source: mode.multiline ? `(?<!${notIn(String.raw`\n`)})` : AT_START, kind: "anchor" };
      case "$":
        return { source: mode.multiline ? `(?!${notIn(String.raw`\n`)})` : String.raw`(?=\n?(?![\s\S]))`, kind: "anchor" };
      case "[":
        return { source: this.characterClass(mode, start), kind: "atom" };
      case "(":
        return this.group(mode, depth, start);
      case "\\":
        return this.escape(mode, start);
      default:
        return { source: caseLiteral(ch.codePointAt(0)!, mode), kind: "atom" };
    }
  }

  /** `source` made atomic: matched once, never backtracked into. */
  private atomic(source: string, what: string, at: number): string {
    if (this.lookbehindDepth > 0) throw this.unsupported(`${what} inside a look-behind`, at);
    const name = `a${this.atomicCount++}`;
    return `(?:(?=(?<${name}>${source}))\\k<${name}>)`;
  }

  private group(mode: Mode, depth: number, start: number): { source: string; kind: "anchor" | "atom" } | undefined {
    if (this.peek() !== "?") return { source: this.capture(mode, depth, undefined), kind: "atom" };
    this.pos++;
    const kind = this.peek();
    if (kind === ":") {
      this.pos++;
      return { source: `(?:${this.body(mode, depth)})`, kind: "atom" };
    }
    if (kind === "P") {
      this.pos++;
      if (this.peek() === "<") {
        this.pos++;
        const name = this.groupName(">");
        if (this.groupNames.has(name)) throw this.error(`redefinition of group name ${JSON.stringify(name)} as group ${this.groupCount + 1}; was group ${this.groupNames.get(name)}`);
        return { source: this.capture(mode, depth, name), kind: "atom" };
      }
      if (this.peek() === "=") {
        this.pos++;
        const name = this.groupName(")");
        const group = this.groupNames.get(name);
        if (group === undefined) throw this.error(`unknown group name '${name}'`);
        if (this.openGroups.has(group)) throw this.error("cannot refer to an open group");
        return { source: `\\k<p${group}>`, kind: "atom" };
      }
      throw this.error(`unknown extension ?P${this.peek() ?? ""}`);
    }
    if (kind === "#") {
      while (this.peek() !== undefined && this.peek() !== ")") this.pos++;
      this.expect(")", "missing ), unterminated comment");
      return undefined;
    }
    if (kind === "=" || kind === "!") {
      this.pos++;
      return { source: `(?${kind}${this.body(mode, depth)})`, kind: "atom" };
    }
    if (kind === "<" && (this.peek(1) === "=" || this.peek(1) === "!")) {
      const look = this.peek(1)!;
      this.pos += 2;
      this.lookbehindDepth++;
      const body = this.body(mode, depth);
      this.lookbehindDepth--;
      return { source: `(?<${look}${body})`, kind: "atom" };
    }
    if (kind === ">") {
      this.pos++;
      return { source: this.atomic(this.body(mode, depth), "an atomic group (?>…)", start), kind: "atom" };
    }
    if (kind === "(") throw this.unsupported("a conditional group (?(…)…)", start);
    if (kind !== undefined && (FLAG_LETTERS.includes(kind) || kind === "-")) return this.scopedFlags(mode, depth, start);
    throw this.error(`unknown extension ?${kind ?? ""}`, start + 1);
  }

  private groupName(terminator: string): string {
    const end = this.pattern.indexOf(terminator, this.pos);
    if (end < 0) throw this.error(`missing ${terminator}, unterminated name`);
    const name = this.pattern.slice(this.pos, end);
    if (name === "") throw this.error("missing group name");
    if (!/^[\p{ID_Start}_][\p{ID_Continue}]*$/u.test(name)) throw this.error(`bad character in group name ${JSON.stringify(name)}`);
    this.pos = end + 1;
    return name;
  }

  /** A capturing group: Python group n is the JS group named `p<n>`. */
  private capture(mode: Mode, depth: number, name: string | undefined): string {
    const group = ++this.groupCount;
    if (name !== undefined) this.groupNames.set(name, group);
    this.openGroups.add(group);
    const source = this.body(mode, depth);
    this.openGroups.delete(group);
    return `(?<p${group}>${source})`;
  }

  /** A group's alternation and its closing `)`; flags set inside do not leak out. */
  private body(mode: Mode, depth: number): string {
    const open = this.pattern.lastIndexOf("(", this.pos);
    const source = this.alternation({ ...mode }, depth + 1);
    if (this.peek() !== ")") throw this.error("missing ), unterminated subpattern", open);
    this.pos++;
    return source;
  }

  private scopedFlags(mode: Mode, depth: number, start: number): { source: string; kind: "atom" } {
    const on = this.readFlagLetters();
    let off = "";
    if (this.peek() === "-") {
      this.pos++;
      off = this.readFlagLetters();
      if (off === "") throw this.error("missing flag");
      if (/[^imsx]/.test(off)) throw this.error("bad inline flag: cannot turn off flags 'a', 'u' and 'L'");
    }
    if (this.peek() === ")") throw this.error("global flags not at the start of the expression", start);
    this.expect(":", "missing -, : or )");
    const inner = { ...mode };
    this.applyFlags(inner, on, true);
    this.applyFlags(inner, off, false);
    if (inner.ignoreCase !== this.globalIgnoreCase) throw this.unsupported(`a scoped case flag (?${on}${off ? `-${off}` : ""}:…) that differs from the pattern's`, start);
    return { source: `(?:${this.body(inner, depth)})`, kind: "atom" };
  }

  private applyFlags(mode: Mode, flags: string, on: boolean): void {
    if (flags.includes("a") && flags.includes("u")) throw this.error("bad inline flag: flags 'a' and 'u' are incompatible");
    for (const flag of flags) {
      if (flag === "L") throw this.error("bad inline flag: cannot use 'L' flag with a str pattern");
      if (flag === "i") mode.ignoreCase = on;
      if (flag === "m") mode.multiline = on;
      if (flag === "s") mode.dotAll = on;
      if (flag === "x") mode.verbose = on;
      if (flag === "a") mode.ascii = on;
      if (flag === "u") mode.ascii = false;
    }
  }

  /** Hex digits of a \x / \u / \U escape: exactly `count` of them. */
  private hexEscape(count: number, letter: string, start: number): number {
    const digits = this.pattern.slice(this.pos, this.pos + count);
    if (digits.length < count || !/^[0-9a-fA-F]+$/.test(digits)) throw this.error(`incomplete escape \\${letter}${digits.replace(/[^0-9a-fA-F].*$/, "")}`, start);
    this.pos += count;
    const value = parseInt(digits, 16);
    if (value > 0x10ffff) throw this.error(`bad escape \\${letter}${digits}`, start);
    return value;
  }

  private octalDigits(max: number): string {
    let digits = "";
    while (digits.length < max && /[0-7]/.test(this.peek() ?? "")) digits += this.next();
    return digits;
  }

  /** A backslash escape outside a class. */
  private escape(mode: Mode, start: number): { source: string; kind: "anchor" | "atom" } {
    const letter = this.peek();
    if (letter === undefined) throw this.error("bad escape (end of pattern)", start);
    this.pos += letter.length;
    const cls = classEscape(letter, mode);
    if (cls !== undefined) return { source: cls, kind: "atom" };
    if (letter === "A") return { source: AT_START, kind: "anchor" };
    if (letter === "Z") return { source: AT_END, kind: "anchor" };
    if (letter === "b" || letter === "B") return { source: wordBoundary(mode, letter === "B"), kind: "anchor" };
    const codePoint = this.codePointEscape(letter, start, false);
    if (codePoint !== undefined) return { source: caseLiteral(codePoint, mode), kind: "atom" };
    // \1 … \99: a back-reference (or an octal escape of three octal digits).
    const digits = letter + (/[0-9]/.test(this.peek() ?? "") ? this.next() : "");
    if (digits.length === 2 && /[0-7]/.test(digits[0]!) && /[0-7]/.test(digits[1]!) && /[0-7]/.test(this.peek() ?? "")) {
      const value = parseInt(digits + this.next(), 8);
      if (value > 0o377) throw this.error(`octal escape value \\${digits}${this.pattern[this.pos - 1]} outside of range 0-0o377`, start);
      return { source: caseLiteral(value, mode), kind: "atom" };
    }
    const group = Number(digits);
    if (group > this.groupCount) throw this.error(`invalid group reference ${group}`, start + 1);
    if (this.openGroups.has(group)) throw this.error("cannot refer to an open group", start);
    return { source: `\\k<p${group}>`, kind: "atom" };
  }

  /**
   * The code point of a character escape (\n, \x41, \u00e9, \0, \., …), or undefined for a digit escape that is
   * a back-reference outside a class. Python rejects an unknown ASCII-letter escape.
   */
  private codePointEscape(letter: string, start: number, inClass: boolean): number | undefined {
    if (letter in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[letter];
    if (inClass && letter === "b") return 8;
    if (letter === "x") return this.hexEscape(2, "x", start);
    if (letter === "u") return this.hexEscape(4, "u", start);
    if (letter === "U") return this.hexEscape(8, "U", start);
    if (letter === "N" && this.peek() === "{") throw this.unsupported("a named character \\N{…}", start);
    if (letter === "0" || (inClass && /[1-7]/.test(letter))) {
      const value = parseInt(letter + this.octalDigits(2), 8);
      if (value > 0o377) throw this.error(`octal escape value outside of range 0-0o377`, start);
      return value;
    }
    if (/[0-9]/.test(letter)) {
      if (inClass) throw this.error(`bad escape \\${letter}`, start);
      return undefined;
    }
    if (/[A-Za-z]/.test(letter)) throw this.error(`bad escape \\${letter}`, start);
    return letter.codePointAt(0)!;
  }

  /** `[…]`, started at `start` (the `[` already read). */
  private characterClass(mode: Mode, start: number): string {
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.pos++;
    }
    const items: string[] = [];
    // Whether a member (a code point or a range) holds one of the four letters IGNORECASE makes one.
    let holdsAnI = false;
    const holdsI = (low: number, high: number) => DOTTED_AND_DOTLESS_I.some((i) => low <= i && i <= high);
    let first = true;
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) throw this.error("unterminated character set", start);
      if (ch === "]" && !first) {
        this.pos++;
        break;
      }
      first = false;
      const low = this.classItem(mode);
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        const rangeStart = this.pos;
        this.pos++;
        const high = this.classItem(mode);
        if (typeof low !== "number" || typeof high !== "number") throw this.error("bad character range", rangeStart - 1);
        if (high < low) throw this.error(`bad character range ${String.fromCodePoint(low)}-${String.fromCodePoint(high)}`, rangeStart - 1);
        items.push(`${literal(low)}-${literal(high)}`);
        holdsAnI ||= holdsI(low, high);
      } else {
        items.push(typeof low === "number" ? literal(low) : low);
        holdsAnI ||= typeof low === "number" && holdsI(low, low);
      }
    }
    if (mode.ignoreCase && !mode.ascii && holdsAnI) items.push(...DOTTED_AND_DOTLESS_I.map(literal));
    return negated ? notIn(items.join("")) : `[${items.join("")}]`;
  }

  /** One class member: a code point, or a class escape (\d, \w, …) as a nested class. */
  private classItem(mode: Mode): number | string {
    const start = this.pos;
    const ch = this.next();
    if (ch !== "\\") return ch.codePointAt(0)!;
    const letter = this.next();
    const cls = classEscape(letter, mode);
    if (cls !== undefined) return cls.startsWith("[") ? cls : `[${cls}]`;
    return this.codePointEscape(letter, start, true)!;
  }
}

const MODE_DEFAULTS: Mode = { ignoreCase: false, multiline: false, dotAll: false, verbose: false, ascii: false };

/** The translator's mode for a set of `re` flags. */
export function modeOf(flags: PythonRegexFlags): Mode {
  return { ...MODE_DEFAULTS, ...Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined)) };
}

/** The JS source and flags a Python pattern translates to (for messages and tests). */
export function translatePythonRegex(pattern: string, flags: PythonRegexFlags = {}): { source: string; flags: string } {
  const translation = new Translator(pattern, modeOf(flags)).translate();
  return { source: translation.source, flags: `v${translation.ignoreCase ? "i" : ""}` };
}
