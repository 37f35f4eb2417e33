// The first start's database download, on loopback only: a zip served here is fetched in the background (digest
// checked), its .sqlite files unzipped flat into <spider2_lite_dir>/sqlite/. The server is up meanwhile: a row answers
// 503 until its database is there, then scores; a failed download (a wrong digest) makes rows 501s naming why.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assistantMessage, http, overHttp, responseWith, startServers } from "../../../src/testing/index.ts";
import spider2 from "../app.ts";
import { buildShopDatabase } from "../data/build-example-db.ts";

const work = mkdtempSync(join(tmpdir(), "spider2-download-"));
const archive = join(work, "databases.zip");
buildShopDatabase(join(work, "src", "spider2-localdb", "shop.sqlite"));
// A zip with folders (flattened on extraction) and a file that is no database (left out).
execFileSync("python3", ["-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n z.write(sys.argv[2], 'spider2-localdb/shop.sqlite')\n z.writestr('README.md', 'x')", archive, join(work, "src", "spider2-localdb", "shop.sqlite")]);
const sha256 = createHash("sha256").update(readFileSync(archive)).digest("hex");

let files: Server;
let url = "";
// The archive is held back until a test lets it go, so that "still downloading" is seen for certain.
let release: () => void = () => undefined;
let released = new Promise<void>((resolve) => (release = resolve));
before(async () => {
  files = createServer((_request, response) => void released.then(() => response.end(readFileSync(archive))));
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(files.address() as { port: number }).port}/databases.zip`;
});
after(() => {
  files.close();
  rmSync(work, { recursive: true, force: true });
});

const verifyShop = (graphUrl: string, client: ReturnType<typeof http>) =>
  overHttp(graphUrl, client).post("/verify", {
    responses_create_params: { input: [] },
    response: responseWith([assistantMessage("```sql\nSELECT COUNT(*) FROM orders\n```")]),
    db_id: "shop",
    question: "q",
    gold_result: [[["4"]]],
  });

/** Verify until the download has settled (no 503 any more), within a bound. */
async function afterDownload(graphUrl: string, client: ReturnType<typeof http>) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const answer = await verifyShop(graphUrl, client);
    if (answer.status !== 503) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the download did not settle");
}

test("no databases at start: the server starts at once, a row answers 503 while the zip arrives, then it is unzipped flat and the row scores", async () => {
  const dir = join(work, "spider");
  const graph = await startServers({ spider2_lite: [spider2, { spider2_lite_dir: dir, databases_url: url, databases_sha256: sha256 }] });
  const client = http();
  try {
    const early = await verifyShop(graph.url("spider2_lite"), client);
    assert.equal(early.status, 503, early.text);
    assert.match(early.text, /still being downloaded into/);
    release();
    const answer = await afterDownload(graph.url("spider2_lite"), client);
    assert.equal(answer.json<{ reward: number }>().reward, 1, answer.text);
    assert.ok(existsSync(join(dir, "sqlite", "shop.sqlite")));
    assert.equal(existsSync(join(dir, "sqlite", "README.md")), false);
  } finally {
    await graph.close();
    await client.close();
  }
});

test("a download whose sha256 is not the configured one is kept out, and rows are 501s naming the digest", async () => {
  release();
  const graph = await startServers({ spider2_lite: [spider2, { spider2_lite_dir: join(work, "bad"), databases_url: url, databases_sha256: "0".repeat(64) }] });
  const client = http();
  try {
    const answer = await afterDownload(graph.url("spider2_lite"), client);
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /download failed .*sha256/);
    assert.equal(existsSync(join(work, "bad", "sqlite", "shop.sqlite")), false);
  } finally {
    await graph.close();
    await client.close();
  }
});
