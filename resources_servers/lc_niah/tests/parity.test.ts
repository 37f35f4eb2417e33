// Parity with NeMo Gym's Python verify on its lc_niah reference set (../shared/nemo-gym-data/lc_niah, never
// committed): each line, posted to our /verify with NeMo Gym's shipped config, gives its reward and every
// expected_extra field (answer_score and the three overlap signals) to the last bit, and echoes the row's fields.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { assertReferenceLines, injectServer, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import lcNiah from "../app.ts";

const reference = sharedDataFile("lc_niah/parity/reference_verify.jsonl");
const EXTRA_FIELDS = ["answer_score", "overlap_seq_match", "overlap_ngram16", "overlap_lcs", "reasoning_overlap"];

let env: InjectedServer | undefined;
before(async () => {
  if (!reference.skip) env = await injectServer(lcNiah, { overlap_metric_rule: "lcs", overlap_grading_rule: "multiply" });
});
after(() => env?.close());

test("the 5 reference lines: NeMo Gym's reward, scores and echoed row fields", { skip: reference.skip }, async () => {
  await assertReferenceLines((request) => env!.post("/verify", request), reference.path!, {
    lines: 5,
    extraFields: EXTRA_FIELDS,
    alsoCheck: (body, line) => {
      const { response: _response, responses_create_params: _params, ...rowFields } = line.request;
      for (const [field, value] of Object.entries(rowFields)) assert.deepEqual(body[field], value, `line ${line.lineNumber}: echoed ${field}`);
    },
  });
});
