// Dataset rows → /run requests, as NeMo Gym's _preprocess_rows_from_config builds them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InputError, materializeLazily, materializeRows, readJsonl } from "../../src/rollouts/materialize.ts";

function jsonl(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), "gym-materialize-")), "in.jsonl");
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

const A = JSON.stringify({ responses_create_params: { input: "a" }, extra: 1 });
const B = JSON.stringify({ responses_create_params: { input: "b" } });

test("rows repeat consecutively (aabb) with rollout indices per task, and agent_ref comes after the row's own keys", () => {
  const rows = materializeRows(readJsonl(jsonl([A, B])), { agentName: "agent", numRepeats: 2 });
  assert.deepEqual(
    rows.map((r) => [r._ng_task_index, r._ng_rollout_index]),
    [[0, 0], [0, 1], [1, 0], [1, 1]],
  );
  assert.deepEqual(Object.keys(rows[0]!), ["responses_create_params", "extra", "agent_ref", "_ng_task_index", "_ng_rollout_index"]);
  assert.deepEqual(rows[0]!.agent_ref, { name: "agent" });
});

test("identical lines share a task index and continue its rollout numbering; a row's own task index is kept", () => {
  const own = JSON.stringify({ responses_create_params: { input: "c" }, _ng_task_index: 42 });
  const rows = materializeRows(readJsonl(jsonl([A, B, A, own])), { agentName: "agent" });
  assert.deepEqual(rows.map((r) => [r._ng_task_index, r._ng_rollout_index]), [[0, 0], [1, 0], [0, 1], [42, 0]]);
});

test("a row's own agent_ref wins over --agent; num_repeats can be per agent with a _default", () => {
  const other = JSON.stringify({ responses_create_params: { input: "o" }, agent_ref: { name: "other" } });
  const rows = materializeRows(readJsonl(jsonl([A, other])), { agentName: "agent", numRepeats: { other: 3, _default: 1 } });
  assert.deepEqual(rows.map((r) => (r.agent_ref as { name: string }).name), ["agent", "other", "other", "other"]);
  assert.throws(() => materializeRows(readJsonl(jsonl([other])), { numRepeats: { agent: 2 } }), /no entry.*other/);
});

test("responses_create_params overrides replace top-level keys (shallow), and seeds go into metadata.extra_body as Python writes it", () => {
  const withMeta = JSON.stringify({ responses_create_params: { input: "m", reasoning: { effort: "high", summary: "auto" }, metadata: { extra_body: '{"top_k": 5}' } } });
  const rows = materializeRows(readJsonl(jsonl([withMeta])), { agentName: "a", numRepeats: 2, numRepeatsAddSeed: true, responsesCreateParams: { reasoning: { effort: "low" }, temperature: 0.2 } });
  const params = rows[1]!.responses_create_params as Record<string, any>;
  assert.deepEqual(params.reasoning, { effort: "low" });
  assert.equal(params.temperature, 0.2);
  assert.equal(params.metadata.extra_body, '{"top_k": 5, "seed": 1}');
  assert.equal((rows[0]!.responses_create_params as any).metadata.extra_body, '{"top_k": 5, "seed": 0}');
});

test("limit takes the first N rows; blank lines are skipped", () => {
  assert.equal(readJsonl(jsonl([A, "", B, A]), 2).length, 2);
});

test("errors name the file and line: bad JSON, non-object lines, rows without an agent", () => {
  const bad = jsonl([A, "{oops"]);
  assert.throws(() => readJsonl(bad), (e: Error) => e instanceof InputError && e.message.startsWith(`${bad}:2: not valid JSON`));
  assert.throws(() => readJsonl(jsonl(["[1, 2]"])), /:1: each line must be a JSON object/);
  assert.throws(() => materializeRows(readJsonl(jsonl([A, B])), {}), /no agent for input lines 1, 2/);
  assert.throws(() => readJsonl("/nonexistent/in.jsonl"), /cannot read '\/nonexistent\/in.jsonl': ENOENT/);
});

test("a prompt config builds each row's input from its fields ({{ }} are literal braces) and keeps the other params", () => {
  const rows = materializeRows(
    readJsonl(jsonl([JSON.stringify({ question: "2+2?", level: 3, flag: true, responses_create_params: { temperature: 0.2 } }), JSON.stringify({ question: "x", level: 1, flag: false })])),
    { agentName: "agent", promptConfig: { system: "Level {level}, strict={flag}. Answer in {{braces}}.", user: "Q: {question}" } },
  );
  assert.deepEqual(rows[0]!.responses_create_params, {
    temperature: 0.2,
    input: [
      { role: "system", content: "Level 3, strict=True. Answer in {braces}." },
      { role: "user", content: "Q: 2+2?" },
    ],
  });
  assert.deepEqual((rows[1]!.responses_create_params as any).input[1], { role: "user", content: "Q: x" });
});

test("a prompt config refuses rows that already have an input (all named) and names a missing field", () => {
  const path = jsonl([A, JSON.stringify({ q: 1, responses_create_params: {} }), B]);
  assert.throws(() => materializeRows(readJsonl(path), { agentName: "agent", promptConfig: { user: "{q}" } }), (error: unknown) => error instanceof InputError && /lines 1, 3 already have responses_create_params\.input/.test((error as Error).message));
  assert.throws(
    () => materializeRows(readJsonl(jsonl([JSON.stringify({ q: 1 })])), { agentName: "agent", promptConfig: { user: "{question}" } }),
    /references field 'question' but the data row only has fields: q/,
  );
});

test("a large run is materialized lazily: 2 rows x 65,536 repeats hold 2 rows, and each request is a fresh copy", () => {
  const heapBefore = process.memoryUsage().heapUsed;
  const rows = materializeLazily(readJsonl(jsonl([A, B, A])), { agentName: "agent", numRepeats: 65_536, numRepeatsAddSeed: true });
  assert.ok(process.memoryUsage().heapUsed - heapBefore < 20 * 2 ** 20, "building the run allocates no row per rollout");
  assert.equal(rows.length, 3 * 65_536);
  // The third line repeats the first: same task, rollout numbering continues after the first line's 65,536.
  const last = rows.at(rows.length - 1);
  assert.deepEqual([last._ng_task_index, last._ng_rollout_index], [0, 2 * 65_536 - 1]);
  assert.equal(rows.keyAt(rows.length - 1), "0:131071");
  assert.equal(rows.agentAt(65_536), "agent");
  assert.equal(JSON.parse((last.responses_create_params as { metadata: { extra_body: string } }).metadata.extra_body).seed, 2 * 65_536 - 1);
  const first = rows.at(0);
  (first.responses_create_params as Record<string, unknown>).input = "changed";
  assert.equal((rows.at(0).responses_create_params as Record<string, unknown>).input, "a");
  assert.throws(() => rows.at(rows.length), RangeError);
  // The eager list is the same requests in the same order.
  const small = materializeLazily(readJsonl(jsonl([A, B, A])), { agentName: "agent", numRepeats: 3, numRepeatsAddSeed: true });
  assert.deepEqual([...small], materializeRows(readJsonl(jsonl([A, B, A])), { agentName: "agent", numRepeats: 3, numRepeatsAddSeed: true }));
  assert.deepEqual([...small].map((row) => [row._ng_task_index, row._ng_rollout_index]), [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [0, 3], [0, 4], [0, 5]]);
});
