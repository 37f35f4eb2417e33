/**
 * Content parts inside Responses API message items.
 *
 * Input parts are openai-python TypedDict params (unknown keys dropped, keys
 * re-ordered to declaration order, optional keys stay absent). Output parts
 * are NeMo Gym pydantic models (unknown keys dropped, defaults filled).
 */
import { z } from "zod";
import { member, nullDefault, smartUnion } from "../python/pydantic/index.ts";

// ---- input parts (ResponseInputContentParam) ----

export const InputTextSchema = z.object({
  text: z.string(),
  type: z.literal("input_text"),
});

export const InputImageSchema = z.object({
  // Required at the pinned openai version: an image part without `detail` is rejected.
  detail: z.enum(["low", "high", "auto"]),
  type: z.literal("input_image"),
  file_id: z.string().nullable().optional(),
  image_url: z.string().nullable().optional(),
});

export const InputFileSchema = z.object({
  type: z.literal("input_file"),
  file_data: z.string().optional(),
  file_id: z.string().nullable().optional(),
  file_url: z.string().optional(),
  filename: z.string().optional(),
});

export const InputContentPartSchema = z.discriminatedUnion("type", [InputTextSchema, InputImageSchema, InputFileSchema]);
export type InputContentPart = z.output<typeof InputContentPartSchema>;

// ---- output_text annotations and logprobs (TypedDict params) ----

const FileCitationSchema = z.object({
  file_id: z.string(),
  filename: z.string(),
  index: z.int(),
  type: z.literal("file_citation"),
});
const UrlCitationSchema = z.object({
  end_index: z.int(),
  start_index: z.int(),
  title: z.string(),
  type: z.literal("url_citation"),
  url: z.string(),
});
const ContainerFileCitationSchema = z.object({
  container_id: z.string(),
  end_index: z.int(),
  file_id: z.string(),
  filename: z.string(),
  start_index: z.int(),
  type: z.literal("container_file_citation"),
});
const FilePathSchema = z.object({
  file_id: z.string(),
  index: z.int(),
  type: z.literal("file_path"),
});

export const AnnotationSchema = z.discriminatedUnion("type", [
  FileCitationSchema,
  UrlCitationSchema,
  ContainerFileCitationSchema,
  FilePathSchema,
]);

const TopLogprobSchema = z.object({
  token: z.string(),
  bytes: z.array(z.int()),
  logprob: z.number(),
});

export const LogprobSchema = z.object({
  token: z.string(),
  bytes: z.array(z.int()),
  logprob: z.number(),
  top_logprobs: z.array(TopLogprobSchema),
});

// ---- output parts (NeMoGymResponseOutputText / NeMoGymResponseOutputRefusal) ----

export const OutputTextSchema = z.object({
  // Required, as in the pinned pydantic model (`annotations: List[Annotation]`, no default).
  annotations: z.array(AnnotationSchema),
  text: z.string(),
  type: z.literal("output_text").default("output_text"),
  logprobs: nullDefault(z.array(LogprobSchema)),
});
export type OutputText = z.output<typeof OutputTextSchema>;

export const RefusalSchema = z.object({
  refusal: z.string(),
  type: z.literal("refusal").default("refusal"),
});
export type Refusal = z.output<typeof RefusalSchema>;

// Both parts default their `type`, so pydantic ranks them by fields set.
export const OutputContentPartSchema = smartUnion("output content part", [
  member("NeMoGymResponseOutputText", OutputTextSchema),
  member("NeMoGymResponseOutputRefusal", RefusalSchema),
]);
export type OutputContentPart = z.output<typeof OutputContentPartSchema>;

// ---- reasoning summary (openai Summary model: extra keys kept) ----

export const SummaryTextSchema = z.looseObject({
  text: z.string(),
  type: z.literal("summary_text"),
});
export type SummaryText = z.output<typeof SummaryTextSchema>;
