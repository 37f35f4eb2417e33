// Parity with NeMo Gym's Python server, from its reference data in ../shared (skipped when absent): its
// recorded rollouts re-verified with their dataset rows, and its reference verify requests.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readJsonl, type InputLine } from "../../../src/rollouts/jsonl.ts";
import { reverifyRollouts } from "../../../src/rollouts/reverify.ts";
import { http, startServers } from "../../../tests/helpers/servers.ts";
import { readRows } from "../../../tests/helpers/environment-checks.ts";
import { sharedDataFile } from "../../../tests/helpers/shared-data.ts";
import { withoutNullParams } from "../../../tests/helpers/reference-rows.ts";
import type { InProcessGraph } from "../../../src/testing/in-process.ts";
import calendar from "../app.ts";
import { gradeAssistantResponse } from "../grading.ts";
import { parityLine } from "../../../tests/helpers/reference-rows.ts";

const rollouts = sharedDataFile("calendar/data/example_rollouts.jsonl");
const dataset = sharedDataFile("calendar/data/example.jsonl");
const reference = sharedDataFile("calendar/parity/reference_verify.jsonl");

let graph: InProcessGraph;
const client = http();

before(async () => (graph = await startServers({ calendar: [calendar] })));
after(async () => {
  await graph.close();
  await client.close();
});

test("NeMo Gym's recorded rollouts re-verify to every stored reward and extra field", { skip: rollouts.skip || dataset.skip }, async (t) => {
  // The rollout lines lack exp_cal_state; reverify finds each one's dataset row by its prompt.
  const inputs: InputLine[] = readJsonl(dataset.path!);
  const report = await reverifyRollouts({ client: graph.client, rollouts: readJsonl(rollouts.path!), inputs, resourcesServerFor: () => "calendar", concurrency: 1 });
  const table = report.outcomes.map(parityLine);
  for (const line of table) t.diagnostic(line);
  assert.equal(report.outcomes.length, 5);
  for (const outcome of report.outcomes) {
    assert.equal(outcome.failure, undefined, table[outcome.lineNumber - 1]);
    assert.ok(outcome.rewardEqual, table[outcome.lineNumber - 1]);
    assert.deepEqual(outcome.differentFields, [], table[outcome.lineNumber - 1]);
    assert.deepEqual(Object.keys(outcome.line!).filter((k) => !k.startsWith("_ng_")), ["responses_create_params", "response", "reward"]);
  }
  assert.deepEqual(
    report.outcomes.map((o) => o.line!.reward),
    readRows(rollouts.path!).map((r) => r.reward),
  );
});

test("NeMo Gym's reference verify requests give the expected reward and extra fields", { skip: reference.skip }, async (t) => {
  const lines = readRows(reference.path!);
  for (const [i, { expected_reward, expected_extra, ...request }] of lines.entries()) {
    const verified = await client.request(`${graph.url("calendar")}/verify`, { method: "POST", json: withoutNullParams(request) });
    const result = verified.json<Record<string, unknown>>();
    assert.equal(result.reward, expected_reward, `line ${i + 1}`);
    for (const [key, value] of Object.entries(expected_extra ?? {})) assert.deepEqual(result[key], value, `line ${i + 1}: ${key}`);
    // Why each scored as it did (NeMo Gym computes the reason too, and drops it).
    const text = request.response.output.at(-1).content[0].text;
    t.diagnostic(`line ${i + 1}: reward ${String(result.reward)} (${gradeAssistantResponse(text, request.exp_cal_state)[1]})`);
  }
});
