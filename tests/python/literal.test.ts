// Module-level literals read without running Python; what cannot be read so is refused, naming why.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PythonLiteralError, readPythonConstants } from "../../src/python/literal.ts";
import { pythonFormat } from "../../src/python/str-format.ts";

test("dicts, lists, tuples, every str form and escape, numbers, True/False/None; other statements skipped", () => {
  const source = [
    '"""Docstring."""',
    "import re  # skipped",
    "OTHER = compute()",
    "A = {",
    "    # comment",
    "    'single': 'it\\'s',",
    '    "double": "tab\\tnew\\nline \\u00e9 \\x41 \\101 \\q",',
    "    'raw': r'\\n\\d',",
    "    'joined': 'a' \"b\"",
    "        '''c",
    "d''',",
    "    'nested': [1, -2, 3.5, 1e3, (True, False, None), [],],",
    "    'ünï': u'x',",
    "}",
    "B = ['x', \\",
    "     'y']",
  ].join("\n");
  assert.deepEqual(readPythonConstants(source, ["A", "B"]), {
    A: { single: "it's", double: "tab\tnew\nline é A A \\q", raw: "\\n\\d", joined: "abc\nd", nested: [1n, -2n, 3.5, 1000, [true, false, null], []], ünï: "x" },
    B: ["x", "y"],
  });
});

test("refused, naming why: a non-literal value, a statement that changes the constant, an f-string, a missing constant", () => {
  const refuses = (source: string, pattern: RegExp) => assert.throws(() => readPythonConstants(source, ["A"]), (e: Error) => e instanceof PythonLiteralError && pattern.test(e.message), source);
  refuses("A = {'x': make()}", /A \(line 1\) is not a plain literal: line 1: a name is not a literal/);
  refuses("A = {'x': 1}\nA.update({'y': 2})", /line 2: A is used by a statement other than its literal assignment/);
  refuses("A = [f'{x}']", /a string with prefix f \(bytes or an f-string\) is not a plain str literal/);
  refuses("A = {1, 2}", /a dict key that is not a str|a set/);
  refuses("B = 1", /no literal assignment of A/);
  refuses("A = 1\nA = 2", /A is assigned twice/);
});

test("str.format: {} numbered, {n}, {name}, braces; anything else refused", () => {
  assert.equal(pythonFormat("the answer is ({}) {{X}}", ["X"]), "the answer is (X) {X}");
  assert.equal(pythonFormat("{1}{0}{name}", ["a", "b"], { name: "c" }), "bac");
  assert.throws(() => pythonFormat("{x!r}", [], { x: "1" }), /not ported/);
  assert.throws(() => pythonFormat("{missing}", []), /no argument 'missing'/);
  assert.throws(() => pythonFormat("{} {}", ["a"]), /no positional argument 1/);
});
