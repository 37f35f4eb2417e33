// One model of Python exceptions: type name and str() as Python gives them, repr() as Python prints it
// (expected texts from python3: `repr(e)`, `str(e)`, a JSONDecodeError's msg/pos/lineno/colno).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { exceptionRepr, KeyError, OverflowError, PyException, PyJsonDecodeError, PyRegexError, ValueError } from "../../src/python/exception.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";

describe("PyException", () => {
  test("name is type(e).__name__, message is str(e), repr() is Python's", () => {
    const error = new PyException("ZeroDivisionError", "float division by zero");
    assert.equal(error.name, "ZeroDivisionError");
    assert.equal(error.str(), "float division by zero");
    assert.equal(error.repr(), "ZeroDivisionError('float division by zero')");
    assert.equal(`${error}`, "ZeroDivisionError: float division by zero");
  });

  test("the builtin kinds are instances, and catchable by kind", () => {
    const error = new ValueError("it's");
    assert.ok(error instanceof PyException && error instanceof ValueError && !(error instanceof OverflowError));
    assert.equal(error.repr(), `ValueError("it's")`);
    assert.equal(new OverflowError("math range error").repr(), "OverflowError('math range error')");
  });

  test("repr() escapes the message as Python does: newline and backslash", () => {
    // python3: repr(ValueError('a\nb\\c'))
    assert.equal(new ValueError("a\nb\\c").repr(), "ValueError('a\\nb\\\\c')");
  });

  test("KeyError's str() is the key's repr", () => {
    // python3: repr(KeyError('k')), str(KeyError('k')), repr(KeyError(3))
    const error = new KeyError("'k'");
    assert.equal(error.message, "'k'");
    assert.equal(error.repr(), "KeyError('k')");
    assert.equal(new KeyError("3").repr(), "KeyError(3)");
  });

  test("re.error is named `error`, as type(e).__name__ reads in 3.11 and 3.12", () => {
    assert.equal(new PyRegexError("missing ), unterminated subpattern at position 0").repr(), "error('missing ), unterminated subpattern at position 0')");
  });
});

describe("PyJsonDecodeError", () => {
  test("msg, pos, lineno, colno and the message as Python's json.loads raises them", () => {
    assert.throws(
      () => pythonJsonLoads('{"a": 1,}'),
      (error: unknown) =>
        error instanceof PyJsonDecodeError &&
        error.reason === "Expecting property name enclosed in double quotes" &&
        error.position === 8 &&
        error.lineno === 1 &&
        error.colno === 9 &&
        error.repr() === "JSONDecodeError('Expecting property name enclosed in double quotes: line 1 column 9 (char 8)')",
    );
    assert.throws(() => pythonJsonLoads("[1,\n  x]"), (error: unknown) => error instanceof PyJsonDecodeError && error.lineno === 2 && error.colno === 3 && error.message === "Expecting value: line 2 column 3 (char 6)");
  });
});

describe("exceptionRepr", () => {
  test("a JS error reads as the Python exception of its name, escaped as Python escapes (the old copy left \\n raw)", () => {
    assert.equal(exceptionRepr(new TypeError("'int' object is not iterable")), `TypeError("'int' object is not iterable")`);
    assert.equal(exceptionRepr(new Error(`it's "x"\n`)), `Error('it\\'s "x"\\n')`);
    assert.equal(exceptionRepr(new KeyError("'k'")), "KeyError('k')");
    assert.equal(exceptionRepr("thrown text"), "An unknown error occurred");
  });
});
