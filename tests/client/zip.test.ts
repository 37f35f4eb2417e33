// src/client/zip.ts on archives Python's zipfile writes here (one python3 run builds them all): a normal archive
// extracts (folders kept or flattened, a selection, in memory); a name climbing out, an absolute name, a symbolic
// link, an archive over its size cap, a flipped byte, a garbled deflate stream and a file that is no zip are each
// refused with one error naming the archive, and nothing is written outside the destination.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractZip, readZipFiles } from "../../src/client/zip.ts";

const work = mkdtempSync(join(tmpdir(), "gym-zip-"));
const zipPath = (name: string) => join(work, `${name}.zip`);

execFileSync("python3", [
  "-c",
  `
import sys, zipfile
out = sys.argv[1]
def make(name, members, method=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(f"{out}/{name}.zip", "w", method) as z:
        for member in members:
            if isinstance(member, zipfile.ZipInfo):
                z.writestr(member, "/etc/passwd")
            else:
                z.writestr(*member)
make("normal", [("db/a.sqlite", "A" * 1000), ("db/", ""), ("db/sub/b.sqlite", "B"), ("README.md", "read me"), ("ünï.txt", "é")])
make("traversal", [("ok.txt", "fine"), ("../escaped.txt", "out")])
make("absolute", [("/tmp/absolute.txt", "out")])
link = zipfile.ZipInfo("link")
link.create_system = 3
link.external_attr = 0o120777 << 16
make("symlink", [link])
make("big", [("zeros.bin", "\\0" * 1_000_000)])
make("stored", [("data.txt", "0123456789" * 10)], zipfile.ZIP_STORED)
import random
letters = random.Random(0)
make("deflated", [("first.txt", "x"), ("data.txt", "".join(letters.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(20000)))])
`,
  work,
]);

test("a normal archive: every file extracted with its folders, or a selection flattened; in memory in central-directory order", async () => {
  const into = join(work, "out-normal");
  const written = await extractZip(zipPath("normal"), into);
  assert.deepEqual(written, ["db/a.sqlite", "db/sub/b.sqlite", "README.md", "ünï.txt"]);
  assert.equal(readFileSync(join(into, "db", "a.sqlite"), "utf8"), "A".repeat(1000));
  assert.equal(readFileSync(join(into, "ünï.txt"), "utf8"), "é");
  assert.deepEqual(readdirSync(into).sort(), ["README.md", "db", "ünï.txt"], "no leftover partial files");

  const flat = join(work, "out-flat");
  await extractZip(zipPath("normal"), flat, { include: (name) => name.endsWith(".sqlite"), flatten: true });
  assert.deepEqual(readdirSync(flat).sort(), ["a.sqlite", "b.sqlite"]);

  const members = await readZipFiles(zipPath("normal"));
  assert.deepEqual(members.map((m) => [m.name, m.data.length]), [["db/a.sqlite", 1000], ["db/sub/b.sqlite", 1], ["README.md", 7], ["ünï.txt", 2]]);
});

test("an entry climbing out with ../ or named absolutely is refused, naming the archive; nothing lands outside", async () => {
  const into = join(work, "jail", "inside");
  await assert.rejects(extractZip(zipPath("traversal"), into), (error: Error) => {
    assert.equal(error.name, "UserError");
    assert.match(error.message, /traversal\.zip: refused \(invalid relative path: \.\.\/escaped\.txt\)/);
    return true;
  });
  assert.equal(existsSync(join(work, "jail", "escaped.txt")), false);
  await assert.rejects(readZipFiles(zipPath("traversal")), /traversal\.zip: refused/);
  await assert.rejects(extractZip(zipPath("absolute"), into), /absolute\.zip: refused \(absolute path: \/tmp\/absolute\.txt\)/);
});

test("a symbolic-link entry is refused, and so is writing through a folder of the destination that links out of it", async () => {
  await assert.rejects(extractZip(zipPath("symlink"), join(work, "out-link")), /symlink\.zip: refused link: a symbolic link/);
  const into = join(work, "out-linked-folder");
  const elsewhere = join(work, "elsewhere");
  mkdirSync(into, { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  symlinkSync(elsewhere, join(into, "db"));
  await assert.rejects(extractZip(zipPath("normal"), into), /normal\.zip: refused db\/a\.sqlite: db in .* is a link out of it/);
  assert.deepEqual(readdirSync(elsewhere), []);
});

test("an archive that inflates past the caps is refused before anything is inflated", async () => {
  const into = join(work, "out-big");
  await assert.rejects(extractZip(zipPath("big"), into, { limits: { maxEntryBytes: 1000 } }), /big\.zip: zeros\.bin inflates to 1000000 bytes, more than the 1000 allowed for one entry/);
  await assert.rejects(readZipFiles(zipPath("big"), { maxTotalBytes: 999_999 }), /big\.zip: its files inflate to more than the 999999 bytes allowed/);
  await assert.rejects(readZipFiles(zipPath("normal"), { maxEntries: 2 }), /normal\.zip: lists 5 entries, more than the 2 allowed/);
  assert.equal(existsSync(join(into, "zeros.bin")), false);
});

test("a damaged archive (a flipped data byte, a garbled deflate stream, a cut file, no zip at all) is one error naming the archive; no partial file is left", async () => {
  const stored = readFileSync(zipPath("stored"));
  const flipped = Buffer.from(stored);
  const at = flipped.indexOf("0123456789");
  flipped[at + 5] ^= 0xff;
  writeFileSync(zipPath("flipped"), flipped);
  const into = join(work, "out-flipped");
  await assert.rejects(extractZip(zipPath("flipped"), into), /flipped\.zip: a damaged zip archive: data\.txt does not match its CRC-32/);
  assert.deepEqual(readdirSync(into), []);

  // Garbage in the middle of a deflated stream: zlib's error, named with the archive and the entry.
  const deflated = Buffer.from(readFileSync(zipPath("deflated")));
  const dataAt = deflated.indexOf("data.txt") + "data.txt".length;
  deflated.fill(0xff, dataAt + 10, dataAt + 60);
  writeFileSync(zipPath("garbled"), deflated);
  await assert.rejects(readZipFiles(zipPath("garbled")), /garbled\.zip: a damaged zip archive at data\.txt \(invalid/);

  writeFileSync(zipPath("cut"), stored.subarray(0, stored.length - 30));
  await assert.rejects(readZipFiles(zipPath("cut")), /cut\.zip: not a zip archive, or a damaged one/);
  writeFileSync(zipPath("text"), "PK not really");
  await assert.rejects(readZipFiles(zipPath("text")), /text\.zip: not a zip archive, or a damaged one \(End of central directory record signature not found/);
});
