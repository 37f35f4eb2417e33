// A loopback Hugging Face Hub for tests of `gym eval prepare` and `gym dataset download`: the endpoints
// src/client/hf-hub.ts calls, answered the way huggingface.co answers them (revision → {sha}; tree → entries with
// lfs.oid = sha256; resolve → a 302 to a CDN path that honours Range) for the Parquet branch and, for raw files,
// the main branch; plus plain files for URL sources (raw.githubusercontent.com stand-ins). It can gate a dataset
// (401 without the token) and cut a file's first download midway, to exercise resuming.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { parquetWriteBuffer } from "hyparquet-writer";

export interface FakeHubDataset {
  repo: string;
  /** The commit refs/convert/parquet points at. */
  commit?: string;
  /** Files of the Parquet branch by path: `default/train/0000.parquet`. */
  files: Record<string, Buffer>;
  /** Files of the main branch (the repo as uploaded: `train.jsonl`), served at `main` and at `mainCommit` (or `main.files`). */
  repoFiles?: Record<string, Buffer>;
  mainCommit?: string;
  /** Only requests with `Authorization: Bearer <token>` may read it. */
  gatedToken?: string;
  /** What the gate covers: everything (a private repo), or only the files (a gated repo: metadata stays public). */
  gate?: "all" | "files";
  /** The repo's own branch (`main`): its commit, files (`LongCodeQA.zip`) and the card's YAML `configs:` names. */
  main?: { commit?: string; files?: Record<string, Buffer>; cardConfigs?: string[] };
}

export interface FakeHubOptions {
  datasets?: FakeHubDataset[];
  /** Plain files by URL path (`/openai/grade-school-math/master/test.jsonl`). */
  files?: Record<string, Buffer>;
  /** Paths (a plain file's, or `/cdn/<sha256>` of a dataset file) whose first download is cut after half the bytes. */
  cutFirstDownloadOf?: string[];
}

export interface FakeHubRequest {
  path: string;
  range?: string;
  authorization?: string;
}

export interface FakeHub {
  url: string;
  requests: FakeHubRequest[];
  /** Where a dataset file's bytes are served from (what `cutFirstDownloadOf` names). */
  cdnPath(bytes: Buffer): string;
  close(): Promise<void>;
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

export async function startFakeHub(options: FakeHubOptions = {}): Promise<FakeHub> {
  const datasets = new Map(
    (options.datasets ?? []).map((dataset) => [
      dataset.repo,
      { ...dataset, commit: dataset.commit ?? sha256(Buffer.from(dataset.repo)).slice(0, 40), mainCommit: dataset.main?.commit ?? dataset.mainCommit ?? sha256(Buffer.from(`main ${dataset.repo}`)).slice(0, 40) },
    ]),
  );
  const mainFiles = (dataset: FakeHubDataset) => dataset.main?.files ?? dataset.repoFiles ?? {};
  const cdn = new Map<string, Buffer>();
  for (const dataset of datasets.values()) for (const bytes of [...Object.values(dataset.files), ...Object.values(mainFiles(dataset))]) cdn.set(`/cdn/${sha256(bytes)}`, bytes);
  const plain = new Map(Object.entries(options.files ?? {}));
  const toCut = new Set(options.cutFirstDownloadOf ?? []);
  const requests: FakeHubRequest[] = [];

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    requests.push({ path, ...(req.headers.range ? { range: req.headers.range } : {}), ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    const api = /^\/api\/datasets\/([^/]+\/[^/]+)\/(revision|tree)\/([^/]+)(?:\/(.*))?$/.exec(path);
    const resolve = /^\/datasets\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const repo = api?.[1] ?? resolve?.[1];
    if (repo !== undefined) {
      const dataset = datasets.get(repo);
      if (!dataset) return json(res, 404, { error: `Repository not found: ${repo}` });
      const gated = dataset.gatedToken !== undefined && (dataset.gate !== "files" || resolve !== null);
      if (gated && req.headers.authorization !== `Bearer ${dataset.gatedToken}`) {
        return json(res, 401, { error: `Access to dataset ${repo} is restricted. You must have access to it and be authenticated to access it. Please log in.` });
      }
      const revision = decodeURIComponent((api?.[3] ?? resolve?.[2])!);
      const onMain = revision === "main" || revision === dataset.mainCommit;
      if (!onMain && revision !== dataset.commit && revision !== "refs/convert/parquet") return json(res, 404, { error: `Invalid rev id: ${revision}` });
      const files = onMain ? mainFiles(dataset) : dataset.files;
      const commit = onMain ? dataset.mainCommit : dataset.commit;
      if (api?.[2] === "revision") {
        const cardData = onMain && dataset.main?.cardConfigs ? { cardData: { configs: dataset.main.cardConfigs.map((name) => ({ config_name: name, data_files: [{ split: "test", path: `${name}/*` }] })) } } : {};
        return json(res, 200, { id: repo, sha: commit, ...cardData });
      }
      if (api?.[2] === "tree") return json(res, 200, treeEntries(files, decodeURIComponent(api[4] ?? "")));
      const file = files[decodeURIComponent(resolve![3]!)];
      if (!file) return json(res, 404, { error: "Entry not found" });
      res.writeHead(302, { location: `/cdn/${sha256(file)}`, "x-repo-commit": commit });
      return void res.end();
    }
    const bytes = cdn.get(path) ?? plain.get(path);
    if (!bytes) return json(res, 404, { error: "Not found" });
    serveBytes(req, res, bytes, toCut.delete(path));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cdnPath: (bytes) => `/cdn/${sha256(bytes)}`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** The Hub's tree listing: the direct children of `dir`, folders as `directory`, files with their LFS sha256. */
function treeEntries(files: Record<string, Buffer>, dir: string): unknown[] {
  const prefix = dir === "" ? "" : `${dir.replace(/\/$/, "")}/`;
  const children = new Map<string, unknown>();
  for (const [path, bytes] of Object.entries(files)) {
    if (!path.startsWith(prefix)) continue;
    const [head, ...rest] = path.slice(prefix.length).split("/");
    const childPath = `${prefix}${head}`;
    if (rest.length > 0) children.set(childPath, { type: "directory", oid: sha256(Buffer.from(childPath)).slice(0, 40), size: 0, path: childPath });
    else children.set(childPath, { type: "file", oid: sha256(bytes).slice(0, 40), size: bytes.length, path: childPath, lfs: { oid: sha256(bytes), size: bytes.length, pointerSize: 134 } });
  }
  // As huggingface.co lists a folder: by path.
  return [...children.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry);
}

function serveBytes(req: IncomingMessage, res: ServerResponse, bytes: Buffer, cut: boolean): void {
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  const start = range ? Number(range[1]) : 0;
  if (start >= bytes.length && range) {
    res.writeHead(416, { "content-range": `bytes */${bytes.length}` });
    return void res.end();
  }
  const body = bytes.subarray(start);
  res.writeHead(range ? 206 : 200, {
    "content-length": String(body.length),
    "accept-ranges": "bytes",
    ...(range ? { "content-range": `bytes ${start}-${bytes.length - 1}/${bytes.length}` } : {}),
  });
  if (!cut) return void res.end(body);
  // Half the bytes, then the connection drops: what a flaky network does to a large download.
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => setTimeout(() => res.socket?.destroy(), 20));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** A Parquet file of string columns and int64 (bigint) columns, as the Hub's Parquet conversion holds them. */
export function parquetOf(columns: Record<string, readonly (string | bigint | number | null)[]>): Buffer {
  const columnData = Object.entries(columns).map(([name, data]) => {
    const sample = data.find((value) => value !== null);
    const type = typeof sample === "bigint" ? "INT64" : typeof sample === "number" ? "DOUBLE" : "STRING";
    return { name, data: [...data], type: type as "INT64" | "DOUBLE" | "STRING" };
  });
  return Buffer.from(parquetWriteBuffer({ columnData }));
}
