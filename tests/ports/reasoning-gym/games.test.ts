// reasoning-gym's game scorers: sudoku / mini_sudoku / futoshiki, n_queens, tower_of_hanoi, knight_swap,
// countdown, puzzle24, kakurasu, survo, rush_hour and tsumego (expected values are the library's own
// score_answer run under python3).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { scoreAnswer, type Entry } from "../../../src/ports/reasoning-gym/index.ts";

const entry = (answer: string | null, metadata: Record<string, unknown> = {}): Entry => ({ question: "q", answer, metadata });
const score = (task: string, answer: string | null, oracle: string | null, metadata: Record<string, unknown> = {}) => scoreAnswer(task, answer, entry(oracle, metadata));
/** A scorer exception is what NeMo Gym scores 0.0. */
const scoreOrZero = (task: string, answer: string | null, oracle: string | null, metadata: Record<string, unknown> = {}) => {
  try {
    return score(task, answer, oracle, metadata);
  } catch {
    return 0;
  }
};

const S9 = Array.from({ length: 9 }, (_, r) => Array.from({ length: 9 }, (_, c) => ((r * 3 + Math.floor(r / 3) + c) % 9) + 1));
const sudokuText = S9.map((row) => row.join(" ")).join("\n");
const M4 = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]];
const miniText = M4.map((row) => row.join(" ")).join("\n");
const F3 = [[1, 2, 3], [3, 1, 2], [2, 3, 1]];
const futoshikiText = "1   2 < 3\n        \n3 > 1   2\n\n2   3 > 1";

describe("sudoku, mini_sudoku, futoshiki", () => {
  test("the oracle grid, trailing whitespace aside, scores 1.0", () => {
    assert.equal(score("sudoku", sudokuText, sudokuText, { solution: S9 }), 1);
    assert.equal(score("mini_sudoku", miniText, miniText, { solution: M4 }), 1);
    assert.equal(score("futoshiki", futoshikiText, futoshikiText, { solution: F3 }), 1);
  });

  test("other formats: 0.9 × the share of cells right, × len(oracle)/len(answer) when longer", () => {
    assert.equal(score("sudoku", sudokuText.replaceAll(" ", "|"), sudokuText, { solution: S9 }), 0.9);
    assert.equal(score("sudoku", sudokuText.replaceAll("\n", "  \n"), sudokuText, { solution: S9 }), 0.9096045197740112);
    assert.equal(score("sudoku", sudokuText + "\nThat is the grid.", sudokuText, { solution: S9 }), 0.8094972067039107);
    assert.equal(score("mini_sudoku", "1234\n3412\n2143\n4321", miniText, { solution: M4 }), 0.9);
    assert.equal(score("futoshiki", "1 2 3\n3 1 2\n2 3 1", futoshikiText, { solution: F3 }), 0.9);
  });

  test("wrong digits and missing rows lose their cells", () => {
    assert.equal(score("sudoku", sudokuText.replace("1", "2").replace("1", "2").replace("1", "2"), sudokuText, { solution: S9 }), 0.8666666666666666);
    assert.equal(score("mini_sudoku", "1 2 3 4\n3 4 1 2", miniText, { solution: M4 }), 0.45);
    assert.equal(score("mini_sudoku", "4 3 2 1\n2 1 4 3\n3 4 1 2\n1 2 3 4", miniText, { solution: M4 }), 0);
    assert.equal(score("futoshiki", "1 2 3\n3 2 1\n2 3 1", futoshikiText, { solution: F3 }), 0.7000000000000001);
  });

  test("malformed: no grid, an empty answer (futoshiki scores it through the rules), no solution", () => {
    assert.equal(score("sudoku", "no idea", sudokuText, { solution: S9 }), 0);
    assert.equal(score("sudoku", "", sudokuText, { solution: S9 }), 0);
    assert.equal(score("futoshiki", "", futoshikiText, { solution: F3 }), 0);
    assert.equal(score("futoshiki", "", "", { solution: F3 }), 1);
    assert.equal(scoreOrZero("sudoku", sudokuText, sudokuText, {}), 0);
  });
});

describe("n_queens", () => {
  const boards = ["_ Q _ _\n_ _ _ Q\nQ _ _ _\n_ _ Q _", "_ _ Q _\nQ _ _ _\n_ _ _ Q\n_ Q _ _"];
  test("a valid board → 1.0; the same board as a Python list of rows → 0.5", () => {
    assert.equal(score("n_queens", boards[0]!, "x", { valid_answers: boards }), 1);
    assert.equal(score("n_queens", "[['_', '_', 'Q', '_'], ['Q', '_', '_', '_'], ['_', '_', '_', 'Q'], ['_', 'Q', '_', '_']]", "x", { valid_answers: boards }), 0.5);
    assert.equal(score("n_queens", "(('_', '_', 'Q', '_'), ('Q', '_', '_', '_'), ('_', '_', '_', 'Q'), ('_', 'Q', '_', '_'))", "x", { valid_answers: boards }), 0.5);
  });
  test("a wrong board, or one the literal parser refuses (never evaluated), → 0.0", () => {
    assert.equal(score("n_queens", "[['_', 'Q']]", "x", { valid_answers: boards }), 0);
    assert.equal(score("n_queens", "Q _ _ _\n_ Q _ _\n_ _ Q _\n_ _ _ Q", "x", { valid_answers: boards }), 0);
    assert.equal(score("n_queens", "__import__('os').getcwd()", "x", { valid_answers: boards }), 0);
    assert.equal(score("n_queens", "[['_'] * 4] * 4", "x", { valid_answers: boards }), 0);
  });
});

describe("tower_of_hanoi", () => {
  const optimal = "Move disk 1 from Peg 1 to Peg 2\nMove disk 2 from Peg 1 to Peg 3\nMove disk 1 from Peg 2 to Peg 3";
  const metadata = { num_disks: 2, num_pegs: 3, start_peg: 1, target_peg: 3, solution_length: 3 };
  test("a legal sequence that solves it: 1.0, or optimal/moves when longer", () => {
    assert.equal(score("tower_of_hanoi", optimal, optimal, metadata), 1);
    assert.equal(score("tower_of_hanoi", `  ${optimal.replaceAll("\n", "\r\n")}\n\n`, optimal, metadata), 1);
    const longer = "Move disk 1 from Peg 1 to Peg 3\nMove disk 1 from Peg 3 to Peg 2\n" + optimal.split("\n").slice(1).join("\n");
    assert.equal(score("tower_of_hanoi", longer, optimal, metadata), 0.75);
  });
  test("legal moves that do not finish: 0.05", () => {
    assert.equal(score("tower_of_hanoi", "Move disk 1 from Peg 1 to Peg 2", optimal, metadata), 0.05);
  });
  test("an illegal move → 0.0", () => {
    assert.equal(score("tower_of_hanoi", "Move disk 2 from Peg 1 to Peg 3", optimal, metadata), 0);
    assert.equal(score("tower_of_hanoi", optimal.replace("Peg 3", "Peg 9"), optimal, metadata), 0);
  });
  test("malformed moves (numbering, a trailing dot, lower case) → 0.0", () => {
    assert.equal(score("tower_of_hanoi", "1. Move disk 1 from Peg 1 to Peg 2.", optimal, metadata), 0);
    assert.equal(score("tower_of_hanoi", "move disk 1 from peg 1 to peg 2", optimal, metadata), 0);
    assert.equal(score("tower_of_hanoi", "", optimal, metadata), 0);
  });
});

describe("knight_swap", () => {
  const metadata = {
    board: { A1: ["B3", "C2"], B3: ["A1", "D1"], D1: ["B3", "C2"], C2: ["D1", "A1"] },
    pieces: { A1: "w", D1: "B", B3: null, C2: null },
    start_turn: "w",
    solution: [["w", "A1", "B3"], ["B", "D1", "C2"], ["w", "B3", "D1"], ["B", "C2", "A1"]],
    is_possible: true,
  };
  const solution = ["w,A1,B3", "B,D1,C2", "w,B3,D1", "B,C2,A1"];
  test("a swap in the optimal number of moves → 1.0; a longer one → optimal/moves", () => {
    assert.equal(score("knight_swap", JSON.stringify(solution), "x", metadata), 1);
    assert.equal(score("knight_swap", JSON.stringify(["w,A1,B3", "B,D1,C2", "w,B3,A1", "B,C2,D1", ...solution]), "x", metadata), 0.5);
  });
  test("legal moves that do not swap → 0.05; an illegal move or the wrong colour first → 0.0", () => {
    assert.equal(score("knight_swap", JSON.stringify(solution.slice(0, 2)), "x", metadata), 0.05);
    assert.equal(score("knight_swap", JSON.stringify(["B,D1,C2"]), "x", metadata), 0);
    assert.equal(score("knight_swap", JSON.stringify(["w,A1,D1"]), "x", metadata), 0);
  });
  test('"No" is right only for an impossible puzzle; a non-JSON list → 0.0', () => {
    assert.equal(score("knight_swap", "No", "x", metadata), 0);
    assert.equal(score("knight_swap", " no ", "x", { ...metadata, is_possible: false }), 1);
    assert.equal(score("knight_swap", "['w,A1,B3']", "x", metadata), 0);
    assert.equal(score("knight_swap", "w,A1,B3", "x", metadata), 0);
  });
});

describe("countdown", () => {
  const metadata = { numbers: [3, 4, 6, 25], target: 103 };
  test("every number once and the target reached → 1.0", () => {
    assert.equal(score("countdown", "25 * 4 + 6 - 3", "103", metadata), 1);
    assert.equal(score("countdown", "(25 * 4) + (6 - 3)", "103", metadata), 1);
  });
  test("the right numbers but another value, or other numbers → 0.05 (so is SymPy's nan, e.g. 0/0)", () => {
    assert.equal(score("countdown", "25 * 4 + 6 + 3", "103", metadata), 0.05);
    assert.equal(score("countdown", "25 * 4 + 3", "103", metadata), 0.05);
    assert.equal(score("countdown", "25 * 4 + 6 - 3 + 0/0", "103", metadata), 0.05);
  });
  test("not an expression, or one that is infinite (x/0 is SymPy's zoo) → 0.01", () => {
    assert.equal(score("countdown", "25 * 4 + 6 - 3 = 103", "103", metadata), 0.01);
    assert.equal(score("countdown", "4/0 + 25 + 6 + 3", "103", metadata), 0.01);
    assert.equal(score("countdown", "__import__('os')", "103", metadata), 0.01);
    assert.equal(score("countdown", "  ", "103", metadata), 0.01);
  });
});

describe("puzzle24", () => {
  test("four numbers within 1..10 whose value truncates to 24 → 1.0 (which four is not checked)", () => {
    assert.equal(score("puzzle24", "(8 - 4) * (7 - 1)", "x"), 1);
    assert.equal(score("puzzle24", "7 * 7 / 2 * 1", "x"), 1); // 24.5, truncated by int()
    assert.equal(score("puzzle24", "(3 - 3/8) * 8 + 3 * 0", "x"), 0.01); // 0 is outside 1..10
    assert.equal(score("puzzle24", "49 / 2 - 1 + 1", "x"), 0.01); // a literal 49 is outside 1..10
    assert.equal(score("puzzle24", "(7 + 7/2) * 2 + 3", "x"), 0.01); // 24.0 exactly but five numbers
  });
  test("another value, a number out of range, or not four numbers → 0.01", () => {
    assert.equal(score("puzzle24", "6 * 4 * 1 * 2", "x"), 0.01);
    assert.equal(score("puzzle24", "12 * 2 * 1 * 1", "x"), 0.01);
    assert.equal(score("puzzle24", "8 * 3", "x"), 0.01);
  });
  test("malformed → 0.01", () => {
    assert.equal(score("puzzle24", "8 * 3 * 1 * 1 = 24", "x"), 0.01);
    assert.equal(score("puzzle24", null, "x"), 0.01);
  });
});

describe("kakurasu", () => {
  // [[1,0,0],[0,1,1]]: rows weigh their 1s by column (1, 2+3), columns by row (1, 2, 2).
  const metadata = { row_sums: [1, 5], col_sums: [1, 2, 2], n_rows: 2, n_cols: 3 };
  test("a grid with the right row and column sums → 1.0, spaced or not", () => {
    assert.equal(score("kakurasu", "1 0 0\n0 1 1", "x", metadata), 1);
    assert.equal(score("kakurasu", "100\n011", "x", metadata), 1);
  });
  test("wrong sums or the wrong shape → 0.0 (no partial credit)", () => {
    assert.equal(score("kakurasu", "0 0 1\n0 1 1", "x", metadata), 0);
    assert.equal(score("kakurasu", "1 0 0", "x", metadata), 0);
  });
  test("malformed: the grid as a list literal reads as one row → 0.0", () => assert.equal(score("kakurasu", "[[1,0,0],[0,1,1]]", "x", metadata), 0));
});

describe("survo", () => {
  const metadata = { board_size: 2, solution: [[3, 4], [5, 6]] };
  test("the solution grid → 1.0; blank lines and non-integer tokens are skipped", () => {
    assert.equal(score("survo", "3 4\n5 6", "x", metadata), 1);
    assert.equal(score("survo", "3 4\n\n5 6 ", "x", metadata), 1);
    assert.equal(score("survo", "3 | 4\n5 | 6", "x", metadata), 1);
  });
  test("a wrong cell → 0.0 (no partial credit)", () => assert.equal(score("survo", "3 4\n6 5", "x", metadata), 0));
  test("malformed: comma-separated cells are not integers → 0.0", () => assert.equal(score("survo", "3,4\n5,6", "x", metadata), 0));
});

describe("rush_hour", () => {
  // A is the red car on row 3 (cells 12-13); B blocks its way, standing on cells 2, 8 and 14.
  const metadata = { board_config: "ooBoooooBoooAABooooooooooooooooooooo" };
  test("moves that bring A to the exit → 1.0 (extra steps past a wall are skipped; any separators)", () => {
    assert.equal(score("rush_hour", "B+3 A+4", "x", metadata), 1);
    assert.equal(score("rush_hour", "B+3 A+9", "x", metadata), 1);
    assert.equal(score("rush_hour", "B+3, A+2, A+2", "x", metadata), 1);
  });
  test("moves that leave A short → 0.01 (a blocked move does nothing; letters past the next one are ignored)", () => {
    assert.equal(score("rush_hour", "A+4", "x", metadata), 0.01);
    assert.equal(score("rush_hour", "B+3", "x", metadata), 0.01);
    assert.equal(score("rush_hour", "D+1", "x", metadata), 0.01);
    assert.equal(score("rush_hour", "b+3 a+4", "x", metadata), 0.01);
  });
  test("the letter one past the last piece raises (the library's off-by-one) → 0.0; so does a bad board", () => {
    assert.equal(score("rush_hour", "C+1 B+3 A+4", "x", metadata), 0);
    assert.equal(score("rush_hour", "A+4", "x", { board_config: "oo" }), 0);
    assert.equal(score("rush_hour", "", "x", metadata), 0);
  });
});

describe("tsumego", () => {
  test("the point, in any case → 1.0; inside a longer answer → len(oracle)/len(answer)", () => {
    assert.equal(score("tsumego", "C4", "C4"), 1);
    assert.equal(score("tsumego", " c4\n", "C4"), 1);
    assert.equal(score("tsumego", "Play C4", "C4"), 2 / 7);
  });
  test("another point → 0.05; any other text → 0.01", () => {
    assert.equal(score("tsumego", "D5", "C4"), 0.05);
    assert.equal(score("tsumego", "pass", "C4"), 0.01);
  });
  test("no answer → 0.0; a null oracle raises", () => {
    assert.equal(score("tsumego", "", "C4"), 0);
    assert.throws(() => score("tsumego", "C4", null));
  });
});
