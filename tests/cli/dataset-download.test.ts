// `gym dataset download` (NeMo Gym's ng_download_dataset_from_hf) and `gym dataset collate --download`, as child
// processes against the loopback fake Hub: a split, every split, a raw file (its first download cut midway and
// resumed), a gated repo without HF_TOKEN, GitLab refused by name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGym } from "../../src/testing/child-process.ts";
import { parquetOf, startFakeHub } from "../../src/testing/fake-hf-hub.ts";

const tempDir = () => realpathSync(mkdtempSync(join(tmpdir(), "gym-dataset-download-")));
const RAW = Buffer.from(
  [0, 1, 2].map((i) => JSON.stringify({ responses_create_params: { input: [{ role: "user", content: `question ${i}` }] }, id: i })).join("\n") + "\n",
);

async function withHub(run: (hub: Awaited<ReturnType<typeof startFakeHub>>, env: NodeJS.ProcessEnv) => Promise<void>, cut = false): Promise<void> {
  const hub = await startFakeHub({
    datasets: [
      {
        repo: "org/ds",
        files: { "default/train/0000.parquet": parquetOf({ q: ["a", "b"], n: [1n, 2n] }), "default/validation/0000.parquet": parquetOf({ q: ["c"], n: [3n] }) },
        repoFiles: { "raw/train.jsonl": RAW },
      },
      { repo: "org/gated", files: { "default/train/0000.parquet": parquetOf({ q: ["x"] }) }, gatedToken: "hf_secret" },
    ],
    cutFirstDownloadOf: cut ? [`/cdn/${(await import("node:crypto")).createHash("sha256").update(RAW).digest("hex")}`] : [],
  });
  try {
    await run(hub, { HF_ENDPOINT: hub.url, HF_TOKEN: "", HUGGING_FACE_HUB_TOKEN: "", NEMO_GYM_CACHE_DIR: tempDir() });
  } finally {
    await hub.close();
  }
}

const lines = (path: string) => readFileSync(path, "utf8").trim().split("\n");

test("dataset download: one split to --output, every split to --output-dir/<split>.jsonl", async () => {
  await withHub(async (_hub, env) => {
    const dir = tempDir();
    const one = await runGym(["dataset", "download", "--repo-id", "org/ds", "--split", "train", "--output", join(dir, "x", "train.jsonl")], { env });
    assert.equal(one.code, 0, one.output);
    assert.deepEqual(lines(join(dir, "x", "train.jsonl")), ['{"q": "a", "n": 1}', '{"q": "b", "n": 2}']);
    assert.match(one.stdout, /^Downloading 'train' split\(s\) from 'org\/ds'\.\.\.\n\[Nemo-Gym\] - Downloaded train split to: /);

    const all = await runGym(["dataset", "download", "--repo-id", "org/ds", "--output-dir", join(dir, "all")], { env });
    assert.equal(all.code, 0, all.output);
    assert.deepEqual(lines(join(dir, "all", "train.jsonl")).length, 2);
    assert.deepEqual(lines(join(dir, "all", "validation.jsonl")), ['{"q": "c", "n": 3}']);

    const both = await runGym(["dataset", "download", "--repo-id", "org/ds", "--output", "a.jsonl", "--output-dir", dir], { env });
    assert.equal(both.code, 2);
    assert.equal(both.stderr, "error: Cannot specify both output_dirpath and output_fpath (--output-dir, --output)\n");
  });
});

test("dataset download --artifact: the repo's file as it is; a download cut midway resumes with a Range request", async () => {
  await withHub(async (hub, env) => {
    const dir = tempDir();
    const result = await runGym(["dataset", "download", "--repo-id", "org/ds", "--artifact", "raw/train.jsonl", "--output-dir", dir], { env });
    assert.equal(result.code, 0, result.output);
    assert.deepEqual(readFileSync(join(dir, "train.jsonl")), RAW);
    const cdn = hub.requests.filter((r) => r.path.startsWith("/cdn/"));
    assert.equal(cdn.length, 2, "cut, then resumed");
    assert.equal(cdn[1]!.range, `bytes=${Math.floor(RAW.length / 2)}-`);
  }, true);
});

test("dataset download: a gated repo without HF_TOKEN is one line; --storage gitlab is refused by name", async () => {
  await withHub(async (_hub, env) => {
    const dir = tempDir();
    const gated = await runGym(["dataset", "download", "--repo-id", "org/gated", "--output-dir", dir], { env });
    assert.equal(gated.code, 2);
    assert.match(gated.stderr, /^error: Hugging Face dataset org\/gated is gated or private \(HTTP 401\): set HF_TOKEN to a Hugging Face token that may read it.*\n$/);
    assert.equal(gated.stderr.split("\n").length, 2, "one line");
    const withToken = await runGym(["dataset", "download", "--repo-id", "org/gated", "--output-dir", dir], { env: { ...env, HF_TOKEN: "hf_secret" } });
    assert.equal(withToken.code, 0, withToken.output);
    assert.deepEqual(lines(join(dir, "train.jsonl")), ['{"q": "x"}']);

    const gitlab = await runGym(["dataset", "download", "--storage", "gitlab", "--name", "d", "--revision", "0.0.1", "--artifact", "a.jsonl", "--output", "o.jsonl"], { env });
    assert.equal(gitlab.code, 2);
    assert.match(gitlab.stderr, /^error: gym dataset download --storage gitlab does not apply here: NeMo Gym's GitLab dataset registry is not used here/);
  });
});

test("dataset collate --download: a missing dataset with a Hugging Face source is fetched to its jsonl_fpath, then collated", async () => {
  await withHub(async (_hub, env) => {
    const dir = tempDir();
    const config = (source: string) =>
      ["a:", "  responses_api_agents:", "    simple_agent:", "      entrypoint: app.py", "      datasets:", `        - {name: t, type: train, license: MIT, jsonl_fpath: data/train.jsonl, ${source}}`, ""].join("\n");
    writeFileSync(join(dir, "hf.yaml"), config("huggingface_identifier: {repo_id: org/ds, artifact_fpath: raw/train.jsonl}"));
    const args = (file: string, ...extra: string[]) => ["dataset", "collate", "--config", file, "--mode", "train_preparation", "--output-dir", "out", ...extra];

    const off = await runGym(args("hf.yaml"), { cwd: dir, env });
    assert.equal(off.code, 2);
    assert.match(off.stderr, /You must provide local datasets since download is disabled. Run with --download/);

    const result = await runGym(args("hf.yaml", "--download"), { cwd: dir, env });
    assert.equal(result.code, 0, result.output);
    assert.deepEqual(readFileSync(join(dir, "data", "train.jsonl")), RAW);
    assert.equal(lines(join(dir, "out", "train.jsonl")).length, 3);
    assert.equal(existsSync(join(dir, "out", "train_metrics.json")), true);
    assert.match(readFileSync(join(dir, "data", "train_metrics.json"), "utf8"), /"huggingface_identifier": \{\n {8}"repo_id": "org\/ds",\n {8}"artifact_fpath": "raw\/train.jsonl"\n {4}\},/);

    writeFileSync(join(dir, "gl.yaml"), config("source: {type: gitlab, dataset_name: d, version: 0.0.1, artifact_fpath: train.jsonl}").replace("data/train.jsonl", "data/gl.jsonl"));
    const gitlab = await runGym(args("gl.yaml", "--download"), { cwd: dir, env });
    assert.equal(gitlab.code, 2);
    assert.match(gitlab.stderr, /^error: missing datasets: a: t \(train\) at data\/gl\.jsonl\. Its source is NeMo Gym's GitLab dataset registry, which is not used here/);
  });
});
