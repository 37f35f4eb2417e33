// The one owner of a rollouts output's files (what `gym eval run` and `gym eval reverify` write): NeMo Gym's
// names, appends that reach the file line by line, whole files replaced atomically, no silent overwrite.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InputError } from "../../src/rollouts/jsonl.ts";
import { rolloutOutputPaths, RolloutOutputFiles } from "../../src/rollouts/output-files.ts";
import { UserError } from "../../src/config/errors.ts";

const tempDir = () => mkdtempSync(join(tmpdir(), "gym-output-files-"));

test("NeMo Gym's file names next to <out>.jsonl", () => {
  assert.deepEqual(rolloutOutputPaths("/r/run.jsonl"), {
    rollouts: "/r/run.jsonl",
    materializedInputs: "/r/run_materialized_inputs.jsonl",
    failures: "/r/run_failures.jsonl",
    fingerprint: "/r/run_run_fingerprint.json",
    aggregateMetrics: "/r/run_aggregate_metrics.json",
  });
});

test("a fresh run: inputs and fingerprint written whole, rollouts appended line by line, failures only once one happens", () => {
  const dir = join(tempDir(), "nested", "out");
  const files = new RolloutOutputFiles(join(dir, "run.jsonl"));
  files.startFresh([{ a: 1 }, { a: 2 }], { "server x": "abc" });
  const output = files.openAppenders();
  output.appendRollout({ reward: 1, _ng_task_index: 0 });
  // Readable before close: each line reaches the file as it is appended.
  assert.equal(readFileSync(files.paths.rollouts, "utf8"), '{"reward":1.0,"_ng_task_index":0}\n');
  assert.equal(existsSync(files.paths.failures), false);
  output.appendFailure({ _ng_failure_class: "timeout" });
  output.close();
  assert.equal(readFileSync(files.paths.failures, "utf8"), '{"_ng_failure_class":"timeout"}\n');
  assert.equal(readFileSync(files.paths.materializedInputs, "utf8"), '{"a":1}\n{"a":2}\n');
  assert.deepEqual(JSON.parse(readFileSync(files.paths.fingerprint, "utf8")), { "server x": "abc" });

  assert.equal(files.writeAggregateMetrics([{ agent_ref: { name: "a" } }]), files.paths.aggregateMetrics);
  assert.deepEqual(JSON.parse(readFileSync(files.paths.aggregateMetrics, "utf8")), [{ agent_ref: { name: "a" } }]);
  assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith(".tmp")), [], "no temporary file is left behind");

  // Starting over removes the earlier rollouts and failures.
  files.startFresh([{ a: 3 }], {});
  assert.equal(existsSync(files.paths.rollouts), false);
  assert.equal(existsSync(files.paths.failures), false);
});

test("an earlier output is refused (a user error) unless overwrite, which removes it", () => {
  const files = new RolloutOutputFiles(join(tempDir(), "re.jsonl"));
  files.replaceExisting(false);
  writeFileSync(files.paths.failures, "{}\n");
  assert.throws(() => files.replaceExisting(false), (error) => error instanceof InputError && error instanceof UserError && /output file already exists: '.*re_failures\.jsonl'; pass --overwrite/.test(error.message));
  files.replaceExisting(true);
  assert.equal(existsSync(files.paths.failures), false);
});
