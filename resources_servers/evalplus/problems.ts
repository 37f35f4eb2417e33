// The EvalPlus dataset the instance names, found where EvalPlus 0.3.1 finds it: $HUMANEVAL_OVERRIDE_PATH /
// $MBPP_OVERRIDE_PATH, else its cache (appdirs' user_cache_dir("evalplus"): $XDG_CACHE_HOME/evalplus or
// ~/.cache/evalplus) under HumanEvalPlus-v0.1.10.jsonl / MbppPlus-<version>.jsonl. EvalPlus downloads a missing file
// from its GitHub release; this port does not: a missing file stops the server, naming the file and the URL.
// `problems_file` (this port's key) names a file directly.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
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

/** The file EvalPlus would read, and the release it would download it from. */
export function evalPlusDataFile(dataset: EvalPlusDataset, version: string, env: NodeJS.ProcessEnv = process.env): { path: string; url?: string } {
  const override = dataset === "humaneval" ? env.HUMANEVAL_OVERRIDE_PATH : env.MBPP_OVERRIDE_PATH;
  if (override) return { path: override };
  const cacheDir = join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "evalplus");
  // EvalPlus 0.3.1 reads HumanEval+ at its pinned version whatever `version` says; MBPP+ honours it.
  const [name, release] = dataset === "humaneval" ? ["HumanEvalPlus", HUMANEVAL_PLUS_VERSION] : ["MbppPlus", version === "default" ? MBPP_PLUS_VERSION : version];
  return {
    path: join(cacheDir, `${name}-${release}.jsonl`),
    url: `https://github.com/evalplus/${name.toLowerCase()}_release/releases/download/${release}/${name}.jsonl.gz`,
  };
}

const REQUIRED = ["task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input", "atol"] as const;

/** Reads every task of the file; a row without one of EvalPlus's required keys stops the server (its completeness check). */
export function loadProblems(path: string, url?: string): Map<string, EvalPlusProblem> {
  // A relative problems_file is found under the Gym roots (the working directory first, then this project).
  const file = resolveUnderRoots(path, searchRoots()).path;
  if (!existsSync(file)) {
    const fetch = url ? ` Download ${url} and gunzip it there (EvalPlus does this on first use; this port does not download),` : "";
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
