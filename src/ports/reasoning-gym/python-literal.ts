// The Python literals reasoning-gym writes as `str(list)` oracles (`"['-1.5', '3']"`), read the way `eval` reads
// them: lists, tuples (bare ones too), quoted strings with their escapes, ints, floats, signs, True/False/None. Any other
// expression is refused (an exception, which the scorers treat as Python's own evaluation failing).
import type { PyValue } from "../../python/values.ts";
import { readEscape } from "../../python/escapes.ts";
import { PyException } from "../../python/exception.ts";

/** The SyntaxError eval raises on what is not a literal. */
export class LiteralSyntaxError extends PyException {
  constructor(message: string) {
    super("SyntaxError", message);
  }
}

export function evalPythonLiteral(source: string): PyValue {
  let position = 0;
  const fail = (what: string): never => {
    throw new LiteralSyntaxError(`${what} at position ${position} of ${JSON.stringify(source.slice(0, 80))}`);
  };
  const skipSpace = () => {
    while (position < source.length && " \t\n\r\f\v".includes(source[position]!)) position++;
  };

  const readString = (): string => {
    const quote = source[position]!;
    position++;
    let text = "";
    while (position < source.length && source[position] !== quote) {
      const ch = source[position]!;
      if (ch === "\n") fail("newline in string");
      if (ch !== "\\") {
        text += ch;
        position++;
        continue;
      }
      const { value, length } = readEscape(source, position, (reason) => fail(`bad escape (${reason})`));
      text += value;
      position += length;
    }
    if (position >= source.length) fail("unterminated string");
    position++;
    return text;
  };

  const readNumber = (negative: boolean): PyValue => {
    const match = /^(?:\d(?:_?\d)*)?(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)?/.exec(source.slice(position))!;
    const text = match[0].replace(/_/g, "");
    if (!/\d/.test(text.split(/[eE]/)[0]!)) fail("expected a value");
    position += match[0].length;
    if (/^\d+$/.test(text)) {
      if (text.length > 1 && text.startsWith("0") && /[1-9]/.test(text)) fail("leading zeros in a decimal integer");
      return negative ? -BigInt(text) : BigInt(text);
    }
    return negative ? -Number(text) : Number(text);
  };

  const readValue = (): PyValue => {
    skipSpace();
    const ch = source[position];
    if (ch === "[" || ch === "(") return readSequence(ch === "[" ? "]" : ")");
    if (ch === "'" || ch === '"') return readString();
    if (ch === "-" || ch === "+") {
      position++;
      skipSpace();
      const value = readValue();
      if (typeof value === "bigint") return ch === "-" ? -value : value;
      if (typeof value === "number") return ch === "-" ? -value : value;
      if (typeof value === "boolean") return ch === "-" ? -BigInt(value ? 1 : 0) : BigInt(value ? 1 : 0);
      return fail("bad operand type for unary operator");
    }
    for (const [word, value] of [["True", true], ["False", false], ["None", null]] as const) {
      if (source.startsWith(word, position) && !/[A-Za-z0-9_]/.test(source[position + word.length] ?? "")) {
        position += word.length;
        return value;
      }
    }
    if (ch !== undefined && /[0-9.]/.test(ch)) return readNumber(false);
    return fail("unsupported expression");
  };

  const readSequence = (close: string): PyValue[] => {
    position++;
    const items: PyValue[] = [];
    for (;;) {
      skipSpace();
      if (source[position] === close) break;
      items.push(readValue());
      skipSpace();
      if (source[position] === ",") position++;
      else if (source[position] !== close) fail("expected ',' or closing bracket");
    }
    position++;
    return items;
  };

  let value = readValue();
  skipSpace();
  // `eval("1, 2")` is a tuple: a top-level comma-separated run (a trailing comma allowed) reads as one.
  if (source[position] === ",") {
    const items = [value];
    while (source[position] === ",") {
      position++;
      skipSpace();
      if (position === source.length) break;
      items.push(readValue());
      skipSpace();
    }
    value = items;
  }
  if (position !== source.length) fail("trailing text");
  return value;
}
