// Parity with NeMo Gym's Python verify on its graphwalks reference set (../shared/nemo-gym-data/graphwalks, never
// committed): each line posted to our /verify gives its reward, f1, parse_failed and predicted_nodes (in NeMo Gym's
// order), and echoes the row's fields.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { assertReferenceLines, injectServer, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import graphwalks from "../app.ts";

const reference = sharedDataFile("graphwalks/parity/reference_verify.jsonl");
const EXTRA_FIELDS = ["f1", "parse_failed", "predicted_nodes"];

let env: InjectedServer | undefined;
before(async () => {
  if (!reference.skip) env = await injectServer(graphwalks, {}, { instanceName: "graphwalks_resources_server" });
});
after(() => env?.close());

test("the 4 reference lines (1 BFS, 3 parents, one with an empty answer): NeMo Gym's reward and fields", { skip: reference.skip }, async () => {
  await assertReferenceLines((request) => env!.post("/verify", request), reference.path!, {
    lines: 4,
    extraFields: EXTRA_FIELDS,
    alsoCheck: (body, line) => {
      for (const field of ["expected_answer", "problem_type", "n_tokens", "prompt_chars"]) assert.deepEqual(body[field], line.request[field], `line ${line.lineNumber}: ${field}`);
    },
  });
});
