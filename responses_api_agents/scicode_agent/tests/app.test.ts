// scicode_agent over real HTTP: scripted_model replays a recorded answer per sub-step prompt (a prompt the agent
// builds differently matches no recording: a 404, so the run fails), the real scicode environment runs each
// sub-step's code in bubblewrap sandboxes (without bwrap it answers 503 and these tests fail loudly), and a recording
// environment shows exactly what /verify gets. The prompt is this folder's own data/example_prompt.yaml.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { resourcesServer } from "../../../src/server/index.ts";
import { http, type InProcessGraph, readRows, serverDefinition, startServers } from "../../../src/testing/index.ts";
import { proxyInstance, type FaultProxy } from "../../../src/testing/fault-proxy.ts";
import { FAILURE_CLASS_HEADER } from "../../../src/protocol/failures.ts";
import scicodeAgent from "../app.ts";

const scicode = await serverDefinition("resources_servers/scicode");
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

const ROOT = join(import.meta.dirname, "../../..");
const PROMPT = join(import.meta.dirname, "../data/example_prompt.yaml");
const TEMPLATE: string = parseYaml(readFileSync(PROMPT, "utf8")).user;
const [demo1, demo2] = readRows(join(ROOT, "resources_servers/scicode/data/example.jsonl")) as Record<string, any>[];

/** Our template, filled by hand: the pieces below are what the test asserts the agent builds. */
const prompt = (problemSteps: string, nextStep: string, dependencies = "import numpy as np") =>
  TEMPLATE.replace("{problem_steps_str}", problemSteps).replace("{next_step_str}", nextStep).replace("{dependencies}", dependencies);

const [s1, s2] = demo1!.sub_steps;
const ENERGY_ANSWER = "Here it is.\n```python\nimport numpy as np\ndef energy_levels(n, omega):\n    return (np.arange(n) + 0.5) * omega\n```\nDone.";
const ENERGY_CODE = "\ndef energy_levels(n, omega):\n    return (np.arange(n) + 0.5) * omega\n";
const PARTITION_ANSWER = "```python\nfrom numpy import exp\ndef partition_function(n, omega, beta):\n    return np.exp(-beta * energy_levels(n, omega)).sum()\n```";
const PARTITION_CODE = "\ndef partition_function(n, omega, beta):\n    return np.exp(-beta * energy_levels(n, omega)).sum()\n";
const WRONG_PARTITION_ANSWER = "```\ndef partition_function(n, omega, beta):\n    return 2.0\n```";
const STATS_ANSWER = "def column_stats(m):\n    return m.mean(axis=0), m.std(axis=0)";

// The prompts of demo1, with background: step 1 has no earlier steps; step 2 carries step 1 and its code.
const DEMO1_STEP1 = prompt("", `${s1.step_description_prompt}\n${s1.step_background}\n\n${s1.function_header}\n\n${s1.return_line}`);
const DEMO1_STEP2 = prompt(`${s1.step_description_prompt}\n${s1.step_background}\n\n${ENERGY_CODE}`, `${s2.step_description_prompt}\n${s2.step_background}\n\n${s2.function_header}\n\n${s2.return_line}`);
// Without background, for the agent configured with_background: false.
const DEMO1_STEP1_BARE = prompt("", `${s1.step_description_prompt}\n\n${s1.function_header}\n\n${s1.return_line}`);
const DEMO1_STEP2_BARE = prompt(`${s1.step_description_prompt}\n\n${ENERGY_CODE}`, `${s2.step_description_prompt}\n\n${s2.function_header}\n\n${s2.return_line}`);
const d2 = demo2!.sub_steps[0];
const DEMO2_STEP1 = prompt("", `${d2.step_description_prompt}\n${d2.step_background}\n\n${d2.function_header}\n\n${d2.return_line}`);

// A problem with SciCode's prefilled first sub-step ("62", step 0): its code is read from prefilled_code_dir.
const PREFILLED_CODE = "def square(x):\n    return x * x";
const problem62 = {
  responses_create_params: { input: [] },
  problem_id: "62",
  required_dependencies: "import math",
  sub_steps: [
    { step_number: "62.1", step_description_prompt: "Square a number.", step_background: "x times x.", function_header: "def square(x):", return_line: "    return y", test_cases: [] },
    { step_number: "62.2", step_description_prompt: "Fourth power.", step_background: "Square twice.", function_header: "def fourth(x):", return_line: "    return y", test_cases: [] },
  ],
};
const P62_STEP2 = prompt(`Square a number.\nx times x.\n\n${PREFILLED_CODE}`, "Fourth power.\nSquare twice.\n\ndef fourth(x):\n\n    return y", "import math");
const FOURTH_ANSWER = "```python\ndef fourth(x):\n    return square(square(x))\n```";

const dir = mkdtempSync(join(tmpdir(), "scicode-agent-"));
const prefilledDir = join(dir, "prefilled");
mkdirSync(prefilledDir);
writeFileSync(join(prefilledDir, "62.1.txt"), `\n${PREFILLED_CODE}\n\n`);
const message = (text: string) => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const recording = (content: string, answer: string) => ({ responses_create_params: { input: [{ role: "user", content }] }, response: { output: [message(answer)], usage: null } });
const recordings = join(dir, "recordings.jsonl");
writeFileSync(
  recordings,
  [
    recording(DEMO1_STEP1, ENERGY_ANSWER),
    recording(DEMO1_STEP2, PARTITION_ANSWER),
    recording(DEMO1_STEP1_BARE, ENERGY_ANSWER),
    recording(DEMO1_STEP2_BARE, WRONG_PARTITION_ANSWER),
    recording(DEMO2_STEP1, STATS_ANSWER),
    recording(P62_STEP2, FOURTH_ANSWER),
  ]
    .map((line) => JSON.stringify(line))
    .join("\n") + "\n",
);

const verifyRequests: Record<string, any>[] = [];
const recordingEnvironment = resourcesServer({
  name: "RecordingResourcesServer",
  tools: {},
  verify: {
    input: z.looseObject({}),
    run: (_state, request) => {
      verifyRequests.push(structuredClone(request) as Record<string, any>);
      return { reward: 0.5, num_steps_passed: 1, num_steps_total: 2 };
    },
  },
});

const refs = (resources: string, model = "policy_model") => ({ resources_server: { type: "resources_servers", name: resources }, model_server: { type: "responses_api_models", name: model } });
const agentFields = { prompt_fpath: PROMPT, prefilled_code_dir: prefilledDir };

let graph: InProcessGraph;
let modelProxy: FaultProxy;
let verifyProxy: FaultProxy;
const client = http();
const post = (instance: string, path: string, json: unknown) => client.request(`${graph.url(instance)}${path}`, { method: "POST", json });

before(async () => {
  graph = await startServers({
    scicode: [scicode, { test_data_fpath: join(ROOT, "resources_servers/scicode/data/example_test_data.json"), timeout_secs: 5 }],
    recorder: [recordingEnvironment],
    policy_model: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: recordings }],
    agent: [scicodeAgent, { ...refs("scicode"), ...agentFields }],
    bare_agent: [scicodeAgent, { ...refs("scicode"), ...agentFields, with_background: false }],
    recorded_agent: [scicodeAgent, { ...refs("recorder", "model_proxy"), ...agentFields }],
    fragile_agent: [scicodeAgent, { ...refs("recorder_proxy"), ...agentFields }],
  });
  modelProxy = await proxyInstance(graph, "policy_model", "model_proxy");
  verifyProxy = await proxyInstance(graph, "recorder", "recorder_proxy");
});
after(async () => {
  await modelProxy.close();
  await verifyProxy.close();
  await graph.close();
  await client.close();
});
beforeEach(() => {
  verifyRequests.length = 0;
  modelProxy.decide = () => undefined;
  verifyProxy.decide = () => undefined;
});

test("one prompt per sub-step, the earlier steps' code carried into the next; the real environment scores both steps", async () => {
  const answer = await post("agent", "/run", demo1);
  assert.equal(answer.status, 200, answer.text);
  const result = answer.json<Record<string, any>>();
  assert.deepEqual(result.step_results, [true, true]);
  assert.equal(result.reward, 1.0);
  assert.equal(result.subtask_accuracy, 1.0);

  const two = (await post("agent", "/run", demo2)).json<Record<string, any>>();
  assert.equal(two.reward, 1.0, "an answer without a code fence is taken whole");
});

test("with_background: false leaves the background out of every prompt (and a wrong step 2 fails only that step)", async () => {
  const result = (await post("bare_agent", "/run", demo1)).json<Record<string, any>>();
  assert.deepEqual(result.step_results, [true, false], JSON.stringify(result));
  assert.equal(result.reward, 0.0);
  assert.equal(result.subtask_accuracy, 0.5);
});

test("/verify gets the row, each step's solution (dependencies, earlier code, its code) and the last step's response", async () => {
  const result = (await post("recorded_agent", "/run", { ...demo1, note: "kept" })).json<Record<string, any>>();
  assert.equal(result.reward, 0.5);
  assert.equal(verifyRequests.length, 1);
  const sent = verifyRequests[0]!;
  assert.deepEqual(sent.solutions, {
    "demo1.1": `import numpy as np\n\n${ENERGY_CODE}`,
    "demo1.2": `import numpy as np\n${ENERGY_CODE}\n\n${PARTITION_CODE}`,
  });
  assert.equal(sent.note, "kept");
  assert.equal(sent.problem_id, "demo1");
  assert.deepEqual(sent.sub_steps, demo1!.sub_steps);
  assert.equal(sent.response.output[0].content[0].text, PARTITION_ANSWER, "the last step's response");
  assert.match(sent.response.model, /^scripted-replay/);
});

test("a prefilled sub-step takes SciCode's code from prefilled_code_dir: context for the next step, no model call, not scored", async () => {
  const forwardedBefore = modelProxy.counts.forwarded ?? 0;
  const result = (await post("recorded_agent", "/run", problem62)).json<Record<string, any>>();
  assert.equal(result.reward, 0.5, JSON.stringify(result));
  assert.deepEqual(Object.keys(verifyRequests[0]!.solutions), ["62.2"]);
  assert.equal(verifyRequests[0]!.solutions["62.2"], `import math\n${PREFILLED_CODE}\n\n\ndef fourth(x):\n    return square(square(x))\n`);
  assert.equal(modelProxy.counts.forwarded! - forwardedBefore, 1, "one model call, for the second step");
});

test("a prefilled sub-step whose code is not staged is a 501 naming the file, before any model call", async () => {
  const missing = await startServers({ recorder: [recordingEnvironment], policy_model: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: recordings }], agent: [scicodeAgent, { ...refs("recorder"), prompt_fpath: PROMPT, prefilled_code_dir: join(dir, "none") }] });
  try {
    const answer = await client.request(`${missing.url("agent")}/run`, { method: "POST", json: problem62 });
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /sub-step 62\.1 is prefilled with SciCode's reference code.*none\/62\.1\.txt/);
    assert.equal(verifyRequests.length, 0);
  } finally {
    await missing.close();
  }
});

test("a model refusing a prompt as too long fails that step and every later one with the out-of-context sentinel", async () => {
  let calls = 0;
  modelProxy.decide = () => (++calls === 2 ? { status: 400, body: JSON.stringify({ detail: "Input validation error: 'inputs' tokens + 'max_new_tokens' must be <= 4096, exceeds maximum input length" }), headers: { "content-type": "application/json" } } : undefined);
  const answer = await post("recorded_agent", "/run", demo1);
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(verifyRequests[0]!.solutions, { "demo1.1": `import numpy as np\n\n${ENERGY_CODE}`, "demo1.2": "_ran_out_of_context_" });
  assert.equal(verifyRequests[0]!.response.output[0].content[0].text, ENERGY_ANSWER, "the last generated step's response");

  modelProxy.decide = () => ({ status: 400, body: JSON.stringify({ detail: "'max_completion_tokens' is too large: 9000" }), headers: { "content-type": "application/json" } });
  await post("recorded_agent", "/run", demo1);
  assert.deepEqual(verifyRequests[1]!.solutions, { "demo1.1": "_ran_out_of_context_", "demo1.2": "_ran_out_of_context_" });
  assert.equal(verifyRequests[1]!.response.id, "scicode", "no step generated: NeMo Gym's empty response");
  assert.deepEqual(verifyRequests[1]!.response.output, []);
});

test("any other model error, a transport failure or a 503 ends the attempt: nothing is verified", async () => {
  const cases: [string, FaultProxy["decide"], string | undefined][] = [
    ["model's own 400", () => ({ status: 400, body: JSON.stringify({ detail: "bad request" }), headers: { "content-type": "application/json" } }), undefined],
    ["model 503", () => "unavailable", "environment_unavailable"],
    ["model reset", () => "reset_before", "transport"],
    ["model garbage", () => "garbage_200", "invalid_inner_answer"],
  ];
  for (const [label, decide, failureClass] of cases) {
    modelProxy.decide = decide;
    const answer = await post("recorded_agent", "/run", demo1);
    assert.equal(answer.status, 500, `${label}: ${answer.text}`);
    assert.equal(answer.headers[FAILURE_CLASS_HEADER], failureClass, `${label}: ${answer.text}`);
  }
  assert.equal(verifyRequests.length, 0);

  for (const [fault, failureClass] of [["unavailable", "environment_unavailable"], ["truncate", "transport"], [{ status: 200, body: '{"reward": null}' }, "invalid_inner_answer"]] as const) {
    verifyProxy.decide = () => fault;
    const answer = await post("fragile_agent", "/run", demo1);
    assert.equal(answer.status, 500, `verify ${JSON.stringify(fault)}: ${answer.text}`);
    assert.equal(answer.headers[FAILURE_CLASS_HEADER], failureClass, `verify ${JSON.stringify(fault)}: ${answer.text}`);
  }
});

test("prompt_fpath is read when the config is checked: a missing file or a template naming another field fails the start naming it", async () => {
  const start = (fields: Record<string, unknown>) => startServers({ recorder: [recordingEnvironment], agent: [scicodeAgent, { ...refs("recorder"), ...fields }] });
  await assert.rejects(start({ prompt_fpath: "benchmarks/scicode/prompts/background.yaml" }), /prompt_fpath.*benchmarks\/scicode\/prompts\/background\.yaml is not here.*does not ship NeMo Gym's SciCode prompt/s);
  const odd = join(dir, "odd_prompt.yaml");
  writeFileSync(odd, "user: 'Solve {problem_steps_str} then {task}; {{literal}}'\n");
  await assert.rejects(start({ prompt_fpath: odd }), /references \{task\}; the agent fills only \{problem_steps_str\}, \{next_step_str\}, \{dependencies\}/);
  await assert.rejects(start({ prompt_fpath: PROMPT, skip_verification: true }), /config key `skip_verification` is not implemented here \(scicode_agent always verifies/);
});

test("a row without a sub-step's step_background is a 422 naming it (with_background: true reads it)", async () => {
  const row = structuredClone(demo1!);
  delete row.sub_steps[1].step_background;
  const answer = await post("agent", "/run", row);
  assert.equal(answer.status, 422, answer.text);
  assert.match(answer.text, /sub_steps\[1\]\.step_background/);
  assert.equal((await post("bare_agent", "/run", row)).status, 200, "without background it is not needed");
});

test("/aggregate_metrics: the reward profile, SciCode's pooled sub-step accuracy and its spread across runs", async () => {
  const repeat = (task: number, rollout: number, passed: number, total: number) => ({ _ng_task_index: task, _ng_rollout_index: rollout, reward: passed === total ? 1 : 0, num_steps_passed: passed, num_steps_total: total, problem_accuracy: passed === total });
  const verify_responses = [repeat(0, 0, 2, 2), repeat(0, 1, 1, 2), repeat(1, 1, 2, 4), repeat(1, 0, 3, 4)];
  const metrics = (await post("agent", "/aggregate_metrics", { verify_responses })).json<Record<string, any>>();
  assert.equal(metrics.agent_metrics.subtask_accuracy, 8 / 12, "pooled: 8 of 12 sub-steps, not the mean of ratios");
  // Run 0 = rollout 0 of each problem (given out of order): (2 + 3) / 6, problem accuracy (1 + 0) / 2; run 1: (1 + 2) / 6 and 0.
  const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} vs ${expected}`);
  close(metrics.agent_metrics["subtask_accuracy/std_dev_across_runs"], Math.abs(5 / 6 - 3 / 6) / Math.SQRT2);
  close(metrics.agent_metrics["mean/problem_accuracy/std_dev_across_runs"], 0.5 / Math.SQRT2);
  assert.deepEqual(Object.keys(metrics.key_metrics).sort(), [...Object.keys(metrics.agent_metrics).filter((k) => k.startsWith("mean/") || k.startsWith("subtask_accuracy"))].sort());
  assert.ok("mean/reward" in metrics.key_metrics && !("max/reward" in metrics.key_metrics));
});
