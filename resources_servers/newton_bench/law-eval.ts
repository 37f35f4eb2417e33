// Evaluates a parsed discovered_law (law-python.ts) the way Python would when NewtonBench calls it: its arguments are
// numpy float64 scalars (the test points come out of numpy arrays), so arithmetic touching them follows numpy (a
// division by zero is inf, an overflow inf), while arithmetic of the function's own int / float constants follows
// Python (ZeroDivisionError, OverflowError). `math.*` converts to Python floats and raises as math does; `np.*`
// answers float64. A Python exception raised by the law is a LawRuntimeError carrying Python's message.
import { LawSyntaxError, parseLawModule, UnsupportedLawError, type Expr, type Stmt, type Target } from "./law-python.ts";

/** A Python exception the law raised; `message` is `str(exception)`. */
export class LawRuntimeError extends Error {
  constructor(
    readonly pythonType: string,
    message: string,
  ) {
    super(message);
    this.name = "LawRuntimeError";
  }
}

type Num = { t: "int" | "float" | "np"; v: number };
type Value =
  | Num
  | { t: "bool"; v: boolean }
  | { t: "none" }
  | { t: "str"; v: string }
  | { t: "tuple"; items: Value[] }
  | { t: "module"; name: "math" | "numpy" }
  | { t: "func"; module: "math" | "numpy" | "builtins"; name: string };

const NONE: Value = { t: "none" };
const py = (t: Num["t"], v: number): Num => ({ t, v });
const raise = (type: string, message: string): never => {
  throw new LawRuntimeError(type, message);
};

const typeName = (value: Value): string => {
  switch (value.t) {
    case "int":
      return "int";
    case "float":
      return "float";
    case "np":
      return "numpy.float64";
    case "bool":
      return "bool";
    case "none":
      return "NoneType";
    case "str":
      return "str";
    case "tuple":
      return "tuple";
    case "module":
      return "module";
    case "func":
      return "builtin_function_or_method";
  }
};

function asNum(value: Value): Num | undefined {
  if (value.t === "int" || value.t === "float" || value.t === "np") return value;
  if (value.t === "bool") return py("int", value.v ? 1 : 0);
  return undefined;
}

function truthy(value: Value): boolean {
  switch (value.t) {
    case "bool":
      return value.v;
    case "int":
    case "float":
    case "np":
      return value.v !== 0; // NaN is truthy
    case "none":
      return false;
    case "str":
      return value.v.length > 0;
    case "tuple":
      return value.items.length > 0;
    default:
      return true;
  }
}

const OVERFLOW_POW = "(34, 'Numerical result out of range')";

/** Python's float ** (float_pow), on finite operands. */
function pythonFloatPow(a: number, b: number): number {
  if (b === 0) return 1;
  if (Number.isNaN(a)) return b === 0 ? 1 : NaN;
  if (a === 0 && b < 0 && Number.isFinite(b)) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
  if (a < 0 && Number.isFinite(b) && !Number.isInteger(b)) throw new UnsupportedLawError("a negative number raised to a fractional power (Python's answer is a complex number)");
  const result = Math.pow(a, b);
  if (!Number.isFinite(result) && Number.isFinite(a) && Number.isFinite(b)) raise("OverflowError", OVERFLOW_POW);
  return result;
}

function floorDiv(a: number, b: number): number {
  const q = Math.floor(a / b);
  return q;
}

function pythonMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

function binary(op: string, left: Value, right: Value): Value {
  const a = asNum(left);
  const b = asNum(right);
  if (!a || !b) {
    if (op === "+" && left.t === "str" && right.t === "str") return { t: "str", v: left.v + right.v };
    return raise("TypeError", `unsupported operand type(s) for ${op}: '${typeName(left)}' and '${typeName(right)}'`);
  }
  const kind: Num["t"] = a.t === "np" || b.t === "np" ? "np" : a.t === "float" || b.t === "float" ? "float" : "int";
  const x = a.v;
  const y = b.v;
  switch (op) {
    case "+":
      return py(kind, x + y);
    case "-":
      return py(kind, x - y);
    case "*":
      return py(kind, x * y);
    case "/":
      if (y === 0 && kind !== "np") raise("ZeroDivisionError", kind === "int" ? "division by zero" : "float division by zero");
      return py(kind === "int" ? "float" : kind, x / y);
    case "//":
      if (y === 0 && kind !== "np") raise("ZeroDivisionError", kind === "int" ? "integer division or modulo by zero" : "float floor division by zero");
      return py(kind, floorDiv(x, y));
    case "%":
      if (y === 0 && kind !== "np") raise("ZeroDivisionError", kind === "int" ? "integer modulo by zero" : "float modulo by zero");
      return py(kind, pythonMod(x, y));
    case "**": {
      if (kind === "np") return py("np", Math.pow(x, y));
      if (kind === "int" && y >= 0) return py("int", Math.pow(x, y));
      if (kind === "int" && x === 0) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
      return py("float", pythonFloatPow(x, y));
    }
  }
  throw new UnsupportedLawError(`the operator '${op}'`);
}

function compare(op: string, left: Value, right: Value): boolean {
  const a = asNum(left);
  const b = asNum(right);
  if (!a || !b) {
    if (op === "==") return left.t === right.t && JSON.stringify(left) === JSON.stringify(right);
    if (op === "!=") return !(left.t === right.t && JSON.stringify(left) === JSON.stringify(right));
    return raise("TypeError", `'${op}' not supported between instances of '${typeName(left)}' and '${typeName(right)}'`);
  }
  switch (op) {
    case "<":
      return a.v < b.v;
    case ">":
      return a.v > b.v;
    case "<=":
      return a.v <= b.v;
    case ">=":
      return a.v >= b.v;
    case "==":
      return a.v === b.v;
    default:
      return a.v !== b.v;
  }
}

// ---- math and numpy ----

const MATH_CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI, inf: Infinity, nan: NaN };
const NUMPY_CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, inf: Infinity, nan: NaN, euler_gamma: 0.5772156649015329 };

/** A math-module float argument (math converts with __float__). */
function mathArg(value: Value, name: string): number {
  const n = asNum(value);
  if (!n) return raise("TypeError", `must be real number, not ${typeName(value)}`);
  void name;
  return n.v;
}

const DOMAIN = "math domain error";
const RANGE = "math range error";

/** A math function of one float, which raises ValueError outside its domain and OverflowError on overflow. */
function mathUnary(fn: (x: number) => number, domain: (x: number) => boolean, overflowable = false) {
  return (x: number): number => {
    if (!Number.isNaN(x) && !domain(x)) raise("ValueError", DOMAIN);
    const r = fn(x);
    if (Number.isNaN(r) && !Number.isNaN(x)) raise("ValueError", DOMAIN);
    if (overflowable && !Number.isFinite(r) && Number.isFinite(x)) raise("OverflowError", RANGE);
    return r;
  };
}

const MATH_FUNCTIONS: Record<string, (args: number[]) => number> = {
  sqrt: ([x]) => mathUnary(Math.sqrt, (v) => v >= 0)(x!),
  exp: ([x]) => mathUnary(Math.exp, () => true, true)(x!),
  expm1: ([x]) => mathUnary(Math.expm1, () => true, true)(x!),
  log: (args) => {
    const ln = (v: number) => mathUnary(Math.log, (u) => u > 0)(v);
    if (args.length === 1) return ln(args[0]!);
    const base = ln(args[1]!);
    if (base === 0) raise("ZeroDivisionError", "float division by zero");
    return ln(args[0]!) / base;
  },
  log10: ([x]) => mathUnary(Math.log10, (v) => v > 0)(x!),
  log2: ([x]) => mathUnary(Math.log2, (v) => v > 0)(x!),
  log1p: ([x]) => mathUnary(Math.log1p, (v) => v > -1)(x!),
  sin: ([x]) => mathUnary(Math.sin, (v) => Number.isFinite(v))(x!),
  cos: ([x]) => mathUnary(Math.cos, (v) => Number.isFinite(v))(x!),
  tan: ([x]) => mathUnary(Math.tan, (v) => Number.isFinite(v))(x!),
  asin: ([x]) => mathUnary(Math.asin, (v) => v >= -1 && v <= 1)(x!),
  acos: ([x]) => mathUnary(Math.acos, (v) => v >= -1 && v <= 1)(x!),
  atan: ([x]) => Math.atan(x!),
  atan2: ([y, x]) => Math.atan2(y!, x!),
  sinh: ([x]) => mathUnary(Math.sinh, () => true, true)(x!),
  cosh: ([x]) => mathUnary(Math.cosh, () => true, true)(x!),
  tanh: ([x]) => Math.tanh(x!),
  fabs: ([x]) => Math.abs(x!),
  hypot: (args) => Math.hypot(...args),
  cbrt: ([x]) => Math.cbrt(x!),
  pow: ([x, y]) => {
    const a = x!;
    const b = y!;
    if (b === 0) return 1;
    if (a === 0 && b < 0) raise("ValueError", DOMAIN);
    if (a < 0 && Number.isFinite(b) && !Number.isInteger(b)) raise("ValueError", DOMAIN);
    const r = Math.pow(a, b);
    if (!Number.isFinite(r) && Number.isFinite(a) && Number.isFinite(b)) raise("OverflowError", RANGE);
    return r;
  },
};
const MATH_ARITY: Record<string, [number, number]> = { log: [1, 2], atan2: [2, 2], pow: [2, 2], hypot: [0, 99] };
const MATH_INT_FUNCTIONS = new Set(["floor", "ceil", "trunc"]);

const NUMPY_FUNCTIONS: Record<string, (args: number[]) => number> = {
  sqrt: ([x]) => Math.sqrt(x!),
  exp: ([x]) => Math.exp(x!),
  expm1: ([x]) => Math.expm1(x!),
  log: ([x]) => Math.log(x!),
  log10: ([x]) => Math.log10(x!),
  log2: ([x]) => Math.log2(x!),
  log1p: ([x]) => Math.log1p(x!),
  sin: ([x]) => Math.sin(x!),
  cos: ([x]) => Math.cos(x!),
  tan: ([x]) => Math.tan(x!),
  arcsin: ([x]) => Math.asin(x!),
  arccos: ([x]) => Math.acos(x!),
  arctan: ([x]) => Math.atan(x!),
  arctan2: ([y, x]) => Math.atan2(y!, x!),
  sinh: ([x]) => Math.sinh(x!),
  cosh: ([x]) => Math.cosh(x!),
  tanh: ([x]) => Math.tanh(x!),
  abs: ([x]) => Math.abs(x!),
  absolute: ([x]) => Math.abs(x!),
  fabs: ([x]) => Math.abs(x!),
  cbrt: ([x]) => Math.cbrt(x!),
  square: ([x]) => x! * x!,
  power: ([x, y]) => Math.pow(x!, y!),
  float_power: ([x, y]) => Math.pow(x!, y!),
  multiply: ([x, y]) => x! * y!,
  divide: ([x, y]) => x! / y!,
  true_divide: ([x, y]) => x! / y!,
  add: ([x, y]) => x! + y!,
  subtract: ([x, y]) => x! - y!,
  float64: ([x]) => x ?? 0,
  double: ([x]) => x ?? 0,
  sign: ([x]) => (Number.isNaN(x!) ? NaN : Math.sign(x!)),
};
const NUMPY_BINARY = new Set(["power", "float_power", "multiply", "divide", "true_divide", "add", "subtract", "arctan2"]);

function callFunction(func: Extract<Value, { t: "func" }>, args: Value[], keywords: { name: string; value: Value }[]): Value {
  const label = func.module === "builtins" ? func.name : `${func.module === "numpy" ? "np" : "math"}.${func.name}`;
  if (keywords.length > 0) throw new UnsupportedLawError(`keyword arguments (in ${label})`);
  if (func.module === "math") {
    if (MATH_INT_FUNCTIONS.has(func.name)) {
      if (args.length !== 1) raise("TypeError", `math.${func.name}() takes exactly one argument (${args.length} given)`);
      const x = mathArg(args[0]!, func.name);
      if (!Number.isFinite(x)) raise(Number.isNaN(x) ? "ValueError" : "OverflowError", Number.isNaN(x) ? "cannot convert float NaN to integer" : "cannot convert float infinity to integer");
      return py("int", func.name === "floor" ? Math.floor(x) : func.name === "ceil" ? Math.ceil(x) : Math.trunc(x));
    }
    const fn = MATH_FUNCTIONS[func.name];
    if (!fn) throw new UnsupportedLawError(`math.${func.name}`);
    const [min, max] = MATH_ARITY[func.name] ?? [1, 1];
    if (args.length < min || args.length > max) raise("TypeError", `math.${func.name}() takes ${min === max ? `exactly ${min}` : `${min} to ${max}`} argument${max === 1 ? "" : "s"} (${args.length} given)`);
    return py("float", fn(args.map((a) => mathArg(a, func.name))));
  }
  if (func.module === "numpy") {
    const fn = NUMPY_FUNCTIONS[func.name];
    if (!fn) throw new UnsupportedLawError(`np.${func.name}`);
    const arity = NUMPY_BINARY.has(func.name) ? 2 : 1;
    if (args.length !== arity && !(func.name === "float64" && args.length === 0)) throw new UnsupportedLawError(`np.${func.name} with ${args.length} arguments`);
    const numbers = args.map((a) => {
      const n = asNum(a);
      if (!n) throw new UnsupportedLawError(`np.${func.name} of a ${typeName(a)}`);
      return n;
    });
    // numpy's integer arithmetic (int64 results) is not modelled: only float64 is.
    if (numbers.length > 0 && numbers.every((n) => n.t === "int") && func.name !== "float64" && func.name !== "double") {
      if (["power", "multiply", "add", "subtract", "abs", "absolute", "square", "sign"].includes(func.name)) throw new UnsupportedLawError(`np.${func.name} of Python ints (numpy int64 arithmetic)`);
    }
    return py("np", fn(numbers.map((n) => n.v)));
  }
  switch (func.name) {
    case "abs": {
      const n = args.length === 1 ? asNum(args[0]!) : undefined;
      if (!n) return raise("TypeError", `bad operand type for abs(): '${args[0] ? typeName(args[0]) : "none"}'`);
      return py(n.t, Math.abs(n.v));
    }
    case "float": {
      if (args.length === 0) return py("float", 0);
      const value = args[0]!;
      if (value.t === "str") {
        const text = value.v.trim().toLowerCase();
        const parsed = text === "nan" ? NaN : text === "inf" || text === "infinity" ? Infinity : text === "-inf" || text === "-infinity" ? -Infinity : Number(text);
        if (text === "" || (Number.isNaN(parsed) && text !== "nan")) raise("ValueError", `could not convert string to float: '${value.v}'`);
        return py("float", parsed);
      }
      const n = asNum(value);
      if (!n) return raise("TypeError", `float() argument must be a string or a real number, not '${typeName(value)}'`);
      return py("float", n.v);
    }
    case "int": {
      const n = args.length === 1 ? asNum(args[0]!) : undefined;
      if (!n) throw new UnsupportedLawError("int() of something other than a number");
      if (!Number.isFinite(n.v)) raise(Number.isNaN(n.v) ? "ValueError" : "OverflowError", Number.isNaN(n.v) ? "cannot convert float NaN to integer" : "cannot convert float infinity to integer");
      return py("int", Math.trunc(n.v));
    }
    case "pow": {
      if (args.length !== 2) throw new UnsupportedLawError("pow() with a modulus");
      return binary("**", args[0]!, args[1]!);
    }
    case "min":
    case "max": {
      if (args.length < 2) throw new UnsupportedLawError(`${func.name}() of an iterable`);
      let best = args[0]!;
      for (const candidate of args.slice(1)) {
        if (func.name === "min" ? compare("<", candidate, best) : compare(">", candidate, best)) best = candidate;
      }
      return best;
    }
    case "round": {
      const n = args.length >= 1 ? asNum(args[0]!) : undefined;
      if (!n || args.length > 1) throw new UnsupportedLawError("round() with ndigits");
      if (!Number.isFinite(n.v)) raise(Number.isNaN(n.v) ? "ValueError" : "OverflowError", Number.isNaN(n.v) ? "cannot convert float NaN to integer" : "cannot convert float infinity to integer");
      const floor = Math.floor(n.v);
      const diff = n.v - floor;
      const rounded = diff > 0.5 ? floor + 1 : diff < 0.5 ? floor : floor % 2 === 0 ? floor : floor + 1;
      return n.t === "np" ? py("np", rounded) : py("int", rounded);
    }
  }
  throw new UnsupportedLawError(`the builtin ${func.name}()`);
}

const BUILTINS = new Set(["abs", "float", "int", "pow", "min", "max", "round"]);

function attribute(value: Value, attr: string): Value {
  if (value.t !== "module") {
    if (value.t === "np" || value.t === "float" || value.t === "int") throw new UnsupportedLawError(`the attribute .${attr} of a number`);
    return raise("AttributeError", `'${typeName(value)}' object has no attribute '${attr}'`);
  }
  const constants = value.name === "math" ? MATH_CONSTANTS : NUMPY_CONSTANTS;
  if (attr in constants) return py("float", constants[attr]!);
  const functions = value.name === "math" ? MATH_FUNCTIONS : NUMPY_FUNCTIONS;
  if (attr in functions || (value.name === "math" && MATH_INT_FUNCTIONS.has(attr))) return { t: "func", module: value.name, name: attr };
  throw new UnsupportedLawError(`${value.name === "numpy" ? "np" : "math"}.${attr}`);
}

// ---- statements ----

type Scope = Map<string, Value>;

/**
 * The names the law's body sees besides its own: NewtonBench exec()s it with the globals of its evaluation module,
 * which has imported `numpy as np` and `math`.
 */
const EVALUATION_GLOBALS: ReadonlyMap<string, Value> = new Map<string, Value>([
  ["np", { t: "module", name: "numpy" }],
  ["math", { t: "module", name: "math" }],
]);

function importModule(module: string): Value {
  if (module === "math") return { t: "module", name: "math" };
  if (module === "numpy") return { t: "module", name: "numpy" };
  throw new UnsupportedLawError(`the module ${module}`);
}

function lookup(scope: Scope, id: string): Value {
  const local = scope.get(id);
  if (local !== undefined) return local;
  const global = EVALUATION_GLOBALS.get(id);
  if (global !== undefined) return global;
  if (BUILTINS.has(id)) return { t: "func", module: "builtins", name: id };
  return raise("NameError", `name '${id}' is not defined`);
}

function numberLiteral(text: string): Value {
  const clean = text.replace(/_/g, "");
  if (/^0[xob]/i.test(clean)) return py("int", Number(clean));
  if (/[.eE]/.test(clean)) return py("float", Number(clean));
  return py("int", Number(clean));
}

function evaluate(expr: Expr, scope: Scope): Value {
  switch (expr.kind) {
    case "number":
      return numberLiteral(expr.text);
    case "string":
      return { t: "str", v: expr.value };
    case "const":
      return expr.value === "None" ? NONE : { t: "bool", v: expr.value === "True" };
    case "name":
      return lookup(scope, expr.id);
    case "tuple":
      return { t: "tuple", items: expr.items.map((item) => evaluate(item, scope)) };
    case "unary": {
      const operand = evaluate(expr.operand, scope);
      if (expr.op === "not") return { t: "bool", v: !truthy(operand) };
      const n = asNum(operand);
      if (!n) return raise("TypeError", `bad operand type for unary ${expr.op}: '${typeName(operand)}'`);
      return py(n.t, expr.op === "-" ? -n.v : n.v);
    }
    case "binary":
      return binary(expr.op, evaluate(expr.left, scope), evaluate(expr.right, scope));
    case "boolop": {
      const left = evaluate(expr.left, scope);
      if (expr.op === "and" ? !truthy(left) : truthy(left)) return left;
      return evaluate(expr.right, scope);
    }
    case "compare": {
      let left = evaluate(expr.first, scope);
      for (const { op, right } of expr.rest) {
        const value = evaluate(right, scope);
        if (!compare(op, left, value)) return { t: "bool", v: false };
        left = value;
      }
      return { t: "bool", v: true };
    }
    case "ifexp":
      return truthy(evaluate(expr.test, scope)) ? evaluate(expr.body, scope) : evaluate(expr.orelse, scope);
    case "attribute":
      return attribute(evaluate(expr.value, scope), expr.attr);
    case "call": {
      const func = evaluate(expr.func, scope);
      if (func.t !== "func") return raise("TypeError", `'${typeName(func)}' object is not callable`);
      return callFunction(
        func,
        expr.args.map((arg) => evaluate(arg, scope)),
        expr.keywords.map(({ name, value }) => ({ name, value: evaluate(value, scope) })),
      );
    }
  }
}

function assign(target: Target, value: Value, scope: Scope): void {
  if (target.kind === "name") {
    scope.set(target.id, value);
    return;
  }
  if (value.t !== "tuple") raise("TypeError", `cannot unpack non-iterable ${typeName(value)} object`);
  const items = (value as Extract<Value, { t: "tuple" }>).items;
  if (items.length !== target.items.length) {
    raise("ValueError", items.length > target.items.length ? `too many values to unpack (expected ${target.items.length})` : `not enough values to unpack (expected ${target.items.length}, got ${items.length})`);
  }
  target.items.forEach((t, i) => assign(t, items[i]!, scope));
}

/** Runs statements; answers the returned value when a `return` ran. */
function run(body: Stmt[], scope: Scope): Value | undefined {
  for (const stmt of body) {
    switch (stmt.kind) {
      case "expr":
        evaluate(stmt.value, scope);
        break;
      case "pass":
        break;
      case "assign": {
        const value = evaluate(stmt.value, scope);
        for (const target of stmt.targets) assign(target, value, scope);
        break;
      }
      case "augassign": {
        const current = scope.get(stmt.target);
        if (current === undefined) raise("UnboundLocalError", `cannot access local variable '${stmt.target}' where it is not associated with a value`);
        scope.set(stmt.target, binary(stmt.op, current!, evaluate(stmt.value, scope)));
        break;
      }
      case "return":
        return stmt.value ? evaluate(stmt.value, scope) : NONE;
      case "if": {
        const returned = run(truthy(evaluate(stmt.test, scope)) ? stmt.body : stmt.orelse, scope);
        if (returned !== undefined) return returned;
        break;
      }
      case "import":
        for (const { module, asName } of stmt.names) scope.set(asName, importModule(module));
        break;
      case "importfrom": {
        const module = importModule(stmt.module);
        for (const { name, asName } of stmt.names) {
          if (name === "*") throw new UnsupportedLawError(`from ${stmt.module} import *`);
          scope.set(asName, attribute(module, name));
        }
        break;
      }
      case "def":
        throw new UnsupportedLawError("a nested function definition");
    }
  }
  return undefined;
}

export interface CompiledLaw {
  /** Calls discovered_law with float64 arguments; answers a number, or throws LawRuntimeError / UnsupportedLawError. */
  call(args: readonly number[]): number;
}

/**
 * Reads the submission as exec() would define it and returns discovered_law. Module-level statements other than
 * imports and the def are refused: exec() puts their names in a scope the function does not see, a subtlety not
 * modelled here.
 */
export function compileLaw(source: string, functionName = "discovered_law"): CompiledLaw {
  let module: Stmt[];
  try {
    module = parseLawModule(source);
  } catch (error) {
    if (error instanceof LawSyntaxError) throw new LawRuntimeError("SyntaxError", error.message);
    throw error;
  }
  let law: Extract<Stmt, { kind: "def" }> | undefined;
  for (const stmt of module) {
    if (stmt.kind === "def") {
      if (stmt.name === functionName) law = stmt;
      else throw new UnsupportedLawError(`a helper function (${stmt.name}) beside ${functionName}`);
    } else if (stmt.kind === "import" || stmt.kind === "importfrom") {
      for (const name of stmt.kind === "import" ? stmt.names.map((n) => n.module) : [stmt.module]) importModule(name);
    } else if (stmt.kind === "expr" && stmt.value.kind === "string") {
      // A module docstring.
    } else if (stmt.kind !== "pass") {
      throw new UnsupportedLawError("module-level statements beside the function (exec() gives them a scope the function does not see)");
    }
  }
  if (!law) return { call: () => raise("TypeError", "'NoneType' object is not callable") };
  const def = law;
  return {
    call(args) {
      if (args.length !== def.params.length) raise("TypeError", `${functionName}() takes ${def.params.length} positional arguments but ${args.length} were given`);
      const scope: Scope = new Map(def.params.map((name, i) => [name, py("np", args[i]!)]));
      const result = run(def.body, scope) ?? NONE;
      const n = asNum(result);
      if (!n) throw new UnsupportedLawError(`a law returning ${result.t === "none" ? "None" : `a ${typeName(result)}`}`);
      return n.v;
    },
  };
}
