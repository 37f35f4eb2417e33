// Python `re` semantics in JS: every expected value below is what python3 (3.11) prints for the same pattern,
// flags and text (re.findall, re.search(...).group(0..n), re.match, re.fullmatch, re.split, re.sub), so a
// difference is a bug.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compilePythonRegex, pythonFindall, pythonFinditer, pythonFullmatch, pythonMatch, pythonSearch, pythonSplit, pythonSub, UnsupportedPythonRegexError, type PythonRegexFlags } from "../../src/python/re/index.ts";
import { PyRegexError } from "../../src/python/exception.ts";

type Case = [pattern: string, flags: PythonRegexFlags, text: string, findall: unknown[], search: (string | null)[] | null, match: string | null, fullmatch: string | null];

// [pattern, flags, text, re.findall, [group(0), *groups()] of re.search, re.match group(0), re.fullmatch group(0)]
const PYTHON_OUTPUTS: Case[] = [
  ["\\d+", {}, "a12 ٣٤ ５x", ["12", "٣٤", "５"], ["12"], null, null],
  ["\\w+", {}, "héllo wörld_1 日本語 áb ²", ["héllo", "wörld_1", "日本語", "a", "b", "²"], ["héllo"], "héllo", null],
  ["\\s+", {}, "a\u001cbc﻿d　e​f", ["\u001c", "", "　"], ["\u001c"], null, null],
  ["\\bcat\\b", {}, "cat écat caté cat_ cat.", ["cat", "cat"], ["cat"], "cat", null],
  ["\\B", {}, "ab !", ["", "", ""], [""], null, null],
  ["\\B", {}, "", [], null, null, null],
  ["^abc$", {}, "abc\n", ["abc"], ["abc"], "abc", null],
  ["^abc$", {}, "abc\n\n", [], null, null, null],
  ["(?m)^\\w+$", {}, "one\ntwo\r\nthree\n", ["one", "three"], ["one"], "one", null],
  ["a.c", {}, "a\nc a\rc abc", ["a\rc", "abc"], ["a\rc"], null, null],
  ["(?s)a.c", {}, "a\nc", ["a\nc"], ["a\nc"], "a\nc", "a\nc"],
  ["\\Aab", {}, "ab\nab", ["ab"], ["ab"], "ab", null],
  ["ab\\Z", {}, "ab\nab\n", [], null, null, null],
  ["ab\\Z", {}, "ab\nab", ["ab"], ["ab"], null, null],
  ["(?P<x>\\w)(?P=x)", {}, "abccdee", ["c", "e"], ["cc", "c"], null, null],
  ["(a)(b)?", {}, "ab a", [["a", "b"], ["a", ""]], ["ab", "a", "b"], "ab", null],
  ["(?i)answer\\s*:\\s*(.+)", {}, "The ANSWER: B\nmore", ["B"], ["ANSWER: B", "B"], null, null],
  ["x*", {}, "abxd", ["", "", "x", "", ""], [""], "", null],
  ["|a", {}, "a", ["", "a", ""], [""], "", "a"],
  ["a|", {}, "baa", ["", "a", "a", ""], [""], "", null],
  ["(?x) a \\s+ b # comment", {}, "a  b ab", ["a  b"], ["a  b"], "a  b", null],
  ["[\\w.-]+@[\\w-]+", {}, "me.x-y@mail-z é@é", ["me.x-y@mail-z", "é@é"], ["me.x-y@mail-z"], "me.x-y@mail-z", null],
  ["[^\\W\\d]+", {}, "ab12cd_3é", ["ab", "cd_", "é"], ["ab"], "ab", null],
  ["[]a]+", {}, "a]b]]", ["a]", "]]"], ["a]"], "a]", null],
  ["a{,2}", {}, "aaaa", ["aa", "aa", ""], ["aa"], "aa", null],
  ["a{2,}", {}, "a aa aaa", ["aa", "aaa"], ["aa"], null, null],
  ["x{", {}, "x{ x", ["x{"], ["x{"], "x{", null],
  ["}]", {}, "a}]b", ["}]"], ["}]"], null, null],
  ["\\x41\\u00e9\\101\\0", {}, "Aé A\u0000", [], null, null, null],
  ["[\\x41-\\x43]+", {}, "ABCD", ["ABC"], ["ABC"], "ABC", null],
  ["\\.\\-\\\"\\:\\ ", {}, ".-\": ", [".-\": "], [".-\": "], ".-\": ", ".-\": "],
  ["(?i)straße", {}, "STRASSE straße STRAßE", ["straße", "STRAßE"], ["straße"], null, null],
  ["[A-Z]", {"ignoreCase": true}, "ſK", ["ſ", "K"], ["ſ"], "ſ", null],
  ["(?i)[^a]", {}, "Ab", ["b"], ["b"], null, null],
  ["(?a)\\w+", {}, "héllo", ["h", "llo"], ["h"], "h", null],
  ["(?:ab)+?", {}, "ababab", ["ab", "ab", "ab"], ["ab"], "ab", "ababab"],
  ["(?<=\\$)\\d+", {}, "cost $12 and 5", ["12"], ["12"], null, null],
  ["(?<!\\d)\\d{2}(?!\\d)", {}, "1 12 123 45", ["12", "45"], ["12"], null, null],
  ["(?#comment)ab", {}, "ab", ["ab"], ["ab"], "ab", "ab"],
  ["(?i:ab)c", {"ignoreCase": true}, "ABc ABC", ["ABc", "ABC"], ["ABc"], "ABc", null],
  ["(?s:a.)b", {}, "a\nb", ["a\nb"], ["a\nb"], "a\nb", "a\nb"],
  ["(a)|(b)", {}, "ab", [["a", ""], ["", "b"]], ["a", "a", null], "a", null],
  ["\\\\boxed\\{([^}]*)\\}", {"dotAll": true}, "\\boxed{A} and \\boxed{ B }", ["A", " B "], ["\\boxed{A}", "A"], "\\boxed{A}", null],
  ["\\b([A-Z])\\b", {"dotAll": true}, "É A éB C.", ["A", "C"], ["A", "A"], null, null],
  ["^\\d+\\.\\s*\".+\":\\s*.+", {}, "1. \"Name\": x", ["1. \"Name\": x"], ["1. \"Name\": x"], "1. \"Name\": x", "1. \"Name\": x"],
  ["^→ .+", {}, "→ item", ["→ item"], ["→ item"], "→ item", "→ item"],
  ["^.{2,30}\\s*=\\s*.+", {}, "key = value", ["key = value"], ["key = value"], "key = value", "key = value"],
  ["(?<![A-Za-z])([A-Za-z])(?![A-Za-z])", {}, "A or B, C/D", ["A", "B", "C", "D"], ["A", "A"], "A", null],
  ["\\b[A-Z]\\b(?!.*\\b[A-Z]\\b)", {"dotAll": true}, "A is wrong; B\nis right", ["B"], ["B"], null, null],
  ["(?im)[*_]{0,2}Answer[*_]{0,2}\\s*:[*_\\s]{0,2}(.+)", {}, "**Answer:** B\nanswer: c", [" B", "c"], ["**Answer:** B", " B"], "**Answer:** B", null],
  ["\\$", {}, "a$b", ["$"], ["$"], null, null],
  ["[\\d\\s]+", {}, "a 1٢　b", [" 1٢　"], [" 1٢　"], null, null],
  ["[\\b]", {}, "a\bb", ["\b"], ["\b"], null, null],
  ["\\U0001F600+", {}, "x😀😀y", ["😀😀"], ["😀😀"], null, null],
  [".", {}, "😀a", ["😀", "a"], ["😀"], "😀", null],
  ["(\\w)\\1", {}, "aabbc", ["a", "b"], ["aa", "a"], "aa", null],
  ["\\111", {}, "I", ["I"], ["I"], "I", "I"],
  ["(?:)", {}, "ab", ["", "", ""], [""], "", null],
  ["$", {}, "ab\n", ["", ""], [""], null, null],
  ["(?m)$", {}, "a\nb\n", ["", "", ""], [""], null, null],
  ["(?m)^", {}, "a\nb\n", ["", "", ""], [""], "", null],
  // Python 3.11's possessive quantifiers and atomic groups.
  ["a*+a", {}, "aaa", [], null, null, null],
  ["(?>a|ab)c", {}, "abc ac", ["ac"], ["ac"], null, null],
  ["(?>ab)*c", {}, "ababc c", ["ababc", "c"], ["ababc"], "ababc", null],
  ["(\\w)a++\\1", {}, "baab bab baac", ["b", "b"], ["baab", "b"], "baab", null],
  ["\\d{2,3}+\\d", {}, "1234 123", ["1234"], ["1234"], "1234", null],
  ["x?+x", {}, "x xx", ["xx"], ["xx"], null, null],
  ["(?>a*)*b", {}, "aab b", ["aab", "b"], ["aab"], "aab", null],
  ["a++", {}, "aaa", ["aaa"], ["aaa"], "aaa", "aaa"],
  ["(?i)(?>A+)b", {}, "aab", ["aab"], ["aab"], "aab", "aab"],
  ["(?P<q>['\\\"])(?>[^'\\\"]*+)(?P=q)", {}, "say 'hi' and \"yo\"", ["'", "\""], ["'hi'", "'"], null, null],
  ["(?>(a))+b", {}, "aab", ["a"], ["aab", "a"], "aab", "aab"],
];

// Each of these raises re.error in python3.
const PYTHON_ERRORS = [
  "a(?i)b",
  "\\z",
  "(?P<1>a)",
  "a**",
  "*a",
  "(a",
  "a)",
  "[a",
  "[z-a]",
  "\\1(a)",
  "(a\\1)",
  "(?P=n)",
  "x{3,2}",
  "^*",
  "\\b+",
  "(?<n>a)",
  "\\x4",
  "\\u12",
  "[\\d-z]",
  "(?L)a",
  "\\8",
  "(?P<a>x)(?P<a>y)",
  "(?i-:a)",
  "a*?+",
  "a++*",
];

// [pattern, text, maxsplit, re.split(pattern, text, maxsplit=maxsplit)] (null is Python's None).
const PYTHON_SPLITS: [pattern: string, text: string, maxsplit: number, pieces: (string | null)[]][] = [
  ["\\s?\\*\\*\\*\\s?", "a *** b***c", 0, ["a", "b", "c"]],
  ["x*", "abxd", 0, ["", "a", "b", "", "d", ""]],
  ["\\b", "a b", 0, ["", "a", " ", "b", ""]],
  ["(x)|(y)", "1x2y3", 0, ["1", "x", null, "2", null, "y", "3"]],
  [",", "a,b,c,d", 2, ["a", "b", "c,d"]],
  ["", "ab", 0, ["", "a", "b", ""]],
  ["a", "", 0, [""]],
  ["(?>a+)", "baac", 0, ["b", "c"]],
];

// [pattern, template, text, count, re.sub(pattern, template, text, count=count)]
const PYTHON_SUBS: [pattern: string, template: string, text: string, count: number, result: string][] = [
  ["x*", "-", "abxd", 0, "-a-b--d-"],
  ["", "-", "ab", 0, "-a-b-"],
  ["a", "-", "aaaa", 2, "--aa"],
  ["(a)", "<\\1>", "bab", 0, "b<a>b"],
  ["(?P<x>a)", "<\\g<x>\\g<0>\\g<1>>", "bab", 0, "b<aaa>b"],
  ["(a)|(b)", "[\\2]", "ab", 0, "[][b]"],
  ["a", "\\n\\t\\\\", "a", 0, "\n\t\\"],
  ["a", "\\-é", "a", 0, "\\-é"],
  ["(a)", "\\101\\0", "a", 0, "A\u0000"],
  ["(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)", "\\10\\g<1>0", "abcdefghij", 0, "ja0"],
];

// Replacement templates re.sub rejects with re.error.
const PYTHON_TEMPLATE_ERRORS: [pattern: string, template: string][] = [
  ["a", "\\q"],
  ["a", "\\2"],
  ["(a)", "\\10"],
  ["a", "\\"],
  ["a", "\\g<1x>"],
  ["a", "\\g"],
  ["a", "\\g<>"],
  ["a", "\\x41"],
];

describe("python-regex: Python's outputs reproduced", () => {
  for (const [pattern, flags, text, findall, search, match, fullmatch] of PYTHON_OUTPUTS) {
    test(`${JSON.stringify(pattern)} on ${JSON.stringify(text)}`, () => {
      const compiled = compilePythonRegex(pattern, flags);
      assert.deepEqual(compiled.findall(text), findall, "findall");
      const found = compiled.search(text);
      assert.deepEqual(found ? found.groups.map((group) => group ?? null) : null, search, "search");
      assert.equal(compiled.match(text)?.groups[0] ?? null, match, "match");
      assert.equal(compiled.fullmatch(text)?.groups[0] ?? null, fullmatch, "fullmatch");
    });
  }
});

describe("python-regex: re.split and re.sub reproduced", () => {
  for (const [pattern, text, maxsplit, pieces] of PYTHON_SPLITS) {
    test(`split ${JSON.stringify(pattern)} on ${JSON.stringify(text)}${maxsplit ? ` maxsplit=${maxsplit}` : ""}`, () => {
      assert.deepEqual(compilePythonRegex(pattern).split(text, maxsplit).map((piece) => piece ?? null), pieces);
    });
  }
  for (const [pattern, template, text, count, result] of PYTHON_SUBS) {
    test(`sub ${JSON.stringify(pattern)} → ${JSON.stringify(template)} on ${JSON.stringify(text)}${count ? ` count=${count}` : ""}`, () => {
      assert.equal(compilePythonRegex(pattern).sub(template, text, count), result);
    });
  }
  test("templates Python rejects throw PyRegexError; an unknown group name is Python's IndexError", () => {
    for (const [pattern, template] of PYTHON_TEMPLATE_ERRORS) assert.throws(() => pythonSub(pattern, template, "a"), PyRegexError, template);
    assert.throws(() => pythonSub("a", "\\g<y>", "a"), { name: "IndexError", message: "unknown group name 'y'" });
  });
});

describe("python-regex: the rules one by one", () => {
  test("\\d is any Unicode decimal digit and \\w any letter, number or _, as for Python str patterns", () => {
    assert.deepEqual(pythonFindall(String.raw`\d`, "7٣५７"), ["7", "٣", "५", "７"]);
    assert.deepEqual(pythonFindall(String.raw`\w+`, "naïve Ωμέγα x\u0301"), ["naïve", "Ωμέγα", "x"], "a combining mark is not \\w in Python");
    assert.deepEqual(pythonFindall(String.raw`(?a)\w+`, "naïve"), ["na", "ve"], "(?a) makes it ASCII");
  });

  test("\\s is Python's whitespace: \\x1c–\\x1f and \\x85 yes, \\ufeff and \\u200b no", () => {
    assert.equal(pythonFindall(String.raw`\s`, "\x1c\x1f\x85\u3000\ufeff\u200b").length, 4);
  });

  test("\\b uses Python's \\w, so there is no boundary between é and a letter", () => {
    assert.deepEqual(pythonFindall(String.raw`\b[A-Z]\b`, "éA A é"), ["A"]);
  });

  test("$ matches at the end and before one final newline; \\Z only at the very end; \\A only at the start", () => {
    assert.ok(pythonSearch("abc$", "abc\n"));
    assert.equal(pythonSearch("abc$", "abc\n\n"), undefined);
    assert.equal(pythonSearch(String.raw`abc\Z`, "abc\n"), undefined);
    assert.equal(pythonSearch(String.raw`(?m)\Aabc`, "x\nabc"), undefined);
    assert.ok(pythonSearch("(?m)^abc$", "x\nabc\ny"));
  });

  test(". excludes only \\n (not \\r or \\u2028); (?s) and dotAll make it match everything", () => {
    assert.deepEqual(pythonFindall("a.b", "a\rb a\u2028b a\nb"), ["a\rb", "a\u2028b"]);
    assert.deepEqual(pythonFindall("a.b", "a\nb", { dotAll: true }), ["a\nb"]);
    assert.deepEqual(pythonFindall("(?s)a.b", "a\nb"), ["a\nb"]);
  });

  test("inline flags (?i) (?m) (?s) (?x) at the start, and scoped (?s:…) (?m:…) (?x:…)", () => {
    assert.ok(pythonSearch("(?i)HELLO", "hello"));
    assert.ok(pythonSearch("(?x) h e l l o  # spaced out", "hello"));
    assert.deepEqual(pythonFindall("(?s:a.)b|a.c", "a\nb a\nc"), ["a\nb"]);
    assert.deepEqual(pythonFindall("(?m:^x)|^y", "y\nx\ny"), ["y", "x"]);
    assert.ok(pythonSearch("(?x: a b )c", "abc"));
  });

  test("a scoped case flag is honoured when it agrees with the whole pattern, refused clearly otherwise", () => {
    assert.ok(pythonSearch("(?i)(?i:ab)c", "ABC"));
    assert.throws(() => compilePythonRegex("(?i:ab)c"), UnsupportedPythonRegexError);
    assert.throws(() => compilePythonRegex("(?i)(?-i:ab)c"), UnsupportedPythonRegexError);
  });

  test("(?P<name>…) and (?P=name); groups keep Python's numbering", () => {
    const found = pythonSearch(String.raw`(?P<first>\w)(?:-)(?P<second>\w)(?P=first)`, "x a-ba")!;
    assert.deepEqual(found.named, { first: "a", second: "b" });
    assert.deepEqual(found.groups, ["a-ba", "a", "b"]);
  });

  test("findall: whole match without groups, the group with one, a tuple with several ('' for a group that did not take part)", () => {
    assert.deepEqual(pythonFindall(String.raw`\d`, "a1b2"), ["1", "2"]);
    assert.deepEqual(pythonFindall(String.raw`(\d)x`, "1x2y3x"), ["1", "3"]);
    assert.deepEqual(pythonFindall(String.raw`(\d)(y)?`, "1y2"), [["1", "y"], ["2", ""]]);
  });

  test("finditer after an empty match allows a non-empty match at the same place (Python ≥ 3.7)", () => {
    assert.deepEqual(pythonFinditer("|a", "a").map((m) => [m.start, m.end]), [[0, 0], [0, 1], [1, 1]]);
    assert.deepEqual(pythonFindall("x*", "abxd"), ["", "", "x", "", ""]);
  });

  test("spans are JS string indices", () => {
    const [found] = pythonFinditer(String.raw`(?<![A-Za-z])([A-Za-z])(?![A-Za-z])`, "😀 B");
    assert.deepEqual(found!.spans[1], [3, 4]);
  });

  test("Python's literal {, }, ] and escaped punctuation, which JS's unicode modes reject, are literals", () => {
    assert.deepEqual(pythonFindall(String.raw`\[ref:\d\]`, "see [ref:2] and [ref:x]"), ["[ref:2]"]);
    assert.deepEqual(pythonFindall(String.raw`x{ \"\: \- {1}}`, 'x{ ": - {1}}'), []);
    assert.deepEqual(pythonFindall(String.raw`x{ \"\: \- a}`, 'x{ ": - a}'), ['x{ ": - a}']);
  });

  test("ignoreCase is Unicode case-insensitive", () => {
    assert.deepEqual(pythonFindall("[a-z]+", "ÀbC", { ignoreCase: true }), ["bC"]);
    assert.ok(pythonSearch("é", "É", { ignoreCase: true }));
  });

  test("a negated class or `.` inside a repeated group matches from the leftmost position (Node 20's v-flag bug is avoided)", () => {
    assert.deepEqual(pythonSearch("(?:[^x]*a)+b", "zaab aab")?.groups[0], "zaab aab");
    assert.deepEqual(pythonSearch("(?:[^x]a)+b", "zaab aab")?.groups[0], "aab");
    assert.equal(pythonSub(String.raw`Document \d+:(?:.*\n)+?\n`, "", "Document 2: x\rD\n\nrest"), "rest");
    assert.deepEqual(pythonFindall(String.raw`(?:\W*\w)+`, "a, b; c"), ["a, b; c"]);
  });

  test("ignoreCase makes I, i, İ and ı one letter, as Python's (JS's case folding keeps İ and ı apart); not under re.ASCII", () => {
    const text = "iIİıjſK";
    assert.deepEqual(pythonFindall("[A-Z]", text, { ignoreCase: true }), ["i", "I", "İ", "ı", "j", "ſ", "K"]);
    for (const pattern of ["i", "I", "İ", "ı", "\\x69", "[İ]", "[h-j]"]) assert.deepEqual(pythonFindall(pattern, "iIİı", { ignoreCase: true }), ["i", "I", "İ", "ı"], pattern);
    assert.deepEqual(pythonFindall("[^i]", text, { ignoreCase: true }), ["j", "ſ", "K"]);
    assert.deepEqual(pythonFindall("(?a)i", text, { ignoreCase: true }), ["i", "I"]);
  });

  test("patterns Python rejects throw PyRegexError (re.error)", () => {
    for (const pattern of PYTHON_ERRORS) assert.throws(() => compilePythonRegex(pattern), PyRegexError, pattern);
  });

  test("valid Python that JS cannot express throws UnsupportedPythonRegexError naming the construct", () => {
    assert.throws(() => compilePythonRegex("(?<=(?>ab))c"), /atomic group \(\?>…\) inside a look-behind/);
    assert.throws(() => compilePythonRegex("(?<=a{2}+)c"), /possessive quantifier inside a look-behind/);
    assert.throws(() => compilePythonRegex("(a)?(?(1)b|c)"), /conditional group/);
    assert.throws(() => compilePythonRegex(String.raw`\N{BULLET}`), UnsupportedPythonRegexError);
  });
});

describe("python-regex: possessive quantifiers and atomic groups (Python 3.11)", () => {
  test("they never give back what they matched, and keep Python's group numbering for back-references", () => {
    assert.deepEqual(pythonFindall("(?>a|ab)c", "abc ac"), ["ac"], "(?:a|ab)c would also find abc");
    const found = pythonSearch(String.raw`(x)(?>y+)(z)*+\1\2`, "xyyzzxz")!;
    assert.deepEqual(found.groups, ["xyyzzxz", "x", "z"]);
    assert.deepEqual(found.spans, [[0, 7], [0, 1], [4, 5]]);
    assert.equal(pythonFullmatch("a++", "aaa")?.groups[0], "aaa");
    assert.equal(pythonMatch("a*+b", "aab")?.groups[0], "aab");
  });
});

describe("python-regex: sub and split", () => {
  test("a function replacement receives the match", () => {
    assert.equal(pythonSub(String.raw`(\w)(\w*)`, (match) => match.groups[1]!.toUpperCase() + match.groups[2], "ab cd"), "Ab Cd");
  });

  test("after an empty match, a non-empty match may start at the same place (Python ≥ 3.7), in sub and split too", () => {
    assert.equal(pythonSub("x*", "-", "abxd"), "-a-b--d-", "a JS matchAll loop gives -a-b-d-");
    assert.deepEqual(pythonSplit("x*", "abxd"), ["", "a", "b", "", "d", ""]);
  });

  test("a string replacement is Python's template, not literal text", () => {
    assert.equal(pythonSub("(a)", String.raw`<\1>`, "bab"), "b<a>b");
    assert.equal(pythonSub("a", String.raw`\n`, "a"), "\n");
  });
});

// Patterns and texts of the instruction checkers (verifiable-instructions, NLTK), checked against CPython 3.11+.
describe("python-regex: as the instruction checkers use it", () => {
  test("\\w, \\b and \\d are Unicode-aware", () => {
    assert.deepEqual(pythonFindall("\\w+", "café naïve_2 ٣"), ["café", "naïve_2", "٣"]);
    assert.equal(pythonSearch("\\bcaf\\b", "café"), undefined);
    assert.deepEqual(pythonFindall("\\d", "1٣x"), ["1", "٣"]);
  });

  test(". stops at \\n only; $ matches before a final newline; multiline ^/$ know only \\n", () => {
    assert.deepEqual(pythonFindall("a.b", "a\rb a\nb"), ["a\rb"]);
    assert.notEqual(pythonSearch("end$", "the end\n"), undefined);
    assert.deepEqual(pythonFindall("^x.*$", "x1\rx2\nx3", { multiline: true }), ["x1\rx2", "x3"]);
  });

  test("Python-only syntax: literal braces, escaped punctuation, named groups, possessive quantifiers", () => {
    assert.notEqual(pythonSearch("a{", "a{"), undefined);
    assert.notEqual(pythonSearch("\\-\\!", "-!"), undefined);
    assert.notEqual(pythonSearch("(?P<w>ab)(?P=w)", "abab"), undefined);
    assert.equal(pythonFindall("a*+a", "aaa").length, 0);
    assert.deepEqual(pythonSplit("(x)a++", "1xaa2xa3"), ["1", "x", "2", "x", "3"]);
  });

  test("re.sub and case-insensitive search", () => {
    assert.equal(pythonSub("[^\\w\\s]", "", "don't—stop!"), "dontstop");
    assert.notEqual(pythonSearch("KEY", "a key", { ignoreCase: true }), undefined);
  });

  test("patterns Python refuses are errors", () => {
    assert.throws(() => compilePythonRegex("(unclosed"), PyRegexError);
    assert.throws(() => compilePythonRegex("\\q"), PyRegexError);
  });
});
