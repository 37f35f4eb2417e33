// IFEval / IF-RLVR verifiable instructions (the `verifiable-instructions` library NeMo Gym's
// instruction_following server uses): check one instruction id with its kwargs against a response.
import { InstructionError, type Kwargs } from "./instruction.ts";
import { INSTRUCTIONS, UNSUPPORTED_INSTRUCTIONS } from "./registry.ts";

export { INSTRUCTIONS, UNSUPPORTED_INSTRUCTIONS } from "./registry.ts";
export type { Instruction, Kwargs } from "./instruction.ts";

export interface InstructionResult {
  followed: boolean;
  /** Why the instruction could not be checked (Python raised): unknown id, bad kwargs, … */
  error?: string;
}

/**
 * `cls(id).build_description(**kwargs)` then `check_following(response)`, where kwargs is the row's dict with
 * its None values dropped. Any failure — an unknown id, a kwarg the checker does not take, a value it cannot
 * use — is not followed, with the reason in `error`.
 */
export function checkInstruction(instructionId: unknown, kwargs: unknown, response: string): InstructionResult {
  try {
    if (typeof instructionId !== "string") throw new InstructionError(`unhashable or unknown instruction id ${JSON.stringify(instructionId)}`);
    const checker = INSTRUCTIONS.get(instructionId);
    if (!checker) {
      const reason = UNSUPPORTED_INSTRUCTIONS.includes(instructionId) ? "not supported by this port (needs langdetect)" : "unknown instruction id";
      throw new InstructionError(`${JSON.stringify(instructionId)}: ${reason}`);
    }
    const given = kwargs === null || kwargs === undefined ? {} : kwargs;
    if (typeof given !== "object" || Array.isArray(given)) throw new InstructionError(`kwargs must be a dict, got ${JSON.stringify(given)}`);
    const present = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== null && value !== undefined)) as Kwargs;
    const unexpected = Object.keys(present).filter((key) => !checker.args.includes(key));
    if (unexpected.length > 0) throw new InstructionError(`build_description() got an unexpected keyword argument '${unexpected[0]}'`);
    return { followed: checker.build(present)(response) === true };
  } catch (error) {
    return { followed: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}
