// AllenAI's IFBench instruction checkers (instructions_registry.INSTRUCTION_DICT, as NeMo Gym's ifbench server
// imports it): check one instruction id with its kwargs against a response.
import { InstructionError } from "../instructions/instruction.ts";
import type { Check, Kwargs } from "./instruction.ts";
import { IFBENCH_INSTRUCTIONS, UNSUPPORTED_IFBENCH_INSTRUCTIONS } from "./registry.ts";

export { IFBENCH_INSTRUCTIONS, UNSUPPORTED_IFBENCH_INSTRUCTIONS } from "./registry.ts";
export type { IfbenchInstruction } from "./instruction.ts";

/** Why an instruction cannot be checked here: the id and what it needs. */
export class UnsupportedInstructionError extends Error {
  override name = "UnsupportedInstructionError";
  constructor(
    readonly instructionId: string,
    readonly missing: string,
  ) {
    super(`${instructionId} needs ${missing}, which this port does not have`);
  }
}

/** The row's kwargs for one instruction with None values dropped: `{k: v for k, v in (kwargs or {}).items() if v is not None}`. */
function presentKwargs(kwargs: unknown): Kwargs {
  if (kwargs === null || kwargs === undefined || kwargs === false || kwargs === 0 || kwargs === "" || (Array.isArray(kwargs) && kwargs.length === 0)) return {};
  if (typeof kwargs !== "object" || Array.isArray(kwargs)) throw new InstructionError(`'${Array.isArray(kwargs) ? "list" : typeof kwargs}' object has no attribute 'items'`);
  return Object.fromEntries(Object.entries(kwargs).filter(([, value]) => value !== null && value !== undefined));
}

/**
 * `INSTRUCTION_DICT[id](id)` then `build_description(**kwargs)` (kwargs without their None values): the
 * `check_following` to call on each response variant. Throws InstructionError where Python raises (an unknown id, a
 * kwarg the checker does not take, a value it cannot use): NeMo Gym counts that instruction as not followed.
 * Throws UnsupportedInstructionError for an id this port cannot check — unless building already fails, which
 * decides the verdict without the missing piece.
 */
export function buildIfbenchInstruction(instructionId: unknown, kwargs: unknown): Check {
  if (typeof instructionId !== "string") throw new InstructionError(`unknown instruction id ${JSON.stringify(instructionId)}`);
  const present = presentKwargs(kwargs);
  const missing = UNSUPPORTED_IFBENCH_INSTRUCTIONS.get(instructionId);
  if (missing !== undefined) {
    const given = Object.keys(present);
    if (given.length > 0) throw new InstructionError(`build_description() got an unexpected keyword argument '${given[0]}'`);
    throw new UnsupportedInstructionError(instructionId, missing);
  }
  const checker = IFBENCH_INSTRUCTIONS.get(instructionId);
  if (!checker) throw new InstructionError(`${JSON.stringify(instructionId)}: unknown instruction id`);
  if (checker.args !== "any") {
    const unexpected = Object.keys(present).filter((key) => !checker.args.includes(key));
    if (unexpected.length > 0) throw new InstructionError(`build_description() got an unexpected keyword argument '${unexpected[0]}'`);
  }
  return checker.build(present);
}
