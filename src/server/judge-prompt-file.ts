// The judge prompt template an instance config names by path (NeMo Gym's `judge_prompt_template_fpath` and its
// kin), read as NeMo Gym reads it: a relative path is relative to the server's own folder (NeMo Gym runs each server
// from there). NeMo Gym's own templates are fetched on first use by readNemoGymServerFile (nemo-gym-server-file.ts).
import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { parseConfigYaml, PROJECT_ROOT } from "../config/index.ts";
import { HttpError } from "../protocol/errors.ts";
import { pinnedNemoGymServerFile, readNemoGymServerFile } from "./nemo-gym-server-file.ts";

export const judgePromptPath = (serverDir: string, path: string): string => (isAbsolute(path) ? path : resolve(serverDir, path));

/** The repository path of a pinned NeMo Gym file this absolute path stands for, if it is one. */
const pinnedRepoPath = (absolute: string): string | undefined => pinnedNemoGymServerFile(relative(PROJECT_ROOT, absolute).split(sep).join("/"));

/**
 * For a config schema: the template is there, or is a NeMo Gym file this server can fetch; otherwise the start fails
 * naming the key and the path (NeMo Gym fails at start too, opening it).
 */
export function judgePromptFileProblem(serverDir: string, path: string): string | undefined {
  const absolute = judgePromptPath(serverDir, path);
  if (existsSync(absolute) || pinnedRepoPath(absolute) !== undefined) return undefined;
  return `no such file: ${absolute}`;
}

/** The template's text (unstripped); NeMo Gym's own template is fetched on first use. A failed fetch is a 501. */
export function readJudgePromptFile(serverDir: string, path: string): Promise<string> {
  const absolute = judgePromptPath(serverDir, path);
  return readNemoGymServerFile(absolute, pinnedRepoPath(absolute));
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
