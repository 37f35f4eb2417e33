// vllm_model's endpoints: session stickiness over several base_urls (NeMo Gym HEAD's hash, so a Python and a
// TypeScript server pick the same endpoint), the is_responses_native passthrough, and the shipped configs.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { loadGlobalConfig, getServerInstanceConfig } from "../../../src/config/index.ts";
import { type FakeVllm, http, startFakeVllm, startInProcess } from "../../../src/testing/index.ts";
import { endpointIndex } from "../upstream.ts";
import { startVllmModels, type Harness } from "./helpers.ts";

const ENDPOINTS = 4;
let fakes: FakeVllm[];
let harness: Harness;

before(async () => {
  fakes = await Promise.all(Array.from({ length: ENDPOINTS }, (_, i) => startFakeVllm({ defaultReply: { content: `endpoint ${i}` } })));
  const common = { api_key: "k", model: "m", return_token_id_information: false, uses_reasoning_parser: true };
  harness = await startVllmModels({
    pool: { ...common, base_url: fakes.map((f) => f.url) },
    native: { ...common, base_url: fakes[0]!.url, is_responses_native: true, chat_template_kwargs: { enable_thinking: false }, extra_body: { top_k: 5, temperature: 0.2 } },
    native_training: { ...common, base_url: fakes[0]!.url, is_responses_native: true, return_token_id_information: true },
  });
});
after(async () => {
  await harness.close();
  await Promise.all(fakes.map((f) => f.close()));
});
beforeEach(() => fakes.forEach((f) => f.reset()));

const answeredBy = async (session: string) => {
  const answer = await harness.responses("pool", { input: "hi" }, session);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<any>().output[0].content[0].text as string;
};

test("the endpoint is the first 8 bytes of sha256(session_id) mod n, the values NeMo Gym's Python computes", () => {
  // int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "big") % n
  assert.deepEqual(["session-a", "rollout-0001", "00000000-0000-0000-0000-000000000000"].map((s) => [endpointIndex(s, 4), endpointIndex(s, 3), endpointIndex(s, 7)]), [
    [2, 2, 2],
    [2, 1, 4],
    [0, 2, 1],
  ]);
});

test("every call of a session goes to the same endpoint, the one its id hashes to", async () => {
  for (const session of ["session-a", "rollout-0001", "00000000-0000-0000-0000-000000000000"]) {
    const expected = `endpoint ${endpointIndex(session, ENDPOINTS)}`;
    for (let call = 0; call < 6; call++) assert.equal(await answeredBy(session), expected, `${session}, call ${call}`);
  }
});

test("the session cookie the server sets keeps a rollout on its endpoint", async () => {
  const client = http();
  try {
    const url = `${harness.graph.url("pool")}/v1/responses`;
    const first = await client.request(url, { method: "POST", json: { input: "hi" } });
    const endpoint = first.json<any>().output[0].content[0].text;
    for (let call = 0; call < 5; call++) {
      const next = await client.request(url, { method: "POST", json: { input: "hi" }, cookies: first.cookies });
      assert.equal(next.json<any>().output[0].content[0].text, endpoint);
    }
  } finally {
    await client.close();
  }
});

test("many sessions spread evenly over the endpoints", async () => {
  const sessions = Array.from({ length: 240 }, () => randomUUID());
  const answers = await Promise.all(sessions.map(answeredBy));
  const counts = fakes.map((f) => f.chatBodies().length);
  assert.equal(counts.reduce((a, b) => a + b, 0), 240);
  // 60 expected each; ±30 is more than 4.5 standard deviations.
  for (const count of counts) assert.ok(count > 30 && count < 90, `uneven spread ${counts}`);
  sessions.forEach((session, i) => assert.equal(answers[i], `endpoint ${endpointIndex(session, ENDPOINTS)}`));
});

test("is_responses_native forwards the request to vLLM's /responses with model, chat_template_kwargs and extra_body under it", async () => {
  const upstreamResponse = {
    id: "resp_up",
    created_at: 1753983920,
    model: "m",
    object: "response",
    output: [{ id: "rs_up", type: "reasoning", summary: [], status: "completed" }, { id: "msg_up", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "native", annotations: [] }] }],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    extra_upstream_field: 1,
  };
  fakes[0]!.script({ response: upstreamResponse });
  const request = { input: [{ role: "user", content: "hi" }], model: "caller", temperature: 0.9, reasoning: { effort: "high" }, metadata: { extra_body: '{"seed": 1}' } };
  const answer = await harness.responses("native", request);
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(fakes[0]!.requests.map((r) => r.path), ["/v1/responses"]);
  assert.deepEqual(fakes[0]!.requests[0]!.body, { top_k: 5, temperature: 0.9, input: [{ role: "user", content: "hi" }], model: "m", reasoning: { effort: "high" }, metadata: { extra_body: '{"seed": 1}' }, chat_template_kwargs: { enable_thinking: false } });
  const body = answer.json<any>();
  assert.equal(body.id, "resp_up");
  assert.deepEqual(body.output[0], { id: "rs_up", summary: [], type: "reasoning", encrypted_content: null });
  assert.equal(body.extra_upstream_field, 1);

  fakes[0]!.script({ response: { id: "x", object: "response" } });
  const bad = await harness.responses("native", { input: "hi" });
  assert.equal(bad.status, 502);
  assert.match(bad.json<any>().detail, /\/v1\/responses answered something that is not a Responses API response/);
});

test("is_responses_native with training mode is refused with a 500 naming the config field", async () => {
  const answer = await harness.responses("native_training", { input: "hi" });
  assert.equal(answer.status, 500);
  assert.match(answer.json<any>().detail, /is_responses_native: true does not support return_token_id_information: true/);
  assert.equal(fakes[0]!.requests.length, 0);
});

test("the shipped configs load with NeMo Gym's ${policy_*} values and serve", async () => {
  for (const [file, training] of [
    ["vllm_model.yaml", false],
    ["vllm_model_for_training.yaml", true],
  ] as const) {
    const { resolved } = await loadGlobalConfig({
      configPaths: [`responses_api_models/vllm_model/configs/${file}`],
      overrides: [`+policy_base_url=${fakes[1]!.url}`, "+policy_api_key=sk-x", "+policy_model_name=Qwen/Qwen3-8B"],
      envYamlPath: null,
      env: {},
      requireServers: true,
    });
    const fields = getServerInstanceConfig(resolved, "policy_model");
    assert.equal(fields.entrypoint, "app.py");
    const graph = await startInProcess(resolved);
    const client = http();
    try {
      fakes[1]!.script({ reasoning_content: "r", content: "configured" });
      const answer = await client.request(`${graph.url("policy_model")}/v1/responses`, { method: "POST", json: { input: "hi" } });
      assert.equal(answer.status, 200, answer.text);
      const body = answer.json<any>();
      assert.equal(body.model, "Qwen/Qwen3-8B");
      assert.deepEqual(body.output.map((i: any) => i.type), ["reasoning", "message"], "uses_reasoning_parser: true");
      assert.equal("generation_token_ids" in body.output[1], training);
      assert.equal(fakes[1]!.chatBodies().at(-1).logprobs, training ? true : undefined);
    } finally {
      await graph.close();
      await client.close();
    }
  }
});
