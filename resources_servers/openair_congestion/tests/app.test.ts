// openair_congestion over HTTP on the dataset_replay backend, with our own recorded KPI snapshots: the reset
// contract, the one-call protocol (penalized noop for a missing, malformed, unknown or second call), the guardrail's
// rejections, the openair_v1 reward, budgets, idempotent steps and /close.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, functionCallItem, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import openair from "../app.ts";
import { loadDataset } from "../dataset-backend.ts";
import { formatFixed } from "../observation.ts";

const FIXTURE = "data/fixtures/kpi_snapshots.jsonl";
const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
let env: InjectedServer;
before(async () => (env = await injectServer(openair, { backend: "dataset_replay", dataset_path: FIXTURE, pool_size: 500 }, { instanceName: "openair" })));
after(() => env.close());

const params = { input: [{ role: "user", content: "Choose one tool call." }] };
type Info = Record<string, any>;
type Step = { observation: string; reward: number; terminated: boolean; truncated: boolean; info: Info };

async function episode(meta: Record<string, unknown> = { scenario_id: "campus_evening" }, server: InjectedServer = env) {
  const session = server.session();
  const reset = await session.post("/reset", { responses_create_params: params, ...meta });
  const step = async (output: Record<string, unknown>[], extra: Record<string, unknown> = {}) => {
    const answer = await session.post("/step", { responses_create_params: params, response: responseWith(output), ...meta, ...extra });
    assert.equal(answer.status, 200, answer.text);
    return answer.json<Step>();
  };
  const call = (name: string, args: unknown) => step([functionCallItem(name, args)]);
  return { reset, session, step, call };
}

test("reset shows the first snapshot as the policy's text and announces the episode contract", async () => {
  const { reset } = await episode();
  assert.equal(reset.status, 200, reset.text);
  const { observation, info } = reset.json<{ observation: string; info: Info }>();
  assert.equal(observation.split("\n")[0], "5G RAN telemetry @ t=0.0s (step 0, tier replay):");
  assert.match(observation, /- Cell 0: DL PRB util p50=62%, p99=73%; UL PRB util p50=25%; sched latency p99 20ms; Jain fairness 0\.92; PRACH collision rate 0%; 3 UEs RRC-connected; 0 SLA violation\(s\) in last 5s\./);
  assert.match(observation, /UE 2 \(5QI 1\): offered 10\.0 Mbps, delivered 7\.0 Mbps, SINR 2\.0 dB, BLER 18%, mean MCS 8, buffer 150 kB, PDB violations 0 \(ok\)\./);
  assert.equal(info.scenario_id, "campus_evening");
  assert.match(info.episode_id, /^ds_[0-9a-f]{12}$/);
  assert.deepEqual(
    { backend: info.backend, training_usable: info.training_usable, diagnostic_only: info.diagnostic_only, reward_profile: info.reward_profile, observation_render: info.observation_render, supports_explicit_close: info.supports_explicit_close },
    { backend: "dataset_replay", training_usable: false, diagnostic_only: true, reward_profile: "openair_v1", observation_render: "openair_natural_language_v1", supports_explicit_close: true },
  );
  assert.equal(info.reward_weights.w_fair, 5);
});

test("noop over a recorded pair earns the openair_v1 reward computed by hand", async () => {
  const { call } = await episode();
  const step = await call("noop", {});
  // Step 0 → 1: delivered 30.5 → 24.5 Mbps, Jain 0.9249… → 0.8294…, p99 saturates at 1.0.
  assert.ok(Math.abs(step.info.reward_terms.delta_tput - -0.2) < 1e-12);
  assert.ok(Math.abs(step.info.reward_terms.level_prb - -0.4) < 1e-12);
  assert.ok(Math.abs(step.reward - -1.0778533793382357) < 1e-12, String(step.reward));
  assert.equal(step.info.reward_terms.total, step.reward);
  assert.equal(step.info.guardrail_accepted, true);
  assert.equal(step.info.kpi_source, "dataset_replay");
  assert.deepEqual(step.info.recorded_action, { name: "set_scheduler_policy", arguments: { cell_id: 0, policy: "PF" } });
  assert.equal(step.info.tool_outputs[0].output, '{"accepted": true, "rejection_reason": null, "step_idx": 1}');
  assert.match(step.observation, /Last action: noop\(\{\}\); last reward: -1\.07785337933823\d*\./);
});

test("an accepted actuator earns the same transition as noop (recorded data is not causal)", async () => {
  const noop = await (await episode()).call("noop", {});
  const acted = await (await episode()).call("set_scheduler_policy", { cell_id: 0, policy: "RR" });
  assert.equal(acted.reward, noop.reward);
  assert.match(acted.observation, /Last action: set_scheduler_policy\(\{'cell_id': 0, 'policy': 'RR'\}\)/);
});

test("an out-of-range value is a guardrail rejection (w_reject, deltas only lose), not a protocol violation", async () => {
  const noop = await (await episode()).call("noop", {});
  const rejected = await (await episode()).call("set_scheduler_policy", { cell_id: 3, policy: "RR" });
  assert.equal(rejected.info.guardrail_accepted, false);
  assert.equal(rejected.info.rejection_reason, "set_scheduler_policy: cell_id=3 out of range [0,1)");
  assert.equal(rejected.info.protocol_violation, undefined);
  assert.ok(Math.abs(rejected.reward - (noop.reward - 0.5)) < 1e-12);
  assert.match(rejected.observation, /REJECTED \(set_scheduler_policy: cell_id=3 out of range \[0,1\)\)\./);
});

test("the guardrail's reasons, with Python's reprs", async () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["set_scheduler_policy", { cell_id: 0, policy: "FIFO" }, "set_scheduler_policy: policy='FIFO' not in ('PF', 'RR', 'MaxCI')"],
    ["set_prb_cap", { cell_id: 0, target: "ue", target_id: 5, max_prb: 50 }, "set_prb_cap: target_id=5 not present in cell 0; valid ids=[0, 1, 2]"],
    ["set_prb_cap", { cell_id: 0, target: "ue", target_id: 1, max_prb: 0 }, "set_prb_cap: max_prb=0 starves the ue entirely (catastrophic)"],
    ["set_mcs_bounds", { cell_id: 0, mcs_min: 9, mcs_max: 4, target_bler: 0.1 }, "set_mcs_bounds: mcs_min (9) > mcs_max (4)"],
    ["set_mcs_bounds", { cell_id: 0, mcs_min: 0, mcs_max: 0, target_bler: 0.1 }, "set_mcs_bounds: mcs_max=0 zeroes throughput (catastrophic)"],
    ["set_qos_weights", { cell_id: 0, weights: { "200": 1 } }, "set_qos_weights: 5QI 200 out of [1,127]"],
    ["set_qos_weights", { cell_id: 0, weights: { "1": 0, "9": 0 } }, "set_qos_weights: all weights zero (catastrophic)"],
    ["set_admission_policy", { cell_id: 0, accept_threshold_pct: 0, slice_reservation: {} }, "set_admission_policy: accept_threshold_pct=0 rejects all admissions (catastrophic)"],
    ["set_handover_trigger", { cell_id: 0, a3_offset_db: 30, ttt_ms: 40 }, "set_handover_trigger: a3_offset_db=30 out of (-24.0, 24.0)"],
    ["set_handover_trigger", { cell_id: 0, a3_offset_db: 3, ttt_ms: 50 }, "set_handover_trigger: ttt_ms=50 not in 38.331 set"],
    ["set_ul_power_control", { cell_id: 0, p0_dbm: -90, alpha: 0.3 }, "set_ul_power_control: alpha=0.3 not in (0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)"],
  ];
  for (const [name, args, reason] of cases) {
    const step = await (await episode()).call(name, args);
    assert.equal(step.info.rejection_reason, reason, name);
  }
  // A float where the guardrail wants an int: jsonschema's "integer" takes 1.0, Python's isinstance(1.0, int) does not.
  const float = await (await episode()).call("set_scheduler_policy", '{"cell_id": 0.0, "policy": "RR"}');
  assert.equal(float.info.rejection_reason, "set_scheduler_policy: cell_id=0.0 out of range [0,1)");
});

test("an identical accepted call within the 2 s window is rejected as a repeat", async () => {
  const { call } = await episode();
  assert.equal((await call("set_ul_power_control", { cell_id: 0, p0_dbm: -90, alpha: 0.8 })).info.guardrail_accepted, true);
  const again = await call("set_ul_power_control", { cell_id: 0, p0_dbm: -90, alpha: 0.8 });
  assert.equal(again.info.rejection_reason, "set_ul_power_control: identical-action repeat within 2s window");
});

test("no tool call: penalized noop, reward = noop's + protocol_violation_penalty", async () => {
  const noop = await (await episode()).call("noop", {});
  const none = await (await episode()).step([assistantMessage("Lower the load please.")]);
  assert.equal(none.info.error, "no_tool_call");
  assert.equal(none.info.protocol_violation, true);
  assert.equal(none.info.reward_terms.protocol_violation, -1);
  assert.ok(Math.abs(none.reward - (noop.reward - 1)) < 1e-12);
  assert.equal(none.info.reward_terms.total, none.reward);
  assert.deepEqual(none.info.tool_outputs, []);
  assert.deepEqual(none.info.applied_fallback_action, { name: "noop", arguments: {} });
  assert.match(none.observation, /Last action: noop\(\{\}\); last reward: .*, REJECTED \(No tool call detected\./);
});

test("two calls: penalized noop, each call answered that exactly one is required", async () => {
  const step = await (await episode()).step([functionCallItem("noop", {}, "c1"), functionCallItem("noop", {}, "c2")]);
  assert.equal(step.info.error, "multiple_tool_calls");
  assert.deepEqual(step.info.tool_outputs.map((o: any) => o.call_id), ["c1", "c2"]);
  assert.equal(step.info.tool_outputs[0].output, '{"accepted": false, "error": "Exactly one tool call is required; applied penalized noop."}');
});

test("malformed calls are invalid_tool_call: bad JSON, non-object, duplicate key, NaN, unknown tool, wrong type, extra field", async () => {
  const cases: [string, string, RegExp][] = [
    ["noop", "{oops", /^Expecting property name enclosed in double quotes: line 1 column 2 \(char 1\)$/],
    ["noop", "[1]", /^arguments must be a JSON object, got list$/],
    ["set_scheduler_policy", '{"cell_id": 0, "cell_id": 1, "policy": "RR"}', /^duplicate JSON key 'cell_id'$/],
    ["set_mcs_bounds", '{"cell_id": 0, "mcs_min": 1, "mcs_max": 9, "target_bler": NaN}', /^non-finite JSON constant 'NaN'$/],
    ["reboot_cell", "{}", /unknown tool 'reboot_cell'/],
    ["set_scheduler_policy", '{"cell_id": "0", "policy": "RR"}', /^'0' is not of type 'integer'$/],
    ["set_scheduler_policy", '{"cell_id": 0}', /^'policy' is a required property$/],
    ["noop", '{"why": "idle"}', /^Additional properties are not allowed \('why' was unexpected\)$/],
    // The structural schema keeps additionalProperties: a slice reservation (not modeled) is malformed, not rejected.
    ["set_admission_policy", '{"cell_id": 0, "accept_threshold_pct": 80, "slice_reservation": {"1": 10}}', /^Additional properties are not allowed \('1' was unexpected\)$/],
  ];
  for (const [name, args, error] of cases) {
    const step = await (await episode()).call(name, args);
    assert.equal(step.info.error, "invalid_tool_call", args);
    assert.match(JSON.parse(step.info.tool_outputs[0].output).error, error, args);
  }
  // Empty arguments are {}: a valid noop.
  assert.equal((await (await episode()).call("noop", "")).info.guardrail_accepted, true);
});

test("the episode budget is min(row max_steps, agent_max_steps): truncated when the agent's turns run out", async () => {
  const { call } = await episode({ scenario_id: "campus_evening", max_steps: 2 });
  assert.deepEqual([(await call("noop", {})).truncated], [false]);
  const last = await call("noop", {});
  // The dataset's own max_steps is the same budget: the episode is done (terminated) at step 2.
  assert.deepEqual([last.terminated, last.truncated], [true, false]);
});

test("a recorded episode ends (terminated) at its last snapshot", async () => {
  const { call, session } = await episode({ scenario_id: "stadium_two_cells" });
  const steps = [await call("noop", {}), await call("noop", {}), await call("noop", {})];
  assert.deepEqual(steps.map((s) => s.terminated), [false, false, true]);
  // Rows without `step` are ordered by t_s; kpi_source_mode recorded is said in the text.
  assert.match(steps[0]!.observation, /t=5\.0s \(step 1, tier replay\):\nKPI source: recorded\. Check kpi_provenance/);
  assert.equal(steps[2]!.info.n_steps, 3);
  assert.ok(Math.abs(steps[2]!.info.cumulative_reward - steps.reduce((a, s) => a + s.reward, 0)) < 1e-12);
  assert.equal((await session.post("/step", { responses_create_params: params, response: responseWith([]) })).status, 400);
});

test("no scenario_id: the seed picks keys[seed % n] of the sorted episode keys", async () => {
  const info = async (seed: number) => (await (await episode({ seed })).reset).json<{ info: Info }>().info;
  assert.deepEqual([(await info(0)).scenario_id, (await info(1)).scenario_id, (await info(2)).scenario_id], ["campus_evening", "stadium_two_cells", "campus_evening"]);
});

test("reset refuses an unknown scenario_id (422) and a bad seed or max_steps by name", async () => {
  const session = env.session();
  const unknown = await session.post("/reset", { responses_create_params: params, scenario_id: "mall" });
  assert.equal(unknown.status, 422);
  assert.match(unknown.text, /scenario_id 'mall' not in dataset; available: \['campus_evening', 'stadium_two_cells'\]/);
  const seed = await session.post("/reset", { responses_create_params: params, seed: -1 });
  assert.equal(seed.status, 422);
  assert.match(seed.text, /seed must be a non-negative integer/);
  assert.equal((await session.post("/reset", { responses_create_params: params, max_steps: 0 })).status, 422);
});

test("a step retried with the same _ng_step_request_id gets the first answer, not a second transition", async () => {
  const { step } = await episode();
  const first = await step([functionCallItem("noop", {})], { _ng_step_request_id: "turn-1" });
  const retry = await step([functionCallItem("noop", {})], { _ng_step_request_id: "turn-1" });
  assert.deepEqual(retry, first);
  assert.equal((await step([functionCallItem("noop", {})], { _ng_step_request_id: "turn-2" })).info.step_idx, 2);
});

test("/close frees the episode once; a second close says already_closed", async () => {
  const { session, call } = await episode();
  await call("noop", {});
  const closed = await session.post("/close", {});
  assert.deepEqual(closed.json(), { ok: true, already_closed: false, summary: { ok: true, n_steps: 1 } });
  assert.deepEqual((await session.post("/close", {})).json(), { ok: true, already_closed: true, summary: {} });
});

test("the pool refuses a reset beyond pool_size live episodes (503), and a closed one frees its slot", async () => {
  const small = await injectServer(openair, { backend: "dataset_replay", dataset_path: FIXTURE, pool_size: 1 }, { instanceName: "small" });
  try {
    const first = await episode(undefined, small);
    assert.equal(first.reset.status, 200);
    const second = await small.session().post("/reset", { responses_create_params: params });
    assert.equal(second.status, 503);
    await first.session.post("/close", {});
    assert.equal((await small.session().post("/reset", { responses_create_params: params })).status, 200);
  } finally {
    await small.close();
  }
});

test("the replay backend (NeMo Gym's default) answers /reset 501 naming the unported NumPy generator", async () => {
  const replay = await injectServer(openair, { backend: "replay" }, { instanceName: "replay" });
  try {
    const answer = await replay.session().post("/reset", { responses_create_params: params });
    assert.equal(answer.status, 501);
    assert.match(answer.text, /backend 'replay' is not ported: .*NumPy's default_rng \(PCG64/);
  } finally {
    await replay.close();
  }
});

test("the dataset loader refuses bad rows with the file, line, episode and field", () => {
  const dir = mkdtempSync(join(tmpdir(), "openair-"));
  const write = (name: string, lines: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"));
    return path;
  };
  const cells = (dl: unknown) => [{ cell_id: 0, prb_util_dl_p50: 0.5, ues: [{ ue_id: 0, delivered_mbps: dl }] }];
  assert.throws(() => loadDataset(write("a.jsonl", [{ cells: cells(3) }])), /episode 'episode_0' has only 1 row\(s\); need >= 2/);
  assert.throws(() => loadDataset(write("b.jsonl", [{ cells: cells(3) }, { cells: cells(true) }])), /b\.jsonl:2 \(episode 'episode_0', step 1\): delivered_mbps must be a JSON number, got True/);
  assert.throws(() => loadDataset(write("c.jsonl", [{ cells: cells(3) }, '{"cells": [], "cells": []}'])), /c\.jsonl:2: not valid JSON: duplicate JSON key 'cells'/);
  assert.throws(() => loadDataset(write("d.jsonl", [{ step: 0, cells: cells(3) }, { cells: cells(3) }])), /d\.jsonl:2 \(episode 'episode_0'\): 'step' must be present on every row when used/);
  assert.throws(() => loadDataset(write("e.jsonl", [{ cells: [{ cell_id: 0, prb_util_dl_p50: 0.5, prb_util_dl_p99: 0.4, ues: [{ delivered_mbps: 1 }] }] }, { cells: cells(1) }])), /prb_util_dl_p99 must be >= prb_util_dl_p50 \(got 0\.4 < 0\.5\)/);
  assert.throws(() => loadDataset(write("f.jsonl", [{ cells: [{ prb_util_dl_p50: 0.5, ues: [{ offered_mbps: 1 }] }] }, { cells: cells(1) }])), /dataset UE record #0 is missing required field 'delivered_mbps'; got keys \['offered_mbps'\]/);
  assert.throws(() => loadDataset(write("g.jsonl", [{ trace: [] }])), /g\.jsonl:1: expected nested KPI snapshot row with a non-empty 'cells' array/);
  assert.throws(() => loadDataset(join(dir, "missing.jsonl")), /dataset file not found/);
});

test("percentages and decimals round as Python's format does (an exact tie to even)", () => {
  assert.deepEqual([formatFixed(0.125, 2), formatFixed(2.5, 0), formatFixed(3.5, 0), formatFixed(0.735, 2), formatFixed(-1.5, 0)], ["0.12", "2", "4", "0.73", "-2"]);
});

test("the example data has 5 valid rows offering the eight tools", () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  for (const row of rows) assert.deepEqual(row.responses_create_params.tools.map((t: { name: string }) => t.name), ["set_scheduler_policy", "set_prb_cap", "set_mcs_bounds", "set_qos_weights", "set_admission_policy", "set_handover_trigger", "set_ul_power_control", "noop"]);
});

test("the config is checked at start, as NeMo Gym's config validators and model_post_init do", async () => {
  const refused: [Record<string, unknown>, RegExp][] = [
    [{ protocol_violation_penalty: 0 }, /protocol_violation_penalty must be finite and negative/],
    [{ protocol_violation_penalty: 0.5 }, /protocol_violation_penalty must be finite and negative/],
    [{ pool_size: 0 }, /pool_size must be a positive integer/],
    [{ agent_max_steps: 2.5 }, /agent_max_steps must be a positive integer/],
    [{ max_steps_default: true }, /max_steps_default/],
    [{ session_ttl_s: -1 }, /session_ttl_s must be a positive finite number/],
    [{ session_ttl_s: 60 }, /session_ttl_s=60 must equal session_idle_ttl_s=3600/],
    [{ backend: "lab" }, /unknown backend 'lab'; supported backends: 'replay', 'dataset_replay'/],
    [{ backend: "oai_collector" }, /backend 'oai_collector' is not implemented/],
    [{ cell_capacity_mbps: 0 }, /cell_capacity_mbps must be greater than zero/],
    [{ reward_weights: { w_speed: 1 } }, /reward_weights contains unknown field 'w_speed'/],
    [{ dataset_path: "data/none.jsonl" }, /dataset file not found/],
  ];
  for (const [overrides, reason] of refused) {
    const config = { backend: "dataset_replay", dataset_path: FIXTURE, ...overrides };
    await assert.rejects(injectServer(openair, config, { instanceName: "bad" }), reason, JSON.stringify(overrides));
  }
});

test("reward_weights override the openair_v1 defaults and are announced in the contract", async () => {
  const weighted = await injectServer(openair, { backend: "dataset_replay", dataset_path: FIXTURE, reward_weights: { w_fair: 0, w_tput: 0, w_prb_level: 0 } }, { instanceName: "weighted" });
  try {
    const { reset, call } = await episode(undefined, weighted);
    assert.equal(reset.json<{ info: Info }>().info.reward_weights.w_fair, 0);
    assert.equal((await call("noop", {})).reward, 0);
  } finally {
    await weighted.close();
  }
});

test("OPENAIR_CONGESTION_BACKEND overrides the config's backend", async () => {
  process.env.OPENAIR_CONGESTION_BACKEND = "dataset_replay";
  try {
    const overridden = await injectServer(openair, { backend: "replay", dataset_path: FIXTURE }, { instanceName: "overridden" });
    try {
      assert.equal((await overridden.session().post("/reset", { responses_create_params: params })).status, 200);
    } finally {
      await overridden.close();
    }
  } finally {
    delete process.env.OPENAIR_CONGESTION_BACKEND;
  }
});

test("a re-reset in the same session replaces the episode and frees the old slot", async () => {
  const small = await injectServer(openair, { backend: "dataset_replay", dataset_path: FIXTURE, pool_size: 1 }, { instanceName: "rereset" });
  try {
    const session = small.session();
    for (let i = 0; i < 3; i++) assert.equal((await session.post("/reset", { responses_create_params: params })).status, 200);
  } finally {
    await small.close();
  }
});

test("two sessions step their own episodes", async () => {
  const a = await episode({ scenario_id: "campus_evening" });
  const b = await episode({ scenario_id: "stadium_two_cells" });
  await a.call("noop", {});
  await a.call("noop", {});
  assert.equal((await b.call("noop", {})).info.step_idx, 1);
  assert.equal((await a.call("noop", {})).info.step_idx, 3);
});
