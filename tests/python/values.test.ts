// Python's builtins on parsed values, as CPython 3 prints and converts them (expected values taken from python3).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { pythonGetItem, pythonStr } from "../../src/python/values.ts";
import { asciiDigits, pythonFloat, pythonInt, pythonIntBig } from "../../src/python/numbers.ts";
import { complexRepr, floatRepr } from "../../src/python/float.ts";
import { OverflowError, ValueError } from "../../src/python/exception.ts";
import { pythonStringRepr } from "../../src/python/repr.ts";
import { jsonGetItem, jsonStr } from "../../src/python/json-value.ts";

describe("python values", () => {
  test("repr(float): shortest round-trip digits, exponent form outside 1e-4 ≤ |x| < 1e16", () => {
    const cases: [number, string][] = [
      [0, "0.0"], [-0, "-0.0"], [1, "1.0"], [0.1, "0.1"], [4096, "4096.0"], [1e-4, "0.0001"], [1e-5, "1e-05"], [0.00012, "0.00012"],
      [1e15, "1000000000000000.0"], [9999999999999998, "9999999999999998.0"], [1e16, "1e+16"], [1.5e16, "1.5e+16"], [2 ** 63, "9.223372036854776e+18"],
      [5e-324, "5e-324"], [1.7976931348623157e308, "1.7976931348623157e+308"], [NaN, "nan"], [Infinity, "inf"], [-Infinity, "-inf"], [-123.456, "-123.456"],
    ];
    for (const [x, expected] of cases) assert.equal(floatRepr(x), expected, String(x));
    assert.equal(floatRepr(4096, false), "4096");
  });

  test("repr(complex)", () => {
    assert.equal(complexRepr(0, 2), "2j");
    assert.equal(complexRepr(1.5, -2), "(1.5-2j)");
    assert.equal(complexRepr(-0, 1), "(-0+1j)");
    assert.equal(complexRepr(0, -0), "-0j");
    assert.equal(complexRepr(1e16, 1e-5), "(1e+16+1e-05j)");
  });

  test("repr(str) escapes \\t, \\r and every unprintable character (the calendar's copy missed \\x00, the calculator's \\t and \\r)", () => {
    assert.equal(pythonStringRepr('a\x00\t\r\x7f\u200b\xa0😀"'), "'a\\x00\\t\\r\\x7f\\u200b\\xa0😀\"'");
    assert.equal(pythonStringRepr("it's"), `"it's"`);
    assert.equal(pythonStringRepr("\u2028 \x85"), "'\\u2028 \\x85'");
  });

  test("str() of parsed values keeps Python's int/float distinction and prints containers with repr", () => {
    assert.equal(pythonStr(pythonJsonLoads('{"a": [1, 2.0, null, true, "x\\ty"]}')), "{'a': [1, 2.0, None, True, 'x\\ty']}");
    // A plain JSON object is the other model's: json-value.ts's jsonStr (tests/python/json-value.test.ts).
    assert.equal(jsonStr({ a: "b" }), "{'a': 'b'}");
  });

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

  test("d[key] raises KeyError or Python's TypeError for the type", () => {
    assert.equal(pythonGetItem(new Map([["a", 1n]]), "a"), 1n);
    // On a plain JSON object: json-value.ts's jsonGetItem.
    assert.equal(jsonGetItem({ a: 1 }, "a"), 1);
    assert.throws(() => jsonGetItem({}, "a"), /KeyError: 'a'/);
    assert.throws(() => pythonGetItem(null, "a"), /'NoneType' object is not subscriptable/);
    assert.throws(() => pythonGetItem([1n], "a"), /list indices must be integers or slices, not str/);
    assert.throws(() => pythonGetItem("s", "a"), /string indices must be integers, not 'str'/);
    assert.throws(() => pythonGetItem(1n, "a"), /'int' object is not subscriptable/);
  });
});
