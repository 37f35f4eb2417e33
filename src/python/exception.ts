// Python exceptions, one way: a PyException carries the exception's type name as Python prints it
// (`type(e).__name__`: "ValueError", "JSONDecodeError", "error" for re.error) and its message (`str(e)`), and
// prints itself as Python does (`repr(e)` is `ValueError('x')`). `name` is the type, so anything that formats a
// JS error by name and message (NeMo Gym's `f"{type(e).__name__}: {e}"`, a 500 body) reads as Python.
// A kind that callers catch by `instanceof` is a thin subclass; one that carries more (a JSONDecodeError's
// position) adds its fields.
import { pythonStringRepr } from "./repr.ts";

export class PyException extends Error {
  constructor(
    /** `type(e).__name__`. */
    readonly type: string,
    /** `str(e)`. */
    message: string,
  ) {
    super(message);
    this.name = type;
  }

  /** `str(e)`. */
  str(): string {
    return this.message;
  }

  /** `repr(e)`: `ValueError('x')`. */
  repr(): string {
    return `${this.type}(${pythonStringRepr(this.message)})`;
  }
}

/** pydantic's ValidationError: its repr() is its whole report ("1 validation error for Model\n…"), not `Name('…')`. */
export class PydanticValidationError extends PyException {
  constructor(report: string) {
    super("ValidationError", report);
  }

  override repr(): string {
    return this.message;
  }
}

/**
 * `repr(e)` of whatever was thrown, as NeMo Gym's 500 bodies print it: a JS error reads as the Python exception of
 * its name (`TypeError('…')`); anything that is not an Error is "An unknown error occurred".
 */
export function exceptionRepr(error: unknown): string {
  if (error instanceof PyException) return error.repr();
  if (!(error instanceof Error)) return "An unknown error occurred";
  return `${error.name}(${pythonStringRepr(error.message)})`;
}

export class ValueError extends PyException {
  constructor(message: string) {
    super("ValueError", message);
  }
}

export class OverflowError extends PyException {
  constructor(message: string) {
    super("OverflowError", message);
  }
}

export class ZeroDivisionError extends PyException {
  constructor(message: string) {
    super("ZeroDivisionError", message);
  }
}

export class IndexError extends PyException {
  constructor(message: string) {
    super("IndexError", message);
  }
}

export class AttributeError extends PyException {
  constructor(message: string) {
    super("AttributeError", message);
  }
}

/** `KeyError(key)`, made from the key's repr: str() is that repr (`'k'`, `3`), repr() is `KeyError('k')`. */
export class KeyError extends PyException {
  constructor(keyRepr: string) {
    super("KeyError", keyRepr);
  }

  override repr(): string {
    return `KeyError(${this.message})`;
  }
}

/** `re.error` (`re.PatternError` from 3.13): the pattern does not compile in Python. */
export class PyRegexError extends PyException {
  constructor(message: string) {
    super("error", message);
  }
}

/** `decimal.InvalidOperation` (a bad literal, an operation on sNaN, an impossible quantize). */
export class InvalidOperation extends PyException {
  constructor(message: string) {
    super("InvalidOperation", message);
  }
}

/**
 * `json.JSONDecodeError` (`json.decoder.JSONDecodeError`): the message reads as Python's, e.g.
 * `Expecting value: line 1 column 1 (char 0)`, with the fields Python gives it.
 */
export class PyJsonDecodeError extends PyException {
  /** 1-based, as Python's `lineno` / `colno`. */
  readonly lineno: number;
  readonly colno: number;

  constructor(
    /** `e.msg`: the reason without the position. */
    readonly reason: string,
    /** `e.doc`. */
    readonly document: string,
    /** `e.pos`. */
    readonly position: number,
  ) {
    const lineno = countNewlines(document, position) + 1;
    const colno = position - document.lastIndexOf("\n", position - 1);
    super("JSONDecodeError", `${reason}: line ${lineno} column ${colno} (char ${position})`);
    this.lineno = lineno;
    this.colno = colno;
  }
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) count++;
  return count;
}
