// `co_located` in a real `gym env start`: the named servers run in one process (one pid in the head server's list),
// each still listening on its own port for the rest of the graph; a rollout runs through them; Ctrl-C stops the
// process; a name that is no server of the graph fails the start, naming the key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { HttpClient } from "../../src/client/index.ts";
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
    const status = await runGym(["env", "status", `++head_server.port=${new URL(headUrl).port}`]);
    assert.equal(status.code, 0, status.output);
    assert.match(status.output, /✓ policy_model \(responses_api_models\/scripted_model\) port \d+ pid \d+ \(one process with example_session_state_mgmt_simple_agent\)/);
    assert.match(status.output, /✓ example_session_state_mgmt_resources_server \S+ port \d+ pid \d+ up/, "a server alone names no others");

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

/** The live children of `pid` (a cluster primary's workers). */
const childrenOf = (pid: number): number[] => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
};

test("co_located_processes: 2 runs the group as two processes on the same ports; rollouts over a shared Redis session store all score; Ctrl-C stops every process", async () => {
  const marker = randomUUID();
  const { gym, headUrl, pids } = await startGraph(
    ["env", "start", ...COUNTER_CONFIGS, "++head_server.port=0", "++co_located=true", "++co_located_processes=2", `++${RESOURCES}.resources_servers.example_session_state_mgmt.session_store=redis://127.0.0.1:6379/0`],
    marker,
  );
  let workers: number[] = [];
  try {
    assert.equal(new Set(pids).size, 1, "one group, one primary");
    workers = childrenOf(pids[0]!);
    assert.equal(workers.length, 2, `two worker processes under the primary (${workers})`);
    assert.match(gym.output(), /co-located in 2 processes/);
    const instances = (await http.request(`${headUrl}/server_instances`)).json<{ process_name: string; url: string }[]>();
    const agent = instances.find((i) => i.process_name === AGENT)!;
    // "Increase the counter by 10 and report what it reads.", from a start of its own per rollout: a reward of 1 needs
    // the tool call's state change to be seen by /verify, whichever worker each call reached.
    const row = JSON.parse(readFileSync("resources_servers/example_session_state_mgmt/data/example.jsonl", "utf8").split("\n")[1]!);
    // Many connections at once (a client each): the cluster spreads them over both workers.
    const clients = Array.from({ length: 24 }, () => new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 10_000, maxRetries: 0 }));
    try {
      const answers = await Promise.all(clients.map((client, i) => client.request(`${agent.url}/run`, { method: "POST", json: { ...row, initial_count: i, expected_count: i + 10 } })));
      assert.deepEqual(answers.map((a) => a.status), answers.map(() => 200), answers.find((a) => a.status !== 200)?.text);
      assert.deepEqual(answers.map((a) => a.json<{ reward: number }>().reward), answers.map(() => 1), "every rollout scores");
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  } finally {
    gym.child.kill("SIGINT");
  }
  assert.equal((await gym.exited).code, 0);
  assert.deepEqual(await waitUntilDead([...pids, ...workers]), [], "the primary and both workers have exited");
  assert.deepEqual(processesWithMarker(marker), []);
});

test("co_located_processes: 2 with a stateful environment on memory sessions fails the start, saying why and what to set", async () => {
  const marker = randomUUID();
  const result = await runGym(["env", "start", ...COUNTER_CONFIGS, "++head_server.port=0", "++co_located=true", "++co_located_processes=2"], { env: { GYM_TEST_MARKER: marker } });
  assert.notEqual(result.code, 0);
  assert.match(result.output, /co_located_processes: 2 runs 'example_session_state_mgmt_resources_server' in 2 processes.*session_store=redis:\/\//);
  assert.deepEqual(await waitUntilDead(processesWithMarker(marker)), []);
});

test("co_located_processes without co_located is refused: it would change nothing", async () => {
  const result = await runGym(["env", "start", ...COUNTER_CONFIGS, "++head_server.port=0", "++co_located_processes=2"]);
  assert.notEqual(result.code, 0);
  assert.match(result.output, /co_located_processes applies to co-located servers, and co_located names none/);
});
