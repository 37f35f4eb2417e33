// NeMo Gym's download_hf_dataset_as_jsonl (`gym dataset download`, and `gym dataset collate --download`):
//   --artifact FILE            that file of the repo (hf_hub_download), copied to --output, or to --output-dir/<its name>
//   --split S --output FILE    the split as JSON Lines at FILE (load_dataset(repo, split=S).to_json)
//   --split S --output-dir D   the split at D/S.jsonl
//   --output-dir D             every split of the dataset, each at D/<split>.jsonl
// Splits are read from the Hub's Parquet conversion of the dataset's default config, pinned to its commit. Files go
// through the download cache first ($NEMO_GYM_CACHE_DIR/huggingface/datasets/<repo>/<commit>/…, resumable after an
// interruption, checked against the Hub's sha256), then to their destination whole (written to a temporary name,
// renamed). Rows are written as Python's json.dumps writes them (ints stay ints); pandas' to_json, which NeMo Gym
// goes through, differs only in spacing and in escaping "/".
import { copyFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { DownloadError, downloadFile } from "../client/download.ts";
import { HubError, type HubParquetFile, type HuggingFaceHub } from "../client/hf-hub.ts";
import { UserError } from "../config/errors.ts";
import { pythonJsonDumpsTyped } from "../python/json-dumps.ts";
import { readParquetRows } from "./prepare/readers.ts";

/** NeMo Gym's DownloadJsonlDatasetHuggingFaceConfig. */
export interface HfDownloadRequest {
  repoId: string;
  artifactFpath?: string;
  outputFpath?: string;
  outputDirpath?: string;
  split?: string;
}

export const HF_SPLITS = ["train", "validation", "test"] as const;

export interface HfDownloadContext {
  hub: HuggingFaceHub;
  cacheDir: string;
  log?: (line: string) => void;
}

/** DownloadJsonlDatasetHuggingFaceConfig's validators, with its messages. */
export function checkHfDownloadRequest(request: HfDownloadRequest): void {
  if (!/^[^/\s]+\/[^/\s]+$/.test(request.repoId)) throw new UserError(`repo_id must be ORG/NAME (--repo-id or +repo_id=…); got '${request.repoId}'`);
  if (!request.outputDirpath && !request.outputFpath) throw new UserError("Either output_dirpath or output_fpath must be provided (--output-dir DIR or --output FILE)");
  if (request.outputDirpath && request.outputFpath) throw new UserError("Cannot specify both output_dirpath and output_fpath (--output-dir, --output)");
  if (request.artifactFpath && request.split) {
    throw new UserError("Cannot specify both artifact_fpath and split. Use artifact_fpath for targeting a raw file, or split for structured datasets.");
  }
  if (request.split !== undefined && !(HF_SPLITS as readonly string[]).includes(request.split)) {
    throw new UserError(`split must be one of ${HF_SPLITS.join(", ")}; got '${request.split}'`);
  }
  if (request.outputFpath && !request.split && !request.artifactFpath) {
    throw new UserError("When using output_fpath without artifact_fpath, split must be specified. Use output_dirpath to download all splits.");
  }
}

/** Downloads as the request says; the files written. */
export async function downloadHfDataset(request: HfDownloadRequest, context: HfDownloadContext): Promise<string[]> {
  checkHfDownloadRequest(request);
  const log = context.log ?? (() => undefined);
  const { hub } = context;

  if (request.artifactFpath) {
    const file = await hub.repoFile(request.repoId, request.artifactFpath);
    const cached = await fetchToCache(request.repoId, file, context);
    const output = resolve(request.outputDirpath ? join(request.outputDirpath, basename(request.artifactFpath)) : request.outputFpath!);
    mkdirSync(dirname(output), { recursive: true });
    const temp = `${output}.tmp-${process.pid}`;
    copyFileSync(cached, temp);
    renameSync(temp, output);
    log(`[Nemo-Gym] - Downloaded ${request.artifactFpath} to: ${output}`);
    return [output];
  }

  if (request.split) {
    const output = resolve(request.outputFpath ?? join(request.outputDirpath!, `${request.split}.jsonl`));
    await writeSplit(request.repoId, request.split, output, context);
    log(`[Nemo-Gym] - Downloaded ${request.split} split to: ${output}`);
    return [output];
  }

  const { splits } = await hub.splitNames(request.repoId);
  if (splits.length === 0) throw new HubError(`Hugging Face dataset ${request.repoId} has no splits`);
  const written: string[] = [];
  for (const split of splits) {
    const output = resolve(join(request.outputDirpath!, `${split}.jsonl`));
    await writeSplit(request.repoId, split, output, context);
    log(`[Nemo-Gym] - Downloaded ${split} split to: ${output}`);
    written.push(output);
  }
  return written;
}

async function writeSplit(repo: string, split: string, output: string, context: HfDownloadContext): Promise<void> {
  const lines: string[] = [];
  for (const file of await context.hub.parquetFiles(repo, split)) {
    for (const row of await readParquetRows(await fetchToCache(repo, file, context))) lines.push(`${pythonJsonDumpsTyped(jsonReady(row, `${repo}/${file.path}`))}\n`);
  }
  mkdirSync(dirname(output), { recursive: true });
  const temp = `${output}.tmp-${process.pid}`;
  writeFileSync(temp, lines.join(""));
  renameSync(temp, output);
}

async function fetchToCache(repo: string, file: HubParquetFile, context: HfDownloadContext): Promise<string> {
  const dest = join(context.cacheDir, "huggingface", "datasets", ...repo.split("/"), file.commit, ...file.path.split("/"));
  try {
    const result = await downloadFile({ url: file.url, dest, expectedSha256: file.sha256, headers: context.hub.authHeaders() });
    if (result.resumedFromBytes > 0) context.log?.(`${repo}/${file.path}: resumed after ${result.resumedFromBytes} bytes`);
    return result.path;
  } catch (error) {
    if (error instanceof DownloadError) throw new UserError(`Hugging Face dataset ${repo}: ${error.message}`);
    throw error;
  }
}

/** A Parquet value as `to_json` writes it: timestamps as epoch milliseconds (pandas' default); bytes are refused. */
function jsonReady(value: unknown, where: string): unknown {
  if (value instanceof Date) return BigInt(value.getTime());
  if (value instanceof Uint8Array) throw new UserError(`${where}: a binary column cannot be written as JSON Lines`);
  if (Array.isArray(value)) return value.map((item) => jsonReady(item, where));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonReady(v, where)]));
  return value;
}
