// NeMo Gym users drive environments from Python with requests.Session(), as in their rollout.py files:
// the cookie jar, the JSON bodies and the error shapes must work unchanged against a TypeScript server.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { startServers } from "../../src/testing/servers.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";

const python = spawnSync("python3", ["-c", "import requests"], { encoding: "utf8" });
const skip = python.error ? "python3 is not installed" : python.status !== 0 ? "the Python package 'requests' is not installed" : false;

const SCRIPT = String.raw`
import json, sys
import requests

base = sys.argv[1]
results = {}
with requests.Session() as rollout_a, requests.Session() as rollout_b:
    assert rollout_a.post(f"{base}/seed_session", json={"responses_create_params": {"input": "count"}, "initial_count": 3, "expected_count": 6}).status_code == 200
    assert rollout_b.post(f"{base}/seed_session", json={"responses_create_params": {"input": "count"}, "initial_count": 100, "expected_count": 0}).status_code == 200
    rollout_a.post(f"{base}/increment_counter", json={"count": 1})
    rollout_a.post(f"{base}/increment_counter", json={"count": 2})
    rollout_b.post(f"{base}/increment_counter", json={"count": 7})
    results["a_count"] = rollout_a.post(f"{base}/get_counter_value", json={}).json()["count"]
    results["b_count"] = rollout_b.post(f"{base}/get_counter_value").json()["count"]
    bad = rollout_a.post(f"{base}/increment_counter", json={"count": "many"})
    results["bad_status"] = bad.status_code
    results["bad_loc"] = bad.json()["detail"][0]["loc"]
    response = {"id": "resp_1", "created_at": 1.0, "model": "m", "object": "response", "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    verified = rollout_a.post(f"{base}/verify", json={"responses_create_params": {"input": "count"}, "response": response, "expected_count": 6})
    results["reward"] = verified.json()["reward"]
    results["reward_type"] = type(verified.json()["reward"]).__name__
    results["cookie_names"] = sorted(rollout_a.cookies.keys())
print(json.dumps(results))
`;

let graph: InProcessGraph;
before(async () => {
  if (!skip) graph = await startServers({ counter_env: [counter] });
});
after(async () => graph?.close());

test("a requests.Session() client seeds, calls tools, sees 422s and verifies, one session per rollout", { skip }, async () => {
  const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("python3", ["-c", SCRIPT, graph.url("counter_env")]);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (status: number | null) => resolve({ status, stdout, stderr }));
  });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), {
    a_count: 6,
    b_count: 107,
    bad_status: 422,
    bad_loc: ["body", "count"],
    reward: 1.0,
    reward_type: "float",
    cookie_names: ["StatefulCounterResourcesServer___counter_env"],
  });
});
