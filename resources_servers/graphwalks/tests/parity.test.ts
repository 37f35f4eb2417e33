// Parity with NeMo Gym's Python verify on its graphwalks reference set (../shared/nemo-gym-data/graphwalks, never
// committed): each line posted to our /verify gives its reward, f1, parse_failed and predicted_nodes (in NeMo Gym's
// order), and echoes the row's fields.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { injectServer, referenceLines, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import graphwalks from "../app.ts";

const reference = sharedDataFile("graphwalks/parity/reference_verify.jsonl");
const EXTRA_FIELDS = ["f1", "parse_failed", "predicted_nodes"];

let env: InjectedServer | undefined;
before(async () => {
  if (!reference.skip) env = await injectServer(graphwalks, {}, { instanceName: "graphwalks_resources_server" });
});
after(() => env?.close());

test("the 4 reference lines (1 BFS, 3 parents, one with an empty answer): NeMo Gym's reward and fields", { skip: reference.skip }, async () => {
  const lines = referenceLines(reference.path!);
  assert.equal(lines.length, 4);
  const table: string[] = [];
  for (const line of lines) {
    const reply = await env!.post("/verify", line.request);
    assert.equal(reply.status, 200, `line ${line.lineNumber}: ${reply.text}`);
    const body = reply.json<Record<string, unknown>>();
    table.push(`line ${line.lineNumber}: expected ${line.expectedReward} → ours ${body.reward}`);
    assert.equal(body.reward, line.expectedReward, table.join("\n"));
    assert.deepEqual(Object.keys(line.expectedExtra).sort(), [...EXTRA_FIELDS].sort());
    for (const field of EXTRA_FIELDS) assert.deepEqual(body[field], line.expectedExtra[field], `line ${line.lineNumber}: ${field}`);
    for (const field of ["expected_answer", "problem_type", "n_tokens", "prompt_chars"]) assert.deepEqual(body[field], line.request[field], `line ${line.lineNumber}: ${field}`);
  }
});
