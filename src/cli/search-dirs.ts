// `--search-dir DIR`: NeMo Gym folds these roots into NEMO_GYM_EXTRA_ROOTS for the duration of the command,
// so one variable reaches every lookup (selectors, config_paths, server folders) and every started server.
import { delimiter, resolve } from "node:path";
import { EXTRA_ROOTS_ENV_VAR } from "../config/index.ts";

/**
 * Runs `body` with the `--search-dir` roots (made absolute, so that a server started elsewhere finds them
 * too) in front of NEMO_GYM_EXTRA_ROOTS; the variable is restored afterwards.
 */
export async function withSearchDirs<T>(searchDirs: readonly string[] | undefined, body: () => Promise<T>): Promise<T> {
  if (!searchDirs || searchDirs.length === 0) return body();
  const original = process.env[EXTRA_ROOTS_ENV_VAR];
  process.env[EXTRA_ROOTS_ENV_VAR] = [...searchDirs.map((dir) => resolve(dir)), ...(original ? [original] : [])].join(delimiter);
  try {
    return await body();
  } finally {
    if (original === undefined) delete process.env[EXTRA_ROOTS_ENV_VAR];
    else process.env[EXTRA_ROOTS_ENV_VAR] = original;
  }
}
