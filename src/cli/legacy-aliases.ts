// NeMo Gym's `ng_*` commands map onto `gym` verbs (each command declares its names, see `legacyNames`);
// they keep working and say what replaces them.
import { legacyExpansions } from "./command.ts";
import { COMMAND_INDEX, LEGACY_PROGRAM_FLAGS } from "./commands.ts";

export const LEGACY_COMMANDS: Readonly<Record<string, string[]>> = legacyExpansions(COMMAND_INDEX, LEGACY_PROGRAM_FLAGS);

/** `ng_run a b` (as the program name or as the first argument) → `gym env start a b`, plus a notice. */
export function expandLegacyCommand(programName: string, args: string[]): { args: string[]; notice?: string } {
  // NeMo Gym installs every name twice: ng_run and nemo_gym_run.
  const canonical = (word: string) => word.replace(/\.(js|ts|mjs)$/, "").replace(/^nemo_gym_/, "ng_");
  const name = canonical(programName);
  const [first, ...rest] = args;
  const legacy = LEGACY_COMMANDS[name] ? name : first && LEGACY_COMMANDS[canonical(first)] ? canonical(first) : undefined;
  if (!legacy) return { args };
  const expansion = LEGACY_COMMANDS[legacy]!;
  const remaining = legacy === name ? args : rest;
  const typed = legacy === name ? programName.replace(/\.(js|ts|mjs)$/, "") : first!;
  return {
    args: [...expansion, ...remaining],
    notice: `\`${typed}\` is deprecated and will be removed in a future release; use \`gym ${expansion.join(" ")}\` instead.`,
  };
}
