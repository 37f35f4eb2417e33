// Parity with NeMo Gym's Python verify on its lc_niah reference set (../shared/nemo-gym-data/lc_niah, never
// committed): each line, posted to our /verify with NeMo Gym's shipped config, gives its reward and every
// expected_extra field (answer_score and the three overlap signals) to the last bit, and echoes the row's fields.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { injectServer, referenceLines, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import lcNiah from "../app.ts";

const reference = sharedDataFile("lc_niah/parity/reference_verify.jsonl");
const EXTRA_FIELDS = ["answer_score", "overlap_seq_match", "overlap_ngram16", "overlap_lcs", "reasoning_overlap"];

let env: InjectedServer | undefined;
before(async () => {
  if (!reference.skip) env = await injectServer(lcNiah, { overlap_metric_rule: "lcs", overlap_grading_rule: "multiply" });
});
after(() => env?.close());

test("the 5 reference lines: NeMo Gym's reward, scores and echoed row fields", { skip: reference.skip }, async () => {
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
    for (const field of EXTRA_FIELDS) assert.equal(body[field], line.expectedExtra[field], `line ${line.lineNumber}: ${field}`);
    const { response: _response, responses_create_params: _params, ...rowFields } = line.request;
    for (const [field, value] of Object.entries(rowFields)) assert.deepEqual(body[field], value, `line ${line.lineNumber}: echoed ${field}`);
  }
});
