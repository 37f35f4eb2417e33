// IFEval-style instruction following: the model's final text is checked against each instruction of the row
// (verifiable-instructions' checkers, src/ports/instructions). `binary` grading rewards 1 only when every
// instruction is followed, `fraction` the share followed. The verifier fields live under `verifier_metadata`;
// older rows keep them at the top level and are migrated as NeMo Gym migrates them.
import { z } from "zod";
import { HttpError, resourcesServer } from "../../src/server/index.ts";
import { checkInstruction, UNSUPPORTED_INSTRUCTIONS } from "../../src/ports/instructions/index.ts";
import { finalResponseText } from "../../src/ports/assistant-answer-text.ts";

const VERIFIER_FIELDS = ["instruction_id_list", "prompt", "kwargs", "grading_mode"] as const;
const REQUIRED_FIELDS = ["instruction_id_list", "prompt", "kwargs"];

const VerifyInput = z
  .object({
    id: z.number().int(),
    verifier_metadata: z.record(z.string(), z.unknown()).nullish(),
    instruction_id_list: z.unknown().optional(),
    prompt: z.unknown().optional(),
    kwargs: z.unknown().optional(),
    grading_mode: z.unknown().optional(),
  })
  .transform((row, context) => {
    // A top-level field fills the metadata only where the metadata lacks it.
    const metadata: Record<string, unknown> = { ...(row.verifier_metadata ?? {}) };
    for (const field of VERIFIER_FIELDS) if (!(field in metadata) && field in row) metadata[field] = row[field];
    const missing = REQUIRED_FIELDS.filter((field) => !(field in metadata));
    if (missing.length > 0) {
      context.addIssue({ code: "custom", path: ["verifier_metadata"], message: `verifier_metadata is missing required fields: [${missing.map((f) => `'${f}'`).join(", ")}]` });
      return z.NEVER;
    }
    return { verifier_metadata: metadata };
  });

/** Python's iteration of a metadata list (zip accepts any iterable; anything else is a TypeError, a 500). */
function items(value: unknown, field: string): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return Array.from(value);
  if (value !== null && typeof value === "object") return Object.keys(value);
  throw new TypeError(`verifier_metadata.${field} is not iterable`);
}

export default resourcesServer({
  name: "InstructionFollowingResourcesServer",
  tools: {},
  verify: {
    input: VerifyInput,
    run(_state, { response, verifier_metadata }, context) {
      const text = finalResponseText(response);
      const ids = items(verifier_metadata.instruction_id_list, "instruction_id_list");
      const kwargsList = items(verifier_metadata.kwargs, "kwargs");
      // NeMo Gym checks these; scoring them "not followed" here would be a made-up 0, so the row is a typed failure.
      const unsupported = ids.slice(0, kwargsList.length).filter((id) => UNSUPPORTED_INSTRUCTIONS.includes(id as string));
      if (unsupported.length > 0) throw new HttpError(501, `instruction(s) ${unsupported.map(String).join(", ")} need langdetect's language profiles, which this port does not have; this row cannot be scored`);
      const followed = ids.slice(0, kwargsList.length).map((id, i) => {
        const result = checkInstruction(id, kwargsList[i], text);
        if (result.error) context.server.log.warn(`Error processing instruction ${String(id)}: ${result.error}`);
        return result.followed;
      });
      const gradingMode = "grading_mode" in verifier_metadata ? verifier_metadata.grading_mode : "binary";
      const followAll = followed.every(Boolean);
      let reward: number;
      if (gradingMode === "binary") reward = followAll ? 1 : 0;
      else if (gradingMode === "fraction") reward = followed.length === 0 ? 0 : followed.filter(Boolean).length / followed.length;
      else throw new Error(`Invalid grading_mode: ${String(gradingMode)}`);
      return { reward, follow_all_instructions: followAll, follow_instruction_list: followed, verifier_metadata };
    },
  },
});
