// downloadFile against a real loopback server that honours (or ignores) Range, cuts connections midway and
// redirects, as Hugging Face's resolve URLs and their CDN do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DownloadError, downloadFile } from "../../src/client/download.ts";

const FILE = randomBytes(200_000);
const SHA = createHash("sha256").update(FILE).digest("hex");

interface Served {
  url: string;
  ranges: (string | undefined)[];
  close(): Promise<void>;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse, served: Served) => void): Promise<Served> {
  const served: Served = { url: "", ranges: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    served.ranges.push(req.headers.range);
    handler(req, res, served);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  served.url = `http://127.0.0.1:${address.port}`;
  served.close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  return served;
}

/** Serves FILE honouring `Range: bytes=N-`; the first `cutFirst` answers stop after half the bytes asked for. */
function rangeServer(cutFirst: number) {
  let cuts = 0;
  return (req: IncomingMessage, res: ServerResponse) => {
    const from = Number(/bytes=(\d+)-/.exec(req.headers.range ?? "")?.[1] ?? 0);
    if (from >= FILE.length) return void res.writeHead(416, { "content-range": `bytes */${FILE.length}` }).end();
    const body = FILE.subarray(from);
    res.writeHead(from > 0 ? 206 : 200, {
      "content-length": String(body.length),
      ...(from > 0 ? { "content-range": `bytes ${from}-${FILE.length - 1}/${FILE.length}` } : {}),
    });
    if (cuts++ < cutFirst) {
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
      return;
    }
    res.end(body);
  };
}

const tmp = () => mkdtempSync(join(tmpdir(), "download-"));

test("a connection cut midway is resumed with a Range request, and the file's digest is the server's", async () => {
  const served = await serve(rangeServer(1));
  try {
    const dest = join(tmp(), "sub", "file.bin");
    const progress: number[] = [];
    const result = await downloadFile({ url: `${served.url}/f`, dest, retryBackoffMs: 1, onProgress: (n) => progress.push(n) });
    assert.equal(result.sha256, SHA);
    assert.equal(result.bytes, FILE.length);
    assert.deepEqual(readFileSync(dest), FILE);
    assert.equal(served.ranges[0], undefined);
    assert.match(served.ranges[1] ?? "", /^bytes=\d+-$/);
    assert.equal(progress.at(-1), FILE.length);
    assert.ok(!existsSync(`${dest}.part`));
  } finally {
    await served.close();
  }
});

test("a run stopped midway leaves a .part that the next run continues from; a finished file is not fetched again", async () => {
  const served = await serve(rangeServer(0));
  try {
    const dest = join(tmp(), "file.bin");
    writeFileSync(`${dest}.part`, FILE.subarray(0, 123_456));
    const first = await downloadFile({ url: `${served.url}/f`, dest, expectedSha256: SHA });
    assert.equal(first.resumedFromBytes, 123_456);
    assert.deepEqual(served.ranges, ["bytes=123456-"]);
    const again = await downloadFile({ url: `${served.url}/f`, dest, expectedSha256: SHA });
    assert.equal(again.alreadyPresent, true);
    assert.equal(served.ranges.length, 1);
  } finally {
    await served.close();
  }
});

test("a server that ignores Range sends the whole file, which replaces the part; a complete part (416) is kept", async () => {
  const whole = await serve((_req, res) => res.writeHead(200, { "content-length": String(FILE.length) }).end(FILE));
  try {
    const dest = join(tmp(), "file.bin");
    writeFileSync(`${dest}.part`, Buffer.from("stale bytes"));
    assert.equal((await downloadFile({ url: `${whole.url}/f`, dest })).sha256, SHA);
  } finally {
    await whole.close();
  }
  const ranged = await serve(rangeServer(0));
  try {
    const dest = join(tmp(), "file.bin");
    writeFileSync(`${dest}.part`, FILE);
    assert.equal((await downloadFile({ url: `${ranged.url}/f`, dest })).sha256, SHA);
  } finally {
    await ranged.close();
  }
});

test("redirects are followed; a 404 fails at once naming the URL; a 401 says to set HF_TOKEN; a wrong digest keeps nothing", async () => {
  const served = await serve((req, res, self) => {
    if (req.url === "/moved") return void res.writeHead(302, { location: `${self.url}/real` }).end();
    if (req.url === "/real") return void res.writeHead(200).end(FILE);
    if (req.url === "/gated") return void res.writeHead(401).end("Access to dataset is restricted");
    res.writeHead(404).end("Entry not found");
  });
  try {
    const dir = tmp();
    assert.equal((await downloadFile({ url: `${served.url}/moved`, dest: join(dir, "a") })).sha256, SHA);
    const before = served.ranges.length;
    await assert.rejects(downloadFile({ url: `${served.url}/missing`, dest: join(dir, "b") }), (error: unknown) => {
      assert.ok(error instanceof DownloadError);
      assert.equal(error.status, 404);
      assert.match(error.message, /\/missing: HTTP 404: Entry not found/);
      return true;
    });
    assert.equal(served.ranges.length, before + 1, "a 404 is not retried");
    await assert.rejects(downloadFile({ url: `${served.url}/gated`, dest: join(dir, "c") }), /HTTP 401 \(a gated or private file: set HF_TOKEN/);
    await assert.rejects(downloadFile({ url: `${served.url}/real`, dest: join(dir, "d"), expectedSha256: "0".repeat(64) }), /differs from the expected/);
    assert.ok(!existsSync(join(dir, "d")) && !existsSync(join(dir, "d.part")));
  } finally {
    await served.close();
  }
});

test("a server that keeps failing is retried a bounded number of times and the error says how to resume", async () => {
  const served = await serve(rangeServer(100));
  try {
    const dest = join(tmp(), "file.bin");
    await assert.rejects(downloadFile({ url: `${served.url}/f`, dest, maxRetries: 2, retryBackoffMs: 1 }), /after 3 attempt\(s\); run again to resume from the \d+ bytes kept in .*file\.bin\.part/);
    assert.equal(served.ranges.length, 3);
    assert.ok(statSync(`${dest}.part`).size > 0);
  } finally {
    await served.close();
  }
});
