// `gym dataset rm` (NeMo Gym's ng_delete_dataset_from_gitlab): NVIDIA's internal GitLab registry.
import { notApplicableCommand } from "./not-applicable.ts";

export const datasetRmCommand = notApplicableCommand({
  path: ["dataset", "rm"],
  nemoGym: "delete a dataset from GitLab",
  instead: "NeMo Gym's GitLab dataset registry is not used here; delete the dataset in GitLab (or Hugging Face) itself",
  legacyNames: { ng_delete_dataset_from_gitlab: [] },
});
