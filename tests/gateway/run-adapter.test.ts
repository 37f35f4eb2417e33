// The run adapter against real HTTP servers on loopback: the /run payload, result normalisation,
// artifacts, readiness, and every cleanup outcome of §1.7 (reference: test_run_adapter.py, tests 54–58).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { HttpClient } from "../../src/client/http-client.ts";
import { createLogger } from "../../src/server/logger.ts";
import { buildRunPayload, normalizeRunResult } from "../../src/gateway/run-payload.ts";
import { AgentRunError, HttpRunAdapter, RunCancelledError, cleanupRun, type CleanupStep } from "../../src/gateway/run-adapter.ts";
import { ARTIFACT_PROTOCOL_VERSION } from "../../src/gateway/artifacts.ts";
import { PROTOCOL_VERSION, type EnvironmentRegistration, type JsonObject, type TrialRequest } from "../../src/gateway/types.ts";

// ---- fixtures ------------------------------------------------------------------------------------------

type Reply = { status?: number; json?: unknown; text?: string; headers?: Record<string, string> } | "hang";
interface Seen {
  method: string;
  path: string;
  body: string;
  headers: IncomingMessage["headers"];
}

/** A stand-in Gym agent / resources server: `"<METHOD> <path>"` → reply. Unknown routes answer 404. */
async function startFakeGym(routes: Record<string, Reply | ((seen: Seen) => Reply)>) {
  const seen: Seen[] = [];
  const arrivals: Array<(request: Seen) => void> = [];
  const disconnected: string[] = [];
  const hangups: Array<() => void> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const request: Seen = { method: req.method ?? "GET", path: req.url ?? "/", body, headers: req.headers };
      seen.push(request);
      for (const notify of arrivals.splice(0)) notify(request);
      const route = routes[`${request.method} ${request.path}`];
      const reply = typeof route === "function" ? route(request) : (route ?? { status: 404, json: { detail: "Not Found" } });
      if (reply === "hang") {
        res.on("close", () => {
          disconnected.push(`${request.method} ${request.path}`);
          for (const notify of hangups.splice(0)) notify();
        });
        return;
      }
      const text = reply.text ?? JSON.stringify(reply.json ?? {});
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    disconnected,
    /** Resolves when the next request has arrived. */
    nextRequest: () => new Promise<Seen>((resolve) => arrivals.push(resolve)),
    /** Resolves when a hanging request's caller next hangs up. */
    nextHangup: () => new Promise<void>((resolve) => hangups.push(resolve)),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
type FakeGym = Awaited<ReturnType<typeof startFakeGym>>;

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});
async function fakeGym(routes: Parameters<typeof startFakeGym>[0]): Promise<FakeGym> {
  const gym = await startFakeGym(routes);
  closers.push(gym.close);
  return gym;
}

const http = new HttpClient({ connectTimeoutMs: 2000, maxRetries: 0 });
closers.push(() => http.close());
const logger = createLogger("run-adapter-test", "silent");

function trialRequest(changes: { task?: JsonObject; metadata?: JsonObject; generation?: JsonObject; requestId?: string } = {}): TrialRequest {
  return {
    protocol_version: PROTOCOL_VERSION,
    request_id: changes.requestId ?? "relax-request-one",
    session: { session_id: "session-secret", group_id: "3", rollout_mode: "train", attempt: 1 },
    environment: {
      name: "workplace_assistant",
      config: "workplace-assistant-v1",
      task: changes.task ?? {
        messages: [{ role: "user", content: "Reply to the latest email." }],
        metadata: {
          environment: "workplace_assistant",
          tools: [{ type: "function", name: "email_reply_email", parameters: { type: "object" } }],
          parallel_tool_calls: false,
          ground_truth: [{ name: "email_reply_email", arguments: '{"email_id":"00000057"}' }],
          responses_create_params: { temperature: 1.0 },
        },
      },
    },
    model_endpoint: { base_url: "http://relax.example/agentic_api", api_key: "session-secret", model: "model", api_key_header: "Authorization", api_key_prefix: "Bearer ", headers: {} },
    generation: changes.generation ?? { responses_create_params: {}, sampling_params: {} },
    interrupt_policy: "protected",
    deadline_s: 1800,
    lease_s: 60,
    metadata: changes.metadata ?? { integration: "relax" },
  };
}

function registration(gymUrl: string, changes: Partial<EnvironmentRegistration> = {}): EnvironmentRegistration {
  return {
    config: "workplace-assistant-v1",
    environment: "workplace_assistant",
    agent_name: "workplace_assistant_simple_agent",
    agent_url: gymUrl,
    readiness_urls: [gymUrl],
    abort_url: null,
    force_cleanup_url: null,
    cleanup_probe_url: null,
    interrupt_policy: "protected",
    max_concurrency: 2,
    queue_capacity: 4,
    max_deadline_s: 120,
    ...changes,
  };
}

const adapterFor = (spec: EnvironmentRegistration, options: { cleanupGraceS?: number; artifactRoot?: string } = {}) =>
  new HttpRunAdapter(spec, { http, logger, cleanupGraceS: options.cleanupGraceS ?? 2, artifactRoot: options.artifactRoot });

/** Cleanup URLs served by a fake resources server under /cleanup/{rollout_id}. */
const cleanupUrls = (gymUrl: string) => ({
  abort_url: `${gymUrl}/cleanup/{rollout_id}`,
  force_cleanup_url: `${gymUrl}/cleanup/{rollout_id}`,
  cleanup_probe_url: `${gymUrl}/cleanup/{rollout_id}`,
});

const ROLLOUT = "capability-0";
const CLEANUP_PATH = `/cleanup/${ROLLOUT}`;

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "run-adapter-"));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

// ---- /run payload (tests 54, 55) ---------------------------------------------------------------------

test("run_payload_injects_rollout_correlation_without_mutating_task", () => {
  const request = trialRequest();
  (request.environment.task.metadata as JsonObject).responses_create_params = { metadata: { instance_dict: '{"instance_id":"task-one"}' }, temperature: 0.7 };
  const original = structuredClone(request);

  const payload = buildRunPayload(request, ROLLOUT);

  const params = payload.responses_create_params as JsonObject;
  assert.deepEqual(params.input, original.environment.task.messages);
  assert.deepEqual(params.metadata, { instance_dict: '{"instance_id":"task-one"}' });
  assert.equal(params.temperature, 0.7);
  assert.equal(payload._ng_task_index, "capability");
  assert.equal(payload._ng_rollout_index, "0");
  assert.deepEqual(request, original, "the request is never mutated");
  params.temperature = 0;
  assert.deepEqual(request, original, "the payload shares nothing with the request");
});

test("run_payload_restores_empty_gym_input_for_r2e_task", () => {
  const request = trialRequest({
    task: {
      messages: [{ role: "user", content: "Fix the route parser." }],
      metadata: { responses_create_params: { input: [], metadata: { instance_dict: '{"instance_id":"task-r2e"}' } } },
    },
  });

  const payload = buildRunPayload(request, "r2e-0");

  const params = payload.responses_create_params as JsonObject;
  assert.deepEqual(params.input, []);
  assert.deepEqual(params.metadata, { instance_dict: '{"instance_id":"task-r2e"}' });
});

test("a Relax row is rebuilt in the documented order and its other keys become top-level /run fields", () => {
  const request = trialRequest({
    task: {
      messages: [{ role: "user", content: "hi" }],
      question_id: 7,
      metadata: {
        ground_truth: ["x"],
        environment: "workplace_assistant",
        tools: [{ type: "function", name: "t" }],
        parallel_tool_calls: false,
        developer_message: "be brief",
        responses_create_params: { temperature: 1.0, max_output_tokens: 10 },
      },
    },
    generation: { responses_create_params: { temperature: 0.3 } },
  });

  const payload = buildRunPayload(request, "aa-bb-0");

  assert.deepEqual(payload.responses_create_params, {
    input: [{ role: "user", content: "hi" }],
    temperature: 0.3,
    max_output_tokens: 10,
    tools: [{ type: "function", name: "t" }],
    parallel_tool_calls: false,
    instructions: "be brief",
  });
  assert.equal(payload.question_id, 7);
  assert.deepEqual(payload.ground_truth, ["x"]);
  assert.equal(payload.environment, "workplace_assistant");
  for (const consumed of ["messages", "metadata", "tools", "parallel_tool_calls", "developer_message"]) assert.equal(consumed in payload, false, consumed);
  assert.equal(payload._ng_task_index, "aa-bb", "split on the last '-'");
  assert.equal(payload._ng_rollout_index, "0");
});

test("a native Gym row is sent unchanged apart from the correlation indices", () => {
  const row = { responses_create_params: { input: "2+2?" }, expected_answer: "4", metadata: { keep: true } };
  const payload = buildRunPayload(trialRequest({ task: structuredClone(row) }), ROLLOUT);
  assert.deepEqual(payload, { ...row, _ng_task_index: "capability", _ng_rollout_index: "0" });
});

// ---- result normalisation (§4.1) ---------------------------------------------------------------------

test("normalizeRunResult keeps reward and metrics, counts output items, copies flags and artifact_ref", () => {
  const result = normalizeRunResult("swe", {
    reward: { scalar: 0.75, components: { verifier: 1 } },
    truncated: true,
    metrics: { turns: 3, tool_calls: 99 },
    response: { output: [{ type: "reasoning" }, { type: "function_call" }, { type: "function_call_output" }, { type: "message" }, "odd"] },
    resolved: false,
    agent_timed_out: null,
    artifact_ref: "/shared/a.json",
    unrelated: 1,
  });
  assert.deepEqual(result, {
    status: "truncated",
    reward: { scalar: 0.75, components: { verifier: 1 } },
    metrics: { turns: 3, model_output_items: 5, tool_calls: 1, tool_outputs: 1, assistant_messages: 1, resolved: false, agent_timed_out: null },
    artifact_ref: "/shared/a.json",
  });
});

test("normalizeRunResult: missing fields give completed, a null reward and empty metrics", () => {
  assert.deepEqual(normalizeRunResult("math", { truncated: 0, metrics: [1], artifact_ref: 3 }), { status: "completed", reward: null, metrics: {}, artifact_ref: null });
});

test("r2e_gym turns a zero reward with an existing patch into 0.1, and only then", () => {
  assert.equal(normalizeRunResult("r2e_gym", { reward: 0.0, patch_exists: true }).reward, 0.1);
  assert.equal(normalizeRunResult("r2e_gym", { reward: 0.0, patch_exists: false }).reward, 0);
  assert.equal(normalizeRunResult("r2e_gym", { reward: 1.0, patch_exists: true }).reward, 1);
  assert.equal(normalizeRunResult("swe_gym", { reward: 0.0, patch_exists: true }).reward, 0);
});

test("normalizeRunResult rejects a reply that is not a JSON object, or a reward of no valid shape", () => {
  for (const reply of [null, [], "ok", 1]) assert.throws(() => normalizeRunResult("math", reply), /must answer a JSON object/);
  assert.throws(() => normalizeRunResult("math", { reward: "1" }), /string reward/);
});

// ---- the HTTP adapter (tests 56–58) ------------------------------------------------------------------

test("http_adapter_normalizes_gym_result_and_checks_readiness", async () => {
  const gym = await fakeGym({
    "GET /": { json: { status: "ok" } },
    "POST /run": {
      json: { reward: 0.5, response: { output: [{ type: "function_call" }, { type: "function_call_output" }, { type: "message" }] } },
      headers: { "set-cookie": "SimpleAgent___agent=abc; Path=/" },
    },
  });
  const adapter = adapterFor(registration(gym.url));

  assert.equal(await adapter.ready(), true);
  const result = await adapter.start(trialRequest(), ROLLOUT).result;

  assert.equal(result.reward, 0.5);
  assert.equal(result.status, "completed");
  assert.deepEqual(result.metrics, { model_output_items: 3, tool_calls: 1, tool_outputs: 1, assistant_messages: 1 });
  const run = gym.seen.find((request) => request.method === "POST")!;
  assert.equal(JSON.parse(run.body)._ng_task_index, "capability");
  assert.ok(gym.seen.some((request) => request.method === "GET" && request.path === "/"));

  await adapter.start(trialRequest(), "other-0").result;
  const runs = gym.seen.filter((request) => request.path === "/run");
  assert.equal(runs.length, 2);
  assert.equal(runs[1]!.headers.cookie, undefined, "no cookie is kept between runs: each is its own Gym session");
});

test("readiness is false when any readiness URL is not 2xx or does not answer", async () => {
  const gym = await fakeGym({ "GET /": { json: {} }, "GET /busy": { status: 503, json: {} } });
  const closed = await fakeGym({});
  await closed.close();
  assert.equal(await adapterFor(registration(gym.url, { readiness_urls: [gym.url, `${gym.url}/busy`] })).ready(), false);
  assert.equal(await adapterFor(registration(gym.url, { readiness_urls: [gym.url, closed.url] })).ready(), false);
  assert.equal(await adapterFor(registration(gym.url, { readiness_urls: [gym.url, gym.url] })).ready(), true);
});

test("http_adapter_persists_opt_in_r2e_artifacts", async () => {
  const root = await tempDir();
  const source = join(root, "source");
  await mkdir(join(source, "trajectories", "instance-one"), { recursive: true });
  await mkdir(join(source, "apptainer_logs"));
  await mkdir(join(source, "eval_private"));
  await writeFile(join(source, "nemo_gym_metrics.json"), JSON.stringify({ patch_exists: false, resolved: false }));
  await writeFile(join(source, "trajectories", "instance-one", "output.jsonl"), `${JSON.stringify({ test_result: { git_patch: "", skipped: true, skip_reason: "completions_exist_no_result" } })}\n`);
  await writeFile(join(source, "apptainer_logs", "agent.log"), "Failed to get git diff (None)\n");
  await writeFile(join(source, "eval_private", "ground_truth.json"), '{"patch":"private"}\n');
  await symlink(join(source, "eval_private", "ground_truth.json"), join(source, "apptainer_logs", "leak.json"));

  const gym = await fakeGym({
    "POST /run": {
      json: {
        reward: 0.0,
        resolved: false,
        patch_exists: false,
        model_patch: null,
        instance_config: { persistent_dir: source },
        response: {
          output: [
            { type: "function_call", name: "str_replace_editor", arguments: '{"command":"str_replace"}' },
            { type: "function_call_output", output: "No replacement was performed" },
          ],
        },
      },
    },
  });
  const artifactRoot = join(root, "artifacts");
  const adapter = adapterFor(registration(gym.url, { environment: "r2e_gym" }), { artifactRoot });
  const request = trialRequest({ metadata: { capture_artifacts: true }, requestId: "request-artifact" });

  const result = await adapter.start(request, ROLLOUT).result;

  assert.ok(result.artifact_ref);
  const manifest = JSON.parse(await readFile(result.artifact_ref, "utf8"));
  assert.equal(manifest.protocol_version, ARTIFACT_PROTOCOL_VERSION);
  assert.deepEqual(manifest.evaluation, { resolved: false, patch_exists: false, model_patch: null });
  assert.equal(manifest.openhands_result.skip_reason, "completions_exist_no_result");
  assert.equal(manifest.response_output[0].name, "str_replace_editor");
  assert.deepEqual(manifest.files, ["apptainer_logs/agent.log", "nemo_gym_metrics.json", "trajectories/instance-one/output.jsonl"]);
  const captured = dirname(result.artifact_ref);
  assert.equal(await readFile(join(captured, "apptainer_logs", "agent.log"), "utf8"), "Failed to get git diff (None)\n");
  await assert.rejects(stat(join(captured, "eval_private")), "the private dir is not copied");
  await assert.rejects(stat(join(captured, "apptainer_logs", "leak.json")), "a symlink is not followed");
  assert.equal((await stat(result.artifact_ref)).mode & 0o777, 0o600);
  assert.equal((await stat(join(captured, "apptainer_logs", "agent.log"))).mode & 0o777, 0o600);
  assert.equal((await stat(captured)).mode & 0o777, 0o700);
  assert.equal(result.metrics.artifact_captured, true);
  assert.equal(result.metrics.patch_exists, false);
  assert.equal(result.metrics.resolved, false);

  const before = await readFile(result.artifact_ref, "utf8");
  await writeFile(join(source, "apptainer_logs", "agent.log"), "changed\n");
  const again = await adapter.start(request, ROLLOUT).result;
  assert.equal(again.artifact_ref, result.artifact_ref, "the same request captures to the same place");
  assert.equal(await readFile(again.artifact_ref!, "utf8"), before, "and the first capture is kept");
});

test("artifact capture without an artifact root is reported in the metrics, not as a failure", async () => {
  const gym = await fakeGym({ "POST /run": { json: { reward: 1 } } });
  const result = await adapterFor(registration(gym.url)).start(trialRequest({ metadata: { capture_artifacts: true } }), ROLLOUT).result;
  assert.equal(result.reward, 1);
  assert.equal(result.metrics.artifact_captured, false);
  assert.equal(result.metrics.artifact_capture_error, "artifact_root_not_configured");
  const plain = await adapterFor(registration(gym.url)).start(trialRequest(), ROLLOUT).result;
  assert.equal("artifact_captured" in plain.metrics, false, "capture is opt-in");
});

test("http_adapter_does_not_claim_cleanup_without_abort_contract", async () => {
  const gym = await fakeGym({ "POST /run": "hang" });
  const arrived = gym.nextRequest();
  const handle = adapterFor(registration(gym.url)).start(trialRequest(), ROLLOUT);
  await arrived;
  const hungUp = gym.nextHangup();

  const cleanup = await handle.abort();

  assert.deepEqual(cleanup, { confirmed: false, code: "cleanup_unverified" });
  await assert.rejects(handle.result, RunCancelledError);
  await hungUp;
  assert.deepEqual(gym.disconnected, ["POST /run"], "the local /run request was cancelled");
});

/** The rejection of one trial run against `agentUrl`: an AgentRunError with code agent_error. */
async function agentErrorOf(agentUrl: string): Promise<AgentRunError> {
  const error = await adapterFor(registration(agentUrl)).start(trialRequest(), ROLLOUT).result.then(
    () => assert.fail("expected a rejection"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AgentRunError);
  assert.equal(error.code, "agent_error");
  return error;
}

test("/run failures reject the result as agent_error: non-2xx, non-JSON, non-object, transport", async () => {
  const gym = await fakeGym({
    "POST /500/run": { status: 500, text: '"boom at capability-0"' },
    "POST /text/run": { text: "<html>" },
    "POST /list/run": { json: [1] },
  });
  const closed = await fakeGym({});
  await closed.close();
  const failure = async (agentUrl: string) => (await agentErrorOf(agentUrl)).message;
  const status = await failure(`${gym.url}/500`);
  assert.match(status, /HTTP 500/);
  assert.doesNotMatch(status, /capability-0/, "the rollout id (a callback capability) is redacted");
  assert.match(await failure(`${gym.url}/text`), /not JSON/);
  assert.match(await failure(`${gym.url}/list`), /JSON object/);
  assert.match(await failure(closed.url), /failed/);
  assert.equal(gym.seen.filter((request) => request.path === "/500/run").length, 1, "/run is never replayed");
});

test("an attempt the agent typed as failed is never a result: its 500 with x-ng-failure-class, its 200 with _ng_failure_class", async () => {
  const gym = await fakeGym({
    "POST /typed500/run": { status: 500, text: '"transport: env/increment_counter reset"', headers: { "x-ng-failure-class": "transport" } },
    "POST /typed200/run": { json: { _ng_failure_class: "invalid_inner_answer", error: "seed without cookie", reward: 1 } },
  });
  const failure = agentErrorOf;
  const typed500 = await failure(`${gym.url}/typed500`);
  assert.equal(typed500.failureClass, "transport");
  assert.match(typed500.message, /HTTP 500 \(transport\)/);
  const typed200 = await failure(`${gym.url}/typed200`);
  assert.equal(typed200.failureClass, "invalid_inner_answer");
  assert.match(typed200.message, /seed without cookie/);
  const closed = await fakeGym({});
  await closed.close();
  assert.equal((await failure(closed.url)).failureClass, "transport");
});

// ---- cleanup outcomes end to end (§1.7 terminal-outcomes table) ----------------------------------------

async function cleanupOutcome(routes: Parameters<typeof startFakeGym>[0], changes: (url: string) => Partial<EnvironmentRegistration>, cleanupGraceS = 2) {
  const gym = await fakeGym({ "POST /run": "hang", ...routes });
  const arrived = gym.nextRequest();
  const handle = adapterFor(registration(gym.url, changes(gym.url)), { cleanupGraceS }).start(trialRequest(), ROLLOUT);
  await arrived;
  const step: CleanupStep = await cleanupRun(handle);
  return { step, gym };
}

test("cleanup: a probe answering {clean: true} is the proof that confirms cleanup", async () => {
  const { step, gym } = await cleanupOutcome({ [`POST ${CLEANUP_PATH}`]: { json: { accepted: true } }, [`GET ${CLEANUP_PATH}`]: { json: { clean: true } } }, cleanupUrls);
  assert.deepEqual(step, { confirmed: true });
  assert.deepEqual(
    gym.seen.map((request) => `${request.method} ${request.path}`),
    ["POST /run", `POST ${CLEANUP_PATH}`, `POST ${CLEANUP_PATH}`, `GET ${CLEANUP_PATH}`],
    "abort, then force (abort is only an acknowledgement), then probe; {rollout_id} substituted",
  );
});

test("cleanup: without a probe URL nothing can be proven → cleanup_unverified", async () => {
  const { step } = await cleanupOutcome({ [`POST ${CLEANUP_PATH}`]: { json: { accepted: true } } }, (url) => ({ ...cleanupUrls(url), cleanup_probe_url: null }));
  assert.deepEqual(step, { confirmed: false, code: "cleanup_unverified" });
});

test("cleanup: an environment with no cleanup URLs at all → cleanup_unverified", async () => {
  const { step } = await cleanupOutcome({}, () => ({}));
  assert.deepEqual(step, { confirmed: false, code: "cleanup_unverified" });
});

test("cleanup: a probe answering {clean: false} → cleanup_unverified", async () => {
  const { step } = await cleanupOutcome({ [`POST ${CLEANUP_PATH}`]: { json: {} }, [`GET ${CLEANUP_PATH}`]: { json: { clean: false } } }, cleanupUrls);
  assert.deepEqual(step, { confirmed: false, code: "cleanup_unverified" });
});

test("cleanup: abort and force answering 500 → cleanup_failed", async () => {
  const { step } = await cleanupOutcome({ [`POST ${CLEANUP_PATH}`]: { status: 500, json: {} }, [`GET ${CLEANUP_PATH}`]: { json: { clean: false } } }, cleanupUrls);
  assert.deepEqual(step, { confirmed: false, code: "cleanup_failed" });
});

test("cleanup: a failed abort is still confirmed when the probe proves the state is gone", async () => {
  const { step } = await cleanupOutcome({ [`POST ${CLEANUP_PATH}`]: { status: 500, json: {} }, [`GET ${CLEANUP_PATH}`]: { json: { clean: true } } }, cleanupUrls);
  assert.deepEqual(step, { confirmed: true });
});

test("cleanup: a probe answering non-JSON → cleanup_probe_failed", async () => {
  const { step } = await cleanupOutcome({ [`POST ${CLEANUP_PATH}`]: { json: {} }, [`GET ${CLEANUP_PATH}`]: { text: "clean" } }, cleanupUrls);
  assert.deepEqual(step, { confirmed: false, code: "cleanup_probe_failed" });
});

test("cleanup: a probe answering 503 → cleanup_probe_failed", async () => {
  const { step } = await cleanupOutcome({ [`POST ${CLEANUP_PATH}`]: { json: {} }, [`GET ${CLEANUP_PATH}`]: { status: 503, json: { clean: true } } }, cleanupUrls);
  assert.deepEqual(step, { confirmed: false, code: "cleanup_probe_failed" });
});

test("cleanup: a hung abort is cut off after cleanupGraceS → cleanup_failed, and cleanup goes on", { timeout: 8000 }, async () => {
  const { step, gym } = await cleanupOutcome(
    { [`POST /abort/${ROLLOUT}`]: "hang", [`GET ${CLEANUP_PATH}`]: { json: { clean: false } } },
    (url) => ({ abort_url: `${url}/abort/{rollout_id}`, cleanup_probe_url: `${url}/cleanup/{rollout_id}` }),
    0.2,
  );
  assert.deepEqual(step, { confirmed: false, code: "cleanup_failed" });
  assert.ok(gym.seen.some((request) => request.method === "GET" && request.path === CLEANUP_PATH), "the probe still ran");
});

test("cleanup: a hung abort alone resolves as cleanup_failed within the grace period", { timeout: 8000 }, async () => {
  const gym = await fakeGym({ [`POST /abort/${ROLLOUT}`]: "hang" });
  const handle = adapterFor(registration(gym.url, { abort_url: `${gym.url}/abort/{rollout_id}` }), { cleanupGraceS: 0.2 }).handleFor(ROLLOUT);
  assert.deepEqual(await handle.abort(), { confirmed: false, code: "cleanup_failed" });
});

test("handleFor cleans up a run this process did not start, by URL only", async () => {
  const gym = await fakeGym({ [`POST ${CLEANUP_PATH}`]: { json: { accepted: true } }, [`GET ${CLEANUP_PATH}`]: { json: { clean: true } } });
  const handle = adapterFor(registration(gym.url, cleanupUrls(gym.url))).handleFor(ROLLOUT);
  let settled = false;
  void handle.result.finally(() => (settled = true));

  assert.deepEqual(await cleanupRun(handle), { confirmed: true });
  assert.equal(settled, false, "its result never resolves");
  assert.equal(gym.seen.some((request) => request.path === "/run"), false);
});

test("cleanupRun treats a throwing handle as a failed cleanup, never as a crash", async () => {
  const throwing = { result: new Promise<never>(() => {}), abort: async () => { throw new Error("x"); }, forceCleanup: async () => { throw new Error("y"); }, probeCleanup: async () => ({ confirmed: false, code: "cleanup_unverified" as const }) };
  assert.deepEqual(await cleanupRun(throwing), { confirmed: false, code: "cleanup_failed" });
});
