// Parity with NeMo Gym's Python verify on its ruler2 reference set (../shared/nemo-gym-data/ruler2, never
// committed): each line posted to our /verify gives its reward, predicted_answer and extracted_answer, and echoes
// eval_type, match_type, task and length as NeMo Gym's response model does.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { injectServer, referenceLines, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import ruler2 from "../app.ts";

const reference = sharedDataFile("ruler2/parity/reference_verify.jsonl");
const EXTRA_FIELDS = ["predicted_answer", "extracted_answer"];

let env: InjectedServer | undefined;
before(async () => {
  if (!reference.skip) env = await injectServer(ruler2, {}, { instanceName: "ruler2_resources_server" });
});
after(() => env?.close());

test("the 5 reference lines (3 soft matches of all / part, 1 multichoice, 1 multi-reference): NeMo Gym's reward and fields", { skip: reference.skip }, async () => {
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
    for (const field of ["eval_type", "match_type", "task", "length"]) assert.deepEqual(body[field], line.request[field], `line ${line.lineNumber}: ${field}`);
  }
});
