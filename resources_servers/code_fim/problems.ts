// The HumanEval-Infilling split the instance names, where NeMo Gym's human-eval-infilling fork keeps it: appdirs'
// user_cache_dir("evalplus") ($XDG_CACHE_HOME/evalplus or ~/.cache/evalplus) under HumanEval-<Split>Infilling.jsonl.
// The fork downloads a missing file from openai/human-eval-infilling; this port does not, and stops naming the file
// and the URL. `problems_file` (this port's key) names a file directly.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
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

export function infillingDataFile(split: Split, env: NodeJS.ProcessEnv = process.env): { path: string; url: string } {
  const cacheDir = join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "evalplus");
  return { path: join(cacheDir, FILES[split]), url: `https://github.com/openai/human-eval-infilling/raw/master/data/${FILES[split]}.gz` };
}

export function loadProblems(path: string, url?: string): Map<string, InfillingProblem> {
  // A relative problems_file is found under the Gym roots (the working directory first, then this project).
  const file = resolveUnderRoots(path, searchRoots()).path;
  if (!existsSync(file)) {
    const fetch = url ? ` Download ${url} and gunzip it there (the library does this on first use; this port does not download),` : "";
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
