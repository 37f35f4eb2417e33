// Parity with NeMo Gym's Python verify on its ruler2 reference set (../shared/nemo-gym-data/ruler2, never
// committed): each line posted to our /verify gives its reward, predicted_answer and extracted_answer, and echoes
// eval_type, match_type, task and length as NeMo Gym's response model does.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { assertReferenceLines, injectServer, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import ruler2 from "../app.ts";

const reference = sharedDataFile("ruler2/parity/reference_verify.jsonl");
const EXTRA_FIELDS = ["predicted_answer", "extracted_answer"];

let env: InjectedServer | undefined;
before(async () => {
  if (!reference.skip) env = await injectServer(ruler2, {}, { instanceName: "ruler2_resources_server" });
});
after(() => env?.close());

test("the 5 reference lines (3 soft matches of all / part, 1 multichoice, 1 multi-reference): NeMo Gym's reward and fields", { skip: reference.skip }, async () => {
  await assertReferenceLines((request) => env!.post("/verify", request), reference.path!, {
    lines: 5,
    extraFields: EXTRA_FIELDS,
    alsoCheck: (body, line) => {
      for (const field of ["eval_type", "match_type", "task", "length"]) assert.deepEqual(body[field], line.request[field], `line ${line.lineNumber}: ${field}`);
    },
  });
});
