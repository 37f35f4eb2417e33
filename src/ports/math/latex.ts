// Normalised LaTeX → expression tree: the grammar latex2sympy2_extended accepts for answers (numbers, \frac,
// \sqrt[n]{}, powers, implicit products, functions, |x|, n!, percent, degrees, sets, intervals, tuples,
// relations and chains, ±, matrices). Anything else throws, and math-verify then keeps only the string.
import { noteGap, spend } from "./budget.ts";
import { LATEX2SYMPY_COMMANDS } from "./latex2sympy-commands.ts";
import { approxValue, toNumber } from "./numeric.ts";
import {
  add, constant, divide, finiteSet, fn, HALF, integer, mul, neg, numberFromString, onlySymbols, percentOf, pow, rational, relation, symbol,
  type Expr, type RelationOp,
} from "./expr.ts";

export class LatexParseError extends Error {}

type Token =
  | { type: "number"; text: string }
  | { type: "letter"; text: string }
  | { type: "command"; text: string }
  | { type: "punct"; text: string };

const SPACING = new Set(["\\,", "\\;", "\\:", "\\quad", "\\qquad", "\\ ", "\\>", "\\enspace", "\\thinspace"]);
const UNICODE: Record<string, string> = { "−": "-", "×": "\\times", "÷": "\\div", "·": "\\cdot", "π": "\\pi", "∞": "\\infty", "≤": "\\le", "≥": "\\ge", "≠": "\\ne", "√": "\\sqrt", "°": "\\circ", "±": "\\pm" };

function tokenize(latex: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < latex.length) {
    spend();
    const c = latex[i]!;
    if (/\s|~/.test(c)) {
      i++;
      continue;
    }
    if (UNICODE[c]) {
      tokens.push({ type: "command", text: UNICODE[c] });
      i++;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      const match = /^(?:\d+(?:\.\d*)?|\.\d+)/.exec(latex.slice(i, i + 10_000));
      if (!match) throw new LatexParseError(`stray '.' at ${i}`);
      tokens.push({ type: "number", text: match[0] });
      i += match[0].length;
      continue;
    }
    const pair = latex.slice(i, i + 2);
    if (ASCII_RELATIONS[pair]) {
      tokens.push({ type: "command", text: ASCII_RELATIONS[pair] });
      i += 2;
      continue;
    }
    if (c === "\\") {
      // "\quadx" is "\quad" then "x" (spacing commands glue onto the next letter in model output).
      const spacing = /^\\q?quad/.exec(latex.slice(i, i + 6));
      if (spacing) {
        i += spacing[0].length;
        continue;
      }
      const match = /^\\(?:[a-zA-Z]+|.)/.exec(latex.slice(i, i + 64));
      if (!match) throw new LatexParseError("trailing backslash");
      i += match[0].length;
      if (SPACING.has(match[0])) continue;
      // latex2sympy's lexer has no "\[" or "\]" (display-math delimiters left inside an answer).
      if (match[0] === "\\[" || match[0] === "\\]") throw new LatexParseError(`unsupported ${match[0]}`);
      if (match[0] === VISUAL_OPEN || match[0] === VISUAL_CLOSE) {
        tokens.push({ type: "punct", text: match[0] });
        continue;
      }
      tokens.push({ type: "command", text: match[0] });
      continue;
    }
    if (/[a-zA-Z]/.test(c)) tokens.push({ type: "letter", text: c });
    else tokens.push({ type: "punct", text: c });
    i++;
  }
  return tokens;
}

const ASCII_RELATIONS: Record<string, string> = { ">=": "\\ge", "<=": "\\le", "!=": "\\ne" };
// latex2sympy's visual parentheses "\(" "\)" (what normalising "\\left(" leaves) open only set atoms: an
// ordered tuple `\( a; b \)` (one element is that element), or an interval whose other end may be `(`, `[`,
// `)` or `]`. A set atom stands as an element, a relation's right side, a set operation's operand or inside a
// plain parenthesis at that level, never as an operand of arithmetic, a function or a command: `\(\sqrt{2}\)`
// and `(\(3\))` parse, `2*(\(\sqrt{2}\))`, `2\(3\)` and `\frac{\(1\)}{2}` do not.
const VISUAL_OPEN = "\\(";
const VISUAL_CLOSE = "\\)";

const RELATIONS: Record<string, RelationOp | "approx"> = {
  "\\approx": "approx",
  "=": "=", "<": "<", ">": ">", "\\le": "<=", "\\leq": "<=", "\\leqslant": "<=", "\\ge": ">=", "\\geq": ">=", "\\geqslant": ">=",
  "\\lt": "<", "\\gt": ">", "\\ne": "!=", "\\neq": "!=", "\\in": "=",
};
const FUNCTIONS: Record<string, string> = {
  "\\sin": "sin", "\\cos": "cos", "\\tan": "tan", "\\cot": "cot", "\\sec": "sec", "\\csc": "csc", "\\arcsin": "asin", "\\arccos": "acos",
  "\\arctan": "atan", "\\sinh": "sinh", "\\cosh": "cosh", "\\tanh": "tanh", "\\ln": "log", "\\log": "log", "\\exp": "exp",
  "\\lfloor": "floor", "\\lceil": "ceiling",
};
const GREEK = new Set(["alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "rho", "sigma", "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Sigma", "Phi", "Psi", "Omega"]);
const MULTIPLY = new Set(["*", "\\cdot", "\\times", "\\ast"]);
// latex2sympy reads a ratio "7:32" as a division.
const DIVIDE = new Set(["/", "\\div", ":"]);
const MATRICES = new Set(["matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "array", "smallmatrix"]);

/** latex2sympy's thousands-separated number: the whole answer is `1,234,567(.89)`. */
const COMMA_NUMBER = /^\s*-?\d{1,3}(,\d{3})+(\.\d+)?\s*$/;

class Parser {
  private pos = 0;
  /** Values that came from a `\( … \)` set atom (or a set operation or plain parenthesis holding one). */
  private readonly setAtoms = new WeakSet<Expr>();
  /** > 0 inside a command's, script's or function's argument, where no set atom may start. */
  private argumentDepth = 0;
  constructor(private readonly tokens: Token[]) {}

  /** The operands of arithmetic (or of ±, or a relation's left side) must not be set atoms. */
  private arithmetic<T extends Expr>(...operands: T[]): void {
    if (operands.some((operand) => this.setAtoms.has(operand))) throw new LatexParseError("a \\( \\) set atom is not an arithmetic operand");
  }

  private inArgument<T>(parse: () => T): T {
    this.argumentDepth++;
    try {
      return parse();
    } finally {
      this.argumentDepth--;
    }
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }
  private is(text: string, offset = 0): boolean {
    return this.peek(offset)?.text === text;
  }
  private take(): Token {
    const token = this.tokens[this.pos++];
    if (!token) throw new LatexParseError("unexpected end of input");
    spend();
    return token;
  }
  private expect(text: string): void {
    const token = this.take();
    if (token.text !== text) throw new LatexParseError(`expected '${text}', found '${token.text}'`);
  }
  get done(): boolean {
    return this.pos >= this.tokens.length;
  }

  /** The whole answer: comma/semicolon separated elements make a set; ± makes two values. */
  parseMath(): Expr {
    const groups = this.parseGroups();
    if (!this.done) throw new LatexParseError(`unexpected '${this.peek()!.text}'`);
    const values = groups.map((group) => group.flat());
    if (groups.length === 1) return groups[0]!.length === 1 && values[0]!.length === 1 ? values[0]![0]! : finiteSet(values[0]!);
    if (values.every((group) => group.length === 1)) return finiteSet(values.flat());
    // "p=5,q=2;p=7,q=2": semicolons separate solutions, each one a tuple (latex2sympy's set of Tuples).
    return finiteSet(values.map((items): Expr => ({ kind: "tuple", items })));
  }

  private parseElements(): Expr[][] {
    return this.parseGroups().flat();
  }

  /** Elements separated by commas, in groups separated by semicolons. */
  private parseGroups(): Expr[][][] {
    const groups = [[this.parseElement()]];
    while (this.is(",") || this.is(";")) {
      if (this.take().text === ";") groups.push([]);
      groups.at(-1)!.push(this.parseElement());
    }
    return groups;
  }

  /** One element; `a \pm b` stands for both a+b and a-b. */
  private parseElement(): Expr[] {
    if (this.is("\\pm")) {
      this.take();
      const value = this.parseRelation();
      this.arithmetic(value);
      return [neg(value), value];
    }
    const left = this.parseRelation();
    if (this.is("\\pm") || this.is("\\mp")) {
      const sign = this.take().text;
      const right = this.parseRelation();
      this.arithmetic(left, right);
      const both = [add(left, right), add(left, neg(right))];
      return sign === "\\pm" ? both : both.reverse();
    }
    return [left];
  }

  /** Relations chain left to right (`a = b = c` → Eq(a, b) ∧ Eq(b, c)); `≈` keeps the exact side. */
  private parseRelation(): Expr {
    let result = this.parseSetOperation();
    while (this.peek() && RELATIONS[this.peek()!.text]) {
      this.arithmetic(result);
      const op = RELATIONS[this.take().text]!;
      const right = this.parseSetOperation();
      if (op === "approx") {
        // "x ≈ 3.2" is the value; "2/3 ≈ 0.67" is what was approximated.
        if (onlySymbols(result)) result = right;
        continue;
      }
      const left = result.kind === "relation" ? result.rhs : result.kind === "and" ? (result.args.at(-1) as { rhs: Expr }).rhs : result;
      const next = relation(op, left, right);
      result = result.kind === "relation" ? { kind: "and", args: [result, next] } : result.kind === "and" ? { kind: "and", args: [...result.args, next] } : next;
    }
    return result;
  }

  private parseSetOperation(): Expr {
    let left = this.parseSetOperand();
    while (this.is("\\cup") || this.is("\\cap") || this.is("\\setminus")) {
      const op = this.take().text;
      const right = this.parseSetOperand();
      const isSetAtom = this.setAtoms.has(left) || this.setAtoms.has(right);
      left = fn(op === "\\cup" ? "Union" : op === "\\cap" ? "Intersection" : "Complement", left, right);
      if (isSetAtom) this.setAtoms.add(left);
    }
    return left;
  }

  /** A `\( … \)` set atom where one may start, else an arithmetic expression. */
  private parseSetOperand(): Expr {
    if (this.is(VISUAL_OPEN) && this.argumentDepth === 0) {
      this.take();
      return this.parseBracketed(VISUAL_OPEN);
    }
    return this.parseAdditive();
  }

  private parseAdditive(): Expr {
    const terms = [this.parseMultiplicative()];
    while (this.is("+") || this.is("-")) {
      const sign = this.take().text;
      const term = this.parseMultiplicative();
      this.arithmetic(terms[0]!, term);
      terms.push(sign === "-" ? neg(term) : term);
    }
    return terms.length === 1 ? terms[0]! : { kind: "add", args: terms };
  }

  private parseMultiplicative(): Expr {
    let left = this.parseUnary();
    for (;;) {
      const token = this.peek();
      if (!token) return left;
      if (MULTIPLY.has(token.text)) {
        this.take();
        const right = this.parseUnary();
        this.arithmetic(left, right);
        left = mul(left, right);
      } else if (DIVIDE.has(token.text)) {
        this.take();
        const right = this.parseUnary();
        this.arithmetic(left, right);
        left = divide(left, right);
      } else if (this.startsAtom()) {
        const isFraction = this.is("\\frac");
        const right = this.parsePostfix();
        this.arithmetic(left, right);
        // "2\frac{1}{2}" is a mixed number: 2 + 1/2.
        left = left.kind === "integer" && left.value >= 0n && right.kind === "rational" && isFraction ? add(left, right) : mul(left, right);
      } else return left;
    }
  }

  private startsAtom(): boolean {
    const token = this.peek();
    if (!token) return false;
    if (token.type === "number" || token.type === "letter") return true;
    if (token.type === "punct") return token.text === "(" || token.text === "{";
    return !RELATIONS[token.text] && !MULTIPLY.has(token.text) && !DIVIDE.has(token.text) && !["\\pm", "\\mp", "\\cup", "\\cap", "\\setminus", "\\}", "\\%", "\\circ", "\\right", "\\end", "\\\\", "\\rfloor", "\\rceil", "\\rangle", "\\rvert", "\\vert", "\\|"].includes(token.text);
  }

  private parseUnary(): Expr {
    if (this.is("-") || this.is("+")) {
      const sign = this.take().text;
      const operand = this.parseUnary();
      this.arithmetic(operand);
      return sign === "-" ? neg(operand) : operand;
    }
    return this.parsePostfix();
  }

  private parsePostfix(): Expr {
    let value = this.parsePower();
    for (;;) {
      if (this.is("!") || this.is("\\%") || this.is("%") || this.is("\\circ")) this.arithmetic(value);
      if (this.is("!")) {
        this.take();
        value = fn("factorial", value);
      } else if (this.is("\\%") || this.is("%")) {
        this.take();
        value = percentOf(value);
      } else if (this.is("\\circ")) {
        this.take();
      } else return value;
    }
  }

  private parsePower(): Expr {
    const base = this.parseAtom();
    if (!this.is("^")) return base;
    this.arithmetic(base);
    this.take();
    if (this.is("\\circ")) {
      this.take();
      return base;
    }
    if (this.is("{") && this.is("\\circ", 1) && this.is("}", 2)) {
      this.pos += 3;
      return base;
    }
    return pow(base, this.inArgument(() => this.parseScript()));
  }

  /** The argument of ^, _ or a function: a braced group or a single token. */
  private parseScript(): Expr {
    if (this.is("{")) return this.parseBraced();
    const token = this.take();
    if (token.type === "number") return token.text.length > 1 && !token.text.includes(".") ? integer(BigInt(token.text[0]!)) : numberFromString(token.text);
    if (token.type === "letter") return letterSymbol(token.text);
    this.pos--;
    return this.parseAtom();
  }

  private parseBraced(): Expr {
    this.expect("{");
    const elements = this.parseElements();
    this.expect("}");
    const values = elements.flat();
    return values.length === 1 ? values[0]! : { kind: "set", items: values };
  }

  private parseAtom(): Expr {
    const token = this.take();
    if (token.type === "number") return numberFromString(token.text.endsWith(".") ? token.text.slice(0, -1) : token.text);
    if (token.type === "letter") return this.appliedFunction(token.text) ?? this.withSubscript(token.text);
    if (token.type === "punct") {
      if (token.text === "{") {
        this.pos--;
        return this.parseBraced();
      }
      if (token.text === "(" || token.text === "[") return this.parseBracketed(token.text);
      if (token.text === "|") {
        const inner = this.parseAdditive();
        this.expect("|");
        return fn("Abs", inner);
      }
      throw new LatexParseError(`unexpected '${token.text}'`);
    }
    // A set literal's elements are at the set level; every other command's arguments are not.
    if (token.text === "\\{") return this.parseCommand(token.text);
    return this.inArgument(() => this.parseCommand(token.text));
  }

  /**
   * latex2sympy reads a letter followed by one parenthesised atom, or by a comma-separated list of atoms, as a
   * function application (`f(x)`, `g(1, y)`), not a product; `f(x+1)` stays `f·(x+1)`.
   */
  private appliedFunction(name: string): Expr | null {
    if (name === "e" || !this.is("(")) return null;
    const args: Expr[] = [];
    let offset = 1;
    for (;;) {
      const token = this.peek(offset);
      if (token?.type === "number" || (token?.type === "letter" && token.text !== "e")) args.push(token.type === "number" ? numberFromString(token.text.replace(/\.$/, "")) : letterSymbol(token.text));
      else if (token?.type === "command" && GREEK.has(token.text.slice(1))) args.push(symbol(token.text.slice(1).toLowerCase()));
      else return null;
      const next = this.peek(offset + 1)?.text;
      offset += 2;
      if (next === ")") break;
      if (next !== ",") return null;
    }
    for (let i = 0; i < offset; i++) this.take();
    return fn(name, ...args);
  }

  private withSubscript(name: string): Expr {
    if (!this.is("_")) return letterSymbol(name);
    this.take();
    if (this.is("{")) {
      const start = this.pos;
      let depth = 0;
      do {
        const t = this.take().text;
        if (t === "{") depth++;
        else if (t === "}") depth--;
      } while (depth > 0);
      const inner = this.tokens.slice(start + 1, this.pos - 1).map((t) => t.text).join("");
      return symbol(`${name}_{${inner}}`.toLowerCase());
    }
    return symbol(`${name}_${this.take().text}`.toLowerCase());
  }

  /** `(a, b)`, `[a, b)` … intervals for two bounds, tuples for more, plain grouping for one. */
  private parseBracketed(open: string): Expr {
    const elements = this.parseElements();
    const close = this.take().text;
    if (close !== ")" && close !== "]" && close !== VISUAL_CLOSE) throw new LatexParseError(`unclosed '${open}'`);
    if (open !== VISUAL_OPEN && close !== VISUAL_CLOSE) return this.bracketedValue(open, close, elements);
    const values = elements.flat();
    const isInterval = values.length === 2 && elements.length === 2;
    // An ordered tuple needs both visual parentheses; mixed brackets are only an interval's.
    if (!isInterval && (open !== VISUAL_OPEN || close !== VISUAL_CLOSE)) throw new LatexParseError(`'${open}' closed by '${close}'`);
    // A copy, so that marking it leaves any value shared elsewhere unmarked.
    const value = { ...this.bracketedValue(open === VISUAL_OPEN ? "(" : open, close === VISUAL_CLOSE ? ")" : close, elements) };
    this.setAtoms.add(value);
    return value;
  }

  private bracketedValue(open: string, close: string, elements: Expr[][]): Expr {
    const values = elements.flat();
    if (values.length === 1 && elements.length === 1) return values[0]!;
    // "(p, q)" of bare variables is a tuple of names (the left side of "(p, q) = (3, 2)").
    if (values.every((v) => v.kind === "symbol")) return { kind: "tuple", items: values };
    if (values.length === 2 && elements.length === 2) {
      const [start, end] = values as [Expr, Expr];
      const leftOpen = open === "(";
      const rightOpen = close === ")";
      if (isEmptyInterval(start, end, leftOpen, rightOpen)) return { kind: "tuple", items: values };
      return { kind: "interval", start, end, leftOpen, rightOpen };
    }
    return { kind: "tuple", items: values };
  }

  private parseCommand(name: string): Expr {
    switch (name) {
      case "\\frac": {
        const top = this.parseScript();
        const bottom = this.parseScript();
        if (top.kind === "integer" && bottom.kind === "integer") return rational(top.value, bottom.value);
        return divide(top, bottom);
      }
      case "\\binom": {
        const n = this.parseScript();
        const k = this.parseScript();
        return fn("binomial", n, k);
      }
      case "\\sqrt": {
        if (this.is("[")) {
          this.take();
          const index = this.parseAdditive();
          this.expect("]");
          const radicand = this.parseScript();
          return pow(radicand, index.kind === "integer" ? rational(1n, index.value) : divide(integer(1), index));
        }
        return pow(this.parseScript(), HALF);
      }
      case "\\pi":
        return constant("pi");
      case "\\infty":
        return constant("oo");
      case "\\emptyset":
      case "\\varnothing":
        return { kind: "set", items: [] };
      case "\\{": {
        if (this.is("\\}")) {
          this.take();
          return { kind: "set", items: [] };
        }
        const elements = this.parseElements();
        this.expect("\\}");
        return finiteSet(elements.flat());
      }
      case "\\text":
      case "\\mbox":
      case "\\operatorname":
        return this.parseText(name);
      case "\\lvert":
      case "\\vert":
      case "\\|": {
        const inner = this.parseAdditive();
        const close = this.take().text;
        if (!["\\rvert", "\\vert", "\\|"].includes(close)) throw new LatexParseError("unclosed |");
        return fn("Abs", inner);
      }
      case "\\begin":
        return this.parseMatrix();
      case "\\exp":
        return fn("exp", this.parseFunctionArgument());
    }
    if (name === "\\lfloor" || name === "\\lceil") {
      const inner = this.parseAdditive();
      this.expect(name === "\\lfloor" ? "\\rfloor" : "\\rceil");
      return fn(FUNCTIONS[name]!, inner);
    }
    if (FUNCTIONS[name]) return this.parseFunction(FUNCTIONS[name]!, name);
    const bare = name.slice(1);
    if (GREEK.has(bare)) return symbol(bare.toLowerCase());
    if (LATEX2SYMPY_COMMANDS.has(name)) noteGap(`the LaTeX command ${name} (latex2sympy's grammar has it; this port does not parse it)`);
    throw new LatexParseError(`unsupported command ${name}`);
  }

  private parseText(command: string): Expr {
    this.expect("{");
    const start = this.pos;
    let depth = 1;
    while (depth > 0) {
      const t = this.take().text;
      if (t === "{") depth++;
      else if (t === "}") depth--;
    }
    const words = this.tokens.slice(start, this.pos - 1).map((t) => t.text).join("");
    if (command === "\\operatorname") return this.parseFunction(words, words);
    if (words === "") throw new LatexParseError("empty \\text{}");
    if (/^\d+(\.\d+)?$/.test(words)) return numberFromString(words);
    // "\text{(C)}" is the choice C.
    return symbol(words.replace(/^\((.+)\)$/, "$1").toLowerCase());
  }

  /** `\sin x`, `\sin(x)`, `\sin^2 x`, `\log_2 8`. */
  private parseFunction(name: string, command: string): Expr {
    let power: Expr | undefined;
    let base: Expr | undefined;
    for (let i = 0; i < 2; i++) {
      if (this.is("^")) {
        this.take();
        power = this.parseScript();
      } else if (this.is("_") && command === "\\log") {
        this.take();
        base = this.parseScript();
      }
    }
    const argument = this.parseFunctionArgument();
    let value = base ? fn("log", argument, base) : command === "\\log" ? fn("log", argument) : fn(name, argument);
    if (power) value = power.kind === "integer" && power.value === -1n && name !== "log" ? fn(`a${name}`, argument) : pow(value, power);
    return value;
  }

  private parseFunctionArgument(): Expr {
    if (this.is("(")) {
      this.take();
      const inner = this.parseAdditive();
      this.expect(")");
      return inner;
    }
    if (this.is("{")) return this.parseBraced();
    return this.parsePower();
  }

  private parseMatrix(): Expr {
    this.expect("{");
    let environment = "";
    while (!this.is("}")) environment += this.take().text;
    this.take();
    if (!MATRICES.has(environment)) throw new LatexParseError(`unsupported environment ${environment}`);
    if (environment === "array" && this.is("{")) while (this.take().text !== "}");
    const rows: Expr[][] = [[]];
    for (;;) {
      if (this.is("\\end")) {
        this.take();
        this.expect("{");
        while (!this.is("}")) this.take();
        this.take();
        break;
      }
      rows.at(-1)!.push(this.parseAdditive());
      if (this.is("&")) this.take();
      else if (this.is("\\\\")) {
        this.take();
        if (!this.is("\\end")) rows.push([]);
      } else if (!this.is("\\end")) throw new LatexParseError("malformed matrix");
    }
    const width = rows[0]!.length;
    if (rows.some((row) => row.length !== width)) throw new LatexParseError("ragged matrix");
    return { kind: "matrix", rows };
  }
}


/** A single letter as latex2sympy reads it: lowercased symbol, `e` Euler's number. */
function letterSymbol(letter: string): Expr {
  if (letter === "e") return constant("E");
  return symbol(letter.toLowerCase());
}

/** latex2sympy keeps `(a, b)` with b ≤ a (or `[a, b]` with b < a) as a tuple, not an empty interval. */
function isEmptyInterval(start: Expr, end: Expr, leftOpen: boolean, rightOpen: boolean): boolean {
  const [a, b] = [approxValue(start), approxValue(end)];
  if (!a || !b) return false;
  const [x, y] = [toNumber(a), toNumber(b)];
  return (leftOpen && rightOpen && y <= x) || (!leftOpen && !rightOpen && y < x);
}

export function parseLatex(latex: string): Expr {
  if (COMMA_NUMBER.test(latex)) return numberFromString(latex.replaceAll(",", "").trim());
  return new Parser(tokenize(latex)).parseMath();
}

/** math-verify's parse_latex_cached: on failure, retry with the text after the last `=` of a chain. */
export function parseLatexWithFallback(latex: string): Expr {
  try {
    return parseLatex(latex);
  } catch (error) {
    if (!latex.includes(",") && !latex.includes(";")) {
      const parts = latex.split(/(?<![\\<!>])=/);
      if (parts.length > 2) return parseLatex(parts.at(-1)!);
    }
    throw error;
  }
}
