// The Hugging Face Hub as the dataset commands reach it: HF_ENDPOINT, the token from the config (`hf_token`,
// NeMo Gym's env.yaml key, or +hf_token=…) or else HF_TOKEN, and the download cache of `gym eval prepare`.
import { HuggingFaceHub } from "../client/hf-hub.ts";
import type { ConfigDict } from "../config/index.ts";
import { defaultCacheDir } from "../rollouts/prepare/run.ts";

export function hubAccess(resolved: ConfigDict, env: NodeJS.ProcessEnv = process.env): { hub: HuggingFaceHub; cacheDir: string } {
  const token = typeof resolved.hf_token === "string" && resolved.hf_token !== "" ? resolved.hf_token : env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN || undefined;
  return { hub: new HuggingFaceHub({ endpoint: env.HF_ENDPOINT || undefined, token }), cacheDir: defaultCacheDir(env) };
}
