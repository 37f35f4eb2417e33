import { test } from "node:test";
import assert from "node:assert/strict";
import {
  AggregateMetricsRequestSchema,
  AggregateMetricsResponseSchema,
  BaseRunRequestSchema,
  BaseSeedSessionRequestSchema,
  BaseVerifyRequestSchema,
  BaseVerifyResponseSchema,
} from "../../src/protocol/index.ts";

const row = {
  responses_create_params: { input: [{ role: "user", content: "how many?" }] },
  expected_count: 3,
  verifier_metadata: { source: "unit" },
  _ng_task_index: 0,
  _ng_rollout_index: 1,
  agent_ref: { name: "example_simple_agent" },
};

const response = {
  id: "resp_1",
  created_at: 1,
  model: "m",
  object: "response",
  output: [],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
};

test("/run request: dataset fields are kept after responses_create_params, which is fully dumped", () => {
  const body = BaseRunRequestSchema.parse(row);
  assert.deepEqual(Object.keys(body), [
    "responses_create_params",
    "expected_count",
    "verifier_metadata",
    "_ng_task_index",
    "_ng_rollout_index",
    "agent_ref",
  ]);
  assert.equal(body.expected_count, 3);
  assert.equal(body.responses_create_params.parallel_tool_calls, true);
  assert.equal(body.responses_create_params.stream, null);
});

test("/run request: responses_create_params stays strict inside", () => {
  const result = BaseRunRequestSchema.safeParse({ ...row, responses_create_params: { input: "x", seed: 1 } });
  assert.equal(result.success, false);
  const issue = result.error!.issues[0];
  assert.equal(issue.code, "unrecognized_keys");
  assert.deepEqual(issue.path, ["responses_create_params"]);
  assert.equal(BaseRunRequestSchema.safeParse({ expected_count: 3 }).success, false);
});

test("/verify request and response carry the NeMoGymResponse and keep extras", () => {
  const verifyRequest = BaseVerifyRequestSchema.parse({ ...row, response });
  assert.deepEqual(Object.keys(verifyRequest).slice(0, 3), ["responses_create_params", "response", "expected_count"]);
  assert.equal(verifyRequest.response.error, null, "response is filled to its full dump");
  assert.equal(BaseVerifyRequestSchema.safeParse(row).success, false, "response is required");

  const verifyResponse = BaseVerifyResponseSchema.parse({ ...row, response, reward: 1, extracted: "3" });
  assert.deepEqual(Object.keys(verifyResponse).slice(0, 4), ["responses_create_params", "response", "reward", "expected_count"]);
  assert.equal(verifyResponse.extracted, "3");
  assert.equal(BaseVerifyResponseSchema.safeParse({ ...row, response, reward: "1.0" }).success, false);
  assert.equal(BaseVerifyResponseSchema.parse({ ...row, response, reward: -2.5 }).reward, -2.5, "reward is not range-checked");
});

test("/seed_session accepts any object and keeps it whole", () => {
  assert.deepEqual(BaseSeedSessionRequestSchema.parse(row), row);
  assert.deepEqual(BaseSeedSessionRequestSchema.parse({}), {});
  assert.equal(BaseSeedSessionRequestSchema.safeParse([1]).success, false);
});

test("/aggregate_metrics request and response", () => {
  const request = AggregateMetricsRequestSchema.parse({ verify_responses: [{ reward: 1, _ng_task_index: 0 }] });
  assert.equal(request.verify_responses.length, 1);
  assert.equal(AggregateMetricsRequestSchema.safeParse({ verify_responses: [1] }).success, false);
  assert.equal(AggregateMetricsRequestSchema.safeParse({}).success, false);

  assert.deepEqual(AggregateMetricsResponseSchema.parse({}), { group_level_metrics: [], agent_metrics: {}, key_metrics: {} });
  const metrics = { group_level_metrics: [{ _ng_task_index: 0, "mean/reward": 1 }], agent_metrics: { "mean/reward": 1 }, key_metrics: { "mean/reward": 1 } };
  assert.deepEqual(AggregateMetricsResponseSchema.parse(metrics), metrics);
});
