// src/client/gunzipped-file.ts against loopback servers: a .gz is fetched, checked against its sha256, gunzipped and
// renamed into place (nothing fetched while the file is there); a wrong digest, bytes that are not gzip, a gzip bomb
// past the cap and a file the caller's check refuses are each an error naming the URL, with nothing kept under the
// name; a server that never answers is cut by the overall deadline.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { fetchGunzippedFile } from "../../src/client/gunzipped-file.ts";
import { startFakeHub, type FakeHub } from "../../src/testing/index.ts";

const work = mkdtempSync(join(tmpdir(), "gym-gunzipped-"));
const text = '{"task_id": "T/0"}\n{"task_id": "T/1"}\n';
const gz = gzipSync(text);
const sha256 = createHash("sha256").update(gz).digest("hex");
let hub: FakeHub;
let silent: Server;
let silentUrl = "";
before(async () => {
  hub = await startFakeHub({ files: { "/data.jsonl.gz": gz, "/plain.jsonl": Buffer.from(text), "/bomb.gz": gzipSync(Buffer.alloc(200_000)) } });
  // Accepts the connection and never answers.
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/data.jsonl.gz`;
});
after(async () => {
  await hub.close();
  silent.closeAllConnections();
  silent.close();
});

test("a missing file is downloaded, its sha256 checked, gunzipped into place; once there it is not fetched again", async () => {
  const dest = join(work, "ok", "data.jsonl");
  const checked: string[] = [];
  assert.deepEqual(await fetchGunzippedFile({ url: `${hub.url}/data.jsonl.gz`, dest, sha256, check: (path) => void checked.push(readFileSync(path, "utf8")) }), { fetched: true, bytes: text.length });
  assert.equal(readFileSync(dest, "utf8"), text);
  assert.deepEqual(checked, [text], "the caller's check saw the gunzipped bytes before they took the name");
  assert.deepEqual(readdirSync(join(work, "ok")), ["data.jsonl"], "no .gz or partial file left behind");
  const requests = hub.requests.length;
  assert.deepEqual(await fetchGunzippedFile({ url: `${hub.url}/data.jsonl.gz`, dest, sha256 }), { fetched: false, bytes: text.length });
  assert.equal(hub.requests.length, requests);
});

test("a wrong sha256, bytes that are not gzip, a bomb past the cap, a refused check: an error naming the URL, nothing kept", async () => {
  const dir = join(work, "bad");
  const dest = join(dir, "data.jsonl");
  await assert.rejects(fetchGunzippedFile({ url: `${hub.url}/data.jsonl.gz`, dest, sha256: "0".repeat(64) }), new RegExp(`data\\.jsonl\\.gz: sha256 ${sha256} differs from the expected 0{64}`));
  await assert.rejects(fetchGunzippedFile({ url: `${hub.url}/plain.jsonl`, dest }), /plain\.jsonl: not a gzip file, or a damaged one \(incorrect header check\); not kept/);
  await assert.rejects(fetchGunzippedFile({ url: `${hub.url}/bomb.gz`, dest, maxBytes: 100_000 }), /bomb\.gz: it gunzips to more than 100000 bytes; not kept/);
  await assert.rejects(
    fetchGunzippedFile({ url: `${hub.url}/data.jsonl.gz`, dest, check: () => { throw new Error("line 1 lacks prompt"); } }),
    /data\.jsonl\.gz: line 1 lacks prompt; not kept/,
  );
  await assert.rejects(fetchGunzippedFile({ url: `${hub.url}/absent.gz`, dest }), /absent\.gz: HTTP 404/);
  assert.deepEqual(readdirSync(dir), []);
});

test("a server that never answers is cut by the deadline, and the error says so", async () => {
  const dest = join(work, "slow", "data.jsonl");
  await assert.rejects(fetchGunzippedFile({ url: silentUrl, dest, deadlineMs: 300 }), /data\.jsonl\.gz: not downloaded within 0\.3 s/);
  assert.equal(existsSync(dest), false);
});
