// relax-nemo-gym/v1 wire rules (spec §1.1–1.3; reference test_protocol.py, tests 36–46), plus the validation rules
// the reference enforces without a dedicated test.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  describeTrialRequest,
  parseTrialRequest,
  parseTrialSnapshot,
  requestFingerprintJson,
  serializeTrialRequest,
  stableRequestId,
  TrialProtocolError,
} from "../../src/gateway/protocol.ts";
import { INTERRUPT_POLICIES, PROTOCOL_VERSION, TERMINAL_STATUSES, type JsonObject } from "../../src/gateway/types.ts";

function requestPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol_version: PROTOCOL_VERSION,
    request_id: "request-1",
    session: { session_id: "session-secret", group_id: "group-1", rollout_mode: "train", attempt: 1 },
    environment: { name: "multi_step", config: "multi_step-v1", task: { messages: [{ role: "user", content: "solve" }], metadata: {} } },
    model_endpoint: { base_url: "http://relax.example/agentic_api/", api_key: "session-secret", model: "model" },
    interrupt_policy: "protected",
    ...overrides,
  };
}

function rejects(payload: unknown, field: string, message?: RegExp) {
  assert.throws(
    () => parseTrialRequest(payload),
    (error: unknown) => {
      assert.ok(error instanceof TrialProtocolError, String(error));
      assert.equal(error.field, field);
      if (message) assert.match(error.message, message);
      return true;
    },
  );
}

test("request_payload_is_versioned_and_does_not_mutate_input", () => {
  const task = {
    messages: [
      { role: "system", content: "be concise" },
      {
        role: "user",
        content: [
          { type: "text", text: "inspect" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        reasoning_content: "need a tool",
        tool_calls: [{ id: "call-1", type: "function", function: { name: "search", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "call-1", content: "done" },
    ],
    metadata: { nested: { value: 1 } },
  };
  const original = structuredClone(task);
  const input = requestPayload({ environment: { name: "multi_step", config: "multi_step-v1", task } });

  const payload = serializeTrialRequest(parseTrialRequest(input));

  assert.equal(payload.protocol_version, PROTOCOL_VERSION);
  const wireTask = (payload.environment as JsonObject).task as { metadata: { nested: { value: number } } };
  assert.deepEqual(wireTask, original);
  assert.deepEqual(task, original);
  wireTask.metadata.nested.value = 2;
  assert.deepEqual(task, original);
  assert.equal((payload.model_endpoint as JsonObject).base_url, "http://relax.example/agentic_api");
});

test("request_repr_redacts_api_key", () => {
  const line = describeTrialRequest(parseTrialRequest(requestPayload()));
  assert.doesNotMatch(line, /session-secret/);
  assert.match(line, /request-1/);
});

test("stable_request_id_is_deterministic_and_hides_session_id", () => {
  const first = stableRequestId("session-secret", 1);
  assert.equal(first, stableRequestId("session-secret", 1));
  assert.notEqual(first, stableRequestId("other-session", 1));
  assert.notEqual(first, stableRequestId("session-secret", 2));
  assert.doesNotMatch(first, /session-secret/);
  assert.match(first, /^relax-[0-9a-f]{64}$/);
});

test("stable_request_id_scopes_same_session_to_managed_invocation", () => {
  const first = stableRequestId("session-secret", 1, "/tmp/relax-agentic-command-one");
  assert.equal(first, stableRequestId("session-secret", 1, "/tmp/relax-agentic-command-one"));
  assert.notEqual(first, stableRequestId("session-secret", 1, "/tmp/relax-agentic-command-two"));
  assert.notEqual(first, stableRequestId("session-secret", 1));
});

test("stable request id is sha256 of invocation, session and attempt joined by NUL", async () => {
  const { createHash } = await import("node:crypto");
  const sha = (text: string) => createHash("sha256").update(text).digest("hex");
  assert.equal(stableRequestId("s", 3, "/io"), `relax-${sha("/io\0s\u00003")}`);
  assert.equal(stableRequestId("s", 3), `relax-${sha("s\u00003")}`);
  assert.throws(() => stableRequestId("s", 0), TrialProtocolError);
  assert.throws(() => stableRequestId(" ", 1), TrialProtocolError);
});

test("request_round_trip_preserves_attempt_scoped_contract", () => {
  const request = parseTrialRequest(requestPayload({ session: { session_id: "session-secret", group_id: "g", rollout_mode: "train", attempt: 2 } }));
  const restored = parseTrialRequest(serializeTrialRequest(request));
  assert.deepEqual(serializeTrialRequest(restored), serializeTrialRequest(request));
  assert.equal(restored.session.attempt, 2);
  assert.equal(restored.model_endpoint.api_key, "session-secret");
});

test("request_round_trip_preserves_custom_upstream_auth_without_repr_leaks", () => {
  const endpoint = {
    base_url: "https://model.example/v1",
    api_key: "custom-secret",
    model: "model",
    api_key_header: "api-key",
    api_key_prefix: "",
    headers: { "x-user": "user@example.com", "x-app-id": "app" },
  };
  const request = parseTrialRequest(requestPayload({ model_endpoint: endpoint }));
  const restored = parseTrialRequest(serializeTrialRequest(request));
  assert.deepEqual(restored.model_endpoint, endpoint);
  assert.deepEqual(serializeTrialRequest(restored).model_endpoint, endpoint);
  const line = describeTrialRequest(restored);
  assert.doesNotMatch(line, /custom-secret/);
  assert.doesNotMatch(line, /user@example\.com/);
});

for (const header of ["Host", "content-length", "bad header"]) {
  test(`request_rejects_unsafe_upstream_headers[${header}]`, () => {
    const model_endpoint = { base_url: "https://model.example/v1", api_key: "secret", model: "model", headers: { [header]: "value" } };
    assert.throws(() => parseTrialRequest(requestPayload({ model_endpoint })), TrialProtocolError);
  });
}

test("request_rejects_non_json_task", () => {
  const environment = { name: "multi_step", config: "multi_step-v1", task: { messages: [], bad: Number.NaN } };
  rejects(requestPayload({ environment }), "environment.task.bad", /finite JSON/);
});

test("result_parses_terminal_reward", () => {
  const snapshot = parseTrialSnapshot(
    {
      protocol_version: PROTOCOL_VERSION,
      request_id: "request-1",
      status: "completed",
      reward: { scalar: 1.0, components: { verifier: 1.0 } },
      metrics: { model_calls: 2 },
      artifact_ref: "artifact://one",
      error: null,
    },
    "request-1",
  );
  assert.equal(snapshot.status, "completed");
  assert.ok(TERMINAL_STATUSES.has(snapshot.status));
  assert.deepEqual(snapshot.reward, { scalar: 1.0, components: { verifier: 1.0 } });
  assert.deepEqual(snapshot.metrics, { model_calls: 2 });
  assert.equal(snapshot.artifact_ref, "artifact://one");
});

for (const [field, value, message] of [
  ["protocol_version", "other/v1", /Unsupported protocol_version/],
  ["request_id", "wrong", /does not match/],
  ["status", "unknown", /Unknown trial status/],
] as const) {
  test(`result_rejects_contract_mismatch[${field}]`, () => {
    const payload: Record<string, unknown> = { protocol_version: PROTOCOL_VERSION, request_id: "request-1", status: "running" };
    payload[field] = value;
    assert.throws(() => parseTrialSnapshot(payload, "request-1"), (error: unknown) => error instanceof TrialProtocolError && message.test(error.message));
  });
}

test("interrupt_policy_values_are_wire_stable", () => {
  assert.deepEqual([...INTERRUPT_POLICIES], ["protected", "interruptible", "resumable"]);
});

test("a snapshot rejects non-object metrics, empty artifact_ref, non-object error and a boolean reward", () => {
  const base = { protocol_version: PROTOCOL_VERSION, request_id: "r", status: "running" };
  for (const [field, value] of [
    ["metrics", []],
    ["artifact_ref", ""],
    ["artifact_ref", 3],
    ["error", "boom"],
    ["reward", true],
    ["reward", "1"],
  ] as const) {
    assert.throws(() => parseTrialSnapshot({ ...base, [field]: value }, "r"), (error: unknown) => error instanceof TrialProtocolError && error.field === field, `${field}=${JSON.stringify(value)}`);
  }
  const minimal = parseTrialSnapshot(base, "r");
  assert.deepEqual([minimal.reward, minimal.metrics, minimal.artifact_ref, minimal.error], [null, {}, null, null]);
});

test("the create body applies the reference defaults", () => {
  const payload = requestPayload();
  delete (payload.session as Record<string, unknown>).attempt;
  const request = parseTrialRequest(payload);
  assert.equal(request.session.attempt, 1);
  assert.equal(request.deadline_s, 1800);
  assert.equal(request.lease_s, 60);
  assert.deepEqual(request.generation, {});
  assert.deepEqual(request.metadata, {});
  assert.equal(request.model_endpoint.api_key_header, "Authorization");
  assert.equal(request.model_endpoint.api_key_prefix, "Bearer ");
  assert.deepEqual(request.model_endpoint.headers, {});
  const wire = serializeTrialRequest(request);
  assert.deepEqual(Object.keys(wire.model_endpoint as JsonObject), ["base_url", "api_key", "model"]);
});

test("every blank identity field is refused by name", () => {
  rejects(requestPayload({ request_id: "  " }), "request_id", /non-empty string/);
  rejects(requestPayload({ protocol_version: "relax-nemo-gym/v2" }), "protocol_version");
  rejects(requestPayload({ session: { session_id: "", group_id: "g", rollout_mode: "train" } }), "session.session_id");
  rejects(requestPayload({ session: { session_id: "s", group_id: 3, rollout_mode: "train" } }), "session.group_id");
  rejects(requestPayload({ session: { session_id: "s", group_id: "g", rollout_mode: "" } }), "session.rollout_mode");
  rejects(requestPayload({ environment: { name: "", config: "c", task: {} } }), "environment.name");
  rejects(requestPayload({ environment: { name: "n", config: " ", task: {} } }), "environment.config");
  rejects(requestPayload({ environment: { name: "n", config: "c", task: [] } }), "environment.task");
  rejects(requestPayload({ session: "s" }), "session");
  rejects([], "request");
});

test("attempt must be an integer of at least one and never a boolean", () => {
  for (const attempt of [0, -1, 1.5, true, "1", null]) {
    rejects(requestPayload({ session: { session_id: "s", group_id: "g", rollout_mode: "train", attempt } }), "session.attempt", /integer/);
  }
});

test("deadline and lease must be positive finite numbers", () => {
  for (const value of [0, -5, Number.POSITIVE_INFINITY, Number.NaN, "60", true]) {
    rejects(requestPayload({ deadline_s: value }), "deadline_s", /positive finite/);
    rejects(requestPayload({ lease_s: value }), "lease_s", /positive finite/);
  }
});

test("interrupt_policy has no default and accepts only the three wire values", () => {
  const payload = requestPayload();
  delete payload.interrupt_policy;
  rejects(payload, "interrupt_policy", /protected, interruptible, resumable/);
  rejects(requestPayload({ interrupt_policy: "PROTECTED" }), "interrupt_policy");
  for (const policy of INTERRUPT_POLICIES) assert.equal(parseTrialRequest(requestPayload({ interrupt_policy: policy })).interrupt_policy, policy);
});

test("generation and metadata must be objects of finite JSON values", () => {
  rejects(requestPayload({ generation: [] }), "generation", /JSON object/);
  rejects(requestPayload({ metadata: null }), "metadata", /JSON object/);
  rejects(requestPayload({ generation: { sampling_params: { temperature: Number.POSITIVE_INFINITY } } }), "generation.sampling_params.temperature", /finite JSON/);
  rejects(requestPayload({ metadata: { list: [1, Number.NEGATIVE_INFINITY] } }), "metadata.list[1]", /finite JSON/);
  rejects(requestPayload({ metadata: { when: new Date(0) } }), "metadata.when", /finite JSON/);
  rejects(requestPayload({ metadata: { missing: undefined } }), "metadata.missing", /finite JSON/);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  rejects(requestPayload({ metadata: cyclic }), "metadata.self", /cycle/);
});

test("the model endpoint needs an absolute http(s) base_url, an api_key and a model", () => {
  const endpoint = (patch: Record<string, unknown>) => requestPayload({ model_endpoint: { base_url: "http://relax.example", api_key: "k", model: "m", ...patch } });
  for (const base_url of ["relax.example/api", "ftp://relax.example", "http://", "/agentic_api", " http://relax.example", 7]) {
    rejects(endpoint({ base_url }), "model_endpoint.base_url");
  }
  rejects(endpoint({ api_key: "" }), "model_endpoint.api_key");
  rejects(endpoint({ api_key: "a\nb" }), "model_endpoint.api_key", /single-line/);
  rejects(endpoint({ model: " " }), "model_endpoint.model");
  assert.equal(parseTrialRequest(endpoint({ base_url: "https://relax.example/v1///" })).model_endpoint.base_url, "https://relax.example/v1");
});

test("the api key header must be a safe token, and custom headers single-line and not overriding it", () => {
  const endpoint = (patch: Record<string, unknown>) => requestPayload({ model_endpoint: { base_url: "http://relax.example", api_key: "k", model: "m", ...patch } });
  for (const header of ["Proxy-Authorization", "transfer-encoding", "Connection", "x y", ""]) rejects(endpoint({ api_key_header: header }), "model_endpoint.api_key_header");
  rejects(endpoint({ api_key_prefix: "Bearer\r\nX-Evil: 1 " }), "model_endpoint.api_key_prefix", /single-line/);
  rejects(endpoint({ api_key_prefix: null }), "model_endpoint.api_key_prefix");
  rejects(endpoint({ headers: { "x-ok": "a\nb" } }), 'model_endpoint.headers["x-ok"]', /single-line/);
  rejects(endpoint({ headers: { "x-num": 1 } }), 'model_endpoint.headers["x-num"]');
  rejects(endpoint({ headers: { authorization: "Bearer other" } }), "model_endpoint.headers.authorization", /override api_key_header/);
  rejects(endpoint({ api_key_header: "api-key", headers: { "API-KEY": "x" } }), 'model_endpoint.headers["API-KEY"]', /override/);
  rejects(endpoint({ headers: [] }), "model_endpoint.headers");
});

test("serialization never shares structure with the parsed request", () => {
  const request = parseTrialRequest(requestPayload({ model_endpoint: { base_url: "http://r.example", api_key: "k", model: "m", headers: { "x-a": "1" } } }));
  const wire = serializeTrialRequest(request);
  ((wire.model_endpoint as JsonObject).headers as JsonObject)["x-a"] = "2";
  (wire.session as JsonObject).attempt = 9;
  assert.equal(request.model_endpoint.headers["x-a"], "1");
  assert.equal(request.session.attempt, 1);
});

test("fingerprint JSON is canonical: sorted keys at every level, compact, finite only", () => {
  const a = requestFingerprintJson({ b: 1, a: { d: [3, { z: 1, y: "é" }], c: null } });
  const b = requestFingerprintJson({ a: { c: null, d: [3, { y: "é", z: 1 }] }, b: 1 });
  assert.equal(a, b);
  assert.equal(a, '{"a":{"c":null,"d":[3,{"y":"é","z":1}]},"b":1}');
  assert.notEqual(requestFingerprintJson({ a: [1, 2] }), requestFingerprintJson({ a: [2, 1] }));
  assert.throws(() => requestFingerprintJson({ a: Number.NaN }), TrialProtocolError);
  assert.throws(() => requestFingerprintJson({ a: [Number.POSITIVE_INFINITY] }), TrialProtocolError);
});
