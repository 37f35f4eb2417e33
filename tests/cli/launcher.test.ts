// `gym env start` / `ng_run` as a real process: a three-server graph starts, is discoverable, and stops
// cleanly on Ctrl-C, on a child's death, on a start failure and on the launcher's own SIGKILL — no orphans.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parse as parseYaml } from "yaml";
import { headTokenHeaders, headTokenPath, readHeadToken } from "../../src/client/head-token.ts";
import { sessionCookieCodec } from "../../src/server/index.ts";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processesWithMarker, runGym, waitUntilDead } from "./gym-process.ts";

import { COUNTER_CONFIGS, http, startGraph } from "./launcher-graph.ts";

test.after(() => http.close());

test("env start runs three servers as separate processes, discoverable through the head server; Ctrl-C stops them all", async () => {
  const marker = randomUUID();
  // Every server child starts with the launcher's V8 flags, then NEMO_GYM_CHILD_NODE_ARGS (a profiling and tuning aid).
  const { gym, headUrl, headPort, pids } = await startGraph(undefined, marker, { NEMO_GYM_CHILD_NODE_ARGS: "--max-semi-space-size=16  --stack-size=1000" });
  try {
    for (const pid of pids) {
      assert.deepEqual(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(1, 4), ["--max-semi-space-size=64", "--max-semi-space-size=16", "--stack-size=1000"], `server ${pid}'s node flags`);
    }
    const instances = (await http.request(`${headUrl}/server_instances`)).json<Record<string, any>[]>();
    assert.deepEqual(instances.map((i) => i.process_name).sort(), ["example_session_state_mgmt_resources_server", "example_session_state_mgmt_simple_agent", "policy_model"]);
    assert.ok(instances.every((i) => i.status === "running" && i.pid !== process.pid && i.port > 0));
    assert.equal(new Set(pids).size, 3);
    assert.ok(pids.every((pid) => processesWithMarker(marker).includes(pid)), "the marker finds the running servers");

    const yamlText = (await http.request(`${headUrl}/global_config_dict_yaml`)).json<string>();
    const config = parseYaml(yamlText);
    assert.equal(config.policy_model.responses_api_models.scripted_model.port, instances.find((i) => i.process_name === "policy_model")!.port);

    const status = await runGym(["env", "status", `++head_server.port=${headPort}`]);
    assert.equal(status.code, 0, status.output);
    assert.match(status.output, /3 servers found \(3 healthy, 0 unhealthy\)/);
  } finally {
    gym.child.kill("SIGINT");
  }
  const { code } = await gym.exited;
  assert.equal(code, 0);
  assert.deepEqual(await waitUntilDead(pids), [], "every server process has exited");
  assert.deepEqual(processesWithMarker(marker), []);
  assert.match(gym.output(), /\(example_session_state_mgmt_resources_server\) INFO StatefulCounterResourcesServer/, "child output is prefixed with its instance name");
});

test("the graph's secrets: the head server redacts them without the token, the token file unlocks them, the servers share the configured session secret, and eval run --no-serve works", async () => {
  const sessionSecret = `configured-${randomUUID()}`;
  const { gym, headUrl, headPort } = await startGraph(["env", "start", ...COUNTER_CONFIGS, "++head_server.port=0", "++policy_api_key=sk-launcher-secret", `++session_secret=${sessionSecret}`]);
  const tokenFile = headTokenPath(Number(headPort))!;
  try {
    const config = async (headers: Record<string, string>) => parseYaml((await http.request(`${headUrl}/global_config_dict_yaml`, { headers })).json<string>());
    const instances = (await http.request(`${headUrl}/server_instances`)).json<Record<string, any>[]>();
    const redacted = await config({});
    assert.equal(redacted.policy_api_key, "<redacted>");
    assert.equal(redacted.session_secret, "<redacted>");
    assert.equal(redacted.policy_model.responses_api_models.scripted_model.port, instances.find((i) => i.process_name === "policy_model")!.port, "addresses are intact");

    assert.equal(statSync(tokenFile).mode & 0o777, 0o600, "only the user who started the graph can read the token");
    const token = readHeadToken(Number(headPort));
    assert.ok(token);
    const full = await config(headTokenHeaders(token));
    assert.equal(full.policy_api_key, "sk-launcher-secret");
    assert.equal(full.session_secret, sessionSecret);

    // The children got the graph's signing over IPC: their cookies verify under the configured secret only.
    const COOKIE = "StatefulCounterResourcesServer___example_session_state_mgmt_resources_server";
    const resources = instances.find((i) => i.process_name === "example_session_state_mgmt_resources_server")!;
    const seed = { responses_create_params: { input: "count" }, initial_count: 1 };
    const seeded = await http.request(`${resources.url}/seed_session`, { method: "POST", json: seed });
    assert.ok(sessionCookieCodec(COOKIE, sessionSecret).decode(seeded.cookies[COOKIE]));
    assert.equal(sessionCookieCodec(COOKIE, COOKIE).decode(seeded.cookies[COOKIE]), undefined, "not NeMo Gym's cookie-name signing");
    const forged = sessionCookieCodec(COOKIE, COOKIE).encode("chosen-by-the-client");
    const answer = await http.request(`${resources.url}/seed_session`, { method: "POST", json: seed, cookies: { [COOKIE]: forged } });
    assert.notEqual(sessionCookieCodec(COOKIE, sessionSecret).decode(answer.cookies[COOKIE]), "chosen-by-the-client");

    // End to end through the running graph, found through the head server (with the token file).
    const output = join(mkdtempSync(join(tmpdir(), "gym-secrets-")), "out.jsonl");
    const input = "resources_servers/example_session_state_mgmt/data/example.jsonl";
    const run = await runGym(["eval", "run", "--no-serve", `++head_server.port=${headPort}`, "--agent", "example_session_state_mgmt_simple_agent", "--input", input, "--output", output, "--limit", "2"]);
    assert.equal(run.code, 0, run.output);
    const rollouts = readFileSync(output, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(rollouts.length, 2);
    assert.ok(rollouts.every((rollout) => typeof rollout.reward === "number"));
    // Without any token (another private dir, no NEMO_GYM_HEAD_TOKEN) the redacted config still routes the run.
    const tokenless = join(mkdtempSync(join(tmpdir(), "gym-secrets-")), "out.jsonl");
    const elsewhere = mkdtempSync(join(tmpdir(), "gym-no-token-"));
    const blind = await runGym(["eval", "run", "--no-serve", `++head_server.port=${headPort}`, "--agent", "example_session_state_mgmt_simple_agent", "--input", input, "--output", tokenless, "--limit", "1"], { env: { XDG_RUNTIME_DIR: elsewhere, NEMO_GYM_HEAD_TOKEN: "" } });
    assert.equal(blind.code, 0, blind.output);
    assert.equal(readFileSync(tokenless, "utf8").trim().split("\n").length, 1);
  } finally {
    gym.child.kill("SIGINT");
  }
  await gym.exited;
  assert.equal(existsSync(tokenFile), false, "the token file goes with the graph");
});

test("ng_run with +config_paths works as an alias and says what replaces it", async () => {
  const { gym, pids } = await startGraph([
    "ng_run",
    "+config_paths=[resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml,responses_api_models/scripted_model/configs/scripted_model.yaml]",
    "++head_server.port=0",
  ]);
  gym.child.kill("SIGTERM");
  await gym.exited;
  assert.match(gym.output(), /`ng_run` is deprecated and will be removed in a future release; use `gym env start` instead\./);
  assert.deepEqual(await waitUntilDead(pids), []);
});
