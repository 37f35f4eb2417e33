// The model's law is a Python function (`def discovered_law(mass1, mass2, distance): ...`). NewtonBench exec()s it
// and calls it once per test point; this port never runs model code: it parses the function into a small tree and
// evaluates that tree with Python's number rules (law-values.ts). What is read: imports of math / numpy, assignments
// (plain, tuple, augmented), `return`, `if`/`elif`/`else`, `pass`, docstrings, and expressions of numbers, names,
// arithmetic, comparisons, `and`/`or`/`not`, conditional expressions, attribute access and calls. Anything else
// (loops, try, comprehensions, lambdas, nested defs, …) is an UnsupportedLawError: the row is a 501 naming it, never a
// guessed score.

export class UnsupportedLawError extends Error {
  constructor(what: string) {
    super(`the submitted law uses ${what}, which this port's evaluator of discovered_law does not read (NewtonBench exec()s it as Python)`);
    this.name = "UnsupportedLawError";
  }
}

/** The code is not Python at all (NewtonBench's exec raises SyntaxError: the law is not evaluated). */
export class LawSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LawSyntaxError";
  }
}

// ---- tokens ----

type Token =
  | { kind: "name"; text: string; line: number }
  | { kind: "number"; text: string; line: number }
  | { kind: "string"; text: string; line: number }
  | { kind: "op"; text: string; line: number }
  | { kind: "newline" | "indent" | "dedent" | "end"; text: string; line: number };

const OPERATORS = ["**=", "//=", "->", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "<", ">", ";", "@", "&", "|", "^", "~"];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const indents = [0];
  let depth = 0;
  let i = 0;
  let line = 1;
  let atLineStart = true;
  const src = source.replace(/\r\n?/g, "\n");
  while (i < src.length) {
    if (atLineStart && depth === 0) {
      let width = 0;
      let j = i;
      while (j < src.length && (src[j] === " " || src[j] === "\t")) {
        width += src[j] === "\t" ? 8 - (width % 8) : 1;
        j++;
      }
      // Blank and comment-only lines do not change the indentation.
      if (j >= src.length || src[j] === "\n" || src[j] === "#") {
        while (j < src.length && src[j] !== "\n") j++;
        i = j + 1;
        line++;
        continue;
      }
      i = j;
      atLineStart = false;
      if (width > indents.at(-1)!) {
        indents.push(width);
        tokens.push({ kind: "indent", text: "", line });
      } else {
        while (width < indents.at(-1)!) {
          indents.pop();
          tokens.push({ kind: "dedent", text: "", line });
        }
        if (width !== indents.at(-1)) throw new LawSyntaxError(`unindent does not match any outer indentation level (line ${line})`);
      }
    }
    const ch = src[i]!;
    if (ch === "\n") {
      if (depth === 0) {
        tokens.push({ kind: "newline", text: "", line });
        atLineStart = true;
      }
      i++;
      line++;
      continue;
    }
    if (ch === " " || ch === "\t") {
      i++;
      continue;
    }
    if (ch === "#") {
      while (i < src.length && src[i] !== "\n") i++;
      continue;
    }
    if (ch === "\\" && src[i + 1] === "\n") {
      i += 2;
      line++;
      continue;
    }
    const rest = src.slice(i);
    const number = /^(?:(?:\d[\d_]*)?\.\d[\d_]*(?:[eE][+-]?\d[\d_]*)?|\d[\d_]*\.(?:[eE][+-]?\d[\d_]*)?|\d[\d_]*[eE][+-]?\d[\d_]*|0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|\d[\d_]*)[jJ]?/.exec(rest);
    if (number && (ch !== "." || /^\.\d/.test(rest))) {
      if (/[jJ]$/.test(number[0])) throw new UnsupportedLawError("a complex literal");
      tokens.push({ kind: "number", text: number[0], line });
      i += number[0].length;
      continue;
    }
    const string = /^([rRbBuUfF]{0,2})("""|'''|"|')/.exec(rest);
    if (string) {
      const prefix = string[1]!.toLowerCase();
      if (prefix.includes("f") || prefix.includes("b")) throw new UnsupportedLawError(`a ${prefix}-string`);
      const quote = string[2]!;
      let j = i + string[0].length;
      let text = "";
      for (;;) {
        if (j >= src.length) throw new LawSyntaxError(`unterminated string literal (line ${line})`);
        if (src.startsWith(quote, j)) {
          j += quote.length;
          break;
        }
        if (src[j] === "\n") {
          if (quote.length === 1) throw new LawSyntaxError(`unterminated string literal (line ${line})`);
          line++;
        }
        if (src[j] === "\\" && !prefix.includes("r")) {
          text += src[j + 1] ?? "";
          j += 2;
          continue;
        }
        text += src[j];
        j++;
      }
      tokens.push({ kind: "string", text, line });
      i = j;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (name) {
      tokens.push({ kind: "name", text: name[0], line });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (op) {
      if ("([{".includes(op)) depth++;
      if (")]}".includes(op)) depth = Math.max(0, depth - 1);
      tokens.push({ kind: "op", text: op, line });
      i += op.length;
      continue;
    }
    throw new LawSyntaxError(`invalid character '${ch}' (line ${line})`);
  }
  if (tokens.length > 0 && tokens.at(-1)!.kind !== "newline") tokens.push({ kind: "newline", text: "", line });
  while (indents.length > 1) {
    indents.pop();
    tokens.push({ kind: "dedent", text: "", line });
  }
  tokens.push({ kind: "end", text: "", line });
  return tokens;
}

// ---- tree ----

export type Expr =
  | { kind: "number"; text: string }
  | { kind: "string"; value: string }
  | { kind: "const"; value: "True" | "False" | "None" }
  | { kind: "name"; id: string }
  | { kind: "tuple"; items: Expr[] }
  | { kind: "unary"; op: "-" | "+" | "not"; operand: Expr }
  | { kind: "binary"; op: string; left: Expr; right: Expr }
  | { kind: "boolop"; op: "and" | "or"; left: Expr; right: Expr }
  | { kind: "compare"; first: Expr; rest: { op: string; right: Expr }[] }
  | { kind: "ifexp"; test: Expr; body: Expr; orelse: Expr }
  | { kind: "attribute"; value: Expr; attr: string }
  | { kind: "call"; func: Expr; args: Expr[]; keywords: { name: string; value: Expr }[] };

export type Target = { kind: "name"; id: string } | { kind: "tuple"; items: Target[] };

export type Stmt =
  | { kind: "expr"; value: Expr }
  | { kind: "assign"; targets: Target[]; value: Expr }
  | { kind: "augassign"; target: string; op: string; value: Expr }
  | { kind: "return"; value: Expr | undefined }
  | { kind: "if"; test: Expr; body: Stmt[]; orelse: Stmt[] }
  | { kind: "pass" }
  | { kind: "import"; names: { module: string; asName: string }[] }
  | { kind: "importfrom"; module: string; names: { name: string; asName: string }[] }
  | { kind: "def"; name: string; params: string[]; body: Stmt[] };

const UNSUPPORTED_STATEMENTS: Record<string, string> = {
  for: "a for loop",
  while: "a while loop",
  try: "a try statement",
  with: "a with statement",
  class: "a class",
  lambda: "a lambda",
  global: "a global statement",
  nonlocal: "a nonlocal statement",
  del: "a del statement",
  assert: "an assert statement",
  raise: "a raise statement",
  yield: "a yield",
  async: "async code",
  await: "await",
  match: "a match statement",
};

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }
  private next(): Token {
    const token = this.peek();
    this.pos++;
    return token;
  }
  private isOp(text: string): boolean {
    const t = this.peek();
    return t.kind === "op" && t.text === text;
  }
  private isName(text: string): boolean {
    const t = this.peek();
    return t.kind === "name" && t.text === text;
  }
  private expectOp(text: string): void {
    const t = this.next();
    if (t.kind !== "op" || t.text !== text) throw new LawSyntaxError(`expected '${text}' (line ${t.line})`);
  }
  private expectName(): string {
    const t = this.next();
    if (t.kind !== "name") throw new LawSyntaxError(`expected a name (line ${t.line})`);
    return t.text;
  }
  private expectKind(kind: Token["kind"]): void {
    const t = this.next();
    if (t.kind !== kind) throw new LawSyntaxError(`invalid syntax (line ${t.line})`);
  }

  module(): Stmt[] {
    const body: Stmt[] = [];
    while (this.peek().kind !== "end") {
      if (this.peek().kind === "newline") {
        this.next();
        continue;
      }
      body.push(...this.statement());
    }
    return body;
  }

  private block(): Stmt[] {
    if (this.peek().kind !== "newline") return this.simpleStatements();
    this.next();
    this.expectKind("indent");
    const body: Stmt[] = [];
    while (this.peek().kind !== "dedent" && this.peek().kind !== "end") {
      if (this.peek().kind === "newline") {
        this.next();
        continue;
      }
      body.push(...this.statement());
    }
    if (this.peek().kind === "dedent") this.next();
    return body;
  }

  private statement(): Stmt[] {
    const t = this.peek();
    if (t.kind === "op" && t.text === "@") throw new UnsupportedLawError("a decorator");
    if (t.kind === "name") {
      if (t.text === "def") return [this.def()];
      if (t.text === "if") return [this.ifStatement()];
      if (UNSUPPORTED_STATEMENTS[t.text] && !(t.text === "match" && this.peek(1).kind === "op")) throw new UnsupportedLawError(UNSUPPORTED_STATEMENTS[t.text]!);
    }
    if (t.kind === "indent") throw new LawSyntaxError(`unexpected indent (line ${t.line})`);
    return this.simpleStatements();
  }

  private simpleStatements(): Stmt[] {
    const statements = [this.simpleStatement()];
    while (this.isOp(";")) {
      this.next();
      if (this.peek().kind === "newline") break;
      statements.push(this.simpleStatement());
    }
    this.expectKind("newline");
    return statements;
  }

  private def(): Stmt {
    this.next();
    const name = this.expectName();
    this.expectOp("(");
    const params: string[] = [];
    while (!this.isOp(")")) {
      if (this.isOp("*") || this.isOp("**") || this.isOp("/")) throw new UnsupportedLawError("*args, **kwargs or positional-only markers");
      params.push(this.expectName());
      if (this.isOp(":")) throw new UnsupportedLawError("parameter annotations");
      if (this.isOp("=")) throw new UnsupportedLawError("parameter defaults");
      if (this.isOp(",")) this.next();
      else break;
    }
    this.expectOp(")");
    if (this.isOp("->")) throw new UnsupportedLawError("a return annotation");
    this.expectOp(":");
    return { kind: "def", name, params, body: this.block() };
  }

  private ifStatement(): Stmt {
    this.next();
    const test = this.expression();
    this.expectOp(":");
    const body = this.block();
    let orelse: Stmt[] = [];
    if (this.isName("elif")) orelse = [this.ifStatement()];
    else if (this.isName("else")) {
      this.next();
      this.expectOp(":");
      orelse = this.block();
    }
    return { kind: "if", test, body, orelse };
  }

  private simpleStatement(): Stmt {
    const t = this.peek();
    if (t.kind === "name") {
      if (t.text === "return") {
        this.next();
        if (this.peek().kind === "newline" || this.isOp(";")) return { kind: "return", value: undefined };
        return { kind: "return", value: this.tupleOrExpression() };
      }
      if (t.text === "pass") {
        this.next();
        return { kind: "pass" };
      }
      if (t.text === "import") return this.importStatement();
      if (t.text === "from") return this.importFrom();
      if (UNSUPPORTED_STATEMENTS[t.text] && !(t.text === "match" && this.peek(1).kind === "op")) throw new UnsupportedLawError(UNSUPPORTED_STATEMENTS[t.text]!);
      if (t.text === "break" || t.text === "continue") throw new LawSyntaxError(`'${t.text}' outside loop (line ${t.line})`);
    }
    const first = this.tupleOrExpression();
    const aug = this.peek();
    if (aug.kind === "op" && ["+=", "-=", "*=", "/=", "//=", "%=", "**="].includes(aug.text)) {
      if (first.kind !== "name") throw new UnsupportedLawError("augmented assignment to something other than a name");
      this.next();
      return { kind: "augassign", target: first.id, op: aug.text.slice(0, -1), value: this.tupleOrExpression() };
    }
    if (this.isOp(":")) throw new UnsupportedLawError("an annotated assignment");
    if (!this.isOp("=")) return { kind: "expr", value: first };
    const targets: Target[] = [toTarget(first)];
    let value: Expr = first;
    while (this.isOp("=")) {
      this.next();
      value = this.tupleOrExpression();
      if (this.isOp("=")) targets.push(toTarget(value));
    }
    return { kind: "assign", targets, value };
  }

  private dottedName(): string {
    let name = this.expectName();
    while (this.isOp(".")) {
      this.next();
      name += `.${this.expectName()}`;
    }
    return name;
  }

  private importStatement(): Stmt {
    this.next();
    const names: { module: string; asName: string }[] = [];
    do {
      if (this.isOp(",")) this.next();
      const module = this.dottedName();
      let asName = module.split(".")[0]!;
      if (this.isName("as")) {
        this.next();
        asName = this.expectName();
      } else if (module.includes(".")) {
        throw new UnsupportedLawError(`the import of a submodule (${module})`);
      }
      names.push({ module, asName });
    } while (this.isOp(","));
    return { kind: "import", names };
  }

  private importFrom(): Stmt {
    this.next();
    const module = this.dottedName();
    if (!this.isName("import")) throw new LawSyntaxError("invalid syntax (from … import)");
    this.next();
    const parens = this.isOp("(");
    if (parens) this.next();
    const names: { name: string; asName: string }[] = [];
    if (this.isOp("*")) {
      this.next();
      names.push({ name: "*", asName: "*" });
    } else {
      do {
        if (this.isOp(",")) this.next();
        if (parens && this.isOp(")")) break;
        const name = this.expectName();
        let asName = name;
        if (this.isName("as")) {
          this.next();
          asName = this.expectName();
        }
        names.push({ name, asName });
      } while (this.isOp(","));
    }
    if (parens) this.expectOp(")");
    return { kind: "importfrom", module, names };
  }

  private tupleOrExpression(): Expr {
    const first = this.expression();
    if (!this.isOp(",")) return first;
    const items = [first];
    while (this.isOp(",")) {
      this.next();
      if (this.peek().kind === "newline" || this.isOp("=") || this.isOp(")")) break;
      items.push(this.expression());
    }
    return { kind: "tuple", items };
  }

  expression(): Expr {
    if (this.isName("lambda")) throw new UnsupportedLawError("a lambda");
    const body = this.orTest();
    if (this.isName("if")) {
      this.next();
      const test = this.orTest();
      if (!this.isName("else")) throw new LawSyntaxError("expected 'else' after 'if' expression");
      this.next();
      return { kind: "ifexp", test, body, orelse: this.expression() };
    }
    if (this.isOp(":") && this.peek(1).kind === "op" && this.peek(1).text === "=") throw new UnsupportedLawError("the walrus operator");
    return body;
  }

  private orTest(): Expr {
    let left = this.andTest();
    while (this.isName("or")) {
      this.next();
      left = { kind: "boolop", op: "or", left, right: this.andTest() };
    }
    return left;
  }

  private andTest(): Expr {
    let left = this.notTest();
    while (this.isName("and")) {
      this.next();
      left = { kind: "boolop", op: "and", left, right: this.notTest() };
    }
    return left;
  }

  private notTest(): Expr {
    if (this.isName("not")) {
      this.next();
      return { kind: "unary", op: "not", operand: this.notTest() };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const first = this.arith();
    const rest: { op: string; right: Expr }[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === "op" && ["<", ">", "==", "!=", "<=", ">="].includes(t.text)) {
        this.next();
        rest.push({ op: t.text, right: this.arith() });
      } else if (t.kind === "name" && (t.text === "in" || t.text === "is" || (t.text === "not" && this.peek(1).kind === "name" && this.peek(1).text === "in"))) {
        throw new UnsupportedLawError(`the '${t.text}' operator`);
      } else break;
    }
    return rest.length === 0 ? first : { kind: "compare", first, rest };
  }

  private arith(): Expr {
    let left = this.term();
    for (;;) {
      const t = this.peek();
      if (t.kind === "op" && (t.text === "+" || t.text === "-")) {
        this.next();
        left = { kind: "binary", op: t.text, left, right: this.term() };
      } else if (t.kind === "op" && ["&", "|", "^", "<<", ">>"].includes(t.text)) {
        throw new UnsupportedLawError(`the bitwise operator '${t.text}'`);
      } else return left;
    }
  }

  private term(): Expr {
    let left = this.factor();
    for (;;) {
      const t = this.peek();
      if (t.kind === "op" && ["*", "/", "//", "%"].includes(t.text)) {
        this.next();
        left = { kind: "binary", op: t.text, left, right: this.factor() };
      } else if (t.kind === "op" && t.text === "@") {
        throw new UnsupportedLawError("the matrix operator '@'");
      } else return left;
    }
  }

  private factor(): Expr {
    const t = this.peek();
    if (t.kind === "op" && (t.text === "-" || t.text === "+")) {
      this.next();
      return { kind: "unary", op: t.text, operand: this.factor() };
    }
    if (t.kind === "op" && t.text === "~") throw new UnsupportedLawError("the bitwise operator '~'");
    return this.power();
  }

  private power(): Expr {
    const base = this.primary();
    if (this.isOp("**")) {
      this.next();
      return { kind: "binary", op: "**", left: base, right: this.factor() };
    }
    return base;
  }

  private primary(): Expr {
    let value = this.atom();
    for (;;) {
      if (this.isOp(".")) {
        this.next();
        value = { kind: "attribute", value, attr: this.expectName() };
      } else if (this.isOp("(")) {
        this.next();
        const args: Expr[] = [];
        const keywords: { name: string; value: Expr }[] = [];
        while (!this.isOp(")")) {
          if (this.isOp("*") || this.isOp("**")) throw new UnsupportedLawError("argument unpacking");
          if (this.peek().kind === "name" && this.peek(1).kind === "op" && this.peek(1).text === "=") {
            const name = this.expectName();
            this.next();
            keywords.push({ name, value: this.expression() });
          } else {
            if (keywords.length > 0) throw new LawSyntaxError("positional argument follows keyword argument");
            args.push(this.expression());
          }
          if (this.isName("for")) throw new UnsupportedLawError("a generator expression");
          if (this.isOp(",")) this.next();
          else break;
        }
        this.expectOp(")");
        value = { kind: "call", func: value, args, keywords };
      } else if (this.isOp("[")) {
        throw new UnsupportedLawError("subscripts");
      } else return value;
    }
  }

  private atom(): Expr {
    const t = this.next();
    if (t.kind === "number") return { kind: "number", text: t.text };
    if (t.kind === "string") {
      let value = t.text;
      while (this.peek().kind === "string") value += this.next().text;
      return { kind: "string", value };
    }
    if (t.kind === "name") {
      if (t.text === "True" || t.text === "False" || t.text === "None") return { kind: "const", value: t.text };
      if (t.text === "lambda") throw new UnsupportedLawError("a lambda");
      if (t.text === "yield" || t.text === "await") throw new UnsupportedLawError(t.text);
      return { kind: "name", id: t.text };
    }
    if (t.kind === "op" && t.text === "(") {
      if (this.isOp(")")) {
        this.next();
        return { kind: "tuple", items: [] };
      }
      const inner = this.tupleOrExpression();
      if (this.isName("for")) throw new UnsupportedLawError("a generator expression");
      this.expectOp(")");
      return inner;
    }
    if (t.kind === "op" && (t.text === "[" || t.text === "{")) throw new UnsupportedLawError(t.text === "[" ? "a list" : "a dict or set");
    throw new LawSyntaxError(`invalid syntax (line ${t.line})`);
  }
}

function toTarget(expr: Expr): Target {
  if (expr.kind === "name") return { kind: "name", id: expr.id };
  if (expr.kind === "tuple") return { kind: "tuple", items: expr.items.map(toTarget) };
  if (expr.kind === "attribute") throw new UnsupportedLawError("assignment to an attribute");
  throw new LawSyntaxError("cannot assign to expression");
}

/** Parses a whole submission (the module exec() would run). */
export function parseLawModule(source: string): Stmt[] {
  return new Parser(tokenize(source)).module();
}
