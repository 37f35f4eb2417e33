// A terminal snapshot as Relax's session output ({reward, metadata}), and its atomic publication at RELAX_OUTPUT_JSON.
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { finiteJsonCopy, snapshotErrorCode } from "../protocol.ts";
import type { JsonObject, JsonValue, TrialSnapshot } from "../types.ts";
import { TrialOutputError } from "./errors.ts";

export interface NemoGymOutputMetadata {
  request_id: string;
  status: "completed" | "truncated";
  metrics: JsonObject;
  artifact_ref?: string;
  /** Only the string `code` and `type`: a gateway `message` may quote secrets. */
  error?: { code?: string; type?: string };
  reward_components?: JsonValue;
}

export interface RelaxSessionOutput {
  reward: number | JsonObject;
  metadata: { nemo_gym: NemoGymOutputMetadata };
}

export function toRelaxOutput(snapshot: TrialSnapshot): RelaxSessionOutput {
  const { status } = snapshot;
  if (status !== "completed" && status !== "truncated") throw new TrialOutputError(`Cannot materialize non-success terminal status: ${status}`);
  if (snapshot.reward === null) {
    // An unscored trial (typically a deadline truncation) must fail the session: Relax would otherwise fall back
    // to a local reward model, and with none configured the whole rollout would crash.
    throw new TrialOutputError(
      `NeMo Gym trial has no reward: request_id=${snapshot.request_id} status=${status} error_code=${snapshotErrorCode(snapshot) ?? "missing_reward"}`,
    );
  }
  const nemoGym: NemoGymOutputMetadata = {
    request_id: snapshot.request_id,
    status,
    metrics: finiteJsonCopy(snapshot.metrics, "metrics") as JsonObject,
  };
  if (snapshot.artifact_ref !== null) nemoGym.artifact_ref = snapshot.artifact_ref;
  if (snapshot.error !== null) {
    const safeError: { code?: string; type?: string } = {};
    for (const key of ["code", "type"] as const) {
      const value: unknown = snapshot.error[key];
      if (typeof value === "string" && value !== "") safeError[key] = value;
    }
    if (Object.keys(safeError).length > 0) nemoGym.error = safeError;
  }
  let reward = finiteJsonCopy(snapshot.reward, "reward") as number | JsonObject;
  if (typeof reward === "object" && "scalar" in reward && typeof reward.scalar === "number") {
    nemoGym.reward_components = reward.components === undefined ? {} : reward.components;
    reward = reward.scalar;
  }
  return { reward, metadata: { nemo_gym: nemoGym } };
}

/**
 * Publishes `payload` at `path` atomically (`.<name>.tmp`, then rename). Returns false when the session directory
 * is already gone (Relax removed a cancelled session). A payload that is not finite JSON throws before any file
 * is touched, so the target is never replaced by something unreadable.
 */
export async function writeRelaxOutput(path: string, payload: unknown): Promise<boolean> {
  const text = JSON.stringify(finiteJsonCopy(payload, "output"));
  const temporaryPath = join(dirname(path), `.${basename(path)}.tmp`);
  try {
    await writeFile(temporaryPath, text, "utf8");
    await rename(temporaryPath, path);
    return true;
  } catch (error) {
    await rm(temporaryPath, { force: true }).catch(() => undefined);
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
