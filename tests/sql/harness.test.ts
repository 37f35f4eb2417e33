// Reading the sandboxed harness's answer: exactly one JSON line carrying this run's nonce, or no result at all.
// Anything a statement could add to stdout (before, after, a second frame, a frame with a guessed nonce) is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFrame } from "../../src/sql/index.ts";
import { PyOpaque } from "../../src/python/values.ts";

const NONCE = "a".repeat(32);
const frame = (body: Record<string, unknown>) => `${JSON.stringify({ nonce: NONCE, ...body })}\n`;

test("a frame's cells come back typed: int as bigint, float as number, bytes, text, null, ±inf", () => {
  const answer = readFrame(frame({ rows: [[["i", "9007199254740993"], ["f", 1], ["f", "-inf"], ["b", "AP8="], "1.0", null]] }), NONCE);
  assert.deepEqual(answer, { kind: "rows", rows: [[9007199254740993n, 1, -Infinity, new PyOpaque("bytes", "b'\\x00\\xff'"), "1.0", null]] });
});

test("extra bytes before or after the frame, a second frame, or another nonce: no result", () => {
  const good = frame({ rows: [] });
  for (const stdout of [`SQLite format 3\u0000${good}`, `${good}x`, `${good}${good}`, good.slice(0, -1), frame({ rows: [] }).replace(NONCE, "b".repeat(32))]) {
    assert.equal(readFrame(stdout, NONCE).kind, "no-frame", JSON.stringify(stdout.slice(0, 60)));
  }
});

test("a frame with fields or cells the harness never writes: no result", () => {
  assert.equal(readFrame(frame({ rows: [], error: "x" }), NONCE).kind, "no-frame");
  assert.equal(readFrame(frame({ rows: [[["i", "1.5"]]] }), NONCE).kind, "no-frame");
  assert.equal(readFrame(frame({ rows: [[1]] }), NONCE).kind, "no-frame");
  assert.deepEqual(readFrame(frame({ error: "OperationalError: no such table: t" }), NONCE), { kind: "error", error: "OperationalError: no such table: t" });
});
