// `co_located` in a real `gym env start`: the named servers run in one process (one pid in the head server's list),
// each still listening on its own port for the rest of the graph; a rollout runs through them; Ctrl-C stops the
// process; a name that is no server of the graph fails the start, naming the key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { processesWithMarker, runGym, waitUntilDead } from "./gym-process.ts";
import { COUNTER_CONFIGS, http, startGraph } from "./launcher-graph.ts";

test.after(() => http.close());

const RESOURCES = "example_session_state_mgmt_resources_server";
const AGENT = "example_session_state_mgmt_simple_agent";

test("co_located: the agent and the model share one process, the environment keeps its own; a rollout runs; Ctrl-C stops both", async () => {
  const marker = randomUUID();
  const { gym, headUrl, pids } = await startGraph(["env", "start", ...COUNTER_CONFIGS, "++head_server.port=0", `++co_located=[${AGENT},policy_model]`], marker);
  try {
    const instances = (await http.request(`${headUrl}/server_instances`)).json<{ process_name: string; pid: number; port: number; url: string; status: string }[]>();
    const pidOf = (name: string) => instances.find((i) => i.process_name === name)!.pid;
    assert.equal(pidOf(AGENT), pidOf("policy_model"), "the co-located two are one process");
    assert.notEqual(pidOf(RESOURCES), pidOf(AGENT));
    assert.equal(new Set(pids).size, 2);
    assert.ok(instances.every((i) => i.status === "running" && i.port > 0));
    assert.equal(new Set(instances.map((i) => i.port)).size, 3, "each server still listens on its own port");

    const agent = instances.find((i) => i.process_name === AGENT)!;
    const answer = await http.request(`${agent.url}/run`, { method: "POST", json: { responses_create_params: { input: [{ role: "user", content: "Increment the counter by 2." }] }, initial_count: 1, expected_count: 3 } });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(typeof answer.json<{ reward: number }>().reward, "number");
    // The model answers over its own socket too (a caller outside the process).
    const model = instances.find((i) => i.process_name === "policy_model")!;
    assert.equal((await http.request(`${model.url}/v1/responses`, { method: "POST", json: { input: "hello" } })).status, 200);
  } finally {
    gym.child.kill("SIGINT");
  }
  assert.equal((await gym.exited).code, 0);
  assert.deepEqual(await waitUntilDead(pids), [], "every server process has exited");
  assert.deepEqual(processesWithMarker(marker), []);
  assert.match(gym.output(), /\(example_session_state_mgmt_simple_agent \+ policy_model\) INFO .*co-located with policy_model/, "the shared process's lines name its servers");
});

test("co_located naming no server of the graph fails the start before any server runs, naming the key", async () => {
  const marker = randomUUID();
  const result = await runGym(["env", "start", ...COUNTER_CONFIGS, "++head_server.port=0", "++co_located=[policy_modle]"], { env: { GYM_TEST_MARKER: marker } });
  assert.notEqual(result.code, 0);
  assert.match(result.output, /co_located: 'policy_modle' is no server of this graph/);
  assert.deepEqual(await waitUntilDead(processesWithMarker(marker)), []);
});
