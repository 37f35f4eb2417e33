// The plain (non-LaTeX) expressions math-verify's ExprExtractionConfig hands to SymPy's parse_expr: numbers,
// + - * / ** (^ already rewritten), parentheses. Anything else (×, ÷, letters) is a parse failure there too.
import { spend } from "./budget.ts";
import { divide, mul, neg, numberFromString, pow, type Expr } from "./expr.ts";

export class PlainParseError extends Error {}

export function parsePlainExpression(text: string): Expr {
  const tokens = text.match(/\*\*|\d+(?:\.\d*)?|\.\d+|[-+*/()]|\S/g) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const take = () => {
    spend();
    const token = tokens[pos++];
    if (token === undefined) throw new PlainParseError("unexpected end of expression");
    return token;
  };

  const additive = (): Expr => {
    const terms = [multiplicative()];
    while (peek() === "+" || peek() === "-") {
      const sign = take();
      const term = multiplicative();
      terms.push(sign === "-" ? neg(term) : term);
    }
    return terms.length === 1 ? terms[0]! : { kind: "add", args: terms };
  };
  const multiplicative = (): Expr => {
    let left = unary();
    while (peek() === "*" || peek() === "/") {
      const op = take();
      const right = unary();
      left = op === "*" ? mul(left, right) : divide(left, right);
    }
    return left;
  };
  const unary = (): Expr => {
    if (peek() === "-") {
      take();
      return neg(unary());
    }
    if (peek() === "+") {
      take();
      return unary();
    }
    return power();
  };
  const power = (): Expr => {
    const base = atom();
    if (peek() !== "**") return base;
    take();
    return pow(base, unary());
  };
  const atom = (): Expr => {
    const token = take();
    if (token === "(") {
      const inner = additive();
      if (take() !== ")") throw new PlainParseError("unbalanced parenthesis");
      return inner;
    }
    if (/^(\d|\.\d)/.test(token)) return numberFromString(token);
    throw new PlainParseError(`cannot parse '${token}'`);
  };

  const value = additive();
  if (pos !== tokens.length) throw new PlainParseError(`unexpected '${peek()}'`);
  return value;
}
