// EvalPlus's first-use download of a missing dataset file, on loopback only (a stand-in for its GitHub releases
// serving our own example tasks, gzipped): the server starts once the file is in EvalPlus's cache path and reads it
// (no second download); the pinned sha256 refuses any other file; an unpinned MBPP+ version is checked by EvalPlus's
// completeness check; a release that is not there, or dataset_base_url: null, stops the start naming the file.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { assistantMessage, http, overHttp, responseWith, startFakeHub, startServers, type FakeHub } from "../../../src/testing/index.ts";
import evalplus from "../app.ts";
import { EVALPLUS_RELEASE_SHA256, evalPlusDataFile } from "../problems.ts";

const cache = mkdtempSync(join(tmpdir(), "evalplus-cache-"));
process.env.XDG_CACHE_HOME = cache;
delete process.env.HUMANEVAL_OVERRIDE_PATH;
delete process.env.MBPP_OVERRIDE_PATH;

const tasks = readFileSync(join(import.meta.dirname, "../data/example_problems.jsonl"));
const gz = gzipSync(tasks);
const sha256 = createHash("sha256").update(gz).digest("hex");
// One task without `atol`: EvalPlus's completeness check fails it.
const incomplete = gzipSync(`${JSON.stringify({ task_id: "Mbpp/1", prompt: "", entry_point: "f", canonical_solution: "", base_input: [], plus_input: [] })}\n`);
let hub: FakeHub;
before(async () => {
  hub = await startFakeHub({
    files: {
      "/humanevalplus_release/releases/download/v0.1.10/HumanEvalPlus.jsonl.gz": gz,
      "/mbppplus_release/releases/download/v0.0.1-test/MbppPlus.jsonl.gz": gz,
      "/mbppplus_release/releases/download/v0.0.2-test/MbppPlus.jsonl.gz": incomplete,
    },
  });
});
after(() => hub.close());

const base = { num_processes: 1, min_time_limit: 0.2, gt_time_limit_factor: 4.0 };

/** Starts the server, checks it read the tasks (a known one with an empty answer scores 0, an unknown one is a 422). */
async function startsWithTasks(config: Record<string, unknown>) {
  const graph = await startServers({ evalplus: [evalplus, { ...base, ...config }] });
  const client = http();
  try {
    const verify = (taskId: string) => overHttp(graph.url("evalplus"), client).post("/verify", { responses_create_params: { input: [] }, response: responseWith([assistantMessage("")]), verifier_metadata: { task_id: taskId } });
    const known = await verify("Example/0");
    assert.equal(known.status, 200, known.text);
    assert.equal(known.json<{ reward: number }>().reward, 0);
    assert.equal((await verify("HumanEval/0")).status, 422);
  } finally {
    await graph.close();
    await client.close();
  }
}

test("the default HumanEval+ release is pinned: a file other than the pinned one stops the start, and nothing is kept", async () => {
  const path = join(cache, "evalplus", "HumanEvalPlus-v0.1.10.jsonl");
  assert.equal(evalPlusDataFile("humaneval", "default").sha256, EVALPLUS_RELEASE_SHA256["HumanEvalPlus-v0.1.10.jsonl"]);
  await assert.rejects(
    startServers({ evalplus: [evalplus, { ...base, dataset: "humaneval", dataset_base_url: hub.url }] }),
    new RegExp(`evalplus: the dataset file ${path.replace(/[.]/g, "\\.")} is missing and could not be downloaded: .*HumanEvalPlus\\.jsonl\\.gz: sha256 ${sha256} differs from the expected 272720b9`),
  );
  assert.equal(existsSync(path), false);
});

test("a missing file is downloaded from the release into EvalPlus's cache path before the server starts; the next start reads it", async () => {
  const path = join(cache, "evalplus", "HumanEvalPlus-v0.1.10.jsonl");
  await startsWithTasks({ dataset: "humaneval", dataset_base_url: hub.url, dataset_sha256: sha256 });
  assert.deepEqual(readFileSync(path), tasks, "the gunzipped release, as EvalPlus's make_cache writes it");
  assert.deepEqual(readdirSync(join(cache, "evalplus")), ["HumanEvalPlus-v0.1.10.jsonl"]);
  const requests = hub.requests.length;
  await startsWithTasks({ dataset: "humaneval", dataset_base_url: null });
  assert.equal(hub.requests.length, requests, "a file in the cache is not fetched again");
});

test("an MBPP+ version without a pinned digest is downloaded and held to EvalPlus's completeness check", async () => {
  await startsWithTasks({ dataset: "mbpp", evalplus_version: "v0.0.1-test", dataset_base_url: hub.url });
  await assert.rejects(
    startServers({ evalplus: [evalplus, { ...base, dataset: "mbpp", evalplus_version: "v0.0.2-test", dataset_base_url: hub.url }] }),
    /MbppPlus\.jsonl\.gz: evalplus: .*MbppPlus-v0\.0\.2-test\.jsonl\.gunzipping:1 lacks atol \(EvalPlus's completeness check\); not kept/,
  );
  assert.equal(existsSync(join(cache, "evalplus", "MbppPlus-v0.0.2-test.jsonl")), false);
});

test("a release that is not there stops the start naming the URL; dataset_base_url: null never downloads", async () => {
  await assert.rejects(
    startServers({ evalplus: [evalplus, { ...base, dataset: "mbpp", evalplus_version: "v9", dataset_base_url: hub.url }] }),
    /mbppplus_release\/releases\/download\/v9\/MbppPlus\.jsonl\.gz: HTTP 404/,
  );
  const requests = hub.requests.length;
  await assert.rejects(
    startServers({ evalplus: [evalplus, { ...base, dataset: "mbpp", evalplus_version: "v9", dataset_base_url: null }] }),
    /MbppPlus-v9\.jsonl does not exist\. Download https:\/\/github\.com\/evalplus\/mbppplus_release\/releases\/download\/v9\/MbppPlus\.jsonl\.gz and gunzip it there/,
  );
  assert.equal(hub.requests.length, requests);
});
