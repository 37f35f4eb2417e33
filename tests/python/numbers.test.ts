// int() and float() of text, as CPython 3 converts them (expected values taken from python3).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pythonStrip } from "../../src/python/str.ts";
import { asciiDigits, pythonFloat, pythonInt, pythonIntBig, pythonIntOfJson } from "../../src/python/numbers.ts";
import { OverflowError, ValueError } from "../../src/python/exception.ts";
import { pythonStringRepr } from "../../src/python/repr.ts";

describe("int() and float()", () => {
  test("int() and float() strip Unicode whitespace except \\x1c–\\x1f, which str.strip() does strip (the calendar's int() accepted them)", () => {
    assert.equal(pythonInt("\u30001\xa0"), 1);
    assert.equal(pythonInt("\x851"), 1);
    assert.equal(pythonStrip("\x1c1\x1f"), "1");
    for (const bad of ["\x1c1", "1\x1f"]) {
      assert.throws(() => pythonInt(bad), (error: Error) => error instanceof ValueError && error.message === `invalid literal for int() with base 10: ${pythonStringRepr(bad)}`);
      assert.throws(() => pythonFloat(bad), (error: Error) => error instanceof ValueError && error.message === `could not convert string to float: ${pythonStringRepr(bad)}`);
    }
  });

  test("int() of any size: exact past 2^53, Unicode digits, the 4300-digit limit, and repr() in the message (reasoning-gym's and structured's copies printed the text raw, and structured's stripped \\x1c and \\ufeff)", () => {
    assert.equal(pythonIntBig(" 9007199254740993\n"), 9007199254740993n);
    assert.equal(pythonIntBig("-١_٢"), -12n);
    assert.equal(pythonInt("9007199254740993"), 9007199254740992);
    assert.equal(asciiDigits("𝟙٣x"), "13x");
    assert.equal(pythonIntBig("1".repeat(4300)), BigInt("1".repeat(4300)));
    assert.throws(() => pythonIntBig("1".repeat(4301)), { name: "ValueError", message: "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit" });
    assert.throws(() => pythonIntBig("a\tb"), { name: "ValueError", message: "invalid literal for int() with base 10: 'a\\tb'" });
    for (const bad of ["\ufeff5", "\x1c5", "1__0", "_1", "1_", "", "+"]) assert.throws(() => pythonIntBig(bad), ValueError, JSON.stringify(bad));
  });

  test("float() of text reads Python's grammar (the calculator's copy read Rust's: no '1_0.', no Unicode digits)", () => {
    const cases: [string, number][] = [["1_0.", 10], ["1_0.5", 10.5], ["1e1_0", 1e10], [".5", 0.5], ["1.", 1], ["١٢.٥", 12.5], ["+Infinity", Infinity], ["infinity", Infinity], ["1.5e+0_3", 1500], [" 2 ", 2]];
    for (const [text, expected] of cases) assert.equal(pythonFloat(text), expected, text);
    assert.ok(Number.isNaN(pythonFloat("-nan")));
    for (const bad of ["1__0", "_1", "0x10", "1_", "1e", "\ufeff1", ""]) assert.throws(() => pythonFloat(bad), ValueError, bad);
  });

  test("float() of other values: bools are 0/1, an int too large is OverflowError (not inf), None a TypeError", () => {
    assert.equal(pythonFloat(true), 1);
    assert.equal(pythonFloat(12n), 12);
    assert.throws(() => pythonFloat(10n ** 400n), OverflowError);
    assert.throws(() => pythonFloat(null), /must be a string or a real number, not 'NoneType'/);
  });
});

test("pythonIntOfJson: int() of a JSON value — bools 0/1, floats truncated toward zero, strings read, nan/inf and None raise as Python does", () => {
  assert.deepEqual([pythonIntOfJson(true), pythonIntOfJson(false), pythonIntOfJson(150.9), pythonIntOfJson(-2.7), pythonIntOfJson(" +1_40 ")], [1, 0, 150, -2, 140]);
  assert.ok(Object.is(pythonIntOfJson(-0.5), 0), "int(-0.5) is 0, not -0");
  assert.throws(() => pythonIntOfJson(NaN), { name: "ValueError", message: "cannot convert float NaN to integer" });
  assert.throws(() => pythonIntOfJson(Infinity), { name: "OverflowError", message: "cannot convert float infinity to integer" });
  assert.throws(() => pythonIntOfJson("150.0"), { name: "ValueError", message: "invalid literal for int() with base 10: '150.0'" });
  assert.throws(() => pythonIntOfJson(null), { name: "TypeError", message: "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'" });
  assert.throws(() => pythonIntOfJson([1]), { name: "TypeError" });
});
