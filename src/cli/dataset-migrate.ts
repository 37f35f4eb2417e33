// `gym dataset migrate` (NeMo Gym's ng_gitlab_to_hf_dataset): GitLab → Hugging Face transfer.
import { notApplicableCommand } from "./not-applicable.ts";

export const datasetMigrateCommand = notApplicableCommand({
  path: ["dataset", "migrate"],
  nemoGym: "transfer a dataset from GitLab to HF",
  instead: "NeMo Gym's GitLab dataset registry is not used here; download the file from GitLab and upload it with huggingface-cli upload",
  legacyNames: { ng_gitlab_to_hf_dataset: [] },
});
