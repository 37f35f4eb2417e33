// NeMo Gym commands that have no counterpart in this project (per-server Python venvs, Slurm, GitLab and
// Hugging Face uploads, NeMo Gym's own test suite). Each still exists, so that a NeMo Gym user's habit gets
// one line on why it does not apply here and what to do instead, rather than "invalid choice". Whatever
// flags NeMo Gym's version takes are accepted (and ignored) so the answer is always that line.
import { UserError } from "../config/errors.ts";
import { arg, defineCommand, type GymCommand } from "./command.ts";

/** The command line it stands for was understood and does not apply: a user error (exit 2), one line. */
export class NotApplicableError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "NotApplicableError";
  }
}

export interface NotApplicable {
  path: readonly string[];
  /** NeMo Gym's summary of the command. */
  nemoGym: string;
  /** Why not here, and what to do instead. */
  instead: string;
  legacyNames?: Readonly<Record<string, readonly string[]>>;
}

export function notApplicableCommand(spec: NotApplicable): GymCommand {
  const line = `gym ${spec.path.join(" ")} does not apply here: ${spec.instead}`;
  return defineCommand({
    path: spec.path,
    description: `(NeMo Gym: ${spec.nemoGym}) not applicable here — ${spec.instead}`,
    examples: [`gym ${spec.path.join(" ")}`],
    legacyNames: spec.legacyNames,
    args: { words: arg.variadic("whatever NeMo Gym's command takes (ignored)") },
    flags: {},
    acceptsAnything: true,
    run() {
      throw new NotApplicableError(line);
    },
  });
}
