// Where configs, env.yaml and server folders are looked up: extra roots, then cwd, then the project root.
import { existsSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EXTRA_ROOTS_ENV_VAR } from "./types.ts";

/** Absolute path of the repository root (two levels above src/config). */
export const PROJECT_ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface SearchRootOptions {
  cwd?: string;
  rootDir?: string;
  /** Searched first, before `NEMO_GYM_EXTRA_ROOTS`. */
  extraRoots?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/**
 * Ordered, de-duplicated roots: `extraRoots`, then `NEMO_GYM_EXTRA_ROOTS` (`:`-separated), then cwd, then the
 * project root. Earlier roots win, so a user's own component shadows a built-in one of the same name.
 */
export function searchRoots(options: SearchRootOptions = {}): string[] {
  const cwd = resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  const fromEnv = (env[EXTRA_ROOTS_ENV_VAR] ?? "").split(delimiter).filter((root) => root !== "");
  const candidates = [...(options.extraRoots ?? []), ...fromEnv].map((root) => resolve(cwd, root));
  candidates.push(cwd, resolve(options.rootDir ?? PROJECT_ROOT));
  return [...new Set(candidates)];
}

/**
 * First `<root>/<relPath>` that passes `isValid` (default: exists). An absolute path is returned unchanged.
 * `found` is false when no root matched; `path` is then the candidate under the first root.
 */
export function resolveUnderRoots(
  relPath: string,
  roots: readonly string[],
  isValid: (candidate: string) => boolean = existsSync,
): { path: string; found: boolean; searched: string[] } {
  if (isAbsolute(relPath)) return { path: relPath, found: isValid(relPath), searched: [relPath] };
  const searched = [...new Set(roots.map((root) => join(root, relPath)))];
  const hit = searched.find((candidate) => isValid(candidate));
  return { path: hit ?? searched[0], found: hit !== undefined, searched };
}
