// The gateway's GET /metrics over real HTTP: its trials by state move as a trial runs and ends, and its requests
// are counted by route pattern (the trial id never becomes a label).
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAgent, trialPayload } from "./fake-gym.ts";
import { gatewayEnv, startTestGateway } from "./harness.ts";

/** The value of the series `name` whose labels include `labels` (in any order). */
const valueOf = (text: string, name: string, labels: Record<string, string>) => {
  for (const line of text.split("\n")) {
    const match = /^([\w:]+)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
};

test("trials by state follow a trial from running to terminal; requests are labelled by route pattern", async () => {
  const agent = await startFakeAgent();
  const gateway = await startTestGateway(gatewayEnv(agent.url));
  try {
    const payload = trialPayload();
    assert.equal((await gateway.post("/v1/trials", payload)).status, 202);
    await agent.waitForRuns(1);
    const running = (await gateway.get("/metrics")).text;
    assert.equal(valueOf(running, "gym_gateway_trials", { state: "running", server: "gateway" }), 1);
    assert.equal(valueOf(running, "gym_gateway_trials", { state: "queued", server: "gateway" }), 0);
    assert.equal(valueOf(running, "gym_gateway_trials", { state: "terminal", server: "gateway" }), 0);
    assert.equal(valueOf(running, "gym_http_request_duration_seconds_count", { method: "POST", route: "/v1/trials", status: "202", server: "gateway" }), 1);

    await gateway.post(`/v1/trials/${payload.request_id}/abort`);
    await gateway.terminal(payload.request_id);
    const ended = (await gateway.get("/metrics")).text;
    assert.equal(valueOf(ended, "gym_gateway_trials", { state: "running", server: "gateway" }), 0);
    assert.equal(valueOf(ended, "gym_gateway_trials", { state: "terminal", server: "gateway" }), 1);
    assert.ok(valueOf(ended, "gym_http_request_duration_seconds_count", { method: "GET", route: "/v1/trials/:id", status: "200", server: "gateway" })! >= 1);
    assert.doesNotMatch(ended, new RegExp(payload.request_id));
  } finally {
    await gateway.close();
    await gateway.client.close();
    await agent.close();
  }
});
