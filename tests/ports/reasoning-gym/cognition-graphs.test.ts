// reasoning-gym's cognition and graph scorers (expected values checked against the library's code run under
// python3): needle_haystack, rectangle_count, color_cube_rotation, family_relationships, path_star,
// shortest_path, quantum_lock.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { scoreAnswer, type Entry } from "../../../src/ports/reasoning-gym/index.ts";

const entry = (answer: string | null, metadata: Record<string, unknown> = {}): Entry => ({ question: "q", answer, metadata });
const score = (task: string, answer: string | null, oracle: string | null, metadata: Record<string, unknown> = {}) => scoreAnswer(task, answer, entry(oracle, metadata));

describe("cognition", () => {
  test("needle_haystack: spaces dropped, case ignored", () => {
    assert.equal(score("needle_haystack", " b o b ", "Bob"), 1);
    assert.equal(score("needle_haystack", "\tBob", "Bob"), 1);
    assert.equal(score("needle_haystack", "Rob", "Bob"), 0);
  });

  test("rectangle_count: exact → 1.0; d < 5 off → 0.8·(1 − d/5); 5 off or no integer → 0.0", () => {
    assert.equal(score("rectangle_count", " 4 ", "4"), 1);
    assert.equal(score("rectangle_count", "5", "4"), 0.8 * (1 - 1 / 5));
    assert.equal(score("rectangle_count", "0", "4"), 0.8 * (1 - 4 / 5));
    assert.equal(score("rectangle_count", "9", "4"), 0);
    assert.equal(score("rectangle_count", "4.0", "4"), 0);
    assert.equal(score("rectangle_count", null, "4"), 0);
  });

  test("color_cube_rotation: equal after strip and lower-casing → 1.0, anything else 0.01, no answer 0.0", () => {
    assert.equal(score("color_cube_rotation", " RED ", "red"), 1);
    assert.equal(score("color_cube_rotation", "blue", "red"), 0.01);
    assert.equal(score("color_cube_rotation", "red", null), 0.01);
    assert.equal(score("color_cube_rotation", null, "red"), 0);
  });
});

describe("graphs", () => {
  test("family_relationships: equal after strip and lower-casing", () => {
    assert.equal(score("family_relationships", " Mother ", "mother"), 1);
    assert.equal(score("family_relationships", "mother-in-law", "mother"), 0);
    assert.equal(score("family_relationships", "mother", null), 0);
  });

  test("path_star: the same nodes, whitespace collapsed", () => {
    assert.equal(score("path_star", " 1  2\n3 ", "1 2 3"), 1);
    assert.equal(score("path_star", "3 2 1", "1 2 3"), 0);
    assert.equal(score("path_star", " ", "1 2 3"), 0);
  });

  describe("shortest_path", () => {
    const matrix = { matrix: [["*", "O", "O"], ["X", "X", "O"], ["#", "O", "O"]] };
    const oracle = "right right down down left left";

    test("the oracle's moves, or another valid path of the same length → 1.0", () => {
      assert.equal(score("shortest_path", ` ${oracle} `, oracle, matrix), 1);
    });

    test("a longer valid path → 0.5; one that leaves the grid, enters an X or stops short → 0.0", () => {
      assert.equal(score("shortest_path", `${oracle} right left`, oracle, matrix), 0.5);
      assert.equal(score("shortest_path", "up", oracle, matrix), 0);
      assert.equal(score("shortest_path", "down", oracle, matrix), 0);
      assert.equal(score("shortest_path", "right right down down left", oracle, matrix), 0);
      assert.equal(score("shortest_path", "Right right down down left left", oracle, matrix), 0);
    });

    test("a grid without a start or without the matrix raises (0.0 in NeMo Gym)", () => {
      assert.throws(() => score("shortest_path", "down", oracle, { matrix: [["O"]] }));
      assert.throws(() => score("shortest_path", "down", oracle));
    });
  });

  describe("quantum_lock", () => {
    const buttons = [
      { name: "A", type: "add", value: 2, active_state: "any" },
      { name: "B", type: "multiply", value: 2, active_state: "green" },
      { name: "C", type: "subtract", value: 3, active_state: "red" },
    ];
    const metadata = { initial_value: 0, initial_state: "red", target_value: 8, buttons };

    test("the oracle's letters A–C, whatever the separators and case → 1.0", () => {
      assert.equal(score("quantum_lock", "a → b → a → b", "A → B → A → B", metadata), 1);
    });

    test("another sequence reaching the target: as short → 1.0, longer → 0.5; missing it → 0.0", () => {
      assert.equal(score("quantum_lock", "A A A A", "A B A B", metadata), 1);
      assert.equal(score("quantum_lock", "A A B A B", "A B A B", metadata), 0);
      assert.equal(score("quantum_lock", "A C", "A B A B", { ...metadata, target_value: 2 }), 0.5, "C is red-only: after A the lock is green");
      assert.equal(score("quantum_lock", "B B B", "A B A B", metadata), 0);
    });
  });
});
