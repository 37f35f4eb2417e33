// How NeMo Gym's arc_agi and nvarc verifiers read a grid out of a model's text (spec §2.26, §2.27). Expected values
// were checked against the Python functions (arc_agi `_parse_grid`, nvarc `_parse_grid` / `_extract_python_code`).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assistantText, extractTransformCode, gridsEqual, IntGridSchema, parseDigitRows, parseJsonGrid, readIntGrid, stripThinking } from "../../src/ports/arc-grid.ts";

describe("the assistant's text", () => {
  const message = (content: unknown, role = "assistant") => ({ type: "message", role, id: "m", content });
  const part = (text: string) => ({ type: "output_text", text, annotations: [] });

  test("joins every text part of every assistant message with newlines, then strips", () => {
    const output = [message([part("  first"), part("second")]), { type: "reasoning", id: "r", summary: [{ type: "summary_text", text: "hidden" }] }, message([part("third \n")])];
    assert.equal(assistantText(output), "first\nsecond\nthird");
  });

  test("ignores tool calls, tool outputs, refusals and non-assistant messages", () => {
    const output = [
      { type: "function_call", name: "f", arguments: "{}", call_id: "c" },
      { type: "function_call_output", call_id: "c", output: "[[1]]" },
      message([{ type: "refusal", refusal: "no" }, part("kept")]),
      message([{ type: "input_text", text: "user words" }], "user"),
    ];
    assert.equal(assistantText(output), "kept");
  });

  test("an assistant message written as an input item counts: string content whole, input_text parts by their text", () => {
    assert.equal(assistantText([message("plain"), message([{ type: "input_text", text: "typed\u3000" }])]), "plain\ntyped");
  });

  test("nothing said is the empty string", () => {
    assert.equal(assistantText([]), "");
  });
});

describe("<think> blocks", () => {
  test("every closed block is removed, shortest match, across lines; the rest is stripped", () => {
    assert.equal(stripThinking("<think>a\nb</think> x <think>c</think>y\n"), "x y");
  });

  test("an unclosed <think> stays", () => {
    assert.equal(stripThinking("<think>still thinking \\boxed{1}"), "<think>still thinking \\boxed{1}");
  });
});

describe("arc_agi: a JSON grid", () => {
  test("a boxed grid, compact or spread over lines with any whitespace", () => {
    assert.deepEqual(parseJsonGrid("\\boxed{[[1,2],[3,4]]}"), [[1, 2], [3, 4]]);
    assert.deepEqual(parseJsonGrid("$$\n\\boxed{[\n  [1, 2],\n\t[3,\u00a04]\n]}\n$$"), [[1, 2], [3, 4]]);
  });

  test("without any boxed grid, bare [[…]] grids are the candidates", () => {
    assert.deepEqual(parseJsonGrid("The answer is [[5, 0], [0, 5]]."), [[5, 0], [0, 5]]);
  });

  test("the first valid candidate wins, even when a later one is the right answer", () => {
    assert.deepEqual(parseJsonGrid("\\boxed{[[1]]} no, \\boxed{[[2]]}"), [[1]]);
  });

  test("an invalid candidate is skipped: an extra bracket, a leading zero, an empty cell", () => {
    assert.deepEqual(parseJsonGrid("\\boxed{[[1,2],[3,4]]]} then \\boxed{[[9]]}"), [[9]]);
    assert.deepEqual(parseJsonGrid("\\boxed{[[01]]} \\boxed{[[1,,2]]} \\boxed{[[7]]}"), [[7]]);
  });

  test("a boxed grid that fails does not fall back to bare grids", () => {
    assert.equal(parseJsonGrid("[[1, 2]] and finally \\boxed{[[1,,2]]}"), null);
    assert.deepEqual(parseJsonGrid("[[1, 2]] and \\boxed{[[1, 2]}"), [[1, 2]], "a boxed text that does not match the pattern is no candidate");
  });

  test("a negative number never matches the pattern", () => {
    assert.equal(parseJsonGrid("\\boxed{[[-1, 2]]}"), null);
    assert.deepEqual(parseJsonGrid("\\boxed{[[-1, 2]]} [[3]]"), [[3]], "the boxed one is no candidate at all, so bare grids are");
  });

  test("rows may differ in length, and later rows may be empty; the first row may not", () => {
    assert.deepEqual(parseJsonGrid("\\boxed{[[1,2,3],[4]]}"), [[1, 2, 3], [4]]);
    assert.deepEqual(parseJsonGrid("\\boxed{[[1],[]]}"), [[1], []]);
    assert.equal(parseJsonGrid("\\boxed{[[],[1]]}"), null);
  });

  test("a grid nested one level deeper, or a row that is a number, is no grid", () => {
    assert.equal(parseJsonGrid("\\boxed{[[[1]]]}"), null);
    assert.equal(parseJsonGrid("\\boxed{[[1],2]}"), null);
  });

  test("only ASCII digits are JSON: Unicode digits match the pattern, then fail", () => {
    assert.equal(parseJsonGrid("\\boxed{[[\u0661]]} [[1]]"), null, "the boxed candidate shadows the bare one and fails");
  });

  test("space-separated rows are not a JSON grid", () => {
    assert.equal(parseJsonGrid("\\boxed{1 2\n3 4}"), null);
    assert.equal(parseJsonGrid(""), null);
  });

  test("a grid inside <think> counts (arc_agi does not remove thinking)", () => {
    assert.deepEqual(parseJsonGrid("<think>\\boxed{[[1]]}</think> \\boxed{[[2]]}"), [[1]]);
  });

  test("an int of more than 4300 digits raises (NeMo Gym answers 500)", () => {
    assert.throws(() => parseJsonGrid(`\\boxed{[[${"1".repeat(4301)}]]}`), /Exceeds the limit/);
  });
});

describe("nvarc: rows of digits (Board.from_text)", () => {
  test("a boxed grid of space-separated digits, one row per line", () => {
    assert.deepEqual(parseDigitRows("\\boxed{\n0 1 2\n3 4 5\n}"), [[0, 1, 2], [3, 4, 5]]);
  });

  test("without \\boxed the whole text is read, and words that are not single digits vanish", () => {
    assert.deepEqual(parseDigitRows("Answer:\n1 0\n0 1\nDone"), [[1, 0], [0, 1]]);
  });

  test("stray single digits in the prose become rows of their own (and here, unequal rows)", () => {
    assert.equal(parseDigitRows("Step 1:\n1 0\n0 1"), null);
  });

  test("the boxed content runs from the first \\boxed{ to the last } of the text (greedy)", () => {
    assert.deepEqual(parseDigitRows("\\boxed{1 2} and \\boxed{3 4}"), [[1, 2, 4]], "the content is '1 2} and \\boxed{3 4': `boxed3` is one word and goes");
    assert.deepEqual(parseDigitRows("\\boxed{\\begin{matrix} 1 & 2 \\\\ 3 & 4 \\end{matrix}}"), [[1, 2, 3, 4]], "nested braces: LaTeX commands vanish, no line breaks remain");
  });

  test("a compact JSON grid collapses into one word and vanishes", () => {
    assert.equal(parseDigitRows("\\boxed{[[1,2],[3,4]]}"), null);
  });

  test("a JSON grid with spaces collapses into one row; one written a row per line keeps its rows", () => {
    assert.deepEqual(parseDigitRows("\\boxed{[[1, 2], [3, 4]]}"), [[1, 2, 3, 4]]);
    assert.deepEqual(parseDigitRows("\\boxed{[[1, 2],\n [3, 4]]}"), [[1, 2], [3, 4]]);
  });

  test("signs and punctuation go, so -1 reads as 1", () => {
    assert.deepEqual(parseDigitRows("\\boxed{-1 2\n3, 4.}"), [[1, 2], [3, 4]]);
  });

  test("digits written together are one word and vanish", () => {
    assert.equal(parseDigitRows("\\boxed{012\n345}"), null);
    assert.deepEqual(parseDigitRows("\\boxed{0 12 3\n4 5}"), [[0, 3], [4, 5]], "'12' goes, leaving two cells per row");
  });

  test("ragged rows are no grid", () => {
    assert.equal(parseDigitRows("\\boxed{1 2\n3}"), null);
  });

  test("nothing left is no grid", () => {
    assert.equal(parseDigitRows("\\boxed{}"), null);
    assert.equal(parseDigitRows("no digits here"), null);
    assert.equal(parseDigitRows(""), null);
  });

  test("rows are split on \\n only; other whitespace (\\r, \\u2028, \\x1c, tabs) separates cells", () => {
    assert.deepEqual(parseDigitRows("\\boxed{1\t2\r\n3\u20284}"), [[1, 2], [3, 4]]);
    assert.deepEqual(parseDigitRows("\\boxed{1\x1c2\n3\u00a04}"), [[1, 2], [3, 4]]);
    assert.equal(parseDigitRows("\\boxed{1 2\u20283 4}")?.length, 1);
  });

  test("blank lines are skipped", () => {
    assert.deepEqual(parseDigitRows("\\boxed{\n\n1 2\n \n3 4\n\n}"), [[1, 2], [3, 4]]);
  });

  test("Unicode digits and letters are words that are not 0–9, so they vanish", () => {
    assert.equal(parseDigitRows("\\boxed{1 \u0662\n3 \u00e9 4}"), null);
    assert.deepEqual(parseDigitRows("\\boxed{1 \u0662 2\n3 \u00e9 4}"), [[1, 2], [3, 4]]);
  });
});

describe("nvarc inductive: the program", () => {
  test("the last ```python block, stripped", () => {
    const text = "Try:\n```python\ndef transform(g): return g\n```\nBetter:\n```python\n\ndef transform(g):\n    return g[::-1]\n\n```";
    assert.equal(extractTransformCode(text), "def transform(g):\n    return g[::-1]");
  });

  test("else the last plain ``` block", () => {
    assert.equal(extractTransformCode("```\nfirst\n```\n```  \nsecond\n```"), "second");
  });

  test("a python block wins over a later plain block", () => {
    assert.equal(extractTransformCode("```python\nA\n```\n```\nB\n```"), "A");
  });

  test("a fence must end its line: ```py is no python block, and no plain block either", () => {
    assert.equal(extractTransformCode("```py\ndef transform(g): return g\n```"), "```py\ndef transform(g): return g\n```");
    assert.equal(extractTransformCode("```py\nx = 1\n```"), null);
  });

  test("without a block, the whole text when it contains `def transform`", () => {
    assert.equal(extractTransformCode("  def transform(grid):\n    return grid\n"), "def transform(grid):\n    return grid");
    assert.equal(extractTransformCode("I would rotate the grid."), null);
  });
});

describe("grids", () => {
  test("equal means same shape and same values, as Python's ==", () => {
    assert.equal(gridsEqual([[1, 2], [3]], [[1, 2], [3]]), true);
    assert.equal(gridsEqual([[1, 2]], [[1], [2]]), false);
    assert.equal(gridsEqual([[1, 2]], [[1, 2], []]), false);
    assert.equal(gridsEqual([], []), true);
  });

  test("a dataset grid is read as pydantic's List[List[int]]: integral numbers, bools and integer strings", () => {
    assert.deepEqual(readIntGrid(IntGridSchema.parse([[1, 2.0, true], [" 3 ", "+4", "5.0", "1_0"]])), [[1, 2, 1], [3, 4, 5, 10]]);
    for (const bad of [[[1.5]], [["x"]], [[null]], [1], "[[1]]"]) assert.equal(IntGridSchema.safeParse(bad).success, false, JSON.stringify(bad));
  });
});
