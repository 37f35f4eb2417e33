// ARC-AGI answer grids as NeMo Gym's arc_agi and nvarc verifiers read them from a model's text. The two disagree
// on purpose: arc_agi wants a JSON grid (`\boxed{[[1,2],[3,4]]}`), nvarc wants rows of space-separated digits
// (`\boxed{1 2\n3 4}`, NVARC's `Board.from_text`), and a JSON grid handed to nvarc mostly collapses into nothing.
// Regex classes are Python's on `str` patterns: `\s` is str.isspace(), `\w` is [\p{L}\p{N}_], `\d` is \p{Nd}.
import { z } from "zod";
import { pythonJsonLoads } from "../python/json.ts";
import { PyJsonDecodeError } from "../python/exception.ts";
import { PYTHON_SPACE_CHARS as SPACE, PYTHON_WORD_CHARS as WORD } from "../python/chars.ts";
import { pythonStrip } from "../python/str.ts";

/** A grid of ints (ARC colours are 0–9, but arc_agi accepts any non-negative int). */
export type Grid = number[][];


// ---- the model's text ----

/**
 * The text of every assistant message of a response, parts joined with "\n", then stripped. A part counts when
 * it has a string `text` (output_text, or input_text of an assistant message written as an input item); a
 * message whose content is a plain string counts whole.
 */
export function assistantText(output: readonly unknown[]): string {
  const texts: string[] = [];
  for (const item of output) {
    if (!isRecord(item) || item.type !== "message" || item.role !== "assistant") continue;
    if (typeof item.content === "string") texts.push(item.content);
    else if (Array.isArray(item.content)) {
      for (const part of item.content) if (isRecord(part) && typeof part.text === "string") texts.push(part.text);
    }
  }
  return pythonStrip(texts.join("\n"));
}

const THINK_BLOCK = /<think>.*?<\/think>/gsu;

/** Removes every closed `<think>…</think>` block (shortest match; an unclosed `<think>` stays), then strips. */
export const stripThinking = (text: string): string => pythonStrip(text.replace(THINK_BLOCK, ""));

// ---- arc_agi: a JSON grid ----

const JSON_GRID = `\\[[${SPACE}]*\\[[\\p{Nd}${SPACE},\\[\\]]+\\][${SPACE}]*\\]`;
const BOXED_JSON_GRID = new RegExp(`\\\\boxed\\{(${JSON_GRID})\\}`, "gu");
const BARE_JSON_GRID = new RegExp(JSON_GRID, "gu");
const WHITESPACE_RUN = new RegExp(`[${SPACE}]+`, "gu");

/**
 * arc_agi's answer: the candidates are every `\boxed{[[…]]}` (or, when there is none, every bare `[[…]]`) made
 * of digits, whitespace, commas and brackets only, so a negative number never matches. The first candidate
 * that, whitespace removed, is JSON for a non-empty list of int lists with a non-empty first row wins; later
 * rows may be empty or of any length. A boxed grid that fails does not fall back to bare ones.
 */
export function parseJsonGrid(text: string): Grid | null {
  let candidates = [...text.matchAll(BOXED_JSON_GRID)].map((match) => match[1]!);
  if (candidates.length === 0) candidates = [...text.matchAll(BARE_JSON_GRID)].map((match) => match[0]);
  for (const candidate of candidates) {
    let value: unknown;
    try {
      // Not a JSONDecodeError (an int of more than 4300 digits) propagates: NeMo Gym answers 500 there too.
      value = pythonJsonLoads(candidate.replace(WHITESPACE_RUN, ""));
    } catch (error) {
      if (error instanceof PyJsonDecodeError) continue;
      throw error;
    }
    if (isIntGrid(value) && value.length > 0 && value[0]!.length > 0) return value.map((row) => row.map(Number));
  }
  return null;
}

function isIntGrid(value: unknown): value is bigint[][] {
  return Array.isArray(value) && value.every((row) => Array.isArray(row) && row.every((cell) => typeof cell === "bigint"));
}

// ---- nvarc: rows of digits (Board.from_text with the integer palette) ----

const BOXED_ANYTHING = /\\boxed\{(.+)\}/su;
const NOT_WORD_OR_SPACE = new RegExp(`[^${WORD}${SPACE}]`, "gu");
const WORD_RUN = new RegExp(`[${WORD}]+`, "gu");
const COLOURS = new Set(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);

/**
 * nvarc's transductive answer. The content of `\boxed{…}` when there is one (greedy: from the first `\boxed{` to
 * the last `}` of the text), else the whole text; every character that is neither a word character nor
 * whitespace deleted (`[[1, 2], [3, 4]]` becomes `1 2 3 4`, `-1` becomes `1`); every word that is not a single
 * digit deleted (`1234`, `x`, `a1` go); each non-blank line ("\n"-separated) is a row of its
 * whitespace-separated digits. No rows, or rows of unequal length: no grid.
 */
export function parseDigitRows(text: string): Grid | null {
  const boxed = BOXED_ANYTHING.exec(text);
  const content = (boxed ? boxed[1]! : text).replace(NOT_WORD_OR_SPACE, "").replace(WORD_RUN, (word) => (COLOURS.has(word) ? word : ""));
  const rows = content
    .split("\n")
    .filter((line) => pythonStrip(line) !== "")
    .map((line) => line.split(WHITESPACE_RUN).filter((token) => token !== "").map(Number));
  if (rows.length === 0 || rows.some((row) => row.length !== rows[0]!.length)) return null;
  return rows;
}

// ---- nvarc inductive: the model's program ----

const PYTHON_BLOCK = new RegExp(`\`\`\`python[${SPACE}]*\\n(.*?)\`\`\``, "gsu");
const ANY_BLOCK = new RegExp(`\`\`\`[${SPACE}]*\\n(.*?)\`\`\``, "gsu");

/**
 * The code of an inductive answer: the last ```` ```python ```` block, else the last ```` ``` ```` block (an
 * opening fence must end its line: ```` ```py ```` is not a fence for either), else the whole text when it
 * contains `def transform`; stripped. `null` when there is none.
 */
export function extractTransformCode(text: string): string | null {
  for (const fence of [PYTHON_BLOCK, ANY_BLOCK]) {
    const blocks = [...text.matchAll(fence)];
    if (blocks.length > 0) return pythonStrip(blocks.at(-1)![1]!);
  }
  return text.includes("def transform") ? pythonStrip(text) : null;
}

// ---- comparing and reading grids ----

/** Python's `==` on two int grids: same shape, same values. */
export function gridsEqual(a: Grid, b: Grid): boolean {
  return a.length === b.length && a.every((row, i) => row.length === b[i]!.length && row.every((cell, j) => cell === b[i]![j]));
}

// pydantic's lax `int` from a string: surrounding whitespace, a sign, `_` between digits, a `.0…` tail.
const INT_TEXT = /^\s*[+-]?\d+(?:_\d+)*(?:\.0*)?\s*$/;

/**
 * pydantic's lax `int`: an integral number, a bool or an integer string. Only checked: the verify request schema
 * must leave the posted values as they are (it is an intersection with the base request), so {@link readIntGrid}
 * converts them.
 */
export const PydanticIntSchema = z.union([
  z.number().refine(Number.isInteger, "Input should be a valid integer, got a number with a fractional part"),
  z.boolean(),
  z.string().regex(INT_TEXT, "Input should be a valid integer, unable to parse string as an integer"),
]);

/** pydantic's `List[List[int]]`, as the dataset's grids (`expected_output`, `test_input`) are declared. */
export const IntGridSchema = z.array(z.array(PydanticIntSchema));

/** The fields of NeMo Gym's ARC verify request (arc_agi's and nvarc's); only expected_output is read. */
export const ArcTaskFields = {
  train: z.array(z.record(z.string(), z.unknown())).default(() => []),
  test_input: IntGridSchema.default(() => []),
  expected_output: IntGridSchema.default(() => []),
  task_id: z.string().nullish(),
};

/** A grid that passed {@link IntGridSchema}, as the ints pydantic makes of it (`"3"` → 3, `true` → 1). */
export function readIntGrid(grid: z.output<typeof IntGridSchema>): Grid {
  return grid.map((row) => row.map((cell) => (typeof cell === "number" ? cell : typeof cell === "boolean" ? Number(cell) : Number(cell.trim().replace(/_/g, "")))));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
