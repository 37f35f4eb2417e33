// HuggingFaceHub against the loopback Hub of src/testing: which Parquet files `load_dataset(repo, config, split)`
// reads, pinned to the commit of refs/convert/parquet with their sha256, and one clear line for what is not there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { HubError, HuggingFaceHub } from "../../src/client/hf-hub.ts";
import { startFakeHub } from "../../src/testing/index.ts";

const bytes = (text: string) => Buffer.from(text);
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

test("parquetFiles: the one config, or the named one; files in order with commit, URL and sha256; missing names listed", async (t) => {
  const hub = await startFakeHub({
    datasets: [
      { repo: "org/single", commit: "a".repeat(40), files: { "default/train/0001.parquet": bytes("second"), "default/train/0000.parquet": bytes("first"), "default/test/0000.parquet": bytes("t") } },
      { repo: "org/multi", files: { "de/test/0000.parquet": bytes("de"), "ja/test/0000.parquet": bytes("ja") } },
    ],
  });
  t.after(() => hub.close());
  const client = new HuggingFaceHub({ endpoint: hub.url, maxRetries: 0 });

  const files = await client.parquetFiles("org/single", "train");
  assert.deepEqual(
    files.map((f) => [f.path, f.commit, f.sha256, f.url]),
    ["0000", "0001"].map((n, i) => [`default/train/${n}.parquet`, "a".repeat(40), sha256(bytes(i === 0 ? "first" : "second")), `${hub.url}/datasets/org/single/resolve/${"a".repeat(40)}/default/train/${n}.parquet`]),
  );
  assert.deepEqual((await client.configNames("org/multi")).configs, ["de", "ja"]);
  assert.equal((await client.parquetFiles("org/multi", "test", "ja"))[0]!.path, "ja/test/0000.parquet");

  await assert.rejects(client.parquetFiles("org/multi", "test"), (e: Error) => e instanceof HubError && /has several configs \(de, ja\); name one/.test(e.message));
  await assert.rejects(client.parquetFiles("org/single", "validation"), /has no split 'validation' \(it has: test, train\)/);
  await assert.rejects(client.parquetFiles("org/multi", "test", "fr"), /has no config 'fr' \(it has: de, ja\)/);
  await assert.rejects(client.parquetFiles("org/none", "test"), (e: Error) => e instanceof HubError && /org\/none: not found \(HTTP 404/.test(e.message));
});

test("configNames: the dataset card's `configs:` order (what get_dataset_config_names returns), else the Parquet folders", async (t) => {
  const files = { "en/test/0000.parquet": bytes("en"), "ar/test/0000.parquet": bytes("ar"), "zu/test/0000.parquet": bytes("zu") };
  const hub = await startFakeHub({
    datasets: [
      { repo: "org/carded", files, main: { cardConfigs: ["zu", "en", "ar"] } },
      { repo: "org/plain", files },
    ],
  });
  t.after(() => hub.close());
  const client = new HuggingFaceHub({ endpoint: hub.url, maxRetries: 0 });
  assert.deepEqual((await client.configNames("org/carded")).configs, ["zu", "en", "ar"], "the card's order, not the alphabetical listing");
  assert.deepEqual((await client.configNames("org/plain")).configs, ["ar", "en", "zu"], "no card configs: the Parquet branch's folders");
  assert.ok(hub.requests.some((r) => r.path === "/api/datasets/org/carded/revision/main"), "the card is read from main");
});

test("HF_ENDPOINT and HF_TOKEN are read as huggingface_hub reads them; a non-URL endpoint is one line", () => {
  const client = HuggingFaceHub.fromEnv({ HF_ENDPOINT: "http://hub.local:8080/", HF_TOKEN: "hf_x" });
  assert.equal(client.endpoint, "http://hub.local:8080");
  assert.deepEqual(client.authHeaders(), { authorization: "Bearer hf_x" });
  assert.equal(HuggingFaceHub.fromEnv({}).endpoint, "https://huggingface.co");
  assert.deepEqual(HuggingFaceHub.fromEnv({ HF_TOKEN: "" }).authHeaders(), {});
  assert.throws(() => HuggingFaceHub.fromEnv({ HF_ENDPOINT: "hub.local" }), /HF_ENDPOINT 'hub.local' is not an http\(s\) URL/);
});
