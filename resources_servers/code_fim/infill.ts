// NeMo-Skills' FIM post-processing, as NeMo Gym's code_fim ports it: one leading newline dropped, then any repeat of
// the prefix's tail at the completion's head and of the suffix's head at its tail trimmed (remove_overlap). An
// overlap of whitespace alone without a newline is never trimmed. Lengths count code points, as Python's do.
import { pythonStrip } from "../../src/python/str.ts";

const trivial = (overlap: string) => pythonStrip(overlap) === "" && !overlap.includes("\n");

/** The completion without the longest tail of `preceding` it starts with. */
function trimHead(preceding: string, following: string): string {
  const before = Array.from(preceding);
  const after = Array.from(following);
  for (let i = Math.min(before.length, after.length); i > 0; i--) {
    const overlap = before.slice(-i).join("");
    if (trivial(overlap)) continue;
    if (following.startsWith(overlap)) return after.slice(i).join("");
  }
  return following;
}

/** The completion without the longest head of `following` it ends with. */
function trimTail(preceding: string, following: string): string {
  const before = Array.from(preceding);
  const after = Array.from(following);
  for (let i = Math.min(before.length, after.length); i > 0; i--) {
    const overlap = after.slice(0, i).join("");
    if (trivial(overlap)) continue;
    if (preceding.endsWith(overlap)) return before.slice(0, -i).join("");
  }
  return preceding;
}

export function postprocessCompletion(rawCode: string, prefix: string, suffix: string): string {
  let completion = rawCode.startsWith("\n") ? rawCode.slice(1) : rawCode;
  completion = trimHead(prefix, completion);
  return trimTail(completion, suffix);
}
