// detectable_format:* checkers.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { follows } from "./follows.ts";

describe("detectable_format:number_bullet_lists", () => {
  test("lines starting with * (not **) or - count, and the count must be exact", () => {
    const kwargs = { num_bullets: 3 };
    assert.equal(follows("detectable_format:number_bullet_lists", kwargs, "Intro\n* one\n  * two\n- three\n**bold** line"), true);
    assert.equal(follows("detectable_format:number_bullet_lists", kwargs, "* one\n* two"), false);
  });
});

describe("detectable_format:constrained_response", () => {
  test("contains one of the three fixed answers", () => {
    assert.equal(follows("detectable_format:constrained_response", {}, "Well... My answer is maybe."), true);
    assert.equal(follows("detectable_format:constrained_response", {}, "My answer is yes"), false);
  });

  test("it takes no kwargs: any given is a TypeError", () => {
    assert.equal(follows("detectable_format:constrained_response", { options: 1 }, "My answer is yes."), false);
  });
});

describe("detectable_format:number_highlighted_sections", () => {
  test("non-blank *spans* and **spans** count toward the minimum", () => {
    const kwargs = { num_highlights: 2 };
    assert.equal(follows("detectable_format:number_highlighted_sections", kwargs, "*one* and *two*"), true);
    assert.equal(follows("detectable_format:number_highlighted_sections", kwargs, "*one* and ** **"), false);
  });
});

describe("detectable_format:multiple_sections", () => {
  test("sections are opened by the splitter and a number, case-sensitively", () => {
    const kwargs = { section_spliter: "SECTION", num_sections: 2 };
    assert.equal(follows("detectable_format:multiple_sections", kwargs, "SECTION 1\nfoo\nSECTION 2\nbar"), true);
    assert.equal(follows("detectable_format:multiple_sections", kwargs, "Section 1\nfoo\nSection 2\nbar"), false);
  });
});

describe("detectable_format:json_format", () => {
  test("the whole response, inside an optional ```json fence, parses as JSON (Python's json.loads)", () => {
    assert.equal(follows("detectable_format:json_format", {}, '```json\n{"a": [1, NaN]}\n```'), true);
    assert.equal(follows("detectable_format:json_format", {}, 'Here: {"a": 1}'), false);
  });
});

describe("detectable_format:title", () => {
  test("a non-blank <<title>> on one line", () => {
    assert.equal(follows("detectable_format:title", {}, "<<My Title>>\n\nBody"), true);
    assert.equal(follows("detectable_format:title", {}, "<< >> and <<broken\ntitle>>"), false);
  });
});

describe("detectable_format:sentence_hyphens", () => {
  test("sentences joined by hyphens with no spaces around them", () => {
    assert.equal(follows("detectable_format:sentence_hyphens", {}, "I came.-I saw.-I won."), true);
    assert.equal(follows("detectable_format:sentence_hyphens", {}, "I came. - I saw."), false);
  });
});

describe("detectable_format:square_brackets", () => {
  test("every whitespace-separated word is wrapped in [ ]", () => {
    assert.equal(follows("detectable_format:square_brackets", {}, "[Hello] [world]"), true);
    assert.equal(follows("detectable_format:square_brackets", {}, "[Hello] world"), false);
  });
});

describe("detectable_format:bigram_wrapping", () => {
  test("each pair of words opens with << and closes with >>", () => {
    assert.equal(follows("detectable_format:bigram_wrapping", {}, "<<I am>> <<at home>>"), true);
    assert.equal(follows("detectable_format:bigram_wrapping", {}, "<<I am>> at home"), false);
  });
});
