// Where a sub-step's targets come from: `test_data_fpath`, SciCode's test_data.h5 (read inside the check sandbox with
// h5py) or a JSON file in this port's own format ({"<step>": [encoded target, ...]}, the encoding of harness.py).
// Missing data is a 501 naming the file: without targets no answer can be scored, and a 0 would blame the model.
import { readFileSync, statSync } from "node:fs";
import { HttpError } from "../../src/protocol/errors.ts";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";

export type TestData = { kind: "h5"; path: string } | { kind: "json"; path: string; steps: Record<string, unknown[]> };

const STAGE_HINT = "stage SciCode's test_data.h5 (see benchmarks/scicode/README.md) or a JSON copy (resources_servers/scicode/README.md), and set test_data_fpath";

/** The configured test data; a relative path is looked up under the Gym roots, as NeMo Gym resolves it under its root. */
export function resolveTestData(fpath: string | null | undefined): { kind: "h5" | "json"; path: string } {
  if (!fpath) throw new HttpError(501, `scicode: test_data_fpath is not configured; ${STAGE_HINT}`);
  const expanded = fpath.startsWith("~/") ? `${process.env.HOME ?? ""}${fpath.slice(1)}` : fpath;
  const { path, found } = resolveUnderRoots(expanded, searchRoots(), (candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile() ?? false);
  if (!found) throw new HttpError(501, `scicode: the SciCode test data ${path} is missing; ${STAGE_HINT}`);
  return { kind: path.endsWith(".json") ? "json" : "h5", path };
}

const jsonCache = new Map<string, { mtimeMs: number; steps: Record<string, unknown[]> }>();

/** A JSON copy's targets of one step, or a 501 naming the step and the file. */
export function jsonTargets(path: string, step: string, count: number): unknown[] {
  const { mtimeMs } = statSync(path);
  let cached = jsonCache.get(path);
  if (cached?.mtimeMs !== mtimeMs) {
    let steps: unknown;
    try {
      steps = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      throw new HttpError(501, `scicode: the test data ${path} is not JSON (${(error as Error).message})`);
    }
    if (typeof steps !== "object" || steps === null || Array.isArray(steps)) throw new HttpError(501, `scicode: the test data ${path} must be an object of step number to target list`);
    cached = { mtimeMs, steps: steps as Record<string, unknown[]> };
    jsonCache.set(path, cached);
  }
  const targets = cached.steps[step];
  if (!Array.isArray(targets) || targets.length < count) {
    throw new HttpError(501, `scicode: the test data ${path} holds ${Array.isArray(targets) ? targets.length : "no"} targets for step ${step}; its tests need ${count}`);
  }
  return targets;
}
