// `gym dataset download` (NeMo Gym's ng_download_dataset_from_hf / _from_gitlab). Downloading from the
// Hugging Face Hub needs a Hub client (repo listing, splits, revisions), which this project does not have yet.
import { notApplicableCommand } from "./not-applicable.ts";

export const datasetDownloadCommand = notApplicableCommand({
  path: ["dataset", "download"],
  nemoGym: "download a dataset from HF (default) or GitLab",
  instead:
    "downloading from the Hugging Face Hub needs a Hub client, which this project does not have yet (GitLab: NeMo Gym's internal registry, not used here); download the file with huggingface-cli download REPO_ID FILE --repo-type dataset --local-dir DIR",
  legacyNames: { ng_download_dataset_from_hf: [], ng_download_dataset_from_gitlab: [] },
});
