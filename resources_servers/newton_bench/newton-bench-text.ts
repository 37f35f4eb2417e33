// The two texts of NewtonBench (HKUST-KnowComp/NewtonBench, MIT) that its symbolic judge is shown: the judge prompt
// (SYMBOLIC_EQUIVALENCE_JUDGE_PROMPT, modules/common/prompts_base.py) and a module's parameter descriptions
// (PARAM_DESCRIPTION, modules/<module>/prompts.py). They are NewtonBench's text, so they are never committed: on
// first use each is read out of its file at the pinned commit, checked against the file's sha256, and kept under
// .newton_bench/ (git-ignored). A text that is neither there nor fetchable is a 501 naming it and the fix.
import { join } from "node:path";
import { HttpError } from "../../src/server/index.ts";
import { ensureNemoGymText, NemoGymTextError } from "../../src/server/nemo-gym-text.ts";

/** The NewtonBench commit this port follows (its default branch when NeMo Gym 07d6b0d clones it with --depth=1). */
export const NEWTON_BENCH_COMMIT = "912a4ba5f4356ddd06acc16e44460ca30be4abc2";
/** Where NewtonBench's files are read from instead (a mirror, or a loopback server in tests). */
export const NEWTON_BENCH_RAW_BASE_URL_ENV = "NEWTON_BENCH_RAW_BASE_URL";
const DEFAULT_BASE_URL = `https://raw.githubusercontent.com/HKUST-KnowComp/NewtonBench/${NEWTON_BENCH_COMMIT}`;

export const NEWTON_BENCH_FILE_SHA256: Readonly<Record<string, string>> = Object.freeze({
  "modules/common/prompts_base.py": "6e8834c67b198c78ea73b47411f70d2a78340a2047f8f180c05f8a48bf075b5f",
  "modules/m0_gravity/prompts.py": "dc0395b0143cc60054e80a653936faba34335f8fc605a5770dc63c32f6cf0e96",
});

const CACHE_DIR = join(import.meta.dirname, ".newton_bench");
const reads = new Map<string, Promise<string>>();

function read(repoPath: string, name: string): Promise<string> {
  const dest = join(CACHE_DIR, `${repoPath.replace(/\//g, "__")}.${name}.txt`);
  let text = reads.get(dest);
  if (!text) {
    const baseUrl = process.env[NEWTON_BENCH_RAW_BASE_URL_ENV] || DEFAULT_BASE_URL;
    text = ensureNemoGymText(dest, { repoPath, extract: { kind: "python_constant", name } }, { baseUrl, sha256: NEWTON_BENCH_FILE_SHA256, maxRetries: 2 }).catch((error: unknown) => {
      reads.delete(dest);
      if (error instanceof NemoGymTextError) {
        throw new HttpError(501, `newton_bench: NewtonBench's ${name} (${repoPath} at ${NEWTON_BENCH_COMMIT.slice(0, 7)}) is needed to ask the symbolic judge and could not be had: ${error.message}; let this machine reach ${baseUrl}, or set ${NEWTON_BENCH_RAW_BASE_URL_ENV} to a copy of the repository at that commit`);
      }
      throw error;
    });
    reads.set(dest, text);
  }
  return text;
}

export const symbolicJudgePrompt = () => read("modules/common/prompts_base.py", "SYMBOLIC_EQUIVALENCE_JUDGE_PROMPT");
export const gravityParamDescription = () => read("modules/m0_gravity/prompts.py", "PARAM_DESCRIPTION");
