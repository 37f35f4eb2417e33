// human-eval-infilling's first-use download of a missing split file, on loopback only (a stand-in for
// openai/human-eval-infilling's data/ serving our own example tasks, gzipped): the server starts once the file is in
// the library's cache path and reads it; the pinned sha256 refuses any other file; dataset_base_url: null never
// downloads and stops the start naming the file and the URL.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { assistantMessage, http, overHttp, responseWith, startFakeHub, startServers, type FakeHub } from "../../../src/testing/index.ts";
import codeFim from "../app.ts";

const cache = mkdtempSync(join(tmpdir(), "code-fim-cache-"));
process.env.XDG_CACHE_HOME = cache;

const tasks = readFileSync(join(import.meta.dirname, "../data/example_problems.jsonl"));
const gz = gzipSync(tasks);
const sha256 = createHash("sha256").update(gz).digest("hex");
const path = join(cache, "evalplus", "HumanEval-RandomSpanInfilling.jsonl");
let hub: FakeHub;
before(async () => {
  hub = await startFakeHub({ files: { "/HumanEval-RandomSpanInfilling.jsonl.gz": gz } });
});
after(() => hub.close());

test("the split's pinned sha256 refuses any other file: the start stops naming the digests, nothing is kept", async () => {
  await assert.rejects(
    startServers({ code_fim: [codeFim, { split: "random_span", dataset_base_url: hub.url }] }),
    new RegExp(`code_fim: the split file .*HumanEval-RandomSpanInfilling\\.jsonl is missing and could not be downloaded: .*sha256 ${sha256} differs from the expected b4f330d8`),
  );
  assert.equal(existsSync(path), false);
});

test("a missing split file is downloaded into the library's cache path before the server starts, and its tasks are read", async () => {
  const graph = await startServers({ code_fim: [codeFim, { split: "random_span", dataset_base_url: hub.url, dataset_sha256: sha256 }] });
  const client = http();
  try {
    assert.deepEqual(readFileSync(path), tasks);
    const verify = (taskId: string) => overHttp(graph.url("code_fim"), client).post("/verify", { responses_create_params: { input: [] }, response: responseWith([assistantMessage("")]), verifier_metadata: { task_id: taskId } });
    const known = await verify("RandomSpanInfilling/Example/0/0");
    assert.equal(known.status, 200, known.text);
    assert.equal(known.json<{ reward: number }>().reward, 0);
    assert.equal((await verify("RandomSpanInfilling/HumanEval/0/0")).status, 422);
  } finally {
    await graph.close();
    await client.close();
  }
});

test("dataset_base_url: null never downloads: a missing split stops the start naming the file and the library's URL", async () => {
  const requests = hub.requests.length;
  await assert.rejects(
    startServers({ code_fim: [codeFim, { split: "single_line", dataset_base_url: null }] }),
    /HumanEval-SingleLineInfilling\.jsonl does not exist\. Download https:\/\/github\.com\/openai\/human-eval-infilling\/raw\/master\/data\/HumanEval-SingleLineInfilling\.jsonl\.gz and gunzip it there/,
  );
  assert.equal(hub.requests.length, requests);
});
