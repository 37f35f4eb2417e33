// Tests read NeMo Gym's reference data from ../shared (never committed here) and skip clearly without it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/index.ts";

export const SHARED_DATA_DIR = process.env.NEMO_GYM_SHARED_DATA ?? join(PROJECT_ROOT, "..", "shared", "nemo-gym-data");

/** The path of a shared data file, or a skip reason naming what is missing. */
export function sharedDataFile(relativePath: string): { path: string; skip: false } | { path: undefined; skip: string } {
  const path = join(SHARED_DATA_DIR, relativePath);
  return existsSync(path) ? { path, skip: false } : { path: undefined, skip: `reference data ${path} is absent (set NEMO_GYM_SHARED_DATA to the nemo-gym-data folder)` };
}
