// XML as `xmltodict.parse(text)` reads it (xmltodict 1.0.2 over Python's expat, no namespace processing):
// `{root_tag: …}`; an element with neither attributes nor children is its stripped text or None; attributes
// are `@name` keys, mixed text `#text`; a repeated child becomes a list; comments and PIs are dropped.
// What is not well-formed fails as expat fails, with expat's message and position
// (`not well-formed (invalid token): line 1, column 1`): the position is where expat stops — the offending
// character, the start of an unclosed token, the name of a mismatched end tag. Columns count characters
// from 0. A DOCTYPE declaring an entity fails as xmltodict refuses it (`ValueError: entities are disabled`).
import { pythonLen, pythonStrip } from "../../python/str.ts";
import { type StructuredDict, type StructuredValue } from "./value.ts";
import { PyException } from "../../python/exception.ts";

const NAME_START = /[A-Za-z_:\p{L}]/u;
const NAME_CHAR = /[-A-Za-z0-9_.:\u00B7\p{L}\p{Nd}\p{Mn}\p{Mc}\p{Lm}]/u;
const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
// After a name in the prolog or epilog expat accepts these as the token's end (a syntax error follows).
const PROLOG_NAME_END = new Set([">", ")", ",", "|", "[", "%", " ", "\t", "\n", "\r"]);
const PROLOG_PUNCTUATION = new Set(["[", "]", "(", ")", "%", "|", ",", ">"]);
const PREDEFINED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

class ExpatError extends PyException {
  constructor(reason: string, text: string, offset: number) {
    const { line, column } = position(text, offset);
    super("ExpatError", `${reason}: line ${line}, column ${column}`);
  }
}

/** Expat's line (from 1; "\r\n", "\r" and "\n" each end a line) and column (characters from 0). */
function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    const ch = text[i];
    if (ch === "\n" || (ch === "\r" && text[i + 1] !== "\n")) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: pythonLen(text.slice(lineStart, offset)) };
}

/** A character XML 1.0 allows in a document. */
function isXmlChar(code: number): boolean {
  return code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
}

interface Frame {
  item: StructuredDict | null;
  data: string[];
}

/** xmltodict's `push_data`: a second value under a key turns it into a list. */
function pushData(item: StructuredDict | null, key: string, data: StructuredValue): StructuredDict {
  const target = item ?? new Map();
  if (target.has(key)) {
    const existing = target.get(key)!;
    if (Array.isArray(existing)) existing.push(data);
    else target.set(key, [existing, data]);
  } else target.set(key, data);
  return target;
}

export function parseXml(input: string): StructuredDict | null {
  const text = input.startsWith("\uFEFF") ? input.slice(1) : input;
  const fail = (reason: string, offset: number): never => {
    throw new ExpatError(reason, text, offset);
  };
  let pos = 0;
  const at = (offset: number) => text[offset];
  const startsWith = (prefix: string, offset = pos) => text.startsWith(prefix, offset);
  const isNameStart = (ch: string | undefined) => ch !== undefined && NAME_START.test(ch);
  const isNameChar = (ch: string | undefined) => ch !== undefined && NAME_CHAR.test(ch);
  const skipWhitespace = () => {
    while (pos < text.length && WHITESPACE.has(text[pos]!)) pos++;
  };
  const readName = (): string => {
    const start = pos;
    while (pos < text.length && isNameChar(text[pos])) pos++;
    return text.slice(start, pos);
  };

  // The handler state of xmltodict's _DictSAXHandler.
  const stack: Frame[] = [];
  let current: Frame = { item: null, data: [] };

  const comment = (tokenStart: number) => {
    const end = text.indexOf("--", pos + 4);
    if (end === -1) fail("unclosed token", tokenStart);
    if (at(end + 2) === undefined) fail("unclosed token", tokenStart);
    if (at(end + 2) !== ">") fail("not well-formed (invalid token)", end + 2);
    pos = end + 3;
  };
  const processingInstruction = (tokenStart: number, documentStart: boolean) => {
    pos += 2;
    const target = readName();
    if (target === "") fail(at(pos) === undefined ? "unclosed token" : "not well-formed (invalid token)", at(pos) === undefined ? tokenStart : pos);
    const end = text.indexOf("?>", pos);
    if (end === -1) fail("unclosed token", tokenStart);
    if (target === "xml") {
      if (!documentStart) fail("XML or text declaration not at start of entity", tokenStart);
      const declaration = text.slice(pos, end);
      if (!/^\s+version\s*=\s*(["'])[^"']*\1/.test(declaration)) fail("XML declaration not well-formed", pos + (declaration.length - declaration.trimStart().length));
    }
    pos = end + 2;
  };
  const doctype = (tokenStart: number) => {
    let depth = 0;
    let quote: string | undefined;
    for (let i = pos + 9; i < text.length; i++) {
      const ch = text[i]!;
      if (quote) {
        if (ch === quote) quote = undefined;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === "[") depth++;
      else if (ch === "]") depth--;
      else if (depth > 0 && startsWith("<!ENTITY", i)) throw new PyException("ValueError", "entities are disabled");
      else if (ch === ">" && depth <= 0) {
        pos = i + 1;
        return;
      }
    }
    fail("unclosed token", tokenStart);
  };

  /** `&…;` in text or an attribute value, expanded; `pos` is at the `&`. Expat reports an undefined entity
   * of an attribute value at its tag (`undefinedAt`). */
  const reference = (undefinedAt?: number): string => {
    const ampersand = pos;
    pos++;
    if (at(pos) === "#") {
      pos++;
      const hex = at(pos) === "x";
      if (hex) pos++;
      const digits = hex ? /[0-9a-fA-F]/ : /[0-9]/;
      const start = pos;
      while (pos < text.length && digits.test(text[pos]!)) pos++;
      if (at(pos) === undefined) fail("unclosed token", ampersand);
      if (pos === start || at(pos) !== ";") fail("not well-formed (invalid token)", pos);
      const code = parseInt(text.slice(start, pos), hex ? 16 : 10);
      pos++;
      if (!isXmlChar(code)) fail("reference to invalid character number", ampersand);
      return String.fromCodePoint(code);
    }
    if (!isNameStart(at(pos))) fail(at(pos) === undefined ? "unclosed token" : "not well-formed (invalid token)", at(pos) === undefined ? ampersand : pos);
    const name = readName();
    if (at(pos) === undefined) fail("unclosed token", ampersand);
    if (at(pos) !== ";") fail("not well-formed (invalid token)", pos);
    pos++;
    const expansion = PREDEFINED_ENTITIES[name];
    if (expansion === undefined) fail("undefined entity", undefinedAt ?? ampersand);
    return expansion!;
  };

  /** A start tag; `pos` is at the `<`. Returns whether it was empty (`<a/>`). */
  const startTag = (): { name: string; empty: boolean } => {
    const tokenStart = pos;
    pos++;
    const name = readName();
    const attributes = new Map<string, string>();
    for (;;) {
      const beforeSpace = pos;
      skipWhitespace();
      const ch = at(pos);
      if (ch === undefined) fail("unclosed token", tokenStart);
      if (ch === ">") {
        pos++;
        return openElement(name, attributes, false);
      }
      if (ch === "/") {
        if (at(pos + 1) === undefined) fail("unclosed token", tokenStart);
        if (at(pos + 1) !== ">") fail("not well-formed (invalid token)", pos + 1);
        pos += 2;
        return openElement(name, attributes, true);
      }
      if (pos === beforeSpace || !isNameStart(ch)) fail("not well-formed (invalid token)", pos);
      const attributeStart = pos;
      const attributeName = readName();
      skipWhitespace();
      if (at(pos) === undefined) fail("unclosed token", tokenStart);
      if (at(pos) !== "=") fail("not well-formed (invalid token)", pos);
      pos++;
      skipWhitespace();
      const quote = at(pos);
      if (quote === undefined) fail("unclosed token", tokenStart);
      if (quote !== '"' && quote !== "'") fail("not well-formed (invalid token)", pos);
      pos++;
      let value = "";
      for (;;) {
        const c = at(pos);
        if (c === undefined) fail("unclosed token", tokenStart);
        if (c === quote) break;
        if (c === "<") fail("not well-formed (invalid token)", pos);
        if (c === "&") {
          value += reference(tokenStart);
          continue;
        }
        const code = text.codePointAt(pos)!;
        if (!isXmlChar(code)) fail("not well-formed (invalid token)", pos);
        if (c === "\r" && at(pos + 1) === "\n") pos++;
        value += c === "\t" || c === "\n" || c === "\r" ? " " : String.fromCodePoint(code);
        pos += code > 0xffff ? 2 : 1;
      }
      pos++;
      if (attributes.has(attributeName)) fail("duplicate attribute", attributeStart);
      attributes.set(attributeName, value);
    }
  };

  const openElement = (name: string, attributes: Map<string, string>, empty: boolean) => {
    stack.push(current);
    const item: StructuredDict = new Map([...attributes].map(([key, value]) => [`@${key}`, value]));
    current = { item: item.size > 0 ? item : null, data: [] };
    if (empty) closeElement(name);
    return { name, empty };
  };

  const closeElement = (name: string) => {
    const joined = current.data.length > 0 ? current.data.join("") : null;
    const item = current.item;
    current = stack.pop()!;
    const data = joined ? pythonStrip(joined) || null : null;
    if (item !== null) {
      if (data) pushData(item, "#text", data);
      current.item = pushData(current.item, name, item);
    } else current.item = pushData(current.item, name, data);
  };

  /** Prolog or epilog: whitespace, comments, PIs (a DOCTYPE before the root). Stops at an element or the end. */
  const misc = (afterRoot: boolean) => {
    for (;;) {
      skipWhitespace();
      const ch = at(pos);
      if (ch === undefined) return;
      const tokenStart = pos;
      if (ch === "<") {
        const next = at(pos + 1);
        if (next === undefined) fail("unclosed token", tokenStart);
        if (next === "?") processingInstruction(tokenStart, tokenStart === 0);
        else if (startsWith("<!--")) comment(tokenStart);
        else if (!afterRoot && startsWith("<!DOCTYPE")) doctype(tokenStart);
        else if (next === "!") fail("syntax error", tokenStart);
        else if (isNameStart(next)) {
          if (afterRoot) fail("junk after document element", tokenStart);
          return;
        } else fail("not well-formed (invalid token)", pos + 1);
        continue;
      }
      if (isNameChar(ch)) {
        readName();
        const after = at(pos);
        if (after !== undefined && !PROLOG_NAME_END.has(after) && !"+*?".includes(after)) fail("not well-formed (invalid token)", pos);
        fail(afterRoot ? "junk after document element" : "syntax error", tokenStart);
      }
      if (ch === "#") {
        if (!isNameStart(at(pos + 1))) fail("not well-formed (invalid token)", pos + 1);
        fail(afterRoot ? "junk after document element" : "syntax error", tokenStart);
      }
      if (PROLOG_PUNCTUATION.has(ch) || ch === '"' || ch === "'") fail(afterRoot ? "junk after document element" : "syntax error", tokenStart);
      fail("not well-formed (invalid token)", tokenStart);
    }
  };

  misc(false);
  if (pos >= text.length) fail("no element found", text.length);

  // The root element and its content.
  const open: string[] = [];
  const root = startTag();
  if (!root.empty) open.push(root.name);
  while (open.length > 0) {
    const ch = at(pos);
    if (ch === undefined) fail("no element found", text.length);
    if (ch === "<") {
      const tokenStart = pos;
      const next = at(pos + 1);
      if (next === undefined) fail("unclosed token", tokenStart);
      if (next === "/") {
        pos += 2;
        const nameOffset = pos;
        if (!isNameStart(at(pos))) fail(at(pos) === undefined ? "unclosed token" : "not well-formed (invalid token)", at(pos) === undefined ? tokenStart : pos);
        const name = readName();
        skipWhitespace();
        if (at(pos) === undefined) fail("unclosed token", tokenStart);
        if (at(pos) !== ">" || name === "") fail("not well-formed (invalid token)", pos);
        if (name !== open.at(-1)) fail("mismatched tag", nameOffset);
        pos++;
        open.pop();
        closeElement(name);
      } else if (startsWith("<!--")) comment(tokenStart);
      else if (startsWith("<![CDATA[")) {
        const end = text.indexOf("]]>", pos + 9);
        if (end === -1) fail("unclosed CDATA section", text.length);
        current.data.push(text.slice(pos + 9, end).replace(/\r\n?/g, "\n"));
        pos = end + 3;
      } else if (next === "?") processingInstruction(tokenStart, false);
      else if (isNameStart(next)) {
        const child = startTag();
        if (!child.empty) open.push(child.name);
      } else fail("not well-formed (invalid token)", pos + 1);
      continue;
    }
    if (ch === "&") {
      current.data.push(reference());
      continue;
    }
    // Character data up to the next markup.
    const start = pos;
    while (pos < text.length && text[pos] !== "<" && text[pos] !== "&") {
      const code = text.codePointAt(pos)!;
      if (!isXmlChar(code)) fail("not well-formed (invalid token)", pos);
      if (text[pos] === ">" && startsWith("]]", pos - 2) && pos - 2 >= start) fail("not well-formed (invalid token)", pos);
      pos += code > 0xffff ? 2 : 1;
    }
    current.data.push(text.slice(start, pos).replace(/\r\n?/g, "\n"));
  }
  misc(true);
  return current.item;
}
