// Parity with NeMo Gym's Python verify on its mrcr reference set (../shared/nemo-gym-data/mrcr, never committed):
// each multi-turn line posted to our /verify gives its SequenceMatcher reward to the last bit, prefix_matched and
// seq_match_ratio, and echoes the row's four fields.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { assertReferenceLines, injectServer, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import mrcr from "../app.ts";

const reference = sharedDataFile("mrcr/parity/reference_verify.jsonl");
const EXTRA_FIELDS = ["prefix_matched", "seq_match_ratio"];

let env: InjectedServer | undefined;
before(async () => {
  if (!reference.skip) env = await injectServer(mrcr, {}, { instanceName: "mrcr_resources_server" });
});
after(() => env?.close());

test("the 5 reference lines: NeMo Gym's reward, prefix_matched and seq_match_ratio", { skip: reference.skip }, async () => {
  await assertReferenceLines((request) => env!.post("/verify", request), reference.path!, {
    lines: 5,
    extraFields: EXTRA_FIELDS,
    alsoCheck: (body, line) => {
      for (const field of ["expected_answer", "random_string_to_prepend", "n_needles", "n_tokens"]) assert.deepEqual(body[field], line.request[field], `line ${line.lineNumber}: ${field}`);
    },
  });
});
