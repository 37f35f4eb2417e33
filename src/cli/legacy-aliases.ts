// NeMo Gym's `ng_*` commands map onto `gym` verbs; they keep working and say what replaces them.

export const LEGACY_COMMANDS: Record<string, string[]> = {
  ng_run: ["env", "start"],
  ng_collect_rollouts: ["eval", "run", "--no-serve"],
  ng_e2e_collect_rollouts: ["eval", "run"],
  ng_aggregate_rollouts: ["eval", "aggregate"],
  ng_status: ["env", "status"],
  ng_dump_config: ["env", "resolve"],
  ng_validate: ["env", "validate"],
  ng_init_resources_server: ["env", "init"],
  ng_version: ["--version"],
  ng_help: ["--help"],
};

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
