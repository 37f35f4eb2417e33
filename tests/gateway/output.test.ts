// Terminal snapshot → Relax session output, and its atomic publication (spec §4.2; reference test_result.py,
// tests 47–53).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, existsSync, writeFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toRelaxOutput, writeRelaxOutput } from "../../src/gateway/client/output.ts";
import { TrialOutputError } from "../../src/gateway/client/errors.ts";
import { PROTOCOL_VERSION, type TrialSnapshot } from "../../src/gateway/types.ts";

function snapshot(overrides: Partial<TrialSnapshot>): TrialSnapshot {
  return { protocol_version: PROTOCOL_VERSION, request_id: "request-1", status: "completed", reward: null, metrics: {}, artifact_ref: null, error: null, ...overrides };
}

/** Relax's SessionOutput.from_payload accepts exactly {metadata, reward}: a finite number or an object, and an object. */
function assertRelaxSessionOutput(payload: unknown) {
  const value = JSON.parse(JSON.stringify(payload)) as Record<string, unknown>;
  assert.deepEqual(Object.keys(value).sort(), ["metadata", "reward"]);
  assert.ok(typeof value.metadata === "object" && value.metadata !== null && !Array.isArray(value.metadata));
  assert.ok((typeof value.reward === "number" && Number.isFinite(value.reward)) || (typeof value.reward === "object" && value.reward !== null));
  return value;
}

const tempDir = () => mkdtempSync(join(tmpdir(), "relax-output-"));

test("scalar_reward_wrapper_maps_to_relax_reward_and_metadata", () => {
  const payload = toRelaxOutput(
    snapshot({ reward: { scalar: 0.75, components: { verifier: 1.0, format: 0.5 } }, metrics: { agent_steps: 3 }, artifact_ref: "artifact://request-1" }),
  );
  assert.equal(payload.reward, 0.75);
  assert.equal(payload.metadata.nemo_gym.status, "completed");
  assert.deepEqual(payload.metadata.nemo_gym.reward_components, { verifier: 1.0, format: 0.5 });
  assert.deepEqual(payload.metadata.nemo_gym.metrics, { agent_steps: 3 });
  assert.equal(payload.metadata.nemo_gym.artifact_ref, "artifact://request-1");
  const parsed = assertRelaxSessionOutput(payload);
  assert.equal(parsed.reward, 0.75);
  assert.deepEqual(parsed.metadata, payload.metadata);
});

for (const reward of [0.0, 1.0, { verifier: 1.0 }]) {
  test(`relax_reward_shapes_are_preserved[${JSON.stringify(reward)}]`, () => {
    const payload = toRelaxOutput(snapshot({ status: "truncated", reward }));
    assert.deepEqual(payload.reward, reward);
    assert.deepEqual(assertRelaxSessionOutput(payload).reward, reward);
  });
}

test("non_success_result_cannot_be_materialized", () => {
  for (const status of ["failed", "aborted", "running", "queued"] as const) {
    assert.throws(() => toRelaxOutput(snapshot({ status, reward: 1 })), (error: unknown) => error instanceof TrialOutputError && /non-success/.test(error.message));
  }
});

for (const status of ["completed", "truncated"] as const) {
  test(`terminal_result_without_reward_cannot_be_materialized[${status}]`, () => {
    assert.throws(
      () => toRelaxOutput(snapshot({ status, reward: null })),
      (error: unknown) => error instanceof TrialOutputError && /NeMo Gym trial has no reward:.*error_code=missing_reward/.test(error.message),
    );
  });
}

test("an unscored deadline truncation names its error code", () => {
  assert.throws(() => toRelaxOutput(snapshot({ status: "truncated", error: { code: "deadline_exceeded" } })), /status=truncated error_code=deadline_exceeded/);
});

test("output_drops_gateway_error_message_that_could_contain_secrets", () => {
  const payload = toRelaxOutput(
    snapshot({ status: "truncated", reward: 0.0, error: { code: "deadline_exceeded", type: "timeout", message: "token=session-secret" } }),
  );
  assert.deepEqual(payload.metadata.nemo_gym.error, { code: "deadline_exceeded", type: "timeout" });
  assert.doesNotMatch(JSON.stringify(payload), /session-secret/);
});

test("output_writer_atomically_replaces_existing_file", async () => {
  const dir = tempDir();
  const outputPath = join(dir, "session_output.json");
  writeFileSync(outputPath, '{"old":true}');
  const payload = { metadata: { unicode: "你好", nested: { value: 1 } }, reward: 1.0 };

  assert.equal(await writeRelaxOutput(outputPath, payload), true);

  assert.deepEqual(JSON.parse(readFileSync(outputPath, "utf8")), payload);
  assert.equal(existsSync(join(dir, ".session_output.json.tmp")), false);
  rmSync(dir, { recursive: true });
});

test("output_writer_does_not_replace_target_with_invalid_json", async () => {
  const dir = tempDir();
  const outputPath = join(dir, "session_output.json");
  writeFileSync(outputPath, '{"old":true}');

  await assert.rejects(writeRelaxOutput(outputPath, { metadata: { bad: Number.NaN }, reward: null }));
  await assert.rejects(writeRelaxOutput(outputPath, { metadata: { bad: new Map() }, reward: 1 }));

  assert.deepEqual(JSON.parse(readFileSync(outputPath, "utf8")), { old: true });
  assert.deepEqual(readdirSync(dir), ["session_output.json"]);
  rmSync(dir, { recursive: true });
});

test("a session directory Relax already removed is ignored", async () => {
  const dir = tempDir();
  rmSync(dir, { recursive: true });
  assert.equal(await writeRelaxOutput(join(dir, "session_output.json"), { reward: 1, metadata: {} }), false);
  assert.equal(existsSync(dir), false);
});
