// reasoning-gym's coin_flip scorer: probabilities compared as numbers, with prefix credit on their digits.
import { ValueError, ZeroDivisionError } from "../../../python/exception.ts";
import { pythonStrip } from "../../../python/str.ts";
import { parseFraction } from "../python-fraction.ts";
import { formatG } from "../../../python/float.ts";
import { trueDivide } from "../../../python/math.ts";
import { oracleText, type Entry } from "../types.ts";

const TOLERANCE = 1e-4;

/** `float(Fraction(text))`. */
function fractionFloat(text: string): number {
  const { n, d } = parseFraction(text);
  return trueDivide(n, d);
}

/**
 * coin_flip: answer and oracle (commas dropped) read as fractions or decimals; within 1e-4 → 1.0; else the
 * length of the common prefix of their `.10g` forms over the shorter one; unreadable → 0.0.
 */
export function coinFlip(answer: string | null, entry: Entry): number {
  if (answer === null || pythonStrip(answer).length === 0) return 0;
  const given = answer.replaceAll(",", "");
  const oracle = oracleText(entry).replaceAll(",", "");
  let answerFloat: number, oracleFloat: number;
  try {
    answerFloat = fractionFloat(given);
    oracleFloat = fractionFloat(oracle);
  } catch (error) {
    if (error instanceof ValueError || error instanceof ZeroDivisionError) return 0;
    throw error;
  }
  if (Math.abs(answerFloat - oracleFloat) <= TOLERANCE) return 1;
  const answerText = formatG(answerFloat, 10);
  const expectedText = formatG(oracleFloat, 10);
  let matching = 0;
  while (matching < Math.min(answerText.length, expectedText.length) && answerText[matching] === expectedText[matching]) matching++;
  return matching / Math.min(expectedText.length, answerText.length);
}
