// IFBench instruction following (AllenAI's IFBench checkers, src/ports/ifbench): the model's final text is checked
// against each instruction of the row, strictly on the text as it is and loosely on eight variants of it (the text,
// without "*", without its first and/or last line), as NeMo Gym's ifbench server does. `fraction` grading (the
// default) rewards the share of instructions followed, `binary` 1 only when all are; `reward` is strict,
// `reward_loose` loose.
import { z } from "zod";
import { HttpError, resourcesServer } from "../../src/server/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { buildIfbenchInstruction, UnsupportedInstructionError } from "../../src/ports/ifbench/index.ts";
import { finalResponseText } from "../../src/ports/assistant-answer-text.ts";

const Config = z.looseObject({
  // NeMo Gym's semaphore around its thread-pool checks; checks run inline here, so it only has to be valid (0 would
  // block every verify there).
  num_processes: z.number().int().positive().default(32),
});

const VerifyInput = z.object({
  id: z.number().int(),
  instruction_id_list: z.array(z.string()),
  prompt: z.string(),
  kwargs: z.array(z.unknown()),
  grading_mode: z.enum(["binary", "fraction"]).default("fraction"),
});

const withoutStars = (text: string) => text.replaceAll("*", "");

/** The response variants of loose scoring (AllenAI's evaluation_lib): the raw response first. */
export function looseResponseVariants(response: string): string[] {
  const lines = response.split("\n");
  const removeFirst = pythonStrip(lines.slice(1).join("\n"));
  const removeLast = pythonStrip(lines.slice(0, -1).join("\n"));
  const removeBoth = pythonStrip(lines.slice(1, -1).join("\n"));
  return [response, withoutStars(response), removeFirst, removeLast, removeBoth, withoutStars(removeFirst), withoutStars(removeLast), withoutStars(removeBoth)];
}

interface Verdicts {
  strict: boolean[];
  loose: boolean[];
}

/** Strict and loose verdicts per instruction (ids and kwargs paired as zip() pairs them). */
function checkInstructions(ids: readonly string[], kwargsList: readonly unknown[], response: string, warn: (message: string) => void): Verdicts {
  const pairs = ids.slice(0, kwargsList.length);
  if (pythonStrip(response) === "") return { strict: pairs.map(() => false), loose: pairs.map(() => false) };
  const variants = looseResponseVariants(response);
  const strict: boolean[] = [];
  const loose: boolean[] = [];
  const unsupported: UnsupportedInstructionError[] = [];
  pairs.forEach((id, i) => {
    let strictVerdict = false;
    let looseVerdict = false;
    try {
      const check = buildIfbenchInstruction(id, kwargsList[i]);
      for (const [index, variant] of variants.entries()) {
        if (pythonStrip(variant) === "") continue;
        let follows = false;
        try {
          follows = check(variant);
        } catch (error) {
          warn(`check_following failed for instruction ${id}: ${String(error)}`);
        }
        if (index === 0) strictVerdict = follows;
        if (follows) {
          looseVerdict = true;
          break;
        }
      }
    } catch (error) {
      if (error instanceof UnsupportedInstructionError) unsupported.push(error);
      else warn(`Error processing instruction ${id}: ${String(error)}`);
    }
    strict.push(strictVerdict);
    loose.push(looseVerdict);
  });
  // NeMo Gym scores these; "not followed" here would be a made-up verdict, so the row is a typed failure.
  if (unsupported.length > 0) throw new HttpError(501, `this row cannot be scored here: ${unsupported.map((error) => error.message).join("; ")}`);
  return { strict, loose };
}

function reward(followed: readonly boolean[], gradingMode: "binary" | "fraction"): number {
  if (gradingMode === "binary") return followed.every(Boolean) ? 1 : 0;
  return followed.length === 0 ? 0 : followed.filter(Boolean).length / followed.length;
}

export default resourcesServer({
  name: "IFBenchResourcesServer",
  config: Config,
  tools: {},
  floatFields: ["reward_loose"],
  verify: {
    input: VerifyInput,
    run(_state, { response, instruction_id_list, prompt, kwargs, grading_mode }, context) {
      const { strict, loose } = checkInstructions(instruction_id_list, kwargs, finalResponseText(response), (message) => context.server.log.warn(message));
      return {
        reward: reward(strict, grading_mode),
        follow_all_instructions: strict.every(Boolean),
        follow_instruction_list: strict,
        follow_all_instructions_loose: loose.every(Boolean),
        follow_instruction_list_loose: loose,
        reward_loose: reward(loose, grading_mode),
        kwargs,
        instruction_id_list,
        prompt,
        grading_mode,
      };
    },
  },
});
