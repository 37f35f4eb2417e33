// Scorers of reasoning-gym's cognition tasks that override the default.
import { pythonIntBig } from "../../../python/numbers.ts";
import { pythonLower, pythonStrip } from "../../../python/str.ts";
import { oracleText, type Entry } from "../types.ts";

/** needle_haystack: the answer without spaces, stripped and lower-cased, equals the oracle word → 1.0. */
export function needleHaystack(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  return pythonLower(pythonStrip(answer.replaceAll(" ", ""))) === pythonLower(pythonStrip(oracleText(entry))) ? 1 : 0;
}

// The library's constants: no credit from 5 off, 0.8 × the linear credit below that.
const MAX_DISTANCE = 5;
const CLOSE_WEIGHT = 0.8;

/** rectangle_count: the right count → 1.0; d < 5 off → 0.8·(1 − d/5); else, or no integer, 0.0. */
export function rectangleCount(answer: string | null, entry: Entry): number {
  const correctText = pythonLower(oracleText(entry)).replaceAll("\n", "");
  let distance: bigint;
  try {
    const correct = pythonIntBig(correctText);
    if (answer === null) return 0;
    distance = pythonIntBig(pythonStrip(answer)) - correct;
  } catch {
    return 0;
  }
  if (distance < 0n) distance = -distance;
  if (distance === 0n) return 1;
  if (distance >= BigInt(MAX_DISTANCE)) return 0;
  return Math.max(0, CLOSE_WEIGHT * (1 - Number(distance) / MAX_DISTANCE));
}

/** color_cube_rotation: equal after pythonStrip and lower-casing → 1.0; anything else (a null oracle too) → 0.01. */
export function colorCubeRotation(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  if (entry.answer === null) return 0.01;
  return pythonLower(pythonStrip(answer)) === pythonLower(pythonStrip(entry.answer)) ? 1 : 0.01;
}
