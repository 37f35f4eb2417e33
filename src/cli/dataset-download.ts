// `gym dataset download` (NeMo Gym's ng_download_dataset_from_hf): a dataset of the Hugging Face Hub written as
// JSON Lines — one split, every split, or one raw file of the repo (see src/rollouts/hf-dataset-download.ts).
// `--storage gitlab` (ng_download_dataset_from_gitlab) is NeMo Gym's internal registry, not used here.
import { UserError } from "../config/errors.ts";
import { downloadHfDataset, HF_SPLITS } from "../rollouts/hf-dataset-download.ts";
import { arg, defineCommand, flag } from "./command.ts";
import { hubAccess } from "./hub-access.ts";
import { flagOverrides } from "./load-config.ts";

const GITLAB_REFUSAL =
  "gym dataset download --storage gitlab does not apply here: NeMo Gym's GitLab dataset registry is not used here; download the file from GitLab yourself, or from the dataset's Hugging Face repo (--repo-id ORG/NAME)";

export const datasetDownloadCommand = defineCommand({
  path: ["dataset", "download"],
  description: "download a Hugging Face dataset as JSON Lines: one split, every split, or one file of the repo (NeMo Gym's ng_download_dataset_from_hf)",
  examples: [
    "gym dataset download --repo-id nvidia/Nemotron-RL-math-OpenMathReasoning --split train --output data/train.jsonl",
    "gym dataset download --repo-id ORG/NAME --output-dir data/        # every split, data/<split>.jsonl",
    "gym dataset download --repo-id ORG/NAME --artifact train.jsonl --output data/train.jsonl",
    "ng_download_dataset_from_hf +repo_id=ORG/NAME +split=validation +output_dirpath=data",
  ],
  legacyNames: { ng_download_dataset_from_hf: [], ng_download_dataset_from_gitlab: ["--storage=gitlab"] },
  args: { overrides: arg.overrides() },
  flags: {
    storage: flag.string("backend", "storage backend: hf (default) or gitlab (not used here)", { choices: ["hf", "gitlab"] }),
    repoId: flag.string("org/name", "the Hugging Face dataset repo (+repo_id)"),
    artifact: flag.string("file", "one file of the repo, copied as it is (+artifact_fpath)"),
    output: flag.string("file", "where the file goes; needs --split or --artifact (+output_fpath)", { short: "o" }),
    outputDir: flag.string("dir", "where <split>.jsonl (or the artifact) goes; without --split, every split (+output_dirpath)"),
    split: flag.string("split", `the split to download: ${HF_SPLITS.join(", ")} (+split)`, { choices: HF_SPLITS }),
    name: flag.string("name", "GitLab dataset name (GitLab only; not used here)"),
    revision: flag.string("version", "GitLab dataset version (GitLab only; not used here)"),
  },
  helpAfter: "\nHF_TOKEN (or hf_token in env.yaml) for gated or private datasets; HF_ENDPOINT for a mirror. Downloads are cached in $NEMO_GYM_CACHE_DIR and resume after an interruption.\n",
  toConfig: (flags) => {
    if (flags.storage === "gitlab") throw new UserError(GITLAB_REFUSAL);
    return {
      overrides: flags.overrides,
      withoutModel: true,
      flagOverrides: flagOverrides({ repo_id: flags.repoId, artifact_fpath: flags.artifact, output_fpath: flags.output, output_dirpath: flags.outputDir, split: flags.split }),
    };
  },
  async run({ resolved }, { print }) {
    const text = (key: string): string | undefined => (typeof resolved[key] === "string" && resolved[key] !== "" ? (resolved[key] as string) : undefined);
    const repoId = text("repo_id");
    if (!repoId) throw new UserError("repo_id is required (--repo-id ORG/NAME or +repo_id=ORG/NAME)");
    const request = { repoId, artifactFpath: text("artifact_fpath"), outputFpath: text("output_fpath"), outputDirpath: text("output_dirpath"), split: text("split") };
    print(request.artifactFpath ? `Downloading file '${request.artifactFpath}' from '${repoId}'...` : `Downloading '${request.split ?? "all"}' split(s) from '${repoId}'...`);
    await downloadHfDataset(request, { ...hubAccess(resolved), log: print });
  },
});
