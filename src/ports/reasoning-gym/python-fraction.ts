// Python 3.13's `Fraction(text)` as an exact ratio: `[sign]num[/den]`, or `[sign][int][.frac][e±exp]`, with
// `_` between digits, Unicode digits, and whitespace around (and, since 3.12, around the `/`).
import { PYTHON_SPACE_CHARS } from "../../python/chars.ts";
import { ValueError, ZeroDivisionError } from "../../python/exception.ts";
import { pythonIntBig } from "../../python/numbers.ts";
import { codePoints } from "../../python/str.ts";

const S = `[${PYTHON_SPACE_CHARS}]*`;
const D = String.raw`\p{Nd}+(?:_\p{Nd}+)*`;
const RATIONAL = new RegExp(`^${S}([-+]?)(?=\\p{Nd}|\\.\\p{Nd})(${D})?(?:${S}/${S}(${D})|(?:\\.(${D})?)?(?:[eE]([-+]?${D}))?)${S}$`, "u");

/** The magnitude past which a power of ten makes any double overflow or vanish (decided without computing it). */
const BEYOND_DOUBLE = 400;

export interface Ratio {
  n: bigint;
  d: bigint;
}

/** `Fraction(text)` as n/d (not reduced: only its value matters here). */
export function parseFraction(text: string): Ratio {
  const match = RATIONAL.exec(text);
  if (!match) throw new ValueError(`Invalid literal for Fraction: '${text}'`);
  const [, sign, num, denom, decimal, exp] = match;
  let n = num ? pythonIntBig(num) : 0n;
  let d = 1n;
  if (denom !== undefined) {
    d = pythonIntBig(denom);
  } else {
    if (decimal) {
      const digits = decimal.replace(/_/g, "");
      d = 10n ** BigInt(codePoints(digits).length);
      n = n * d + pythonIntBig(digits);
    }
    if (exp !== undefined && n !== 0n) {
      const e = pythonIntBig(exp);
      // Python computes 10**e however large; past a double's range only the direction matters.
      const size = BigInt(n.toString().length + d.toString().length + BEYOND_DOUBLE);
      if (e > size) (n = n * 10n ** size), (d = 1n);
      else if (e < -size) (d = d * 10n ** size), (n = n > 0n ? 1n : -1n);
      else if (e >= 0n) n *= 10n ** e;
      else d *= 10n ** -e;
    }
  }
  if (d === 0n) throw new ZeroDivisionError(`Fraction(${n}, 0)`);
  return { n: sign === "-" ? -n : n, d };
}
