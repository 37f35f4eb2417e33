// Source files read as NeMo Gym's Python saw them: Parquet int columns (INT32 and INT64) as ints (bigint),
// doubles as floats, strings as strings, nulls as None; JSON Lines with int and float kept apart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { readJsonlRows, readParquetRows } from "../../../src/rollouts/prepare/readers.ts";
import { readJsonZipRows, readZipMembers, walkOrder } from "../../../src/rollouts/prepare/zip.ts";

const dir = mkdtempSync(join(tmpdir(), "gym-readers-"));

test("Parquet: INT32 and INT64 columns are ints, DOUBLE floats, STRING text, null None", async () => {
  const path = join(dir, "rows.parquet");
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: "small", data: [1, 2], type: "INT32" },
      { name: "big", data: [2n ** 40n, -3n], type: "INT64" },
      { name: "score", data: [1, 0.5], type: "DOUBLE" },
      { name: "text", data: ["é", null], type: "STRING" },
    ],
  });
  writeFileSync(path, Buffer.from(buffer));
  assert.deepEqual(await readParquetRows(path), [
    { small: 1n, big: 2n ** 40n, score: 1, text: "é" },
    { small: 2n, big: -3n, score: 0.5, text: null },
  ]);
});

test("JSON Lines: ints bigint, floats number, key order kept; a bad line is one line naming the source and line", () => {
  const path = join(dir, "rows.jsonl");
  writeFileSync(path, '{"b": 1, "a": 1.0, "c": [2, 2.5]}\n\n{"d": null}\n');
  const rows = readJsonlRows(path, "https://example/test.jsonl");
  assert.deepEqual(rows, [{ b: 1n, a: 1, c: [2n, 2.5] }, { d: null }]);
  assert.deepEqual(Object.keys(rows[0]!), ["b", "a", "c"]);
  writeFileSync(path, '{"a": 1}\n{oops\n');
  assert.throws(() => readJsonlRows(path, "https://example/test.jsonl"), /https:\/\/example\/test\.jsonl: line 2 is not JSON/);
});

test("gzipped JSON Lines (EvalPlus's and HumanEval-Infilling's release files) read as the plain ones; a file that is not gzip is one line", async () => {
  const { gzipSync } = await import("node:zlib");
  const path = join(dir, "rows.jsonl.gz");
  writeFileSync(path, gzipSync('{"task_id": "HumanEval/0", "atol": 0, "x": 1.0}\n{"task_id": "é"}\n'));
  assert.deepEqual(readJsonlRows(path, "HumanEvalPlus.jsonl.gz", { gzip: true }), [{ task_id: "HumanEval/0", atol: 0n, x: 1 }, { task_id: "é" }]);
  writeFileSync(path, '{"task_id": 1}\n');
  assert.throws(() => readJsonlRows(path, "HumanEvalPlus.jsonl.gz", { gzip: true }), /^UserError: HumanEvalPlus\.jsonl\.gz: not a gzip file/);
});

// Written by Python's zipfile: a member with a Zip64 local header and a UTF-8 name under dir/, a deflated b.json
// (one JSON array), and a folder entry.
const ZIP_BASE64 =
  "UEsDBC0AAAgAAAAAIQD6oUdc//////////8PABQAZGlyL8O8bsOvLmpzb25sAQAQAAkAAAAAAAAACQAAAAAAAAB7ImEiOiAxfQpQSwMEFAAAAAgA1jaCXbMPhG0OAAAADAAAAAYAAABiLmpzb26LrlZKVLJSMNIzrY0FAFBLAwQUAAAAAADWNoJdAAAAAAAAAAAAAAAACAAAAGRpci9zdWIvUEsBAi0DLQAACAAAAAAhAPqhR1wJAAAACQAAAA8AAAAAAAAAAAAAAIABAAAAAGRpci/DvG7Dry5qc29ubFBLAQIUAxQAAAAIANY2gl2zD4RtDgAAAAwAAAAGAAAAAAAAAAAAAACAAUoAAABiLmpzb25QSwECFAMUAAAAAADWNoJdAAAAAAAAAAAAAAAACAAAAAAAAAAAABAA/UF8AAAAZGlyL3N1Yi9QSwUGAAAAAAMAAwCnAAAAogAAAAAA";

test("zip: members from the central directory (stored with a Zip64 header, deflated, UTF-8 names); JSON rows in datasets' walk order", async () => {
  const path = join(dir, "archive.zip");
  writeFileSync(path, Buffer.from(ZIP_BASE64, "base64"));
  assert.deepEqual((await readZipMembers(path)).map((m) => [m.name, m.data.toString()]), [["dir/ünï.jsonl", '{"a": 1}\n'], ["b.json", '[{"a": 2.5}]']]);
  // The root's files first, then each folder's; the column holds a float, so Arrow's 1 is 1.0 (a float, not a bigint).
  assert.deepEqual(await readJsonZipRows(path, "archive.zip"), [{ a: 2.5 }, { a: 1 }]);
  assert.deepEqual(walkOrder(["b/x.json", "a.json", "__MACOSX/a.json", "c/.DS_Store", "B.json", "a/z.json", "a/b/y.json", "a/__pycache__/q.json"]), ["B.json", "a.json", "a/z.json", "a/b/y.json", "b/x.json"]);
  writeFileSync(path, Buffer.from("PK not really"));
  await assert.rejects(readZipMembers(path), /not a zip archive/);
});
