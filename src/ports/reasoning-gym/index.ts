// reasoning-gym's scorers by task name: `scoreAnswer("knights_knaves", answer, entry)` is the library's
// `get_score_answer_fn("knights_knaves")(answer=answer, entry=entry)`. Each task maps to a port of its
// `score_answer`; tasks that do not override it use the default (procedural-dataset.ts). Adding a task is one
// line: `registerScorer("name", scorer)`, or an entry in SCORERS below.
import { LIBRARY_TASKS } from "./library-tasks.ts";
import { proceduralScore } from "./procedural-dataset.ts";
import { ab, groupAnagrams, letterJumble, numberSorting, palindromeGeneration, sentenceReordering, spellBackward, wordSorting } from "./tasks/algorithmic.ts";
import { colorCubeRotation, needleHaystack, rectangleCount } from "./tasks/cognition.ts";
import { familyRelationships, pathStar, quantumLock, shortestPath } from "./tasks/graphs.ts";
import { decimalArithmetic, decimalChainSum, decimalReward, fractionSimplification, gsmSymbolic, numberFormat, powerFunction, primeFactorization } from "./tasks/arithmetic.ts";
import { circuitLogic, equalIgnoringCaseAndNewlines, knightsKnaves, selfReference } from "./tasks/logic.ts";
import { binaryMatrix, cryptarithm, gameOfLife, graphColor, jugs, manipulateMatrix, palindromePartitioning, spiralMatrix, stringInsertion } from "./tasks/algorithmic-puzzles.ts";
import { calendarArithmetic, timeIntervals } from "./tasks/dates.ts";
import { futoshiki, kakurasu, knightSwap, nQueens, sudoku, survo, towerOfHanoi, tsumego } from "./tasks/games.ts";
import { countdown, puzzle24 } from "./tasks/number-games.ts";
import { bitwiseArithmetic } from "./tasks/bitwise.ts";
import { coinFlip } from "./tasks/probability.ts";
import { rushHour } from "./tasks/rush-hour.ts";
import type { Entry, Scorer } from "./types.ts";

export type { Entry, Scorer } from "./types.ts";
export { LIBRARY_TASKS } from "./library-tasks.ts";

/** Tasks whose dataset class keeps ProceduralDataset's score_answer (checked against reasoning-gym 0.1.19). */
const DEFAULT_SCORED = [
  "acre", "aiw", "arc_1d", "base_conversion", "basic_arithmetic", "bf", "binary_alternation", "caesar_cipher", "count_bits",
  "count_primes", "course_schedule", "gcd", "isomorphic_strings", "largest_island", "lcm", "leg_counting", "letter_counting",
  "list_functions", "mahjong_puzzle", "maze", "modulo_grid", "number_filtering", "number_sequence", "ransom_note", "rotate_matrix",
  "rotten_oranges", "simple_equations", "simple_geometry", "string_manipulation", "string_splitting", "string_synthesis",
  "syllogism", "word_sequence_reversal",
];

const SCORERS = new Map<string, Scorer>([
  ...DEFAULT_SCORED.map((name): [string, Scorer] => [name, proceduralScore]),
  // logic
  ["knights_knaves", knightsKnaves],
  ["circuit_logic", circuitLogic],
  ["self_reference", selfReference],
  ["zebra_puzzles", equalIgnoringCaseAndNewlines],
  // arithmetic
  ["chain_sum", decimalReward],
  ["products", decimalReward],
  ["decimal_chain_sum", decimalChainSum],
  ["decimal_arithmetic", decimalArithmetic],
  ["power_function", powerFunction],
  ["gsm_symbolic", gsmSymbolic],
  ["number_format", numberFormat],
  ["fraction_simplification", fractionSimplification],
  ["prime_factorization", primeFactorization],
  ["dice", equalIgnoringCaseAndNewlines],
  ["calendar_arithmetic", calendarArithmetic],
  ["time_intervals", timeIntervals],
  ["bitwise_arithmetic", bitwiseArithmetic],
  // algorithmic
  ["number_sorting", numberSorting],
  ["word_sorting", wordSorting],
  ["spell_backward", spellBackward],
  ["sentence_reordering", sentenceReordering],
  ["palindrome_generation", palindromeGeneration],
  ["ab", ab],
  ["letter_jumble", letterJumble],
  ["group_anagrams", groupAnagrams],
  ["game_of_life", gameOfLife],
  ["spiral_matrix", spiralMatrix],
  ["string_insertion", stringInsertion],
  ["cryptarithm", cryptarithm],
  ["binary_matrix", binaryMatrix],
  ["palindrome_partitioning", palindromePartitioning],
  ["graph_color", graphColor],
  ["manipulate_matrix", manipulateMatrix],
  ["jugs", jugs],
  // games
  ["sudoku", sudoku],
  ["mini_sudoku", sudoku],
  ["futoshiki", futoshiki],
  ["n_queens", nQueens],
  ["tower_of_hanoi", towerOfHanoi],
  ["knight_swap", knightSwap],
  ["kakurasu", kakurasu],
  ["survo", survo],
  ["rush_hour", rushHour],
  ["tsumego", tsumego],
  ["countdown", countdown],
  ["puzzle24", puzzle24],
  // probability
  ["coin_flip", coinFlip],
  // cognition
  ["needle_haystack", needleHaystack],
  ["rectangle_count", rectangleCount],
  ["color_cube_rotation", colorCubeRotation],
  // graphs
  ["family_relationships", familyRelationships],
  ["path_star", pathStar],
  ["shortest_path", shortestPath],
  ["quantum_lock", quantumLock],
]);

/** Adds or replaces the scorer of a task (e.g. a port of one more reasoning-gym task, or a task of your own). */
export function registerScorer(task: string, scorer: Scorer): void {
  SCORERS.set(task, scorer);
}

/** The task names that have a scorer, sorted. */
export const supportedTasks = (): string[] => [...SCORERS.keys()].sort();

/** A task without a scorer here: either not in reasoning-gym at all, or in it but not ported yet. */
export class UnsupportedTaskError extends Error {
  override name = "UnsupportedTaskError";
  constructor(readonly task: string) {
    super(
      LIBRARY_TASKS.has(task)
        ? `reasoning-gym task '${task}' (metadata.source_dataset) has no scorer ported here yet; supported tasks: ${supportedTasks().join(", ")}`
        : `'${task}' (metadata.source_dataset) is not a reasoning-gym task (0.1.19 to 0.1.25) and has no registered scorer`,
    );
  }
}

/** The scorer of a task; an unknown task throws {@link UnsupportedTaskError}. */
export function scorerFor(task: string): Scorer {
  const scorer = SCORERS.get(task);
  if (!scorer) throw new UnsupportedTaskError(task);
  return scorer;
}

/** `get_score_answer_fn(task)(answer, entry)`. Scorer exceptions propagate (the caller decides what they score). */
export const scoreAnswer = (task: string, answer: string | null, entry: Entry): number => scorerFor(task)(answer, entry);
