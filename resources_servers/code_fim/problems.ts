// The HumanEval-Infilling split the instance names, where NeMo Gym's human-eval-infilling fork keeps it: appdirs'
// user_cache_dir("evalplus") ($XDG_CACHE_HOME/evalplus or ~/.cache/evalplus) under HumanEval-<Split>Infilling.jsonl.
// A missing file is downloaded as the fork's make_cache does it: openai/human-eval-infilling's data/<file>.gz,
// gunzipped into that path (here checked first against the pinned sha256 and the fields this server reads).
// `problems_file` (this port's key) names a file directly.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
import { fetchGunzippedFile, GunzippedFileError } from "../../src/client/gunzipped-file.ts";
import { ServerConfigError } from "../../src/server/config-error.ts";

export const SPLITS = ["single_line", "multi_line", "random_span", "random_span_light"] as const;
export type Split = (typeof SPLITS)[number];

export interface InfillingProblem {
  task_id: string;
  prompt: string;
  suffix: string;
  test: string;
  entry_point: string;
}

const FILES: Record<Split, string> = {
  single_line: "HumanEval-SingleLineInfilling.jsonl",
  multi_line: "HumanEval-MultiLineInfilling.jsonl",
  random_span: "HumanEval-RandomSpanInfilling.jsonl",
  random_span_light: "HumanEval-RandomSpanInfillingLight.jsonl",
};

/** Where the fork downloads the splits from (`<base>/<file>.gz`): openai/human-eval-infilling's master branch. */
export const INFILLING_DATA_BASE_URL = "https://github.com/openai/human-eval-infilling/raw/master/data";

/**
 * The sha256 of each split's .gz, computed from github.com/openai/human-eval-infilling as committed (88062ff, the
 * one commit of master). The fork reads master, which could change: a file other than this one is refused.
 */
export const INFILLING_SHA256: Readonly<Record<Split, string>> = Object.freeze({
  single_line: "1277073e7ddce163ef68598c2bca777f688a53df99422f097e37362090f88e1f",
  multi_line: "2f341612eee1d35da1357a4f365e0c0b3ba6e2b62eb491e88aaefa4855af0349",
  random_span: "b4f330d8a8ff97bf85d9def497dffcae4d741e506449386a877236e422e33e8d",
  random_span_light: "1432250ecac0cb56e6f97f8faf0970419ef892a98fda7e1f5aa4c4b87209b760",
});

export interface InfillingDataFile {
  path: string;
  /** The .gz the fork downloads when `path` is missing. */
  url: string;
  sha256: string;
}

export function infillingDataFile(split: Split, env: NodeJS.ProcessEnv = process.env, baseUrl = INFILLING_DATA_BASE_URL): InfillingDataFile {
  const cacheDir = join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "evalplus");
  return { path: join(cacheDir, FILES[split]), url: `${baseUrl.replace(/\/+$/, "")}/${FILES[split]}.gz`, sha256: INFILLING_SHA256[split] };
}

/**
 * Downloads the split's file when it is missing (the fork's make_cache), before the server starts, as NeMo Gym
 * reads the split while the server is built; a download that fails stops the server, naming why.
 */
export async function ensureDataFile(file: { path: string; url: string; sha256?: string }, log: { info(message: string): void }): Promise<void> {
  if (existsSync(file.path)) return;
  log.info(`code_fim: ${file.path} is missing: downloading ${file.url} (as human-eval-infilling does on first use)`);
  try {
    const { bytes } = await fetchGunzippedFile({ url: file.url, dest: file.path, sha256: file.sha256, check: (path) => void loadProblems(path) });
    log.info(`code_fim: ${file.path} downloaded (${bytes} bytes)`);
  } catch (error) {
    if (!(error instanceof GunzippedFileError)) throw error;
    throw new ServerConfigError(`code_fim: the split file ${file.path} is missing and could not be downloaded: ${error.message}. Fetch and gunzip it there by hand, or set problems_file to a HumanEval-Infilling .jsonl file`);
  }
}

export function loadProblems(path: string, url?: string): Map<string, InfillingProblem> {
  // A relative problems_file is found under the Gym roots (the working directory first, then this project).
  const file = resolveUnderRoots(path, searchRoots()).path;
  if (!existsSync(file)) {
    const fetch = url ? ` Download ${url} and gunzip it there (or set dataset_base_url to where it can be downloaded from),` : "";
    throw new ServerConfigError(`code_fim: the split file ${file} does not exist.${fetch} or set problems_file to a HumanEval-Infilling .jsonl file`);
  }
  const problems = new Map<string, InfillingProblem>();
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, index) => {
      if (line.trim() === "") return;
      let row: Record<string, unknown>;
      try {
        row = JSON.parse(line) as Record<string, unknown>;
      } catch (error) {
        throw new ServerConfigError(`code_fim: ${file}:${index + 1} is not JSON (${(error as Error).message})`);
      }
      for (const key of ["task_id", "prompt", "suffix", "test", "entry_point"]) {
        if (typeof row[key] !== "string") throw new ServerConfigError(`code_fim: ${file}:${index + 1}: ${key} is missing or not a string`);
      }
      problems.set(row.task_id as string, row as unknown as InfillingProblem);
    });
  return problems;
}
