// Opt-in evidence for one trial: the files an agent left in its persistent dir (metrics, patch, trajectories,
// logs, eval outputs) plus a manifest, written privately and atomically under the artifact root.
import { createHash } from "node:crypto";
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { isAbsolute, join, posix } from "node:path";
import { isJsonObject, type RunResult } from "./run-payload.ts";
import type { JsonObject, JsonValue, TrialRequest } from "./types.ts";

export const ARTIFACT_PROTOCOL_VERSION = "relax-nemo-gym/artifact-v1";
export const MANIFEST_NAME = "artifact.json";

/** Only these leave the agent's dir: anything else there (e.g. private ground truth) stays behind. */
const SELECTED_FILES = ["nemo_gym_metrics.json", "patch.diff"];
const SELECTED_DIRS = ["trajectories", "apptainer_logs", "eval-outputs"];
const EVALUATION_FIELDS = [
  "resolved",
  "patch_exists",
  "model_patch",
  "agent_error_kind",
  "agent_timed_out",
  "eval_timed_out",
  "oom_killed",
  "eval_oom_killed",
  "agent_peak_rss_mb",
  "eval_peak_rss_mb",
];

export const wantsArtifacts = (request: TrialRequest): boolean => request.metadata.capture_artifacts === true;

/**
 * Persists the artifacts of a finished `/run` and records the outcome in the result's metrics: a capture
 * failure never fails the trial, it is reported as `artifact_captured: false` + `artifact_capture_error`.
 */
export async function captureArtifacts(result: RunResult, payload: JsonObject, options: { artifactRoot: string | undefined; requestId: string }): Promise<RunResult> {
  if (options.artifactRoot === undefined) return withCaptureError(result, "artifact_root_not_configured");
  try {
    const manifestPath = await persistRunArtifacts(payload, options.artifactRoot, options.requestId);
    return { ...result, metrics: { ...result.metrics, artifact_captured: true }, artifact_ref: manifestPath };
  } catch (error) {
    return withCaptureError(result, (error as NodeJS.ErrnoException).code ?? (error as Error).name ?? "Error");
  }
}

function withCaptureError(result: RunResult, code: string): RunResult {
  return { ...result, metrics: { ...result.metrics, artifact_captured: false, artifact_capture_error: code } };
}

/** `<root>/<sha256(request_id)>/artifact.json`; a second call for the same request returns the first capture. */
export async function persistRunArtifacts(payload: JsonObject, artifactRoot: string, requestId: string): Promise<string> {
  if (!isAbsolute(artifactRoot)) throw Object.assign(new Error(`artifact root '${artifactRoot}' must be absolute`), { code: "artifact_root_not_absolute" });
  await mkdir(artifactRoot, { recursive: true, mode: 0o700 });
  const destination = join(artifactRoot, createHash("sha256").update(requestId, "utf8").digest("hex"));
  const manifestPath = join(destination, MANIFEST_NAME);
  if (await isFile(manifestPath)) return manifestPath;

  // Built beside its destination so the final rename is atomic: readers see all of it or none.
  const staging = await mkdtemp(join(artifactRoot, ".capture-"));
  try {
    const sourceDir = await artifactSourceDir(payload);
    if (sourceDir !== undefined) await copySelected(sourceDir, staging);
    const files = (await listFiles(staging)).sort();
    const manifest = {
      protocol_version: ARTIFACT_PROTOCOL_VERSION,
      request_id: requestId,
      evaluation: Object.fromEntries(EVALUATION_FIELDS.filter((field) => field in payload).map((field) => [field, payload[field]!])),
      openhands_result: await openhandsResult(staging),
      response_output: isJsonObject(payload.response) && Array.isArray(payload.response.output) ? payload.response.output : [],
      files,
    };
    await writeFile(join(staging, MANIFEST_NAME), JSON.stringify(manifest));
    await restrictPermissions(staging);
    try {
      await rename(staging, destination);
    } catch (error) {
      // A concurrent capture of the same request won the rename: its copy is as good as ours.
      if (!(await isFile(manifestPath))) throw error;
      await rm(staging, { recursive: true, force: true });
    }
    return manifestPath;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** The agent names its working dir in `instance_config.persistent_dir` (OpenHands / R2E-Gym agents do). */
async function artifactSourceDir(payload: JsonObject): Promise<string | undefined> {
  const instanceConfig = payload.instance_config;
  const dir = isJsonObject(instanceConfig) ? instanceConfig.persistent_dir : undefined;
  if (typeof dir !== "string" || !isAbsolute(dir)) return undefined;
  return (await stat(dir).catch(() => undefined))?.isDirectory() ? dir : undefined;
}

async function copySelected(sourceDir: string, destination: string): Promise<void> {
  for (const name of SELECTED_FILES) {
    if ((await lstat(join(sourceDir, name)).catch(() => undefined))?.isFile()) await copyFile(join(sourceDir, name), join(destination, name));
  }
  for (const name of SELECTED_DIRS) {
    if ((await lstat(join(sourceDir, name)).catch(() => undefined))?.isDirectory()) await copyTree(join(sourceDir, name), join(destination, name));
  }
}

/** Regular files and directories only: a symlink in an agent's dir could otherwise pull in any file on the host. */
async function copyTree(source: string, destination: string): Promise<void> {
  await mkdir(destination, { mode: 0o700 });
  for (const entry of await readdir(source, { withFileTypes: true })) {
    if (entry.isDirectory()) await copyTree(join(source, entry.name), join(destination, entry.name));
    else if (entry.isFile()) await copyFile(join(source, entry.name), join(destination, entry.name));
  }
}

async function listFiles(root: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const relative = prefix === "" ? entry.name : posix.join(prefix, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(root, relative)));
    else if (entry.isFile()) files.push(relative);
  }
  return files;
}

/** The OpenHands verdict (`test_result`) from the first trajectory output; unreadable evidence is simply absent. */
async function openhandsResult(capturedDir: string): Promise<JsonValue> {
  const trajectories = join(capturedDir, "trajectories");
  const instances = (await readdir(trajectories, { withFileTypes: true }).catch(() => [])).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  for (const instance of instances) {
    const text = await readFile(join(trajectories, instance, "output.jsonl"), "utf8").catch(() => undefined);
    const line = text?.split("\n").find((candidate) => candidate.trim() !== "");
    if (line === undefined) continue;
    try {
      const record = JSON.parse(line) as unknown;
      return isJsonObject(record) && isJsonObject(record.test_result) ? record.test_result : null;
    } catch {
      return null;
    }
  }
  return null;
}

async function restrictPermissions(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await restrictPermissions(path);
    else await chmod(path, 0o600);
  }
}

const isFile = async (path: string) => (await lstat(path).catch(() => undefined))?.isFile() ?? false;
