// The EvalPlus dataset the instance names, found where EvalPlus 0.3.1 finds it: $HUMANEVAL_OVERRIDE_PATH /
// $MBPP_OVERRIDE_PATH, else its cache (appdirs' user_cache_dir("evalplus"): $XDG_CACHE_HOME/evalplus or
// ~/.cache/evalplus) under HumanEvalPlus-v0.1.10.jsonl / MbppPlus-<version>.jsonl. A cache file that is missing is
// downloaded as EvalPlus's make_cache does it: the release's .jsonl.gz, gunzipped into that path (here checked first
// against the pinned sha256 and EvalPlus's completeness check). `problems_file` (this port's key) names a file directly.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
import { fetchGunzippedFile, GunzippedFileError } from "../../src/client/gunzipped-file.ts";
import { ServerConfigError } from "../../src/server/config-error.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import type { PyValue } from "../../src/python/values.ts";

export type EvalPlusDataset = "humaneval" | "mbpp";

export interface EvalPlusProblem {
  task_id: string;
  prompt: string;
  entry_point: string;
  canonical_solution: string;
  base_inputs: number;
  plus_inputs: number;
  /** The row exactly as the file holds it: the harnesses parse it with Python's json (NaN, Infinity, big ints). */
  line: string;
}

const HUMANEVAL_PLUS_VERSION = "v0.1.10";
const MBPP_PLUS_VERSION = "v0.2.0";

/** Where EvalPlus's releases are downloaded from: `<base>/<name>_release/releases/download/<version>/<Name>.jsonl.gz`. */
export const EVALPLUS_RELEASES_BASE_URL = "https://github.com/evalplus";

/**
 * The sha256 of each release's .jsonl.gz that this port knows, keyed by the cache file's name. Computed from the
 * files as committed in github.com/evalplus/humanevalplus_release (200defc, "bump to v0.1.10") and
 * mbppplus_release (64fc419, "mbpp v0.2.0"), which are the release assets (the same digests are published with
 * those release URLs elsewhere); gunzipped they are 164 and 378 tasks. Another MBPP+ version has no digest here.
 */
export const EVALPLUS_RELEASE_SHA256: Readonly<Record<string, string>> = Object.freeze({
  "HumanEvalPlus-v0.1.10.jsonl": "272720b90ac375502c8ed23cd791c2a93dfb22a911641a494da74a426c09f101",
  "MbppPlus-v0.2.0.jsonl": "af43697e8791c4c149bdfd6b489d8b5412507551ac20e28a439f650b8225db63",
});

export interface EvalPlusDataFile {
  path: string;
  /** The release .gz EvalPlus would download when `path` is missing (none for an override path). */
  url?: string;
  /** That .gz's pinned sha256, when known. */
  sha256?: string;
}

/** The file EvalPlus would read, and the release it would download it from. */
export function evalPlusDataFile(dataset: EvalPlusDataset, version: string, env: NodeJS.ProcessEnv = process.env, baseUrl = EVALPLUS_RELEASES_BASE_URL): EvalPlusDataFile {
  const override = dataset === "humaneval" ? env.HUMANEVAL_OVERRIDE_PATH : env.MBPP_OVERRIDE_PATH;
  if (override) return { path: override };
  const cacheDir = join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "evalplus");
  // EvalPlus 0.3.1 reads HumanEval+ at its pinned version whatever `version` says; MBPP+ honours it.
  const [name, release] = dataset === "humaneval" ? ["HumanEvalPlus", HUMANEVAL_PLUS_VERSION] : ["MbppPlus", version === "default" ? MBPP_PLUS_VERSION : version];
  const file = `${name}-${release}.jsonl`;
  return {
    path: join(cacheDir, file),
    url: `${baseUrl.replace(/\/+$/, "")}/${name.toLowerCase()}_release/releases/download/${release}/${name}.jsonl.gz`,
    sha256: EVALPLUS_RELEASE_SHA256[file],
  };
}

/**
 * Downloads the dataset file when it is missing and there is a URL (EvalPlus's make_cache), before the server
 * starts, as NeMo Gym loads it while the server is built; a download that fails stops the server, naming why.
 */
export async function ensureDataFile(file: EvalPlusDataFile, log: { info(message: string): void }): Promise<void> {
  if (!file.url || existsSync(file.path)) return;
  log.info(`evalplus: ${file.path} is missing: downloading ${file.url} (as EvalPlus does on first use)`);
  try {
    const { bytes } = await fetchGunzippedFile({ url: file.url, dest: file.path, sha256: file.sha256, check: (path) => void loadProblems(path) });
    log.info(`evalplus: ${file.path} downloaded (${bytes} bytes)`);
  } catch (error) {
    if (!(error instanceof GunzippedFileError)) throw error;
    throw new ServerConfigError(`evalplus: the dataset file ${file.path} is missing and could not be downloaded: ${error.message}. Fetch and gunzip it there by hand, or set problems_file to a HumanEvalPlus/MbppPlus .jsonl file`);
  }
}

const REQUIRED = ["task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input", "atol"] as const;

/** Reads every task of the file; a row without one of EvalPlus's required keys stops the server (its completeness check). */
export function loadProblems(path: string, url?: string): Map<string, EvalPlusProblem> {
  // A relative problems_file is found under the Gym roots (the working directory first, then this project).
  const file = resolveUnderRoots(path, searchRoots()).path;
  if (!existsSync(file)) {
    const fetch = url ? ` Download ${url} and gunzip it there (or set dataset_base_url to where it can be downloaded from),` : "";
    throw new ServerConfigError(`evalplus: the dataset file ${file} does not exist.${fetch} or set problems_file to a HumanEvalPlus/MbppPlus .jsonl file`);
  }
  const problems = new Map<string, EvalPlusProblem>();
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, index) => {
      if (line.trim() === "") return;
      let row: PyValue;
      try {
        row = pythonJsonLoads(line);
      } catch (error) {
        throw new ServerConfigError(`evalplus: ${file}:${index + 1} is not JSON (${(error as Error).message})`);
      }
      if (!(row instanceof Map)) throw new ServerConfigError(`evalplus: ${file}:${index + 1} is not a JSON object`);
      const missing = REQUIRED.filter((key) => !row.has(key));
      if (missing.length > 0) throw new ServerConfigError(`evalplus: ${file}:${index + 1} lacks ${missing.join(", ")} (EvalPlus's completeness check)`);
      const text = (key: string) => {
        const value = row.get(key);
        if (typeof value !== "string") throw new ServerConfigError(`evalplus: ${file}:${index + 1}: ${key} is not a string`);
        return value;
      };
      const count = (key: string) => {
        const value = row.get(key);
        if (!Array.isArray(value)) throw new ServerConfigError(`evalplus: ${file}:${index + 1}: ${key} is not a list`);
        return value.length;
      };
      const taskId = text("task_id");
      problems.set(taskId, {
        task_id: taskId,
        prompt: text("prompt"),
        entry_point: text("entry_point"),
        canonical_solution: text("canonical_solution"),
        base_inputs: count("base_input"),
        plus_inputs: count("plus_input"),
        line,
      });
    });
  return problems;
}
