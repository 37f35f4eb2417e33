// `gym env start` when something goes wrong: a server dies, the launcher is SIGKILLed, a server cannot start, a
// config is wrong — the launch stops cleanly with one clear line, and no process of it is left.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { processesWithMarker, runGym, waitUntilDead } from "./gym-process.ts";
import { COUNTER_CONFIGS, http, startGraph } from "./launcher-graph.ts";

test.after(() => http.close());

test("when one server dies the launcher stops the others and exits non-zero", async () => {
  const { gym, pids } = await startGraph();
  process.kill(pids[0]!, "SIGKILL");
  const { code } = await gym.exited;
  assert.equal(code, 1);
  assert.match(gym.output(), /exited unexpectedly \(SIGKILL\); stopping every server/);
  assert.deepEqual(await waitUntilDead(pids), []);
});

test("if the launcher itself is SIGKILLed, its servers notice and exit", async () => {
  const marker = randomUUID();
  const { gym, pids } = await startGraph(undefined, marker);
  gym.child.kill("SIGKILL");
  await gym.exited;
  assert.deepEqual(await waitUntilDead(pids), [], "no orphaned server survives its launcher");
  assert.deepEqual(processesWithMarker(marker), []);
});

test("a server that cannot start fails the launch with its name and reason, leaving nothing running", async () => {
  const marker = randomUUID();
  const result = await runGym(["env", "start", ...COUNTER_CONFIGS, "++head_server.port=0", "++policy_model.responses_api_models.scripted_model.mode=replay", "++policy_model.responses_api_models.scripted_model.replay_rollouts_jsonl_fpath=/nonexistent/rollouts.jsonl"], { env: { GYM_TEST_MARKER: marker } });
  assert.equal(result.code, 1);
  assert.match(result.output, /policy_model failed to start: .*\/nonexistent\/rollouts\.jsonl/);
  assert.deepEqual(await waitUntilDead(processesWithMarker(marker)), [], "no server process of this launch is left");
});

test("a config error is one clear line, with a did-you-mean hint, and no stack trace", async () => {
  const result = await runGym(["env", "validate", ...COUNTER_CONFIGS, "++example_session_state_mgmt_simple_agent.responses_api_agents.simple_agent.model_server.name=policy_modle"]);
  assert.equal(result.code, 2);
  assert.match(result.output, /policy_modle/);
  assert.match(result.output, /Did you mean 'policy_model'\?/);
  assert.doesNotMatch(result.output, /\n\s+at /);
});

test("env validate accepts NeMo Gym-shaped configs; env resolve masks secrets", async () => {
  const valid = await runGym(["env", "validate", ...COUNTER_CONFIGS]);
  assert.equal(valid.code, 0, valid.output);
  assert.match(valid.output, /✓ Config is valid\./);
  const resolved = await runGym(["env", "resolve", ...COUNTER_CONFIGS, "++policy_api_key=sk-secret"]);
  assert.equal(resolved.code, 0, resolved.output);
  assert.match(resolved.output, /policy_api_key: "?\*\*\*\*"?/);
  assert.doesNotMatch(resolved.output, /sk-secret/);
});
