// The `gym` command line (NeMo Gym's verbs; the `ng_*` names are aliases). Every command comes from the one
// table (commands.ts); errors end here: a user's mistake (`UserError`) is one line and exit 2, anything else
// is a bug and keeps its stack trace (exit 1). A file-system error on a path (missing, not writable, disk full)
// is the machine's, not the code's: one line too.
import { Command, CommanderError } from "commander";
import { UserError } from "../config/errors.ts";
import { GymCommander, processOutput, registerCommands, type CommandOutput, type GymCommand } from "./command.ts";
import { COMMAND_GROUPS, loadCommandsFor } from "./commands.ts";
import { expandLegacyCommand } from "./legacy-aliases.ts";
import { formatVersion } from "./version.ts";
import { ServerExitedError } from "./server-session.ts";

/** The exit code of a user's mistake (commander's usage errors included). */
export const USER_ERROR_EXIT_CODE = 2;

/** A message on one line (some config errors list what they looked at on lines of their own). */
export function oneLine(message: string): string {
  return message
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
}

export function buildProgram(table: readonly GymCommand[], output: CommandOutput = processOutput): Command {
  const program = new GymCommander("gym")
    .description("NeMo Gym in TypeScript: environments, agents and model servers for RL on LLM agents")
    // `gym list environments --json` is the command's --json, not `gym --json` (which only goes with --version).
    .enablePositionalOptions()
    .option("--version", "show the NeMo Gym TS version and exit")
    .option("--json", "with --version, output as JSON")
    .option("-v, --verbose", "set logging level to DEBUG (also accepted after the command)")
    // The root runs only for `gym --version` and a bare `gym` (help, exit 1, as NeMo Gym); a word that is no
    // command is reported as one.
    .allowExcessArguments()
    .action((options: { version?: boolean; json?: boolean }, command: GymCommander) => {
      if (command.args.length > 0) command.unknownCommand();
      if (!options.version) command.help({ error: true });
      output.out(`${formatVersion(options.json === true)}\n`);
    });
  program.addHelpText("after", "\nExamples:\n  $ gym env start --resources-server mcqa --model-type scripted_model\n  $ gym --version --json\n");
  return registerCommands(program, table, { groups: COMMAND_GROUPS, output });
}

/** Parses and runs; the exit code, with every error reported by its type (see the top of this file). */
export async function runProgram(program: Command, args: string[], err: (text: string) => void = processOutput.err): Promise<number> {
  try {
    await program.parseAsync(args, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof UserError) {
      err(`error: ${oneLine(error.message)}\n`);
      return USER_ERROR_EXIT_CODE;
    }
    // Help or version shown, or a command that finished with a non-zero code (it said why itself).
    if (error instanceof CommanderError) return error.exitCode;
    // A server started for the command died while it ran: its own output (above) says why; our stack would not.
    if (error instanceof ServerExitedError) {
      err(`error: ${error.message}; its output is above\n`);
      return 1;
    }
    const fileProblem = fileSystemProblem(error);
    if (fileProblem) {
      err(`error: ${fileProblem}\n`);
      return USER_ERROR_EXIT_CODE;
    }
    err(`error: ${(error as Error)?.stack ?? String(error)}\n`);
    return 1;
  }
}

/** What a user can fix on their machine (a path that is missing, not writable, a disk that is full): no stack. */
const FILE_SYSTEM_CODES = new Set(["ENOENT", "EACCES", "EPERM", "EEXIST", "ENOTDIR", "EISDIR", "ENOSPC", "EROFS", "EDQUOT"]);

/** `cannot <syscall> '<path>': <code>` for a file-system error on a path, else undefined. */
export function fileSystemProblem(error: unknown): string | undefined {
  const { code, syscall, path } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== "string" || !FILE_SYSTEM_CODES.has(code) || typeof path !== "string") return undefined;
  return `cannot ${syscall ?? "use"} '${path}': ${code}`;
}

export async function main(programName: string, argv: string[]): Promise<number> {
  const { args, notice } = expandLegacyCommand(programName, argv);
  if (notice) process.stderr.write(`${notice}\n`);
  return runProgram(buildProgram(await loadCommandsFor(args)), args);
}
