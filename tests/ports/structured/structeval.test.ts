// StructEval's code extraction, path grammar and scores (NeMo Gym's structeval); extraction expectations were
// produced by running the Python logic in python3.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { extractCode, pathExists, rawOutputScore, renderCode, tokenizePath } from "../../../src/ports/structured/structeval.ts";
import { pythonJsonLoads } from "../../../src/python/json.ts";

describe("code extraction", () => {
  test("a BEGIN_CODE block (end marker optional, case-insensitive) or a fenced block", () => {
    assert.equal(extractCode('<|BEGIN_CODE|>\n{"a": 1}\n<|END_CODE|>', "json"), '{"a": 1}');
    assert.equal(extractCode("<|begin_code|>a,b", "csv"), "a,b");
    assert.equal(extractCode('Sure:\n```json\n{"a": 1}\n```\nDone', "json"), '{"a": 1}');
    assert.equal(extractCode("```\nplain fence\n```", "json"), "plain fence");
  });

  test("a fenced block anywhere overrides a BEGIN_CODE block", () => {
    assert.equal(extractCode("<|BEGIN_CODE|>\nx: 1\n<|END_CODE|>\n```\ny: 2\n```", "yaml"), "y: 2");
  });

  test("without a block, the whole text stripped; an empty think block and &lt;/&gt; are undone first", () => {
    assert.equal(extractCode("  just text  \n", "json"), "just text");
    assert.equal(extractCode("&lt;a&gt;1&lt;/a&gt;", "xml"), "<a>1</a>");
    assert.equal(extractCode("<think>\n\n</think>\n\n```toml\na = 1", "toml"), "a = 1");
  });

  test("escapes are decoded as unicode_escape does: \\\" loses its backslash, non-ASCII becomes mojibake", () => {
    assert.equal(extractCode('{"q": "say \\"hi\\""}', "json"), '{"q": "say "hi""}');
    assert.equal(extractCode('{"city": "Zürich"}', "json"), '{"city": "ZÃ¼rich"}');
    assert.equal(extractCode("text with trailing backslash \\", "json"), "text with trailing backslash \\", "a decode error keeps the text");
  });

  test("an empty BEGIN_CODE block fails as Python's None.strip() does", () => {
    assert.throws(() => extractCode("<|BEGIN_CODE|><|END_CODE|>", "json"), TypeError);
  });
});

describe("render", () => {
  test("parses in the output type; an empty result or a parse failure renders 0 with the error", () => {
    assert.equal(renderCode('{"a": 1}', "json").renderScore, 1);
    assert.deepEqual(renderCode("{}", "json"), { parsed: null, renderScore: 0, errorType: "parse_error", errorMessage: "Parsed result is empty" });
    assert.deepEqual(renderCode("<|x", "xml"), { parsed: null, renderScore: 0, errorType: "parse_error", errorMessage: "ExpatError: not well-formed (invalid token): line 1, column 1" });
    assert.equal(renderCode("", "yaml").errorMessage, "Parsed result is empty");
    assert.equal(renderCode("x", "ini").errorType, "unsupported_type");
  });

  test("CSV renders as its headers and rows, which is never empty", () => {
    const rendered = renderCode("", "csv");
    assert.equal(rendered.renderScore, 1);
    assert.equal(pathExists(rendered.parsed, "csv::a"), false);
  });
});

describe("paths", () => {
  const data = pythonJsonLoads('{"novel": {"title": "T", "chapters": [{"title": "c1", "events": []}, {"title": "c2"}], "a.b": {"c": 1}, "id": 7}}');

  test("tokens: dots outside backticks, [n] on its own, csv:: whole", () => {
    assert.deepEqual(tokenizePath("novel.chapters[0].title"), ["novel", "chapters", "[0]", "title"]);
    assert.deepEqual(tokenizePath("novel.`a.b`.c"), ["novel", "a.b", "c"]);
    assert.deepEqual(tokenizePath("csv::a.b"), ["csv::a.b"]);
    assert.throws(() => tokenizePath("a[0"), /Unclosed '\['/);
  });

  test("keys, indices and wildcards", () => {
    assert.equal(pathExists(data, "novel.title"), true);
    assert.equal(pathExists(data, "novel.chapters[1].title"), true);
    assert.equal(pathExists(data, "novel.chapters[2].title"), false);
    assert.equal(pathExists(data, "novel.chapters[-1].title"), false);
    assert.equal(pathExists(data, "novel.chapters.*.events"), true, "any element may satisfy the rest");
    assert.equal(pathExists(data, "novel.chapters.*.missing"), false);
    assert.equal(pathExists(data, "novel.title.*"), false);
    assert.equal(pathExists(data, "novel.`a.b`.c"), true);
  });

  test("an @attr token falls back to the plain key", () => {
    assert.equal(pathExists(data, "novel.@id"), true);
    assert.equal(pathExists(pythonJsonLoads('{"item": {"@id": "1"}}'), "item.@id"), true);
  });

  test("csv::Header is true iff the header exists and nothing follows", () => {
    const csv = renderCode("name,age\nAnn,3\n", "csv").parsed;
    assert.equal(pathExists(csv, "csv::name"), true);
    assert.equal(pathExists(csv, "csv::email"), false);
  });
});

describe("raw output score", () => {
  test("the share of keywords found case-insensitively in the answer; 0 without keywords", () => {
    assert.equal(rawOutputScore("Novel TITLE here", ["novel.title", "title", "nope"]), 1 / 3);
    assert.equal(rawOutputScore("anything", []), 0);
  });
});
