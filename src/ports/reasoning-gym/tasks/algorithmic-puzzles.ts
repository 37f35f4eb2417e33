// Scorers of reasoning-gym's algorithmic puzzles that read structured answers: game_of_life (JSON grids, cell by
// cell), spiral_matrix, string_insertion and binary_matrix (the library `eval()`s a list answer; read here with
// the literal parser, never evaluated), cryptarithm (a letter → digit mapping checked against the puzzle),
// palindrome_partitioning (a set of partitions), graph_color (a colouring checked against the graph),
// manipulate_matrix (the matrix text with whitespace normalised) and jugs (pouring moves replayed).
import { pythonJsonLoads } from "../../../python/json.ts";
import { fromJsonValue, pythonEquals, type PyValue, pythonStr, pythonContains, pythonGetItem, pythonIterate, pythonJoin, pythonTruthy } from "../../../python/values.ts";
import { ValueError, IndexError } from "../../../python/exception.ts";
import { pythonIntBig } from "../../../python/numbers.ts";
import { pythonLen, pythonStrip, splitWhitespace } from "../../../python/str.ts";
import { evalPythonLiteral } from "../python-literal.ts";
import { item, oracleText, type Entry } from "../types.ts";

/** `f()`, with the exceptions Python's `except (…)` lists turned into `undefined` (a cell counted wrong). */
function attempt(f: () => PyValue, catches: readonly (new (...args: never[]) => Error)[]): PyValue | undefined {
  try {
    return f();
  } catch (error) {
    if (catches.some((type) => error instanceof type)) return undefined;
    throw error;
  }
}

/**
 * game_of_life: answer and oracle read as JSON; the share of the oracle's cells (row by row for a grid, item
 * by item for a flat list) the answer has equal at the same place. Unreadable JSON → 0.0.
 */
export function gameOfLife(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  let given: PyValue;
  let expected: PyValue;
  try {
    given = pythonJsonLoads(answer);
    expected = pythonJsonLoads(oracleText(entry));
  } catch {
    return 0;
  }
  let total = 0;
  let correct = 0;
  const isGrid = pythonTruthy(expected) && Array.isArray(pythonGetItem(expected, 0n));
  if (isGrid) {
    pythonIterate(expected).forEach((expectedRow, i) => {
      pythonIterate(expectedRow).forEach((value, j) => {
        total++;
        const cell = attempt(() => pythonGetItem(pythonGetItem(given, BigInt(i)), BigInt(j)), [IndexError, TypeError]);
        if (cell !== undefined && pythonEquals(cell, value)) correct++;
      });
    });
  } else {
    pythonIterate(expected).forEach((value, i) => {
      total++;
      const cell = attempt(() => pythonGetItem(given, BigInt(i)), [IndexError]);
      if (cell !== undefined && pythonEquals(cell, value)) correct++;
    });
  }
  return total === 0 ? 0 : correct / total;
}

/**
 * spiral_matrix: the answer equal to the oracle (both stripped) → 1.0; the answer read as a Python list (or
 * tuple) whose items, printed with str() and joined by spaces, equal the oracle → 0.1; else 0.0.
 */
export function spiralMatrix(answer: string | null, entry: Entry): number {
  const oracle = pythonStrip(oracleText(entry));
  if (answer === null || answer.length === 0) return 0;
  const given = pythonStrip(answer);
  if (given === oracle) return 1;
  try {
    if (pythonIterate(evalPythonLiteral(given)).map(pythonStr).join(" ") === oracle) return 0.1;
  } catch {
    // Python's `except Exception: pass`
  }
  return 0;
}

/**
 * string_insertion: the oracle → 1.0; the answer read as a Python list (or tuple, or string) of strings whose
 * concatenation is the oracle → 0.1; else 0.0.
 */
export function stringInsertion(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  if (answer === entry.answer) return 1;
  try {
    if (pythonJoin("", pythonIterate(evalPythonLiteral(answer))) === entry.answer) return 0.1;
  } catch {
    // Python's `except Exception: pass`
  }
  return 0;
}

// ---- cryptarithm ----

class ParseError extends Error {}

/** "A=1,B=2": pairs split on ",", each on "=" (exactly one), letter stripped, digit read by int(). */
function parseMapping(answer: string): Map<string, bigint> {
  const mapping = new Map<string, bigint>();
  for (const pair of answer.split(",")) {
    const sides = pythonStrip(pair).split("=");
    if (sides.length !== 2) throw new ParseError();
    let digit: bigint;
    try {
      digit = pythonIntBig(pythonStrip(sides[1]!));
    } catch {
      throw new ParseError();
    }
    mapping.set(pythonStrip(sides[0]!), digit);
  }
  return mapping;
}

/** The library's verify_cryptarithm_solution: every letter mapped, to distinct digits 0-9, no leading zero unless allowed, and the sum right. */
function solves(mapping: Map<string, bigint>, words: PyValue, result: PyValue, allowLeadingZero: PyValue): boolean {
  const wordList = pythonIterate(words);
  const letters = new Set<PyValue>();
  for (const word of wordList) for (const letter of pythonIterate(word)) letters.add(letter);
  for (const letter of pythonIterate(result)) letters.add(letter);
  if (letters.size !== mapping.size || ![...mapping.keys()].every((letter) => letters.has(letter))) return false;
  const digits = [...mapping.values()];
  if (digits.some((digit) => digit < 0n || digit > 9n)) return false;
  if (new Set(digits).size !== digits.length) return false;
  const leadingZero = (word: PyValue) => pythonTruthy(word) && mapping.get(pythonGetItem(word, 0n) as string) === 0n;
  if (!pythonTruthy(allowLeadingZero) && (wordList.some(leadingZero) || leadingZero(result))) return false;
  const number = (word: PyValue): bigint | undefined => {
    const text = pythonIterate(word).map((letter) => String(mapping.get(letter as string))).join("");
    return text === "" ? undefined : BigInt(text); // int("") is the ValueError the library treats as invalid
  };
  const values = wordList.map(number);
  const total = number(result);
  if (total === undefined || values.some((value) => value === undefined)) return false;
  return values.reduce<bigint>((sum, value) => sum + value!, 0n) === total;
}

/**
 * cryptarithm: the answer "A=1,B=2,…" read as a mapping; unreadable → 0.0; a mapping that solves the puzzle in
 * `metadata.words_letters` + … = `metadata.result_letters` (any solution, not only the stored one) → 1.0; else 0.01.
 */
export function cryptarithm(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  let mapping: Map<string, bigint>;
  try {
    mapping = parseMapping(answer);
  } catch (error) {
    if (error instanceof ParseError) return 0;
    throw error;
  }
  const words = fromJsonValue(item(entry.metadata, "words_letters"));
  const result = fromJsonValue(item(entry.metadata, "result_letters"));
  const allowLeadingZero = fromJsonValue(entry.metadata.allow_leading_zero ?? false);
  return solves(mapping, words, result, allowLeadingZero) ? 1 : 0.01;
}

/**
 * binary_matrix: the oracle → 1.0; the answer read as a Python list of rows and printed as the oracle is (items
 * joined by spaces, rows by newlines) equal to it → 0.1; else 0.0.
 */
export function binaryMatrix(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  if (answer === entry.answer) return 1;
  try {
    const printed = pythonIterate(evalPythonLiteral(answer))
      .map((row) => pythonIterate(row).map(pythonStr).join(" "))
      .join("\n");
    return printed === entry.answer ? 0.1 : 0;
  } catch {
    return 0;
  }
}

/** A hashable scalar's identity under Python's `==` (1, 1.0 and True alike); lists and dicts are unhashable. */
function hashKey(value: PyValue): string {
  if (Array.isArray(value) || value instanceof Map) throw new TypeError(`unhashable type: '${Array.isArray(value) ? "list" : "dict"}'`);
  if (typeof value === "string") return `s${value}`;
  if (value === null) return "n";
  const number = typeof value === "boolean" ? (value ? 1n : 0n) : value;
  if (typeof number === "number" && Number.isInteger(number)) return `i${BigInt(number)}`;
  return typeof number === "bigint" ? `i${number}` : `f${Number.isNaN(number) ? "nan" : String(number)}`;
}

/** `{tuple(x) for x in value}` as a set of keys. */
const setOfTuples = (value: PyValue): Set<string> => new Set(pythonIterate(value).map((part) => JSON.stringify(pythonIterate(part).map(hashKey))));

/** palindrome_partitioning: the answer's JSON list of partitions equal, as a set, to `metadata.solution` → 1.0; else 0.0. */
export function palindromePartitioning(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  try {
    const given = setOfTuples(pythonJsonLoads(answer));
    const expected = setOfTuples(fromJsonValue(item(entry.metadata, "solution")));
    return given.size === expected.size && [...given].every((key) => expected.has(key)) ? 1 : 0;
  } catch {
    return 0;
  }
}

// ---- graph_color ----

class NoColor extends Error {}

/** The library's get_color: the vertex as a key, else its str() form, else (a str vertex) its int() form. */
function colorOf(coloring: PyValue, vertex: PyValue): PyValue {
  if (pythonContains(coloring, vertex)) return pythonGetItem(coloring, vertex);
  if ((typeof vertex === "bigint" || typeof vertex === "boolean") && pythonContains(coloring, pythonStr(vertex))) return pythonGetItem(coloring, pythonStr(vertex));
  if (typeof vertex === "string") {
    let asInt: bigint | undefined;
    try {
      asInt = pythonIntBig(vertex);
    } catch (error) {
      if (!(error instanceof ValueError)) throw error;
    }
    if (asInt !== undefined && pythonContains(coloring, asInt)) return pythonGetItem(coloring, asInt);
  }
  throw new NoColor();
}

/** verify_graph_coloring_solution: every vertex coloured, with an allowed colour, no edge within one colour. */
function validColoring(puzzle: PyValue, coloring: PyValue): boolean {
  const vertices = pythonIterate(pythonGetItem(puzzle, "vertices"));
  const edges = pythonIterate(pythonGetItem(puzzle, "edges"));
  const allowed = pythonIterate(pythonGetItem(puzzle, "color_options"));
  allowed.forEach(hashKey);
  const colorsOrMissing = (vertex: PyValue): PyValue | undefined => {
    try {
      return colorOf(coloring, vertex);
    } catch (error) {
      if (error instanceof NoColor) return undefined;
      throw error;
    }
  };
  if (vertices.some((vertex) => colorsOrMissing(vertex) === undefined)) return false;
  for (const vertex of vertices) {
    const color = colorOf(coloring, vertex);
    hashKey(color);
    if (!allowed.some((option) => pythonEquals(option, color))) return false;
  }
  for (const edge of edges) {
    const ends = pythonIterate(edge);
    if (ends.length !== 2) throw new ValueError("an edge unpacks to two vertices");
    const u = colorsOrMissing(ends[0]!);
    if (u === undefined) return false;
    const v = colorsOrMissing(ends[1]!);
    if (v === undefined) return false;
    if (pythonEquals(u, v)) return false;
  }
  return true;
}

/** graph_color: the answer's JSON colouring valid for `metadata.puzzle` → 1.0; readable JSON but invalid → 0.01; else 0.0. */
export function graphColor(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  try {
    return validColoring(fromJsonValue(item(entry.metadata, "puzzle")), pythonJsonLoads(answer)) ? 1 : 0.01;
  } catch {
    return 0;
  }
}

/**
 * manipulate_matrix: the answer equal to the oracle (both stripped) → 1.0; so is the answer with each row's
 * whitespace normalised to single spaces; else the oracle inside that normalised answer →
 * len(oracle)/len(answer); else 0.0.
 */
export function manipulateMatrix(answer: string | null, entry: Entry): number {
  const oracle = pythonStrip(oracleText(entry));
  if (answer === null || answer.length === 0) return 0;
  const given = pythonStrip(answer);
  if (given === oracle) return 1;
  const normalised = pythonStrip(
    pythonStrip(given)
      .split("\n")
      .map((row) => splitWhitespace(pythonStrip(row)).join(" "))
      .join("\n"),
  );
  if (normalised === oracle) return 1;
  return normalised.includes(oracle) ? pythonLen(oracle) / pythonLen(normalised) : 0;
}

// ---- jugs ----

const bigintOf = (value: PyValue): bigint => {
  if (typeof value === "bigint") return value;
  if (typeof value === "boolean") return value ? 1n : 0n;
  throw new TypeError("a jug capacity is not an int"); // the library's puzzles hold ints only
};

/**
 * The library's verify_solution: replay "fill X", "empty X" and "pour X->Y" (jugs A, B, …, all empty at the
 * start); true when a jug then holds `target`. A malformed move raises (ValueError, KeyError, IndexError).
 */
function jugsSolved(puzzle: PyValue, moves: PyValue): boolean {
  const capacities = pythonIterate(pythonGetItem(puzzle, "jug_capacities"));
  const target = pythonGetItem(puzzle, "target");
  const jug = (label: string): number => {
    const index = label.length === 1 ? label.charCodeAt(0) - 65 : -1;
    if (index < 0 || index >= capacities.length) throw new Error(`KeyError: '${label}'`);
    return index;
  };
  const token = (tokens: string[], i: number): string => {
    if (i >= tokens.length) throw new IndexError("list index out of range");
    return tokens[i]!;
  };
  const state = capacities.map(() => 0n);
  for (const move of pythonIterate(moves)) {
    if (typeof move !== "string") throw new TypeError("a move is not a str");
    const tokens = splitWhitespace(move);
    const verb = token(tokens, 0);
    if (verb === "fill") state[jug(token(tokens, 1))] = bigintOf(capacities[jug(token(tokens, 1))]!);
    else if (verb === "empty") state[jug(token(tokens, 1))] = 0n;
    else if (verb === "pour") {
      const ends = token(tokens, 1).split("->");
      if (ends.length !== 2) throw new ValueError(`Invalid pour move format: ${move}`);
      const [i, j] = [jug(ends[0]!), jug(ends[1]!)];
      const room = bigintOf(capacities[j]!) - state[j]!;
      const amount = state[i]! < room ? state[i]! : room;
      state[i] = state[i]! - amount;
      state[j] = state[j]! + amount;
    } else throw new ValueError(`Unknown move: ${move}`);
  }
  return state.some((water) => pythonEquals(water, target));
}

/** jugs: the answer's JSON list of moves reaching `metadata.puzzle.target` → 1.0; readable but not → 0.01; else 0.0. */
export function jugs(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  try {
    return jugsSolved(fromJsonValue(item(entry.metadata, "puzzle")), pythonJsonLoads(answer)) ? 1 : 0.01;
  } catch {
    return 0;
  }
}
