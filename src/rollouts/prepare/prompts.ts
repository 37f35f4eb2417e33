// The prompt_config a benchmark dataset names, when it is one of NeMo Gym's own templates (src/config/
// nemo-gym-files.ts) and is not here: fetched from NeMo Gym's repository at the pinned commit, checked against its
// recorded sha256, and written where the config says (relative to the benchmark's root), so that `gym eval run`
// finds it. A prompt already here is the user's to keep and is used as it is.
import { join } from "node:path";
import { fetchPinnedFile, PinnedFileError } from "../../client/pinned-file.ts";
import { UserError } from "../../config/errors.ts";
import { resolveUnderRoots } from "../../config/paths.ts";

export interface PromptFetchOptions {
  /** The root the benchmark config sits under: where a fetched prompt is written. */
  base: string;
  roots: readonly string[];
  /** NeMo Gym's repository at the pinned commit (or what stands in for it). */
  baseUrl: string;
  /** The digest each fetchable prompt must have, by path. */
  sha256: Readonly<Record<string, string>>;
  benchmark: string;
  print: (line: string) => void;
  maxRetries?: number;
}

export async function ensurePromptConfig(promptConfig: string | undefined, options: PromptFetchOptions): Promise<void> {
  if (!promptConfig) return;
  if (resolveUnderRoots(promptConfig, [options.base, ...options.roots]).found) return;
  const path = promptConfig.replace(/^\.\//, "");
  const sha256 = Object.hasOwn(options.sha256, path) ? options.sha256[path] : undefined;
  if (sha256 === undefined) {
    options.print(`${options.benchmark}: its prompt_config ${promptConfig} is not here and is not one of NeMo Gym's prompts this project fetches; gym eval run needs it`);
    return;
  }
  const url = `${options.baseUrl}/${path}`;
  const dest = join(options.base, ...path.split("/"));
  try {
    const result = await fetchPinnedFile({ url, dest, sha256, maxRetries: options.maxRetries ?? 3 });
    if (result.fetched) options.print(`${options.benchmark}: fetched its prompt_config ${path} from ${url} (${result.bytes} bytes, sha256 ${sha256!.slice(0, 12)}… as pinned)`);
  } catch (error) {
    if (error instanceof PinnedFileError) throw new UserError(`${options.benchmark}: prompt_config ${path}: ${error.message}`);
    throw error;
  }
}
