// reasoning-gym's game_of_life, cryptarithm, spiral_matrix, string_insertion, coin_flip, calendar_arithmetic,
// time_intervals, binary_matrix, palindrome_partitioning, graph_color, manipulate_matrix, jugs and
// bitwise_arithmetic scorers (expected values are the library's own score_answer run under python3).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { scoreAnswer, type Entry } from "../../../src/ports/reasoning-gym/index.ts";

const entry = (answer: string | null, metadata: Record<string, unknown> = {}): Entry => ({ question: "q", answer, metadata });
const score = (task: string, answer: string | null, oracle: string | null, metadata: Record<string, unknown> = {}) => scoreAnswer(task, answer, entry(oracle, metadata));

describe("game_of_life", () => {
  const oracle = "[[0,1],[1,0]]";
  test("the same grid → 1.0; each cell right counts (1 == 1.0 == true, as in Python)", () => {
    assert.equal(score("game_of_life", "[[0, 1], [1, 0]]", oracle), 1);
    assert.equal(score("game_of_life", "[[0.0, true], [1, false]]", oracle), 1);
  });
  test("partial: wrong or missing cells", () => {
    assert.equal(score("game_of_life", "[[0,1],[1,1]]", oracle), 0.75);
    assert.equal(score("game_of_life", "[[0,1]]", oracle), 0.5);
  });
  test("wrong: every cell off", () => assert.equal(score("game_of_life", "[[1,0],[0,1]]", oracle), 0));
  test("malformed: not JSON, or a dict (its KeyError escapes the cell check) → 0.0", () => {
    assert.equal(score("game_of_life", "[[0, 1], [1, 0]", oracle), 0);
    assert.throws(() => score("game_of_life", '{"a": 1}', oracle));
  });
});

describe("cryptarithm", () => {
  const metadata = { words_letters: ["A", "B"], result_letters: "C" };
  test("any mapping that solves the sum → 1.0", () => {
    assert.equal(score("cryptarithm", "A=1,B=2,C=3", "x", metadata), 1);
    assert.equal(score("cryptarithm", "A = 2, B = 1, C = 3", "x", metadata), 1);
  });
  test("a readable mapping that does not solve it → 0.01 (a leading zero only when allowed)", () => {
    assert.equal(score("cryptarithm", "A=1,B=2,C=4", "x", metadata), 0.01);
    assert.equal(score("cryptarithm", "A=1,B=1,C=2", "x", metadata), 0.01);
    assert.equal(score("cryptarithm", "A=0,B=3,C=3", "x", metadata), 0.01);
    assert.equal(score("cryptarithm", "A=1,B=2", "x", metadata), 0.01);
  });
  test("an unreadable mapping → 0.0", () => {
    assert.equal(score("cryptarithm", "A:1,B:2,C:3", "x", metadata), 0);
    assert.equal(score("cryptarithm", "A=one", "x", metadata), 0);
  });
});

describe("spiral_matrix and string_insertion (list answers read as literals, never evaluated)", () => {
  const spiral = "1 2 3 6 9 8 7 4 5";
  test("spiral_matrix: exact → 1.0; a list or bare tuple of the same numbers → 0.1; else 0.0", () => {
    assert.equal(score("spiral_matrix", spiral, spiral + "\n"), 1);
    assert.equal(score("spiral_matrix", "[1, 2, 3, 6, 9, 8, 7, 4, 5]", spiral), 0.1);
    assert.equal(score("spiral_matrix", "1, 2, 3, 6, 9, 8, 7, 4, 5", spiral), 0.1);
    assert.equal(score("spiral_matrix", "1 2 3 4 5 6 7 8 9", spiral), 0);
    assert.equal(score("spiral_matrix", "__import__('os')", spiral), 0);
  });
  test("string_insertion: exact → 1.0; a list of its characters → 0.1; else 0.0", () => {
    assert.equal(score("string_insertion", "ABCDAE", "ABCDAE"), 1);
    assert.equal(score("string_insertion", "['A', 'B', 'C', 'D', 'A', 'E']", "ABCDAE"), 0.1);
    assert.equal(score("string_insertion", "ABCDE", "ABCDAE"), 0);
    assert.equal(score("string_insertion", "['A', 'B'", "ABCDAE"), 0);
  });
});

describe("coin_flip", () => {
  test("within 1e-4 of the oracle, as a decimal or a fraction → 1.0", () => {
    assert.equal(score("coin_flip", "0.3125", "0.3125"), 1);
    assert.equal(score("coin_flip", "5 / 16", "0.3125"), 1);
    assert.equal(score("coin_flip", "0.31251", "0.3125"), 1);
  });
  test("partial: the common prefix of the .10g forms over the shorter one", () => {
    assert.equal(score("coin_flip", "0.4", "0.3125"), 2 / 3);
    assert.equal(score("coin_flip", "0.3225", "0.3125"), 0.5);
    assert.equal(score("coin_flip", "0.31", "0.3125"), 1); // a prefix of the oracle matches in full (the library's quirk)
  });
  test("wrong: no common prefix", () => assert.equal(score("coin_flip", "5", "0.3125"), 0));
  test("malformed: not a number, or a zero denominator → 0.0", () => {
    assert.equal(score("coin_flip", "about 0.3", "0.3125"), 0);
    assert.equal(score("coin_flip", "1/0", "0.3125"), 0);
    assert.equal(score("coin_flip", " ", "0.3125"), 0);
  });
});

describe("calendar_arithmetic", () => {
  test("weekday tasks: the oracle → 1.0, another weekday → 0.1, a weekday in other case → 0.05, else 0.0", () => {
    const metadata = { task: "weekday_of_date" };
    assert.equal(score("calendar_arithmetic", " Tuesday ", "Tuesday", metadata), 1);
    assert.equal(score("calendar_arithmetic", "Monday", "Tuesday", metadata), 0.1);
    assert.equal(score("calendar_arithmetic", "tuesday", "Tuesday", metadata), 0.05);
    assert.equal(score("calendar_arithmetic", "Tue", "Tuesday", metadata), 0);
  });
  test("count tasks: exact → 1.0, else exp(-5·relative error); a zero oracle needs 0", () => {
    const metadata = { task: "count_days" };
    assert.equal(score("calendar_arithmetic", "42", "42", metadata), 1);
    assert.equal(score("calendar_arithmetic", "40", "42", metadata), 0.788127627745311);
    assert.equal(score("calendar_arithmetic", "1", "0", { task: "count_business_days" }), 0);
    assert.equal(score("calendar_arithmetic", "42 days", "42", metadata), 0);
  });
  test("is_leap_year ignores case and surrounding space; an unknown task → 0.0", () => {
    assert.equal(score("calendar_arithmetic", " YES", "Yes", { task: "is_leap_year" }), 1);
    assert.equal(score("calendar_arithmetic", "No", "Yes", { task: "is_leap_year" }), 0);
    assert.equal(score("calendar_arithmetic", "Monday", "Monday", { task: "other" }), 0);
  });
});

describe("time_intervals", () => {
  test("exact → 1.0 in each format", () => {
    assert.equal(score("time_intervals", "12 days", "12 days", { task_type: "date" }), 1);
    assert.equal(score("time_intervals", "01:30:15.250", "01:30:15.250", { task_type: "time" }), 1);
    assert.equal(score("time_intervals", "2 days, 03:04:05", "2 days, 03:04:05", { task_type: "datetime_tz" }), 1);
  });
  test("partial: 1 − difference / (100 days, or 1 day for times)", () => {
    assert.equal(score("time_intervals", "2 days", "12 days", { task_type: "date" }), 0.9);
    assert.equal(score("time_intervals", "13:30", "01:30", { task_type: "time" }), 0.5);
    assert.equal(score("time_intervals", "01:30:15.500", "01:30:15.250", { task_type: "time" }), 0.9999971064814814);
    assert.equal(score("time_intervals", "2 days, 03:04", "2 days, 03:04:05", { task_type: "datetime" }), 0.9999994212962963);
  });
  test("wrong: 100 days or more off → 0.0", () => assert.equal(score("time_intervals", "150 days", "12 days", { task_type: "date" }), 0));
  test("malformed → 0.0", () => {
    assert.equal(score("time_intervals", "twelve days", "12 days", { task_type: "date" }), 0);
    assert.equal(score("time_intervals", "1h30", "01:30", { task_type: "time" }), 0);
    assert.equal(score("time_intervals", "2 days 03:04", "2 days, 03:04", { task_type: "datetime" }), 0);
  });
});

describe("binary_matrix", () => {
  const oracle = "1 0\n0 1";
  test("exact → 1.0; the matrix as a Python list of rows → 0.1", () => {
    assert.equal(score("binary_matrix", oracle, oracle), 1);
    assert.equal(score("binary_matrix", "[[1, 0], [0, 1]]", oracle), 0.1);
  });
  test("another matrix, or the numbers on one line → 0.0", () => {
    assert.equal(score("binary_matrix", "[[1, 0], [1, 1]]", oracle), 0);
    assert.equal(score("binary_matrix", "1 0 0 1", oracle), 0);
  });
  test("malformed → 0.0", () => assert.equal(score("binary_matrix", "[[1, 0], [0, 1]", oracle), 0));
});

describe("palindrome_partitioning", () => {
  const solution = [["a", "a", "b"], ["aa", "b"]];
  test("the same partitions in any order (duplicates aside) → 1.0", () => {
    assert.equal(score("palindrome_partitioning", JSON.stringify(solution), "x", { solution }), 1);
    assert.equal(score("palindrome_partitioning", JSON.stringify([...solution].reverse()), "x", { solution }), 1);
    assert.equal(score("palindrome_partitioning", JSON.stringify([...solution, solution[0]]), "x", { solution }), 1);
  });
  test("a missing partition scores nothing (no partial credit)", () => assert.equal(score("palindrome_partitioning", JSON.stringify(solution.slice(0, 1)), "x", { solution }), 0));
  test("malformed (Python quotes are not JSON) → 0.0", () => assert.equal(score("palindrome_partitioning", "[['a', 'a', 'b']]", "x", { solution }), 0));
});

describe("graph_color", () => {
  const puzzle = { vertices: [0, 1, 2], edges: [[0, 1], [1, 2]], num_colors: 2, color_options: [1, 2] };
  test("a proper colouring with allowed colours → 1.0 (vertices found by their str() keys)", () => {
    assert.equal(score("graph_color", '{"0": 1, "1": 2, "2": 1}', "x", { puzzle }), 1);
  });
  test("readable but wrong — an edge within one colour, a vertex uncoloured, a colour not allowed → 0.01", () => {
    assert.equal(score("graph_color", '{"0": 1, "1": 1, "2": 2}', "x", { puzzle }), 0.01);
    assert.equal(score("graph_color", '{"0": 1, "1": 2}', "x", { puzzle }), 0.01);
    assert.equal(score("graph_color", '{"0": 1, "1": 3, "2": 1}', "x", { puzzle }), 0.01);
    assert.equal(score("graph_color", "[1, 2, 1]", "x", { puzzle }), 0.01);
  });
  test("not JSON → 0.0", () => assert.equal(score("graph_color", "{0: 1, 1: 2, 2: 1}", "x", { puzzle }), 0));
});

describe("manipulate_matrix", () => {
  const oracle = "1 2\n3 4";
  test("exact, or exact once each row's whitespace is normalised → 1.0", () => {
    assert.equal(score("manipulate_matrix", oracle, oracle), 1);
    assert.equal(score("manipulate_matrix", "1  2 \n 3 4", oracle), 1);
  });
  test("the oracle inside a longer answer → len(oracle)/len(answer)", () => assert.equal(score("manipulate_matrix", "Result:\n1 2\n3 4", oracle), 0.4666666666666667));
  test("another matrix, or a list literal → 0.0", () => {
    assert.equal(score("manipulate_matrix", "1 2\n4 3", oracle), 0);
    assert.equal(score("manipulate_matrix", "[[1, 2], [3, 4]]", oracle), 0);
  });
});

describe("jugs", () => {
  const puzzle = { jug_capacities: [3, 5], target: 4, min_moves: 6 };
  const solution = ["fill B", "pour B->A", "empty A", "pour B->A", "fill B", "pour B->A"];
  test("moves that leave a jug holding the target → 1.0, however many", () => {
    assert.equal(score("jugs", JSON.stringify(solution), "x", { puzzle }), 1);
    assert.equal(score("jugs", JSON.stringify(["fill A", "fill B", "empty A", "pour B->A", "empty A", "pour B->A", "fill B", "pour B->A"]), "x", { puzzle }), 1);
  });
  test("legal moves that fall short → 0.01", () => assert.equal(score("jugs", JSON.stringify(solution.slice(0, -1)), "x", { puzzle }), 0.01));
  test("a malformed move, an unknown jug or non-JSON → 0.0", () => {
    assert.equal(score("jugs", JSON.stringify(["pour B -> A"]), "x", { puzzle }), 0);
    assert.equal(score("jugs", JSON.stringify(["fill C"]), "x", { puzzle }), 0);
    assert.equal(score("jugs", "fill B, pour B->A", "x", { puzzle }), 0);
  });
});

describe("bitwise_arithmetic (the problem computed by a safe evaluator, never eval'd)", () => {
  const metadata = { problem: "((0x1a + 0x2b) << 0x1)" };
  test("the value, read as int(answer, 0): hex, decimal or binary → 1.0", () => {
    assert.equal(score("bitwise_arithmetic", "0x8a", "0x8a", metadata), 1);
    assert.equal(score("bitwise_arithmetic", "138", "0x8a", metadata), 1);
    assert.equal(score("bitwise_arithmetic", "0b10001010", "0x8a", metadata), 1);
    assert.equal(score("bitwise_arithmetic", "-0x3", "x", { problem: "(-0x5 >> 0x1)" }), 1); // >> floors, as in Python
  });
  test("another value → 0.0 (no partial credit)", () => assert.equal(score("bitwise_arithmetic", "0x8b", "0x8a", metadata), 0));
  test("malformed: hex without 0x, trailing words, an expression outside the library's grammar → 0.0", () => {
    assert.equal(score("bitwise_arithmetic", "8a", "0x8a", metadata), 0);
    assert.equal(score("bitwise_arithmetic", "0x8a please", "0x8a", metadata), 0);
    assert.equal(score("bitwise_arithmetic", "0x8", "x", { problem: "__import__('os')" }), 0);
  });
});
