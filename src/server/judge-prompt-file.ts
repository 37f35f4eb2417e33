// The judge prompt template an instance config names by path (NeMo Gym's `judge_prompt_template_fpath` and its
// kin), read as NeMo Gym reads it: a relative path is relative to the server's own folder (NeMo Gym runs each server
// from there). NeMo Gym's own templates are its text, not ours: they are never committed, and a server fetches one
// the first time it needs it from NeMo Gym's repository at the pinned commit, checked against the sha256 recorded in
// src/config/nemo-gym-files.ts, into the path the config names (git ignores it). A file already there is read as it
// is: an edited template is the user's choice, as it is in NeMo Gym.
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { parseConfigYaml, PROJECT_ROOT } from "../config/index.ts";
import { NEMO_GYM_SERVER_FILE_SHA256, nemoGymRawBaseUrl } from "../config/nemo-gym-files.ts";
import { fetchPinnedFile, PinnedFileError } from "../client/pinned-file.ts";
import { HttpError } from "../protocol/errors.ts";

export const judgePromptPath = (serverDir: string, path: string): string => (isAbsolute(path) ? path : resolve(serverDir, path));

/** The repository path of a pinned NeMo Gym file this absolute path stands for, if it is one. */
function pinnedRepoPath(absolute: string): string | undefined {
  const repoPath = relative(PROJECT_ROOT, absolute).split(sep).join("/");
  return Object.hasOwn(NEMO_GYM_SERVER_FILE_SHA256, repoPath) ? repoPath : undefined;
}

/**
 * For a config schema: the template is there, or is a NeMo Gym file this server can fetch; otherwise the start fails
 * naming the key and the path (NeMo Gym fails at start too, opening it).
 */
export function judgePromptFileProblem(serverDir: string, path: string): string | undefined {
  const absolute = judgePromptPath(serverDir, path);
  if (existsSync(absolute) || pinnedRepoPath(absolute) !== undefined) return undefined;
  return `no such file: ${absolute}`;
}

const reads = new Map<string, Promise<string>>();

/** The template's text (unstripped); NeMo Gym's own template is fetched on first use. A failed fetch is a 501. */
export function readJudgePromptFile(serverDir: string, path: string): Promise<string> {
  const absolute = judgePromptPath(serverDir, path);
  let read = reads.get(absolute);
  if (!read) {
    read = loadTemplate(absolute);
    reads.set(absolute, read);
    // A failed fetch is tried again by the next verify (the network may be back).
    read.catch(() => reads.delete(absolute));
  }
  return read;
}

async function loadTemplate(absolute: string): Promise<string> {
  if (!existsSync(absolute)) {
    const repoPath = pinnedRepoPath(absolute);
    if (repoPath === undefined) throw new HttpError(501, `the judge prompt template ${absolute} does not exist`);
    const url = `${nemoGymRawBaseUrl()}/${repoPath}`;
    try {
      await fetchPinnedFile({ url, dest: absolute, sha256: NEMO_GYM_SERVER_FILE_SHA256[repoPath]!, maxRetries: 2 });
    } catch (error) {
      if (!(error instanceof PinnedFileError)) throw error;
      throw new HttpError(501, `NeMo Gym's judge prompt template ${repoPath} is not here and ${error.message}; put the file at ${absolute} (sha256 ${NEMO_GYM_SERVER_FILE_SHA256[repoPath]}) or let this machine reach ${url}`);
    }
  }
  return readFileSync(absolute, "utf8");
}

/**
 * A string field of a YAML prompt file (NeMo Gym's `prompts/judge.yaml` files hold the template under `user`), read as
 * yaml.safe_load reads it. A file that is not such a mapping is a 501 naming the file and the key.
 */
export async function readJudgePromptYamlField(serverDir: string, path: string, key: string): Promise<string> {
  const text = await readJudgePromptFile(serverDir, path);
  let parsed: Record<string, unknown>;
  try {
    parsed = parseConfigYaml(text, judgePromptPath(serverDir, path));
  } catch (error) {
    throw new HttpError(501, `the judge prompt ${judgePromptPath(serverDir, path)} is not a YAML mapping: ${(error as Error).message}`);
  }
  const value = parsed[key];
  if (typeof value !== "string") throw new HttpError(501, `the judge prompt ${judgePromptPath(serverDir, path)} has no string '${key}' (the template)`);
  return value;
}
