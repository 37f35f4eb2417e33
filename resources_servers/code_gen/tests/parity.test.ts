// Parity with NeMo Gym's Python grader on its recorded code_gen rollouts (../shared/nemo-gym-data, never committed):
// the parity reference set (each recorded rollout joined with its dataset row and re-scored by NeMo Gym's verify at
// 07d6b0d) and the stored rollouts themselves, re-verified over real HTTP with every program run in the sandbox.
// Every reward, extracted output and code, result list and metadata comes back, except the one measured number NeMo
// Gym puts in a passing row's metadata ("execution time"), which is compared by presence only (the reference set
// drops it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, parityDetails, readRows, referenceLines, referenceRowsAsInputs, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("code_gen/data/example_rollouts.jsonl");
const reference = sharedDataFile("code_gen/parity/reference_verify.jsonl");
const skip = rollouts.skip || reference.skip;

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/code_gen.yaml")], replay: rollouts.path });

/** A metadata dict with its measured "execution time" reduced to whether it is there. */
const withoutTimes = (metadata: unknown) =>
  metadata !== null && typeof metadata === "object" && "execution time" in metadata ? { ...metadata, "execution time": typeof (metadata as Record<string, unknown>)["execution time"] } : metadata;

/** The reference set drops that measurement altogether. */
function dropTimes(metadata: unknown) {
  if (metadata === null || typeof metadata !== "object") return metadata;
  const { "execution time": seconds, ...rest } = metadata as Record<string, unknown>;
  assert.equal(typeof seconds, "number", "a passing run's metadata holds its execution time");
  return rest;
}

test("the parity reference set: NeMo Gym's reward, extracted code, result and metadata for each of its 5 lines", { skip }, async () => {
  const lines = referenceLines(reference.path!);
  assert.equal(lines.length, 5);
  const table: string[] = [];
  for (const line of lines) {
    const answer = await graph().client.post("code_gen", "/verify", { json: line.request });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, unknown>>();
    table.push(`line ${line.lineNumber}: NeMo ${line.expectedReward} → ours ${body.reward} (result ${JSON.stringify(body.result).slice(0, 40)})`);
    const where = `${table.join("\n")}\nreference line ${line.lineNumber}`;
    assert.equal(body.reward, line.expectedReward, where);
    for (const [key, value] of Object.entries(line.expectedExtra)) {
      if (key === "metadata" && line.expectedReward === 1) assert.deepEqual(dropTimes(body.metadata), value, `${where}: metadata`);
      else assert.deepEqual(body[key], value, `${where}: ${key}`);
    }
    assert.equal(typeof body.unit_tests_time_taken, "number", where);
  }
  console.log(table.join("\n"));
});

test("re-verifying NeMo Gym's 5 stored rollouts reproduces every reward, extracted field and result", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: referenceRowsAsInputs(reference.path!), server: "code_gen", callDeadlineMs: 60_000 });
  const stored = readRows(rollouts.path!);
  const passing = stored.flatMap((row, i) => (row.reward === 1 ? [i + 1] : []));
  assertParity(report, {
    rows: 5,
    extraFields: ["extracted_model_output", "extracted_model_code", "result", "metadata"],
    expectedDifferences: passing.map((line) => ({ line, fields: ["metadata"], why: "a passing row's metadata holds the measured execution time" })),
  });
  for (const line of passing) {
    const ours = report.outcomes.find((o) => o.lineNumber === line)!.line!;
    assert.deepEqual(withoutTimes(ours.metadata), withoutTimes(stored[line - 1]!.metadata), parityDetails(report));
  }
});
