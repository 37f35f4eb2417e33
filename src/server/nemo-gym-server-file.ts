// NeMo Gym's own files that a ported resources server reads as data (its judge prompt templates). They are NeMo Gym's
// text, so they are never committed: when one is not here, it is fetched from NeMo Gym's repository at the pinned
// commit, checked against its sha256 (src/config/nemo-gym-files.ts) and written where the server reads it
// (git-ignored). A file already there is read as it is: an edited template is the user's choice, as in NeMo Gym. A
// file that is neither here nor fetchable is a 501 naming it and the fix: the row cannot be scored by this port as
// configured, which is no reward. `readNemoGymServerFile` is the one place this happens; the readers below only say
// where a config's path points.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { fetchPinnedFile, PinnedFileError } from "../client/pinned-file.ts";
import { PROJECT_ROOT, searchRoots } from "../config/index.ts";
import { resolveUnderRoots } from "../config/paths.ts";
import { NEMO_GYM_SERVER_FILE_SHA256, nemoGymRawBaseUrl } from "../config/nemo-gym-files.ts";
import { HttpError } from "../protocol/errors.ts";

/** `repoPath` when it is one of NeMo Gym's files this project fetches (a key of NEMO_GYM_SERVER_FILE_SHA256). */
export const pinnedNemoGymServerFile = (repoPath: string): string | undefined => (Object.hasOwn(NEMO_GYM_SERVER_FILE_SHA256, repoPath) ? repoPath : undefined);

const reads = new Map<string, Promise<string>>();

async function load(dest: string, repoPath: string | undefined, otherFix: string | undefined): Promise<string> {
  if (!existsSync(dest)) {
    if (repoPath === undefined) throw new HttpError(501, `${dest} does not exist${otherFix ? ` (or ${otherFix})` : ""}`);
    const sha256 = NEMO_GYM_SERVER_FILE_SHA256[repoPath]!;
    const url = `${nemoGymRawBaseUrl()}/${repoPath}`;
    try {
      await fetchPinnedFile({ url, dest, sha256, maxRetries: 2 });
    } catch (error) {
      if (!(error instanceof PinnedFileError)) throw error;
      throw new HttpError(501, `NeMo Gym's ${repoPath} is not here and ${error.message}; put the file at ${dest} (sha256 ${sha256}) or let this machine reach ${url}${otherFix ? `, or ${otherFix}` : ""}`);
    }
  }
  return readFileSync(dest, "utf8");
}

/**
 * The text of `dest`; when it is absent and `repoPath` names a pinned NeMo Gym file, that file is fetched there first.
 * Read once per process; a failed read is tried again by the next call (the network may be back). `otherFix` is the
 * server's own way out (a config key), added to the 501.
 */
export function readNemoGymServerFile(dest: string, repoPath: string | undefined, otherFix?: string): Promise<string> {
  let read = reads.get(dest);
  if (!read) {
    read = load(dest, repoPath, otherFix);
    reads.set(dest, read);
    read.catch(() => reads.delete(dest));
  }
  return read;
}

/** A file named by the path its NeMo Gym config gives (`resources_servers/<name>/prompts/judge.yaml`), resolved under the search roots as NeMo Gym resolves it. */
export function readServerDataFile(path: string): Promise<string> {
  const found = resolveUnderRoots(path, searchRoots());
  if (found.found) return readNemoGymServerFile(found.path, undefined);
  const repoPath = path.replace(/^\.\//, "");
  if (pinnedNemoGymServerFile(repoPath) === undefined) {
    return Promise.reject(new HttpError(501, `${path} is not here (searched ${found.searched.join(", ")}) and is not one of NeMo Gym's files this project fetches`));
  }
  return readNemoGymServerFile(join(PROJECT_ROOT, ...repoPath.split("/")), repoPath);
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
