// Parity with NeMo Gym's Python verify on its mrcr reference set (../shared/nemo-gym-data/mrcr, never committed):
// each multi-turn line posted to our /verify gives its SequenceMatcher reward to the last bit, prefix_matched and
// seq_match_ratio, and echoes the row's four fields.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { injectServer, referenceLines, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import mrcr from "../app.ts";

const reference = sharedDataFile("mrcr/parity/reference_verify.jsonl");
const EXTRA_FIELDS = ["prefix_matched", "seq_match_ratio"];

let env: InjectedServer | undefined;
before(async () => {
  if (!reference.skip) env = await injectServer(mrcr, {}, { instanceName: "mrcr_resources_server" });
});
after(() => env?.close());

test("the 5 reference lines: NeMo Gym's reward, prefix_matched and seq_match_ratio", { skip: reference.skip }, async () => {
  const lines = referenceLines(reference.path!);
  assert.equal(lines.length, 5);
  const table: string[] = [];
  for (const line of lines) {
    const reply = await env!.post("/verify", line.request);
    assert.equal(reply.status, 200, `line ${line.lineNumber}: ${reply.text}`);
    const body = reply.json<Record<string, unknown>>();
    table.push(`line ${line.lineNumber}: expected ${line.expectedReward} → ours ${body.reward}`);
    assert.equal(body.reward, line.expectedReward, table.join("\n"));
    assert.deepEqual(Object.keys(line.expectedExtra).sort(), [...EXTRA_FIELDS].sort());
    for (const field of EXTRA_FIELDS) assert.deepEqual(body[field], line.expectedExtra[field], `line ${line.lineNumber}: ${field}`);
    for (const field of ["expected_answer", "random_string_to_prepend", "n_needles", "n_tokens"]) assert.deepEqual(body[field], line.request[field], `line ${line.lineNumber}: ${field}`);
  }
});
