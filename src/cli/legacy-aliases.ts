// NeMo Gym's `ng_*` commands map onto `gym` verbs (each command declares its names, see `legacyNames`);
// they keep working and say what replaces them.
import { legacyExpansions } from "./command.ts";
import { COMMANDS, LEGACY_PROGRAM_FLAGS } from "./commands.ts";

export const LEGACY_COMMANDS: Readonly<Record<string, string[]>> = legacyExpansions(COMMANDS, LEGACY_PROGRAM_FLAGS);

/** `ng_run a b` (as the program name or as the first argument) → `gym env start a b`, plus a notice. */
export function expandLegacyCommand(programName: string, args: string[]): { args: string[]; notice?: string } {
  const name = programName.replace(/\.(js|ts|mjs)$/, "");
  const [first, ...rest] = args;
  const legacy = LEGACY_COMMANDS[name] ? name : first && LEGACY_COMMANDS[first] ? first : undefined;
  if (!legacy) return { args };
  const expansion = LEGACY_COMMANDS[legacy]!;
  const remaining = legacy === name ? args : rest;
  return {
    args: [...expansion, ...remaining],
    notice: `\`${legacy}\` is deprecated and will be removed in a future release; use \`gym ${expansion.join(" ")}\` instead.`,
  };
}
