// A file a resources server reads as data — its judge prompt templates — named by the path its NeMo Gym config
// gives (`resources_servers/<name>/prompts/judge.yaml`, resolved under the search roots as NeMo Gym resolves it).
// When the file is one of NeMo Gym's own (src/config/nemo-gym-files.ts) and is not here, it is fetched from NeMo
// Gym's repository at the pinned commit on first use, checked against its sha256 and written where the path says
// (git-ignored: not ours to commit). A file that is neither here nor fetchable is a 501 naming it: the row cannot
// be scored by this port as configured, which is no reward.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { fetchPinnedFile, PinnedFileError } from "../client/pinned-file.ts";
import { PROJECT_ROOT, searchRoots } from "../config/index.ts";
import { resolveUnderRoots } from "../config/paths.ts";
import { NEMO_GYM_SERVER_FILE_SHA256, nemoGymRawBaseUrl } from "../config/nemo-gym-files.ts";
import { HttpError } from "../protocol/errors.ts";

const loads = new Map<string, Promise<string>>();

async function load(path: string): Promise<string> {
  const found = resolveUnderRoots(path, searchRoots());
  if (found.found) return readFileSync(found.path, "utf8");
  const repoPath = path.replace(/^\.\//, "");
  const sha256 = Object.hasOwn(NEMO_GYM_SERVER_FILE_SHA256, repoPath) ? NEMO_GYM_SERVER_FILE_SHA256[repoPath]! : undefined;
  if (sha256 === undefined) throw new HttpError(501, `${path} is not here (searched ${found.searched.join(", ")}) and is not one of NeMo Gym's files this project fetches`);
  const dest = join(PROJECT_ROOT, ...repoPath.split("/"));
  const url = `${nemoGymRawBaseUrl()}/${repoPath}`;
  try {
    await fetchPinnedFile({ url, dest, sha256, maxRetries: 3 });
  } catch (error) {
    if (error instanceof PinnedFileError) throw new HttpError(501, `${path} (NeMo Gym's file, fetched on first use) is not here: ${error.message}`);
    throw error;
  }
  return readFileSync(dest, "utf8");
}

/** The file's text; loaded once per process (a failed load is retried by the next call). */
export function readServerDataFile(path: string): Promise<string> {
  let pending = loads.get(path);
  if (!pending) {
    pending = load(path);
    loads.set(path, pending);
    pending.catch(() => loads.delete(path));
  }
  return pending;
}

/** NeMo Gym's prompt YAML (`nemo_gym/prompt.py` PromptConfig): `user` required, `system` optional. */
export const ServerPromptConfigSchema = z.object({ user: z.string(), system: z.string().nullish() });
export type ServerPromptConfig = z.output<typeof ServerPromptConfigSchema>;

/** A prompt YAML read through readServerDataFile; a file that is not a PromptConfig is a 500 naming it. */
export async function readServerPromptConfig(path: string): Promise<ServerPromptConfig> {
  const text = await readServerDataFile(path);
  const parsed = ServerPromptConfigSchema.safeParse(parseYaml(text));
  if (!parsed.success) throw new Error(`${path}: not a prompt config ({user: "...", system?: "..."}): ${parsed.error.message}`);
  return parsed.data;
}
