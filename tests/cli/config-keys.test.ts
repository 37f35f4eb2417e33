// Configs never silently mean something else, as real processes: a server this project does not have, a refused key
// or a bad field fails `gym env validate`, `gym env start` and `gym eval run` before any server starts (one line,
// exit 2, no stack); an unknown key is a warning naming it; launched servers bind inside port_range_low..high.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpClient } from "../../src/client/index.ts";
import { processesWithMarker, runGym, startGym } from "./gym-process.ts";

const COUNTER_CONFIGS = [
  "--config",
  "resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml",
  "--config",
  "responses_api_models/scripted_model/configs/scripted_model.yaml",
];
const AGENT = "example_session_state_mgmt_simple_agent.responses_api_agents.simple_agent";

// A NeMo Gym environment this project has not ported: its resources server exists only as app.py upstream.
const dir = mkdtempSync(join(tmpdir(), "gym-config-keys-"));
const TALES = join(dir, "tales.yaml");
writeFileSync(
  TALES,
  `tales:
  resources_servers:
    tales:
      entrypoint: app.py
      domain: coding
tales_simple_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      resources_server: {type: resources_servers, name: tales}
      model_server: {type: responses_api_models, name: policy_model}
`,
);
const ROWS = join(dir, "rows.jsonl");
writeFileSync(ROWS, `${JSON.stringify({ responses_create_params: { input: "hi" } })}\n`);
const UNPORTED = /^error: not available here: tales; available resources servers: abstention, arc_agi, .*\bcalendar, .*example_session_state_mgmt.*, xstest$/m;

function assertOneLineBeforeAnyStart(result: { code: number | null; output: string }, pattern: RegExp, marker: string) {
  assert.equal(result.code, 2, result.output);
  assert.match(result.output, pattern);
  assert.doesNotMatch(result.output, /ERR_MODULE_NOT_FOUND|\n\s+at /, "no stack trace");
  assert.doesNotMatch(result.output, /listening on|failed to start/, "no server was started");
  assert.deepEqual(processesWithMarker(marker), []);
}

test("a server this project does not have fails env validate, env start and eval run with one line listing what is available", async () => {
  const marker = randomUUID();
  const env = { GYM_TEST_MARKER: marker };
  const validate = await runGym(["env", "validate", "--config", TALES, ...COUNTER_CONFIGS], { env });
  assertOneLineBeforeAnyStart(validate, UNPORTED, marker);
  const start = await runGym(["env", "start", "--config", TALES, ...COUNTER_CONFIGS, "++head_server.port=0"], { env });
  assertOneLineBeforeAnyStart(start, UNPORTED, marker);
  const run = await runGym(["eval", "run", "--config", TALES, ...COUNTER_CONFIGS, "--agent", "tales_simple_agent", "--input", ROWS, "--output", join(dir, "out.jsonl"), "++head_server.port=0"], { env });
  assert.equal(run.code, 2, run.output);
  assert.match(run.output, /not available here: tales; available resources servers: /);
  assert.doesNotMatch(run.output, /ERR_MODULE_NOT_FOUND|listening on/);
});

test("a refused key fails env validate and env start naming the instance and the key, before any server starts", async () => {
  const marker = randomUUID();
  const refused = `++${AGENT}.token_id_capture=true`;
  const line = /^error: simple_agent 'example_session_state_mgmt_simple_agent': config key `token_id_capture` is not implemented here \(.+\)$/m;
  assertOneLineBeforeAnyStart(await runGym(["env", "validate", ...COUNTER_CONFIGS, refused], { env: { GYM_TEST_MARKER: marker } }), line, marker);
  assertOneLineBeforeAnyStart(await runGym(["env", "start", ...COUNTER_CONFIGS, refused, "++head_server.port=0"], { env: { GYM_TEST_MARKER: marker } }), line, marker);
});

test("a field its server rejects fails env start before any server starts", async () => {
  const marker = randomUUID();
  const result = await runGym(["env", "start", ...COUNTER_CONFIGS, "++policy_model.responses_api_models.scripted_model.mode=telepathy", "++head_server.port=0"], { env: { GYM_TEST_MARKER: marker } });
  assert.equal(result.code, 2, result.output);
  assert.match(result.output, /invalid config for ScriptedModel 'policy_model':.*mode/);
  assert.doesNotMatch(result.output, /listening on/);
});

test("an unknown key: env validate warns naming the key and the instance, and still passes", async () => {
  const result = await runGym(["env", "validate", ...COUNTER_CONFIGS, `++${AGENT}.max_stepz=3`]);
  assert.equal(result.code, 0, result.output);
  assert.match(result.stderr, /^WARNING simple_agent 'example_session_state_mgmt_simple_agent': config key `max_stepz` is not one this server reads, so it has no effect/m);
  assert.match(result.stdout, /✓ Config is valid\./);
  const clean = await runGym(["env", "validate", ...COUNTER_CONFIGS]);
  assert.doesNotMatch(clean.output, /WARNING/, "the shipped configs (description, verified, value, datasets, …) warn about nothing");
});

test("env start: every server binds inside port_range_low..port_range_high, and an unknown key is warned about once, by its server", async () => {
  const low = 30_000 + Math.floor(Math.random() * 20_000);
  const gym = startGym(["env", "start", ...COUNTER_CONFIGS, "++head_server.port=0", `++port_range_low=${low}`, `++port_range_high=${low + 200}`, `++${AGENT}.max_stepz=3`]);
  const http = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 10_000, maxRetries: 0 });
  try {
    const [, headUrl] = await gym.waitFor(/All 3 \/ 3 servers ready! Head server: (http:\/\/[\d.]+:\d+)/);
    const instances = (await http.request(`${headUrl}/server_instances`)).json<{ port: number }[]>();
    assert.equal(instances.length, 3);
    for (const { port } of instances) assert.ok(port >= low && port <= low + 200, `port ${port} in ${low}..${low + 200}`);
    assert.equal(gym.output().match(/config key `max_stepz`/g)?.length, 1, gym.output());
    assert.match(gym.output(), /\(example_session_state_mgmt_simple_agent\) WARN simple_agent 'example_session_state_mgmt_simple_agent': config key `max_stepz`/);
  } finally {
    await http.close();
    await gym.stop();
  }
});
