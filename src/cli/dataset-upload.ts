// `gym dataset upload` (NeMo Gym's ng_upload_dataset_to_hf / _to_gitlab): publishing datasets is not ported.
import { notApplicableCommand } from "./not-applicable.ts";

export const datasetUploadCommand = notApplicableCommand({
  path: ["dataset", "upload"],
  nemoGym: "upload a prepared dataset to HF (default) or GitLab",
  instead: "uploading datasets to Hugging Face or GitLab is not ported; upload the JSONL with huggingface-cli upload (or git) and name it in the agent's datasets[].huggingface_identifier",
  legacyNames: { ng_upload_dataset_to_hf: [], ng_upload_dataset_to_gitlab: [] },
});
