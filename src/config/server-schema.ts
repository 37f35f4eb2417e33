// What a server implementation block must look like (NeMo Gym's BaseRunServerTypeConfig + DatasetConfig).
// Unknown keys are allowed: implementations add their own fields.
import { z } from "zod";

export const DOMAINS = [
  "math",
  "coding",
  "agent",
  "knowledge",
  "instruction_following",
  "long_context",
  "safety",
  "games",
  "translation",
  "e2e",
  "rlhf",
  "other",
] as const;

export const LICENSES = [
  "Apache 2.0",
  "MIT",
  "Creative Commons Attribution 4.0 International",
  "Creative Commons Attribution-ShareAlike 4.0 International",
  "CC BY-SA 4.0",
  "CC BY-NC 3.0",
  "NVIDIA Internal Use Only, Do Not Distribute",
  "NVIDIA Evaluation Dataset License Agreement",
  "TBD",
  "GNU General Public License v3.0",
] as const;

const integerLike = z.union([z.number().int(), z.string().regex(/^\d+$/, "expected an integer")]);

const gitlabIdentifier = z.looseObject({ dataset_name: z.string(), version: z.string(), artifact_fpath: z.string() });
const huggingFaceIdentifier = z.looseObject({ repo_id: z.string(), artifact_fpath: z.string().nullish() });

const datasetSource = z.discriminatedUnion("type", [
  gitlabIdentifier.extend({ type: z.literal("gitlab") }),
  huggingFaceIdentifier.extend({ type: z.literal("huggingface") }),
]);

const dataset = z
  .looseObject({
    name: z.string(),
    type: z.enum(["train", "validation", "example"]),
    jsonl_fpath: z.string(),
    num_repeats: z.number().int().min(1).optional(),
    source: datasetSource.nullish(),
    gitlab_identifier: gitlabIdentifier.nullish(),
    huggingface_identifier: huggingFaceIdentifier.nullish(),
    license: z.enum(LICENSES).nullish(),
  })
  .superRefine((value, ctx) => {
    if ((value.type === "train" || value.type === "validation") && (value.license === undefined || value.license === null)) {
      ctx.addIssue({ code: "custom", path: ["license"], message: `A license is required for ${value.type} dataset '${value.name}'` });
    }
    const legacy = (["gitlab_identifier", "huggingface_identifier"] as const).filter((key) => value[key] != null);
    if (value.source != null && legacy.length > 0) {
      ctx.addIssue({
        code: "custom",
        path: ["source"],
        message: `Specify the source of dataset '${value.name}' once: set only one of 'source', ${legacy.map((key) => `'${key}'`).join(", ")}`,
      });
    }
  });

const benchmarkDataset = z.looseObject({
  name: z.string(),
  type: z.literal("benchmark"),
  jsonl_fpath: z.string(),
  prepare_script: z.string(),
  prompt_config: z.string().nullish(),
  num_repeats: z.number().int().min(1).optional(),
});

const datasetEntry = z.unknown().superRefine((value, ctx) => {
  const schema = typeof value === "object" && value !== null && (value as { type?: unknown }).type === "benchmark" ? benchmarkDataset : dataset;
  const parsed = schema.safeParse(value);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: "custom", path: issue.path, message: issue.message });
});

export const serverFieldsSchema = z.looseObject({
  entrypoint: z.string({ error: "entrypoint is required (e.g. 'app.py')" }),
  host: z.string().nullish(),
  port: integerLike.nullish(),
  num_workers: integerLike.nullish(),
  domain: z.enum(DOMAINS).nullish(),
  datasets: z.array(datasetEntry).nullish(),
});

/** Validation problems of one implementation block, as `path: message` lines (empty when valid). */
export function serverFieldProblems(fields: unknown, requireDomain: boolean): string[] {
  const problems: string[] = [];
  const parsed = serverFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const where = issue.path.map(String).join(" -> ");
      problems.push(where ? `${where}: ${issue.message}` : issue.message);
    }
  }
  if (requireDomain && typeof fields === "object" && fields !== null && (fields as { domain?: unknown }).domain == null) {
    problems.push(`domain: a domain is required for resources servers (one of ${DOMAINS.join(", ")})`);
  }
  return problems;
}
