// Aviary's GSM8K calculator (SafeMathEvaluator in aviary.envs.gsm8k): a Python expression is parsed, never run.
// Only number constants, the operators + - * / // % ** (binary) and - + (unary), and calls of abs, round, min, max
// and sum by plain name are evaluated, with Python's number semantics (ints of any size, floats, the complex a
// negative base to a fractional power gives). Every other node of Python's expression grammar parses (so the
// error names its `ast` class, as aviary's does) and is refused when evaluation reaches it. Evaluation order and
// the checks before it (an operator is checked before its operands are evaluated) are aviary's, so the first
// error a wrong expression meets is the one aviary reports.
//
// Differences, on purpose: SyntaxError texts are "invalid syntax (<unknown>, line 1)" (CPython's parser words some
// cases differently); an int result beyond MAX_INT_BITS is refused (CPython would compute 9**9**9 for minutes).
import { PyException, OverflowError, ValueError } from "../../python/exception.ts";
import { floatRepr, pythonRound } from "../../python/float.ts";
import { trueDivide } from "../../python/math.ts";

/** A Python number: int (bool is read as int), float, or complex. */
export type PyNumber = { kind: "int"; value: bigint } | { kind: "float"; value: number } | { kind: "complex"; re: number; im: number };

/** Ints beyond this many bits are refused (a safety bound; CPython has none). */
export const MAX_INT_BITS = 65_536;

class PyTypeError extends PyException {
  constructor(message: string) {
    super("TypeError", message);
  }
}
class PySyntaxError extends PyException {
  constructor(message = "invalid syntax") {
    super("SyntaxError", `${message} (<unknown>, line 1)`);
  }
}
/** `OverflowError(34, 'Numerical result out of range')`: what a float `**` that overflows raises. */
class ErrnoOverflowError extends PyException {
  constructor() {
    super("OverflowError", "(34, 'Numerical result out of range')");
  }
  override repr(): string {
    return "OverflowError(34, 'Numerical result out of range')";
  }
  override str(): string {
    return "[Errno 34] Numerical result out of range";
  }
}
/** What evaluation hits a ZeroDivisionError as (aviary re-raises it as this ValueError). */
class PyZeroDivision extends PyException {
  constructor(message: string) {
    super("ZeroDivisionError", message);
  }
}

// ---- the syntax tree: every node kind keeps its Python `ast` class name ----

type BinOpName = "Add" | "Sub" | "Mult" | "Div" | "FloorDiv" | "Mod" | "Pow" | "MatMult" | "LShift" | "RShift" | "BitOr" | "BitXor" | "BitAnd";
type Node =
  | { type: "Constant"; value: PyNumber | { kind: "other"; typeName: string } }
  | { type: "BinOp"; op: BinOpName; left: Node; right: Node }
  | { type: "UnaryOp"; op: "USub" | "UAdd" | "Invert" | "Not"; operand: Node }
  | { type: "Call"; func: Node; args: Node[] }
  | { type: "Name"; id: string }
  | { type: string };

const BINARY_OPS: Record<string, BinOpName> = {
  "+": "Add", "-": "Sub", "*": "Mult", "/": "Div", "//": "FloorDiv", "%": "Mod", "**": "Pow", "@": "MatMult",
  "<<": "LShift", ">>": "RShift", "|": "BitOr", "^": "BitXor", "&": "BitAnd",
};

// ---- tokens ----

type Token = { kind: "num"; text: string } | { kind: "str"; prefix: string } | { kind: "name"; text: string } | { kind: "op"; text: string } | { kind: "end" };

const KEYWORDS = new Set(["and", "or", "not", "if", "else", "lambda", "in", "is", "for", "async", "await", "yield"]);
const OPERATORS = ["**=", "//=", ">>=", "<<=", "...", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", ":=", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
  "+", "-", "*", "/", "%", "@", "|", "^", "&", "~", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=", "!"];
const NUMBER = /^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?[jJ]?)/;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let depth = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === " " || ch === "\t" || ch === "\f") { i++; continue; }
    if (ch === "\\" && source[i + 1] === "\n") { i += 2; continue; }
    if (ch === "\n" || ch === "\r") {
      if (depth === 0) throw new PySyntaxError();
      i++;
      continue;
    }
    if (ch === "#") break;
    const rest = source.slice(i);
    const string = /^([rRbBuUfF]{0,2})('''|"""|'|")/.exec(rest);
    if (string && /^(?:[rR]?[bBfF]?|[bBfF][rR]|[uU])$/.test(string[1]!)) {
      const quote = string[2]!;
      let j = string[0].length;
      const raw = /r/i.test(string[1]!);
      for (;;) {
        if (j >= rest.length) throw new PySyntaxError("unterminated string literal");
        if (!raw && rest[j] === "\\") { j += 2; continue; }
        if (rest.startsWith(quote, j)) { j += quote.length; break; }
        if (quote.length === 1 && rest[j] === "\n") throw new PySyntaxError("unterminated string literal");
        j++;
      }
      tokens.push({ kind: "str", prefix: string[1]!.toLowerCase() });
      i += j;
      continue;
    }
    const number = NUMBER.exec(rest);
    if (number && /[0-9.]/.test(ch) && !(ch === "." && !/^\.\d/.test(rest))) {
      const after = rest[number[0].length];
      if (after !== undefined && /[\p{L}\p{N}_]/u.test(after)) throw new PySyntaxError("invalid decimal literal");
      if (/^0[\d_]*$/.test(number[0]) && /[1-9]/.test(number[0])) throw new PySyntaxError("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
      tokens.push({ kind: "num", text: number[0] });
      i += number[0].length;
      continue;
    }
    const name = /^[\p{L}_][\p{L}\p{N}_]*/u.exec(rest);
    if (name) {
      tokens.push({ kind: "name", text: name[0] });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((candidate) => rest.startsWith(candidate));
    if (!op) throw new PySyntaxError();
    if (op === "(" || op === "[" || op === "{") depth++;
    if (op === ")" || op === "]" || op === "}") depth--;
    if (depth < 0) throw new PySyntaxError(`unmatched '${op}'`);
    tokens.push({ kind: "op", text: op });
    i += op.length;
  }
  tokens.push({ kind: "end" });
  return tokens;
}

// ---- parsing: Python's expression grammar, down to the node kinds ----

class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.position]!;
  }
  private isOp(text: string): boolean {
    const token = this.peek();
    return token.kind === "op" && token.text === text;
  }
  private isName(text: string): boolean {
    const token = this.peek();
    return token.kind === "name" && token.text === text;
  }
  private take(): Token {
    return this.tokens[this.position++]!;
  }
  private expectOp(text: string): void {
    if (!this.isOp(text)) throw new PySyntaxError();
    this.position++;
  }

  parseEval(): Node {
    const node = this.expressions();
    if (this.peek().kind !== "end") throw new PySyntaxError();
    return node;
  }

  /** `a, b` (a Tuple) or one expression. */
  private expressions(): Node {
    const first = this.namedExpression();
    if (!this.isOp(",")) return first;
    while (this.isOp(",")) {
      this.position++;
      if (this.startsExpression()) this.namedExpression();
    }
    return { type: "Tuple" };
  }

  private startsExpression(): boolean {
    const token = this.peek();
    if (token.kind === "end") return false;
    if (token.kind === "op") return ["(", "[", "{", "-", "+", "~", "*", "..."].includes(token.text);
    if (token.kind === "name") return !KEYWORDS.has(token.text) || ["not", "lambda", "await", "yield"].includes(token.text);
    return true;
  }

  private namedExpression(): Node {
    const node = this.expression();
    if (this.isOp(":=")) {
      if (node.type !== "Name") throw new PySyntaxError();
      this.position++;
      this.expression();
      return { type: "NamedExpr" };
    }
    return node;
  }

  private expression(): Node {
    if (this.isName("lambda")) {
      this.position++;
      while (!this.isOp(":")) {
        if (this.peek().kind === "end") throw new PySyntaxError();
        this.position++;
      }
      this.position++;
      this.expression();
      return { type: "Lambda" };
    }
    if (this.isName("yield") || this.isName("await")) throw new PySyntaxError();
    const node = this.disjunction();
    if (this.isName("if")) {
      this.position++;
      this.disjunction();
      if (!this.isName("else")) throw new PySyntaxError("expected 'else' after 'if' expression");
      this.position++;
      this.expression();
      return { type: "IfExp" };
    }
    return node;
  }

  private disjunction(): Node {
    const node = this.conjunction();
    if (!this.isName("or")) return node;
    while (this.isName("or")) (this.position++, this.conjunction());
    return { type: "BoolOp" };
  }

  private conjunction(): Node {
    const node = this.inversion();
    if (!this.isName("and")) return node;
    while (this.isName("and")) (this.position++, this.inversion());
    return { type: "BoolOp" };
  }

  private inversion(): Node {
    if (this.isName("not")) {
      this.position++;
      return { type: "UnaryOp", op: "Not", operand: this.inversion() };
    }
    return this.comparison();
  }

  private comparison(): Node {
    const node = this.binary(0);
    let compared = false;
    for (;;) {
      const token = this.peek();
      if (token.kind === "op" && ["<", ">", "<=", ">=", "==", "!="].includes(token.text)) this.position++;
      else if (this.isName("in")) this.position++;
      else if (this.isName("not") && this.tokens[this.position + 1]?.kind === "name" && (this.tokens[this.position + 1] as { text: string }).text === "in") this.position += 2;
      else if (this.isName("is")) {
        this.position++;
        if (this.isName("not")) this.position++;
      } else break;
      this.binary(0);
      compared = true;
    }
    return compared ? { type: "Compare" } : node;
  }

  // Binary operators, loosest first; ** is handled by power().
  private static readonly LEVELS: string[][] = [["|"], ["^"], ["&"], ["<<", ">>"], ["+", "-"], ["*", "/", "//", "%", "@"]];

  private binary(level: number): Node {
    if (level === Parser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const token = this.peek();
      if (token.kind !== "op" || !Parser.LEVELS[level]!.includes(token.text)) return left;
      this.position++;
      left = { type: "BinOp", op: BINARY_OPS[token.text]!, left, right: this.binary(level + 1) };
    }
  }

  private unary(): Node {
    const token = this.peek();
    if (token.kind === "op" && (token.text === "-" || token.text === "+" || token.text === "~")) {
      this.position++;
      return { type: "UnaryOp", op: token.text === "-" ? "USub" : token.text === "+" ? "UAdd" : "Invert", operand: this.unary() };
    }
    return this.power();
  }

  private power(): Node {
    const base = this.primary();
    if (this.isOp("**")) {
      this.position++;
      return { type: "BinOp", op: "Pow", left: base, right: this.unary() };
    }
    return base;
  }

  private primary(): Node {
    let node = this.atom();
    for (;;) {
      if (this.isOp(".")) {
        this.position++;
        if (this.take().kind !== "name") throw new PySyntaxError();
        node = { type: "Attribute" };
      } else if (this.isOp("(")) {
        this.position++;
        node = { type: "Call", func: node, args: this.callArguments() };
      } else if (this.isOp("[")) {
        this.position++;
        this.slices();
        node = { type: "Subscript" };
      } else return node;
    }
  }

  /** The positional arguments of a call (keyword arguments parse and, as in aviary, are never evaluated). */
  private callArguments(): Node[] {
    const args: Node[] = [];
    while (!this.isOp(")")) {
      if (this.isOp("*")) {
        this.position++;
        this.expression();
        args.push({ type: "Starred" });
      } else if (this.isOp("**")) {
        this.position++;
        this.expression();
      } else if (this.peek().kind === "name" && this.tokens[this.position + 1]?.kind === "op" && (this.tokens[this.position + 1] as { text: string }).text === "=") {
        this.position += 2;
        this.expression();
      } else {
        const arg = this.namedExpression();
        if (this.isName("for")) {
          this.comprehensionTail();
          args.push({ type: "GeneratorExp" });
        } else args.push(arg);
      }
      if (this.isOp(",")) this.position++;
      else if (!this.isOp(")")) throw new PySyntaxError();
    }
    this.position++;
    return args;
  }

  private slices(): void {
    while (!this.isOp("]")) {
      if (this.peek().kind === "end") throw new PySyntaxError();
      if (this.isOp(":") || this.isOp(",")) this.position++;
      else this.namedExpression();
    }
    this.position++;
  }

  private comprehensionTail(): void {
    while (this.isName("for") || this.isName("async")) {
      if (this.isName("async")) this.position++;
      this.position++;
      this.binary(0);
      while (this.isOp(",")) (this.position++, this.binary(0));
      if (!this.isName("in")) throw new PySyntaxError();
      this.position++;
      this.disjunction();
      while (this.isName("if")) (this.position++, this.disjunction());
    }
  }

  /** Items of a display up to `close`; the node kind says which display it was. */
  private display(close: string, kind: "List" | "Tuple" | "Set" | "Dict", comprehension: string): Node {
    let type: string = kind;
    let count = 0;
    let trailingComma = false;
    let isDict = kind === "Dict";
    while (!this.isOp(close)) {
      if (this.isOp("**")) {
        this.position++;
        this.binary(0);
        isDict = true;
      } else {
        if (this.isOp("*")) this.position++;
        this.namedExpression();
        if (kind === "Dict" && this.isOp(":")) {
          this.position++;
          this.expression();
          isDict = true;
        } else if (kind === "Dict" && count === 0) isDict = false;
      }
      count++;
      if (this.isName("for")) {
        this.comprehensionTail();
        type = comprehension === "" ? (isDict ? "DictComp" : "SetComp") : comprehension;
      }
      trailingComma = this.isOp(",");
      if (trailingComma) this.position++;
      else if (!this.isOp(close)) throw new PySyntaxError();
    }
    this.position++;
    if (kind === "Dict") return { type: type === kind ? (isDict || count === 0 ? "Dict" : "Set") : type };
    return { type };
  }

  private atom(): Node {
    const token = this.take();
    switch (token.kind) {
      case "num":
        return { type: "Constant", value: numberLiteral(token.text) };
      case "str": {
        let fString = token.prefix.includes("f");
        let bytes = token.prefix.includes("b");
        while (this.peek().kind === "str") {
          const next = this.take() as { prefix: string };
          fString ||= next.prefix.includes("f");
          if (next.prefix.includes("b") !== bytes) throw new PySyntaxError("cannot mix bytes and nonbytes literals");
          bytes ||= next.prefix.includes("b");
        }
        return fString ? { type: "JoinedStr" } : { type: "Constant", value: { kind: "other", typeName: bytes ? "bytes" : "str" } };
      }
      case "name":
        if (token.text === "True" || token.text === "False") return { type: "Constant", value: { kind: "int", value: token.text === "True" ? 1n : 0n } };
        if (token.text === "None") return { type: "Constant", value: { kind: "other", typeName: "NoneType" } };
        if (KEYWORDS.has(token.text)) throw new PySyntaxError();
        return { type: "Name", id: token.text };
      case "op":
        if (token.text === "...") return { type: "Constant", value: { kind: "other", typeName: "ellipsis" } };
        if (token.text === "(") {
          if (this.isOp(")")) return (this.position++, { type: "Tuple" });
          if (this.isName("yield")) throw new PySyntaxError();
          const first = this.isOp("*") ? (this.position++, this.expression(), { type: "Starred" }) : this.namedExpression();
          if (this.isName("for")) {
            this.comprehensionTail();
            this.expectOp(")");
            return { type: "GeneratorExp" };
          }
          if (this.isOp(")")) {
            this.position++;
            if (first.type === "Starred") throw new PySyntaxError("cannot use starred expression here");
            return first;
          }
          this.expectOp(",");
          return this.display(")", "Tuple", "");
        }
        if (token.text === "[") return this.display("]", "List", "ListComp");
        if (token.text === "{") return this.display("}", "Dict", "");
        throw new PySyntaxError();
      case "end":
        throw new PySyntaxError();
    }
  }
}

function numberLiteral(text: string): PyNumber {
  const clean = text.replace(/_/g, "");
  if (/[jJ]$/.test(clean)) return { kind: "complex", re: 0, im: Number(clean.slice(0, -1)) };
  if (/^0[xXoObB]/.test(clean)) return { kind: "int", value: BigInt(clean.toLowerCase()) };
  if (/[.eE]/.test(clean)) return { kind: "float", value: Number(clean) };
  return { kind: "int", value: BigInt(clean) };
}

// ---- Python number semantics ----

const typeName = (n: PyNumber) => n.kind;

function bitLength(n: bigint): number {
  return (n < 0n ? -n : n).toString(2).length;
}

function checkedInt(value: bigint): PyNumber {
  if (bitLength(value) > MAX_INT_BITS) throw new ValueError(`integer result exceeds ${MAX_INT_BITS} bits (refused by this port's calculator)`);
  return { kind: "int", value };
}

function toFloat(n: PyNumber): number {
  if (n.kind === "float") return n.value;
  if (n.kind === "int") {
    const value = Number(n.value);
    if (!Number.isFinite(value)) throw new OverflowError("int too large to convert to float");
    return value;
  }
  throw new PyTypeError("complex is not real");
}

const complexOf = (n: PyNumber): { re: number; im: number } => (n.kind === "complex" ? { re: n.re, im: n.im } : { re: toFloat(n), im: 0 });
const complexValue = (re: number, im: number): PyNumber => ({ kind: "complex", re, im });

/** Python's int floor division and modulo (the remainder takes the divisor's sign). */
function intDivmod(a: bigint, b: bigint): [bigint, bigint] {
  if (b === 0n) throw new PyZeroDivision("integer division or modulo by zero");
  let q = a / b;
  let r = a % b;
  if (r !== 0n && (r < 0n) !== (b < 0n)) {
    q -= 1n;
    r += b;
  }
  return [q, r];
}

/** CPython's float_divmod. */
function floatDivmod(vx: number, wx: number): [number, number] {
  if (wx === 0) throw new PyZeroDivision("float divmod()");
  let mod = vx % wx;
  let div = (vx - mod) / wx;
  if (mod) {
    if (wx < 0 !== mod < 0) {
      mod += wx;
      div -= 1;
    }
  } else mod = wx < 0 ? -0 : 0;
  let floordiv: number;
  if (div) {
    floordiv = Math.floor(div);
    if (div - floordiv > 0.5) floordiv += 1;
  } else floordiv = vx / wx < 0 ? -0 : 0;
  return [floordiv, mod];
}

function floatPow(x: number, y: number): PyNumber {
  if (x === 0 && y < 0) throw new PyZeroDivision("zero to a negative power");
  if (x < 0 && Number.isFinite(x) && Number.isFinite(y) && !Number.isInteger(y)) {
    // Python 3: a negative float to a fractional power is complex.
    return complexPow({ re: x, im: 0 }, { re: y, im: 0 });
  }
  const result = x ** y;
  if (!Number.isFinite(result) && Number.isFinite(x) && Number.isFinite(y)) throw new ErrnoOverflowError();
  return { kind: "float", value: result };
}

function complexPow(a: { re: number; im: number }, b: { re: number; im: number }): PyNumber {
  if (b.re === 0 && b.im === 0) return complexValue(1, 0);
  if (a.re === 0 && a.im === 0) {
    if (b.im !== 0 || b.re < 0) throw new PyZeroDivision("zero to a negative or complex power");
    return complexValue(0, 0);
  }
  const vabs = Math.hypot(a.re, a.im);
  let len = vabs ** b.re;
  const at = Math.atan2(a.im, a.re);
  let phase = at * b.re;
  if (b.im !== 0) {
    len /= Math.exp(at * b.im);
    phase += b.im * Math.log(vabs);
  }
  if (!Number.isFinite(len)) throw new OverflowError("complex exponentiation");
  return complexValue(len * Math.cos(phase), len * Math.sin(phase));
}

function unsupportedOperands(symbol: string, a: PyNumber, b: PyNumber): never {
  throw new PyTypeError(`unsupported operand type(s) for ${symbol}: '${typeName(a)}' and '${typeName(b)}'`);
}

function binaryOp(op: BinOpName, a: PyNumber, b: PyNumber): PyNumber {
  if (a.kind === "int" && b.kind === "int") {
    switch (op) {
      case "Add": return checkedInt(a.value + b.value);
      case "Sub": return checkedInt(a.value - b.value);
      case "Mult":
        if (bitLength(a.value) + bitLength(b.value) > MAX_INT_BITS + 1) return checkedInt(1n << BigInt(MAX_INT_BITS + 1));
        return checkedInt(a.value * b.value);
      case "Div":
        if (b.value === 0n) throw new PyZeroDivision("division by zero");
        return { kind: "float", value: trueDivide(a.value, b.value) };
      case "FloorDiv": return { kind: "int", value: intDivmod(a.value, b.value)[0] };
      case "Mod": return { kind: "int", value: intDivmod(a.value, b.value)[1] };
      case "Pow": {
        if (b.value < 0n) {
          if (a.value === 0n) throw new PyZeroDivision("0.0 cannot be raised to a negative power");
          return floatPow(toFloat(a), toFloat(b));
        }
        const magnitude = a.value < 0n ? -a.value : a.value;
        if (magnitude > 1n && BigInt(bitLength(a.value) - 1) * b.value > BigInt(MAX_INT_BITS)) return checkedInt(1n << BigInt(MAX_INT_BITS + 1));
        return checkedInt(a.value ** b.value);
      }
      default: throw new Error(`unreachable operator ${op}`);
    }
  }
  if (a.kind === "complex" || b.kind === "complex") {
    const x = complexOf(a);
    const y = complexOf(b);
    switch (op) {
      case "Add": return complexValue(x.re + y.re, x.im + y.im);
      case "Sub": return complexValue(x.re - y.re, x.im - y.im);
      case "Mult": return complexValue(x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re);
      case "Div": {
        if (y.re === 0 && y.im === 0) throw new PyZeroDivision("complex division by zero");
        const d = y.re * y.re + y.im * y.im;
        return complexValue((x.re * y.re + x.im * y.im) / d, (x.im * y.re - x.re * y.im) / d);
      }
      case "Pow": return complexPow(x, y);
      case "FloorDiv": return unsupportedOperands("//", a, b);
      case "Mod": return unsupportedOperands("%", a, b);
      default: throw new Error(`unreachable operator ${op}`);
    }
  }
  const x = toFloat(a);
  const y = toFloat(b);
  switch (op) {
    case "Add": return { kind: "float", value: x + y };
    case "Sub": return { kind: "float", value: x - y };
    case "Mult": return { kind: "float", value: x * y };
    case "Div":
      if (y === 0) throw new PyZeroDivision("float division by zero");
      return { kind: "float", value: x / y };
    case "FloorDiv": return { kind: "float", value: floatDivmod(x, y)[0] };
    case "Mod": return { kind: "float", value: floatDivmod(x, y)[1] };
    case "Pow": return floatPow(x, y);
    default: throw new Error(`unreachable operator ${op}`);
  }
}

function compareLess(a: PyNumber, b: PyNumber): boolean {
  if (a.kind === "complex" || b.kind === "complex") throw new PyTypeError(`'<' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
  if (a.kind === "int" && b.kind === "int") return a.value < b.value;
  return toFloatForCompare(a) < toFloatForCompare(b);
}
const toFloatForCompare = (n: PyNumber): number => (n.kind === "int" ? Number(n.value) : (n as { value: number }).value);

function absOf(n: PyNumber): PyNumber {
  if (n.kind === "int") return { kind: "int", value: n.value < 0n ? -n.value : n.value };
  if (n.kind === "float") return { kind: "float", value: Math.abs(n.value) };
  return { kind: "float", value: Math.hypot(n.re, n.im) };
}

/** `int(x)` of a finite float, exactly. */
function floatToInt(x: number): bigint {
  if (Number.isNaN(x)) throw new ValueError("cannot convert float NaN to integer");
  if (!Number.isFinite(x)) throw new OverflowError("cannot convert float infinity to integer");
  return BigInt(Math.trunc(x));
}

function roundOf(args: PyNumber[]): PyNumber {
  if (args.length === 0) throw new PyTypeError("round() missing required argument 'number' (pos 1)");
  if (args.length > 2) throw new PyTypeError(`round() takes at most 2 arguments (${args.length} given)`);
  const [number, ndigits] = args as [PyNumber, PyNumber | undefined];
  if (number.kind === "complex") throw new PyTypeError("type complex doesn't define __round__ method");
  if (ndigits !== undefined && ndigits.kind !== "int") throw new PyTypeError(`'${typeName(ndigits)}' object cannot be interpreted as an integer`);
  if (number.kind === "int") {
    if (ndigits === undefined || ndigits.value >= 0n) return number;
    const scale = 10n ** -ndigits.value;
    const [q, r] = intDivmod(number.value, scale);
    const twice = 2n * r;
    const rounded = twice > scale || (twice === scale && q % 2n !== 0n) ? q + 1n : q;
    return { kind: "int", value: rounded * scale };
  }
  if (ndigits === undefined) {
    const x = number.value;
    let rounded = Math.round(x);
    // Half to even: Math.round rounds .5 up.
    if (Math.abs(x % 1) === 0.5) rounded = 2 * Math.round(x / 2);
    return { kind: "int", value: floatToInt(rounded) };
  }
  const digits = Number(ndigits.value);
  if (!Number.isFinite(number.value) || number.value === 0) return number;
  if (digits >= 0) return { kind: "float", value: digits > 330 ? number.value : pythonRound(number.value, digits) };
  const scale = 10 ** -digits;
  if (!Number.isFinite(scale)) return { kind: "float", value: number.value < 0 ? -0 : 0 };
  const scaled = number.value / scale;
  let rounded = Math.round(scaled);
  if (Math.abs(scaled % 1) === 0.5) rounded = 2 * Math.round(scaled / 2);
  return { kind: "float", value: rounded * scale };
}

function notIterable(n: PyNumber): never {
  throw new PyTypeError(`'${typeName(n)}' object is not iterable`);
}

const SAFE_FUNCTIONS: Record<string, (args: PyNumber[]) => PyNumber> = {
  abs(args) {
    if (args.length !== 1) throw new PyTypeError(`abs() takes exactly one argument (${args.length} given)`);
    return absOf(args[0]!);
  },
  round: roundOf,
  min: (args) => extreme("min", args),
  max: (args) => extreme("max", args),
  sum(args) {
    if (args.length === 0) throw new PyTypeError("sum() takes at least 1 positional argument (0 given)");
    if (args.length > 2) throw new PyTypeError(`sum() takes at most 2 arguments (${args.length} given)`);
    return notIterable(args[0]!);
  },
};

function extreme(name: "min" | "max", args: PyNumber[]): PyNumber {
  if (args.length === 0) throw new PyTypeError(`${name} expected at least 1 argument, got 0`);
  if (args.length === 1) return notIterable(args[0]!);
  let best = args[0]!;
  for (const candidate of args.slice(1)) {
    if (name === "min" ? compareLess(candidate, best) : compareLess(best, candidate)) best = candidate;
  }
  return best;
}

const astClass = (name: string) => `<class 'ast.${name}'>`;

function evalNode(node: Node): PyNumber {
  switch (node.type) {
    case "Constant": {
      const { value } = node as Extract<Node, { type: "Constant" }>;
      if (value.kind === "int" || value.kind === "float") return value;
      throw new ValueError(`Unsupported constant type: <class '${value.kind === "complex" ? "complex" : value.typeName}'>`);
    }
    case "BinOp": {
      const { op, left, right } = node as Extract<Node, { type: "BinOp" }>;
      if (!["Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow"].includes(op)) throw new ValueError(`Unsupported operation: ${astClass(op)}`);
      const a = evalNode(left);
      const b = evalNode(right);
      return binaryOp(op, a, b);
    }
    case "UnaryOp": {
      const { op, operand } = node as Extract<Node, { type: "UnaryOp" }>;
      if (op !== "USub" && op !== "UAdd") throw new ValueError(`Unsupported unary operation: ${astClass(op)}`);
      const value = evalNode(operand);
      if (op === "UAdd") return value;
      if (value.kind === "int") return { kind: "int", value: -value.value };
      if (value.kind === "float") return { kind: "float", value: -value.value };
      return complexValue(-value.re, -value.im);
    }
    case "Call": {
      const { func, args } = node as Extract<Node, { type: "Call" }>;
      if (func.type !== "Name") throw new PyTypeError("Only simple function calls are supported");
      const name = (func as { id: string }).id;
      const fn = SAFE_FUNCTIONS[name];
      if (!fn) throw new ValueError(`Unsupported function: ${name}`);
      return fn(args.map(evalNode));
    }
    default:
      throw new ValueError(`Unsupported AST node type: ${astClass(node.type)}`);
  }
}

/**
 * `SafeMathEvaluator.evaluate(expr)`: the value, or the ValueError aviary raises (a ZeroDivisionError becomes
 * "Division by zero is not allowed"; a ValueError, TypeError or SyntaxError "Invalid mathematical expression: …").
 * Anything else (an OverflowError) is raised as it is, as in aviary.
 */
export function evaluateSafeMath(expr: string): PyNumber {
  try {
    return evalNode(new Parser(tokenize(expr)).parseEval());
  } catch (error) {
    if (error instanceof PyZeroDivision) throw new ValueError("Division by zero is not allowed");
    if (error instanceof PyException && ["ValueError", "TypeError", "SyntaxError", "KeyError"].includes(error.type)) {
      throw new ValueError(`Invalid mathematical expression: ${error.str()}`);
    }
    throw error;
  }
}

/**
 * The calculator's result as aviary's tool reply carries it: an integral float is made an int (int(x) == x), then
 * the value goes through json.dumps / json.loads and str(). A complex result, or an infinite float, raises as
 * `int(result)` does in Python (aviary reports it as a calculator error).
 */
export function calculatorResultText(result: PyNumber): string {
  if (result.kind === "complex") throw new PyTypeError("int() argument must be a string, a bytes-like object or a real number, not 'complex'");
  if (result.kind === "int") {
    const text = result.value.toString();
    // CPython's int-to-str limit (json.dumps raises it outside the tool's own try, so the step fails).
    if (text.replace("-", "").length > 4300) throw new IntStrLimitError();
    return text;
  }
  const x = result.value;
  if (Number.isNaN(x)) return "nan";
  const asInt = floatToInt(x);
  if (Number(asInt) === x) return calculatorResultText({ kind: "int", value: asInt });
  return floatRepr(x);
}

/** `ValueError: Exceeds the limit (4300 digits) for integer string conversion`: raised outside the tool's try. */
export class IntStrLimitError extends PyException {
  constructor() {
    super("ValueError", "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit");
  }
}
