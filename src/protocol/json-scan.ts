// One pass over a JSON text, before JSON.parse sees it, that answers what JSON.parse cannot:
// - where the text stops being JSON, as Python's `json.loads` reports it (its message and character
//   position: FastAPI's 422 `json_invalid` carries both);
// - where the nesting first goes deeper than a limit (validators and serializers above JSON.parse
//   recurse, so depth is bounded at the door; the scanner itself keeps an explicit stack);
// - where Python's non-standard literals `NaN`, `Infinity` and `-Infinity` stand (`json.dumps` writes
//   them by default and `json.loads` reads them, so a Python client's body may hold them).
// The grammar is Python's: its number syntax, its escapes, its whitespace.

export interface JsonSyntaxProblem {
  kind: "syntax";
  /** Python's `JSONDecodeError.msg`, e.g. "Expecting value". */
  message: string;
  /** Python's `JSONDecodeError.pos` (a UTF-16 index here; the same for BMP text). */
  position: number;
}

export interface JsonDepthProblem {
  kind: "depth";
  /** Keys and indexes from the root to the container that crossed the limit. */
  path: (string | number)[];
}

export interface JsonScan {
  problem?: JsonSyntaxProblem | JsonDepthProblem;
  /** Start offsets of the bare NaN / Infinity / -Infinity tokens, in text order. */
  nonFinite: { position: number; literal: NonFiniteLiteral }[];
}

export type NonFiniteLiteral = "NaN" | "Infinity" | "-Infinity";

const enum Expect {
  Value,
  /** After `[`: a value or `]`. */
  FirstElement,
  /** After `{`: a key or `}`. */
  FirstKey,
  Key,
  Colon,
  /** After a value inside a container: `,` or the closer. */
  CommaOrClose,
}

interface Frame {
  isObject: boolean;
  /** Array: index of the current element; object: offsets of the current key's quoted text. */
  index: number;
  keyStart: number;
  keyEnd: number;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Scans `text`; `maxDepth` containers may nest (the root container is level 1). */
export function scanJson(text: string, maxDepth: number): JsonScan {
  const nonFinite: JsonScan["nonFinite"] = [];
  const stack: Frame[] = [];
  const length = text.length;
  let i = 0;
  let expect: Expect = Expect.Value;
  const fail = (message: string, position: number): JsonScan => ({ problem: { kind: "syntax", message, position }, nonFinite });

  for (;;) {
    while (i < length && isSpace(text.charCodeAt(i))) i++;
    if (stack.length === 0 && expect === Expect.CommaOrClose) {
      return i < length ? fail("Extra data", i) : { nonFinite };
    }
    const c = i < length ? text.charCodeAt(i) : -1;
    const top = stack[stack.length - 1];

    if (expect === Expect.CommaOrClose) {
      if (c === 0x2c /* , */) {
        i++;
        if (top!.isObject) expect = Expect.Key;
        else {
          top!.index++;
          expect = Expect.Value;
        }
      } else if (c === (top!.isObject ? 0x7d : 0x5d)) {
        i++;
        stack.pop();
      } else return fail("Expecting ',' delimiter", i);
      continue;
    }
    if (expect === Expect.Colon) {
      if (c !== 0x3a /* : */) return fail("Expecting ':' delimiter", i);
      i++;
      expect = Expect.Value;
      continue;
    }
    if (expect === Expect.FirstKey || expect === Expect.Key) {
      if (expect === Expect.FirstKey && c === 0x7d /* } */) {
        i++;
        stack.pop();
        expect = Expect.CommaOrClose;
        continue;
      }
      if (c !== 0x22) return fail("Expecting property name enclosed in double quotes", i);
      const end = scanString(text, i);
      if (typeof end !== "number") return fail(end.message, end.position);
      top!.keyStart = i;
      top!.keyEnd = end;
      i = end;
      expect = Expect.Colon;
      continue;
    }
    if (expect === Expect.FirstElement && c === 0x5d /* ] */) {
      i++;
      stack.pop();
      expect = Expect.CommaOrClose;
      continue;
    }

    // A value.
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth) return { problem: { kind: "depth", path: pathOf(text, stack) }, nonFinite };
      stack.push({ isObject: c === 0x7b, index: 0, keyStart: -1, keyEnd: -1 });
      i++;
      expect = c === 0x7b ? Expect.FirstKey : Expect.FirstElement;
      continue;
    }
    expect = Expect.CommaOrClose;
    if (c === 0x22 /* " */) {
      const end = scanString(text, i);
      if (typeof end !== "number") return fail(end.message, end.position);
      i = end;
    } else if (c === 0x6e /* n */ && text.startsWith("null", i)) i += 4;
    else if (c === 0x74 /* t */ && text.startsWith("true", i)) i += 4;
    else if (c === 0x66 /* f */ && text.startsWith("false", i)) i += 5;
    else if (c === 0x4e /* N */ && text.startsWith("NaN", i)) {
      nonFinite.push({ position: i, literal: "NaN" });
      i += 3;
    } else if (c === 0x49 /* I */ && text.startsWith("Infinity", i)) {
      nonFinite.push({ position: i, literal: "Infinity" });
      i += 8;
    } else if (c === 0x2d /* - */ && text.startsWith("-Infinity", i)) {
      nonFinite.push({ position: i, literal: "-Infinity" });
      i += 9;
    } else {
      const end = scanNumber(text, i);
      if (end === -1) return fail("Expecting value", i);
      i = end;
    }
  }
}

/** Within a string, the characters that need a look: the closing quote, an escape, a control character. */
const STRING_STOP = /["\\\u0000-\u001f]/g;
const isHex = (c: number) => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/** The offset just past the closing quote of the string opening at `start`, or Python's error. */
function scanString(text: string, start: number): number | { message: string; position: number } {
  let i = start + 1;
  for (;;) {
    STRING_STOP.lastIndex = i;
    if (!STRING_STOP.test(text)) return { message: "Unterminated string starting at", position: start };
    i = STRING_STOP.lastIndex - 1;
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return { message: "Invalid control character at", position: i };
    // A backslash.
    const escape = text.charCodeAt(i + 1);
    if (escape === 0x75 /* u */) {
      if (!(isHex(text.charCodeAt(i + 2)) && isHex(text.charCodeAt(i + 3)) && isHex(text.charCodeAt(i + 4)) && isHex(text.charCodeAt(i + 5)))) {
        return { message: "Invalid \\uXXXX escape", position: i + 1 };
      }
      i += 6;
    } else if (escape === 0x22 || escape === 0x5c || escape === 0x2f || escape === 0x62 || escape === 0x66 || escape === 0x6e || escape === 0x72 || escape === 0x74) {
      i += 2;
    } else if (i + 1 >= text.length) {
      return { message: "Unterminated string starting at", position: start };
    } else return { message: "Invalid \\escape", position: i };
  }
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** The offset just past Python's number syntax at `i`, or -1 when none starts there. */
function scanNumber(text: string, i: number): number {
  if (text.charCodeAt(i) === 0x2d) i++;
  let c = text.charCodeAt(i);
  if (!isDigit(c)) return -1;
  if (c === 0x30) c = text.charCodeAt(++i);
  else while (isDigit(c)) c = text.charCodeAt(++i);
  if (c === 0x2e && isDigit(text.charCodeAt(i + 1))) {
    i += 2;
    while (isDigit((c = text.charCodeAt(i)))) i++;
  }
  if ((c | 0x20) === 0x65) {
    let j = i + 1;
    const sign = text.charCodeAt(j);
    if (sign === 0x2b || sign === 0x2d) j++;
    if (isDigit(text.charCodeAt(j))) {
      i = j + 1;
      while (isDigit(text.charCodeAt(i))) i++;
    }
  }
  return i;
}

function pathOf(text: string, stack: readonly Frame[]): (string | number)[] {
  return stack.map((frame) => (frame.isObject ? (JSON.parse(text.slice(frame.keyStart, frame.keyEnd)) as string) : frame.index));
}
