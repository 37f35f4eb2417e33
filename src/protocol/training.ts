/**
 * Token-level training fields ("ForTraining" variants in NeMo Gym).
 *
 * In training mode the model server attaches prompt/generation token ids and
 * log-probs to the last output item of each model call; they then travel back
 * in `input` on the next turn. Five item kinds have such a variant (easy
 * message, message, output message, function call, reasoning) and so does the
 * Chat Completions assistant message.
 */
import { z } from "zod";
import { isPlainObject, NOT_PARSED, parseForwarding } from "../python/pydantic/index.ts";

/**
 * Per-token routed MoE experts, shape [tokens][layers][topk], or an opaque
 * string envelope (e.g. NeMo-RL's "nrlre1:<dtype>:<SxLxK>:<base64>") that Gym
 * never inspects. Nothing else is accepted.
 */
export const RoutedExpertsSchema = z.union([z.string(), z.array(z.array(z.array(z.int())))]);
export type RoutedExperts = z.output<typeof RoutedExpertsSchema>;

/**
 * Field order matters: pydantic collects the mixin's fields before the item's
 * own (it walks the MRO from the base), so the token fields come first in the
 * dump, as in the reference rollouts.
 *
 * `routed_experts` is kept only when given (pydantic at the pinned commit
 * would dump `"routed_experts": null`; the reference rollouts omit it).
 */
/**
 * A number list checked in one tight loop: a 65k-token generation would otherwise cost zod 65k
 * element parses per hop. Only a list that fails falls back to zod, for its exact error.
 */
function numberList(element: z.ZodNumber, isValid: (value: unknown) => boolean): z.ZodType<number[], number[]> {
  const full = z.array(element);
  return z.unknown().transform((input, ctx) => {
    if (Array.isArray(input) && input.every(isValid)) return input as number[];
    const parsed = parseForwarding<number[]>(full, input, ctx.issues);
    return parsed === NOT_PARSED ? z.NEVER : parsed;
  }) as unknown as z.ZodType<number[], number[]>;
}
const isSafeInt = (value: unknown) => Number.isSafeInteger(value);
const isFiniteNumber = (value: unknown) => typeof value === "number" && Number.isFinite(value);

export const trainingShape = {
  prompt_token_ids: numberList(z.int(), isSafeInt),
  generation_token_ids: numberList(z.int(), isSafeInt),
  generation_log_probs: numberList(z.number(), isFiniteNumber),
  routed_experts: RoutedExpertsSchema.nullable().optional(),
};

export const TRAINING_KEYS = Object.keys(trainingShape) as (keyof typeof trainingShape)[];

export type TrainingFields = z.output<z.ZodObject<typeof trainingShape>>;
type TrainingFieldsInput = z.input<z.ZodObject<typeof trainingShape>>;

/** True when the raw input carries any training key (so the training variant must apply). */
export function hasTrainingKeys(input: unknown): boolean {
  return isPlainObject(input) && TRAINING_KEYS.some((k) => input[k] !== undefined);
}

/**
 * An item kind that optionally carries training fields: the base model when
 * no training key is present, otherwise the ForTraining variant with all
 * three token lists required.
 *
 * pydantic's union would silently fall back to the base model (dropping the
 * fields) when the set is partial or `routed_experts` is malformed; we reject
 * instead, because losing token ids silently corrupts training data.
 */
export function withTraining<B extends z.ZodObject>(
  base: B,
  training: z.ZodObject = trainingVariant(base),
): z.ZodType<z.output<B> & Partial<TrainingFields>, z.input<B> & Partial<TrainingFieldsInput>> {
  const schema = z.unknown().transform((input, ctx) => {
    const parsed = parseForwarding<z.output<B> & Partial<TrainingFields>>(hasTrainingKeys(input) ? training : base, input, ctx.issues);
    return parsed === NOT_PARSED ? z.NEVER : parsed;
  });
  // The transform hides the input type; restore it for callers building requests.
  return schema as unknown as z.ZodType<
    z.output<B> & Partial<TrainingFields>,
    z.input<B> & Partial<TrainingFieldsInput>
  >;
}

/** The ForTraining variant of a base object: token fields first, same extra-key policy. */
export function trainingVariant(base: z.ZodObject): z.ZodObject {
  const variant = z.object({ ...trainingShape, ...base.shape });
  const catchall = base.def.catchall;
  return catchall ? variant.catchall(catchall) : variant;
}
