// Reads module-level constants out of a Python source file without running it: `NAME = <literal>` where the
// literal is what ast.literal_eval accepts of dicts, lists, tuples, str (every quote form, r/u prefixes, adjacent
// parts joined, Python's escapes), int, float, True, False, None. Any other statement is skipped, unless it names
// one of the constants asked for (it could change it): then, as for a literal this reader cannot read, a
// PythonLiteralError says which and why, so a caller can refuse rather than guess.
export class PythonLiteralError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PythonLiteralError";
  }
}

type Token = { kind: "name" | "number" | "string" | "op" | "newline"; text: string; value?: string; line: number };

const ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

function decodeEscapes(body: string, line: number): string {
  return body.replace(/\\(?:(\n)|([0-7]{1,3})|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|N\{[^}]*\}|(.))/gs, (match, newline, octal, hex, u4, u8, other) => {
    if (newline) return "";
    if (octal) return String.fromCodePoint(parseInt(octal, 8));
    if (hex || u4 || u8) return String.fromCodePoint(parseInt(hex ?? u4 ?? u8, 16));
    if (match.startsWith("\\N")) throw new PythonLiteralError(`line ${line}: a \\N{…} escape is not read`);
    // Python keeps an unknown escape as it is written.
    return ESCAPES[other] ?? match;
  });
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let line = 1;
  for (let i = 0; i < source.length; ) {
    const c = source[i]!;
    if (c === "\n") {
      if (depth === 0) tokens.push({ kind: "newline", text: "\n", line });
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r" || c === "\f") i++;
    else if (c === "#") while (i < source.length && source[i] !== "\n") i++;
    else if (c === "\\" && source[i + 1] === "\n") (i += 2), line++;
    else {
      const string = /^([rRuUbBfF]{0,2})('''|"""|'|")/.exec(source.slice(i, i + 5));
      if (string && (string[1] === "" || /^[rRuU]$/.test(string[1]!) || /^[bBfF]|[bBfF]$/.test(string[1]!))) {
        const prefix = string[1]!.toLowerCase();
        const quote = string[2]!;
        if (/[bf]/.test(prefix)) throw new PythonLiteralError(`line ${line}: a string with prefix ${prefix} (bytes or an f-string) is not a plain str literal`);
        let j = i + string[0].length;
        let body = "";
        for (;;) {
          if (j >= source.length) throw new PythonLiteralError(`line ${line}: a string that does not end`);
          if (source.startsWith(quote, j)) break;
          if (source[j] === "\\") (body += source.slice(j, j + 2)), (j += 2);
          else {
            if (source[j] === "\n" && quote.length === 1) throw new PythonLiteralError(`line ${line}: a string that does not end on its line`);
            body += source[j++];
          }
        }
        const startLine = line;
        line += (source.slice(i, j).match(/\n/g) ?? []).length;
        tokens.push({ kind: "string", text: source.slice(i, j + quote.length), value: prefix.includes("r") ? body : decodeEscapes(body, startLine), line: startLine });
        i = j + quote.length;
        continue;
      }
      const word = /^(?:[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*|\d[\d_]*(?:\.[\d_]*)?(?:[eE][+-]?\d+)?|\.\d[\d_]*(?:[eE][+-]?\d+)?)/u.exec(source.slice(i, i + 200));
      if (word) {
        tokens.push({ kind: /^[\d.]/.test(word[0]) ? "number" : "name", text: word[0], line });
        i += word[0].length;
        continue;
      }
      const op = /^(?:\*\*=?|\/\/=?|<<=?|>>=?|->|:=|[-+*/%&|^@<>=!]=|[-+*/%&|^~@<>=(){}[\],:;.])/.exec(source.slice(i, i + 3));
      if (!op) throw new PythonLiteralError(`line ${line}: unexpected character ${JSON.stringify(c)}`);
      if ("([{".includes(op[0])) depth++;
      if (")]}".includes(op[0])) depth = Math.max(0, depth - 1);
      tokens.push({ kind: "op", text: op[0], line });
      i += op[0].length;
    }
  }
  tokens.push({ kind: "newline", text: "\n", line });
  return tokens;
}

class LiteralParser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): unknown {
    const value = this.value();
    if (this.at < this.tokens.length) this.fail(this.tokens[this.at]!, "more after the literal");
    return value;
  }

  private fail(token: Token | undefined, why: string): never {
    throw new PythonLiteralError(`line ${token?.line ?? "?"}: ${why}${token ? ` at ${JSON.stringify(token.text.slice(0, 20))}` : ""}`);
  }

  private peek = () => this.tokens[this.at];
  private next = () => this.tokens[this.at++];
  private eat(text: string): boolean {
    if (this.peek()?.kind === "op" && this.peek()?.text === text) return (this.at++, true);
    return false;
  }

  private value(): unknown {
    const token = this.next();
    if (!token) this.fail(undefined, "a literal ends early");
    if (token.kind === "string") {
      let text = token.value!;
      while (this.peek()?.kind === "string") text += this.next()!.value!;
      return text;
    }
    if (token.kind === "number" || (token.kind === "op" && (token.text === "-" || token.text === "+") && this.peek()?.kind === "number")) {
      const sign = token.kind === "op" ? token.text : "";
      const digits = (token.kind === "op" ? this.next()! : token).text.replace(/_/g, "");
      return /[.eE]/.test(digits) ? Number(sign + digits) : BigInt(sign + digits);
    }
    if (token.kind === "name") {
      if (token.text === "True") return true;
      if (token.text === "False") return false;
      if (token.text === "None") return null;
      this.fail(token, "a name is not a literal");
    }
    if (token.text === "[" || token.text === "(") return this.sequence(token.text === "[" ? "]" : ")");
    if (token.text === "{") return this.dict();
    this.fail(token, "not a literal");
  }

  private sequence(close: string): unknown[] {
    const items: unknown[] = [];
    while (!this.eat(close)) {
      items.push(this.value());
      if (!this.eat(",")) {
        if (!this.eat(close)) this.fail(this.peek(), `expected , or ${close}`);
        break;
      }
    }
    return items;
  }

  private dict(): Record<string, unknown> {
    const entries: Record<string, unknown> = {};
    while (!this.eat("}")) {
      const key = this.value();
      if (typeof key !== "string") this.fail(this.tokens[this.at - 1], "a dict key that is not a str");
      if (!this.eat(":")) this.fail(this.peek(), "a set, or a dict entry without ':'");
      entries[key] = this.value();
      if (!this.eat(",")) {
        if (!this.eat("}")) this.fail(this.peek(), "expected , or }");
        break;
      }
    }
    return entries;
  }
}

/** The values of `names`, each assigned once at module level as a literal; an error says why one cannot be read. */
export function readPythonConstants(source: string, names: readonly string[]): Record<string, unknown> {
  const tokens = tokenize(source);
  const found: Record<string, unknown> = {};
  let statement: Token[] = [];
  for (const token of tokens) {
    if (token.kind !== "newline") {
      statement.push(token);
      continue;
    }
    if (statement.length > 0) {
      const [target, equals] = statement;
      const assigned = target?.kind === "name" && equals?.kind === "op" && equals.text === "=" && names.includes(target.text) ? target.text : undefined;
      if (assigned) {
        if (assigned in found) throw new PythonLiteralError(`${assigned} is assigned twice (line ${target!.line})`);
        try {
          found[assigned] = new LiteralParser(statement.slice(2)).parse();
        } catch (error) {
          throw new PythonLiteralError(`${assigned} (line ${target!.line}) is not a plain literal: ${(error as Error).message}`);
        }
      } else {
        const mention = statement.find((t) => t.kind === "name" && names.includes(t.text));
        if (mention) throw new PythonLiteralError(`line ${mention.line}: ${mention.text} is used by a statement other than its literal assignment (it may change it)`);
      }
    }
    statement = [];
  }
  const missing = names.filter((name) => !(name in found));
  if (missing.length > 0) throw new PythonLiteralError(`no literal assignment of ${missing.join(", ")}`);
  return found;
}
