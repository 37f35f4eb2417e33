// Tests read NeMo Gym's reference data from ../shared/nemo-gym-data/<server>/ (never committed here) and skip
// clearly without it:
//   const reference = sharedDataFile("calendar/parity/reference_verify.jsonl");
//   test("…", { skip: reference.skip }, () => … reference.path! …);
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../config/index.ts";

export const SHARED_DATA_DIR = process.env.NEMO_GYM_SHARED_DATA ?? join(PROJECT_ROOT, "..", "shared", "nemo-gym-data");

export type SharedData = { path: string; skip: false } | { path: undefined; skip: string };

function shared(path: string): SharedData {
  return existsSync(path) ? { path, skip: false } : { path: undefined, skip: `reference data ${path} is absent (set NEMO_GYM_SHARED_DATA to the nemo-gym-data folder)` };
}

/** The path of a shared data file (relative to nemo-gym-data), or a skip reason naming what is missing. */
export const sharedDataFile = (relativePath: string): SharedData => shared(join(SHARED_DATA_DIR, relativePath));

/** A server's folder of reference data (`nemo-gym-data/<server>`), or a skip reason. */
export const sharedDataDir = (server: string): SharedData => shared(join(SHARED_DATA_DIR, server));
