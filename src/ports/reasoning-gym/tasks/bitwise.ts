// reasoning-gym's bitwise_arithmetic scorer: the answer, read as `int(answer, 0)`, must equal the value of
// `metadata.problem` — an integer expression the library `eval()`s. Here that expression is computed by a small
// evaluator of exactly the grammar the library generates (hex/decimal ints, `+ - * << >>`, unary signs,
// parentheses, Python's precedence), never evaluated as code; anything else counts as a failed eval (0.0).
import { asciiDigits } from "../../../python/numbers.ts";
import { pythonStrip } from "../../../python/str.ts";
import { item, type Entry } from "../types.ts";

class Unsupported extends Error {}

const BASE_PREFIXES: Record<string, number> = { x: 16, o: 8, b: 2 };

/** Python's `int(text, 0)`: a sign, then 0x/0o/0b digits or a decimal without leading zeros, `_` between digits. */
export function pythonIntBase0(text: string): bigint {
  const body = asciiDigits(pythonStrip(text));
  const match = /^([+-]?)(?:0([xob])((?:_?[0-9a-f])+)|(0(?:_?0)*|[1-9](?:_?[0-9])*))$/i.exec(body);
  if (!match) throw new Error(`ValueError: invalid literal for int() with base 0: '${text}'`);
  const [, sign, prefix, digits, decimal] = match;
  let value: bigint;
  if (prefix !== undefined) {
    const base = BASE_PREFIXES[prefix.toLowerCase()]!;
    const clean = digits!.replace(/_/g, "").toLowerCase();
    if ([...clean].some((d) => parseInt(d, 16) >= base)) throw new Error(`ValueError: invalid literal for int() with base 0: '${text}'`);
    value = BigInt(`0${prefix.toLowerCase()}${clean}`);
  } else value = BigInt(decimal!.replace(/_/g, ""));
  return sign === "-" ? -value : value;
}

type Token = { kind: "int"; value: bigint } | { kind: "op"; text: string };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s+|0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|[1-9](?:_?[0-9])*|0(?:_?0)*|<<|>>|[-+*()]/y;
  for (let position = 0; position < source.length; ) {
    pattern.lastIndex = position;
    const match = pattern.exec(source);
    if (!match) throw new Unsupported(`unsupported text at ${position}`);
    const text = match[0];
    position += text.length;
    if (/^\s+$/.test(text)) continue;
    // A number run straight into a letter or digit ("0x1g", "12abc") is not one Python token.
    if (/^[0-9]/.test(text) && /[0-9A-Za-z_.]/.test(source[position] ?? "")) throw new Unsupported("malformed number");
    tokens.push(/^[0-9]/.test(text) ? { kind: "int", value: pythonIntBase0(text) } : { kind: "op", text });
  }
  return tokens;
}

/** The value of the library's generated expression: shifts bind loosest, then + −, then *, then unary signs. */
function evaluate(source: string): bigint {
  const tokens = tokenize(source);
  let position = 0;
  const peek = () => (tokens[position]?.kind === "op" ? (tokens[position] as { text: string }).text : undefined);
  const shift = (): bigint => {
    let value = sum();
    for (let op = peek(); op === "<<" || op === ">>"; op = peek()) {
      position++;
      const count = sum();
      if (count < 0n) throw new Unsupported("negative shift count");
      if (op === "<<" && count > 1_000_000n) throw new Unsupported("shift too large");
      value = op === "<<" ? value << count : value >> count;
    }
    return value;
  };
  const sum = (): bigint => {
    let value = product();
    for (let op = peek(); op === "+" || op === "-"; op = peek()) {
      position++;
      value = op === "+" ? value + product() : value - product();
    }
    return value;
  };
  const product = (): bigint => {
    let value = unary();
    while (peek() === "*") {
      position++;
      value *= unary();
    }
    return value;
  };
  const unary = (): bigint => {
    const op = peek();
    if (op === "+" || op === "-") {
      position++;
      return op === "-" ? -unary() : unary();
    }
    const token = tokens[position++];
    if (token?.kind === "int") return token.value;
    if (token?.kind === "op" && token.text === "(") {
      const value = shift();
      if (peek() !== ")") throw new Unsupported("expected ')'");
      position++;
      return value;
    }
    throw new Unsupported("expected a value");
  };
  const value = shift();
  if (position !== tokens.length) throw new Unsupported("trailing tokens");
  return value;
}

/** bitwise_arithmetic: `int(answer, 0)` equal to the problem's value → 1.0; else (or unreadable) 0.0. */
export function bitwiseArithmetic(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  try {
    const problem = item(entry.metadata, "problem");
    if (typeof problem !== "string") return 0; // eval() of a non-str raises; verify_solution returns False
    return evaluate(pythonStrip(problem)) === pythonIntBase0(answer) ? 1 : 0;
  } catch {
    return 0;
  }
}
