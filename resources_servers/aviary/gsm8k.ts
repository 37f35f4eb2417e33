// The GSM8K server's definition, shared by gsm8k_app.ts (what NeMo Gym's configs name) and app.ts.
import { z } from "zod";
import { HttpError } from "../../src/protocol/errors.ts";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
import { aviaryResourcesServer, BaseAviaryConfigSchema } from "../../src/ports/aviary/resources-server.ts";
import { Gsm8kDataset, GSM8K_SPLITS } from "../../src/ports/aviary/gsm8k.ts";
import { AVIARY_REFUSED_KEYS } from "./refused.ts";

const Gsm8kConfig = BaseAviaryConfigSchema.and(
  z.looseObject({
    /**
     * This port's own key (NeMo Gym downloads openai/gsm8k from Hugging Face inside aviary): a JSONL file of the
     * source split's rows, `{"question", "answer"}` as in openai/gsm8k `main` (the train split for train_full /
     * train / val, the test split for test). Relative paths are tried against the working directory, then the
     * repository root.
     */
    gsm8k_jsonl_fpath: z.string().nullish(),
    /** aviary's GSM8kDatasetSplit; NeMo Gym's server uses `train` (train_full rows whose index % 5 != 0). */
    gsm8k_split: z.enum(GSM8K_SPLITS).default("train"),
  }),
);

export default aviaryResourcesServer({
  name: "GSM8kResourcesServer",
  config: Gsm8kConfig,
  refusedConfigKeys: AVIARY_REFUSED_KEYS,
  dataset(config) {
    if (!config.gsm8k_jsonl_fpath) {
      throw new HttpError(501, "GSM8K problems: set gsm8k_jsonl_fpath to a JSONL copy of openai/gsm8k (main, train split: one {\"question\", \"answer\"} per line); NeMo Gym downloads it from Hugging Face, this port reads a local file");
    }
    const { path, found, searched } = resolveUnderRoots(config.gsm8k_jsonl_fpath, searchRoots());
    if (!found) throw new HttpError(501, `GSM8K problems: gsm8k_jsonl_fpath '${config.gsm8k_jsonl_fpath}' not found (looked at ${searched.join(", ")})`);
    return Gsm8kDataset.fromJsonl(path, config.gsm8k_split);
  },
});
