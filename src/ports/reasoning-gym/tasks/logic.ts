// Scorers of reasoning-gym's logic tasks that override the default.
import { oracleText, type Entry } from "../types.ts";
import { pythonLen, pythonLower, pythonStrip, splitWhitespace } from "../../../python/str.ts";

/** The truth-teller / liar words of every island (the second word of each of the library's term pairs). */
const ROLES = new Set(["knight", "knave", "pioneer", "laggard", "saint", "sinner", "hero", "villain", "angel", "devil", "altruist", "egoist", "sage", "fool"]);
const FILLER = new Set(["is", "a", "an"]);

/**
 * An answer as a set of (name, role) pairs: lower-cased, `.`, `,`, `(`, `)` read as spaces, " and " dropped,
 * split on whitespace; "is"/"a"/"an" skipped; a role word pairs with the last other word before it (then
 * forgotten); other words (markdown `**` included) become the pending name. Pairs are JSON-keyed for the set.
 */
export function knightsKnavesAssignments(text: string): Set<string> {
  const cleaned = pythonStrip(pythonLower(text)).replaceAll(".", " ").replaceAll(",", " ").replaceAll(")", " ").replaceAll("(", " ");
  const assignments = new Set<string>();
  let name: string | null = null;
  for (const word of splitWhitespace(cleaned.replaceAll(" and ", " "))) {
    if (FILLER.has(word)) continue;
    if (ROLES.has(word)) {
      if (name) assignments.add(JSON.stringify([name, word]));
      name = null;
    } else name = word;
  }
  return assignments;
}

/** Same pairs → 1.0; as many pairs with k > 0 of them right → 0.3 + 0.7·k/n; else 0.0 (errors included). */
export function knightsKnaves(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || answer.length === 0) return 0;
  try {
    const oracle = knightsKnavesAssignments(oracleText(entry));
    const given = knightsKnavesAssignments(answer);
    const matching = [...oracle].filter((pair) => given.has(pair)).length;
    if (oracle.size === given.size && matching === oracle.size) return 1;
    if (oracle.size === given.size && matching > 0) return 0.3 + (0.7 * matching) / oracle.size;
  } catch {
    // the library's own `except Exception: pass`
  }
  return 0;
}

/** The oracle exactly → 1.0; the oracle with whitespace around → pythonLen(oracle)/pythonLen(answer). */
export function circuitLogic(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || answer.length === 0) return 0;
  if (entry.answer === answer) return 1;
  if (entry.answer === pythonStrip(answer)) return pythonLen(entry.answer) / pythonLen(answer);
  return 0;
}

/** Exactly `str(oracle)` → 1.0 (a null oracle reads "None"). */
export function selfReference(answer: string | null, entry: Entry): number {
  return typeof answer === "string" && answer === (entry.answer ?? "None") ? 1 : 0;
}

/** Equal ignoring case and newlines → 1.0 (zebra_puzzles and dice share it). */
export function equalIgnoringCaseAndNewlines(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  return pythonLower(answer).replaceAll("\n", "") === pythonLower(oracleText(entry)).replaceAll("\n", "") ? 1 : 0;
}

