// The first start's database download, on loopback only: a zip served here is fetched (digest checked), its
// .sqlite files unzipped flat into <spider2_lite_dir>/sqlite/, and rows then score; a wrong digest fails the start.
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
before(async () => {
  files = createServer((_request, response) => response.end(readFileSync(archive)));
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(files.address() as { port: number }).port}/databases.zip`;
});
after(() => {
  files.close();
  rmSync(work, { recursive: true, force: true });
});

test("no databases at start: the zip is downloaded, checked and unzipped flat; a row on it scores", async () => {
  const dir = join(work, "spider");
  const graph = await startServers({ spider2_lite: [spider2, { spider2_lite_dir: dir, databases_url: url, databases_sha256: sha256 }] });
  const client = http();
  try {
    assert.ok(existsSync(join(dir, "sqlite", "shop.sqlite")));
    assert.equal(existsSync(join(dir, "sqlite", "README.md")), false);
    const answer = await overHttp(graph.url("spider2_lite"), client).post("/verify", {
      responses_create_params: { input: [] },
      response: responseWith([assistantMessage("```sql\nSELECT COUNT(*) FROM orders\n```")]),
      db_id: "shop",
      question: "q",
      gold_result: [[["4"]]],
    });
    assert.equal(answer.json<{ reward: number }>().reward, 1, answer.text);
  } finally {
    await graph.close();
    await client.close();
  }
});

test("a download whose sha256 is not the configured one fails the start, naming the digest", async () => {
  await assert.rejects(startServers({ spider2_lite: [spider2, { spider2_lite_dir: join(work, "bad"), databases_url: url, databases_sha256: "0".repeat(64) }] }), /sha256|digest/i);
});
