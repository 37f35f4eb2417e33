// How NeMo Gym's grl servers read a move out of the model's text: Sokoban takes the first <action>…</action> tag
// (or, failing that, the first bare word) naming up/down/left/right or 1-4, Tetris every <action> tag naming
// left/right/down or 0-2, in order. Python's `re` semantics (Unicode \b and \s, IGNORECASE) via src/python/re.
import { compilePythonRegex } from "../../python/re/index.ts";
import { pythonStringRepr } from "../../python/repr.ts";
import { pythonStrip } from "../../python/str.ts";

const SOKOBAN_TAG = compilePythonRegex(String.raw`<action>\s*(up|down|left|right|[1-4])\s*</action>`, { ignoreCase: true });
const SOKOBAN_WORD = compilePythonRegex(String.raw`\b(up|down|left|right|[1-4])\b`, { ignoreCase: true });
const TETRIS_TAG = compilePythonRegex(String.raw`<action>\s*(left|right|down|[0-2])\s*</action>`, { ignoreCase: true });

/** A response the server cannot read a move from: NeMo Gym answers it 400 with this detail. */
export class ActionParseError extends Error {
  override name = "ActionParseError";
}

const isDigits = (token: string) => /^[0-9]+$/.test(token);

/** The label → id map NeMo builds: `{label.lower(): idx}` (a later label wins a tie, as in a dict literal). */
function reverseLookup(actionLookup: ReadonlyMap<number, string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, label] of actionLookup) out.set(label.toLowerCase(), id);
  return out;
}

/** grl_sokoban's `_parse_action`: the action id, or an ActionParseError with NeMo's message. */
export function parseSokobanAction(text: string, actionLookup: ReadonlyMap<number, string>): number {
  const stripped = pythonStrip(text);
  const match = SOKOBAN_TAG.search(stripped) ?? SOKOBAN_WORD.search(stripped);
  if (match === undefined) throw new ActionParseError(`Unable to parse action from response: ${pythonStringRepr(stripped)}`);
  const token = pythonStrip(match.groups[1]!);
  if (isDigits(token)) {
    const id = Number.parseInt(token, 10);
    if (actionLookup.has(id)) return id;
    throw new ActionParseError(`Invalid action identifier: ${id}`);
  }
  const id = reverseLookup(actionLookup).get(token.toLowerCase());
  if (id === undefined) throw new ActionParseError(`Invalid action identifier: ${token}`);
  return id;
}

/** grl_tetris's `_parse_actions`: every tag's id that the lookup has, in order (possibly none). */
export function parseTetrisActions(text: string, actionLookup: ReadonlyMap<number, string>): number[] {
  const reverse = reverseLookup(actionLookup);
  const ids: number[] = [];
  for (const match of TETRIS_TAG.finditer(text)) {
    const token = pythonStrip(match.groups[1]!).toLowerCase();
    const id = isDigits(token) ? Number.parseInt(token, 10) : (reverse.get(token) ?? -1);
    if (actionLookup.has(id)) ids.push(id);
  }
  return ids;
}

/**
 * A lookup table from config or a row: NeMo's Python keys them by int (its defaults, and YAML's int keys); a JSON
 * object's keys are strings, so a key spelling an int is read as that int. Anything else is refused (the caller
 * says which field).
 */
export function lookupTable(value: unknown): Map<number, string> | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "must be a mapping of integer ids to labels";
  const out = new Map<number, string>();
  for (const [key, label] of value instanceof Map ? value.entries() : Object.entries(value)) {
    const id = typeof key === "number" ? key : /^-?[0-9]+$/.test(String(key)) ? Number.parseInt(String(key), 10) : Number.NaN;
    if (!Number.isSafeInteger(id)) return `key ${JSON.stringify(key)} is not an integer`;
    if (typeof label !== "string") return `the label of ${id} must be a string`;
    out.set(id, label);
  }
  return out;
}
