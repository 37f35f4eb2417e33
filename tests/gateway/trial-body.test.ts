// The trial API reads bodies as its Python reference does, over real HTTP: Python's NaN and Infinity parse, and
// the protocol refuses them in a trial with a 422 naming the field; an empty body or one that is not JSON is a
// 400; nesting past the limit is a 413 naming where; a body over NEMO_GYM_GATEWAY_MAX_BODY_BYTES is a 413.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAgent, trialPayload, type FakeAgent } from "./fake-gym.ts";
import { gatewayEnv, startTestGateway, type TestGateway } from "./harness.ts";
import { loadGatewaySettings } from "../../src/gateway/settings.ts";

async function withGateway(fn: (gateway: TestGateway) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const agent: FakeAgent = await startFakeAgent();
  const gateway = await startTestGateway(gatewayEnv(agent.url, env));
  try {
    await fn(gateway);
  } finally {
    await gateway.close();
    await gateway.client.close();
    await agent.close();
  }
}

const create = (gateway: TestGateway, rawBody: string) => gateway.client.request(`${gateway.url}/v1/trials`, { method: "POST", rawBody });
const detailOf = (text: string) => (JSON.parse(text) as { detail: string }).detail;

test("a non-finite number in a trial (as Python's json.dumps writes it) is a 422 naming the field, not a parse error", () =>
  withGateway(async (gateway) => {
    for (const literal of ["NaN", "Infinity", "-Infinity"]) {
      const text = JSON.stringify(trialPayload({ task: { messages: [], metadata: { score: "__X__" } } })).replace('"__X__"', literal);
      const answer = await create(gateway, text);
      assert.equal(answer.status, 422, `${literal}: ${answer.text}`);
      assert.match(detailOf(answer.text), /environment\.task\.metadata\.score must contain only finite JSON values/);
    }
    const lease = JSON.stringify(trialPayload()).replace('"lease_s":60', '"lease_s":Infinity');
    const answer = await create(gateway, lease);
    assert.equal(answer.status, 422, answer.text);
    assert.match(detailOf(answer.text), /lease_s/);
  }));

test("an empty body, a blank one, or one that is not JSON is a 400; the gateway keeps serving", () =>
  withGateway(async (gateway) => {
    for (const body of ["", "   ", "{nope", '{"a": 1} x']) {
      const answer = await create(gateway, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.match(detailOf(answer.text), /request body is (empty|not valid JSON)/);
    }
    assert.equal((await gateway.post("/v1/trials", trialPayload())).status, 202);
  }));

test("10,000 levels of nesting are a 413 naming where the limit was crossed", () =>
  withGateway(async (gateway) => {
    const deep = '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000);
    const answer = await create(gateway, JSON.stringify(trialPayload({ task: { messages: [], metadata: "__X__" } })).replace('"__X__"', deep));
    assert.equal(answer.status, 413, answer.text);
    assert.match(detailOf(answer.text), /^request body nests deeper than 1000 levels at body\.environment\.task\.metadata\.a/);
    assert.equal((await gateway.post("/v1/trials", trialPayload())).status, 202);
  }));

test("NEMO_GYM_GATEWAY_MAX_BODY_BYTES bounds the gateway's bodies (a 413), and a bad value is refused at start", async () => {
  await withGateway(
    async (gateway) => {
      const answer = await gateway.post("/v1/trials", { ...trialPayload(), padding: "x".repeat(20_000) });
      assert.equal(answer.status, 413);
      assert.equal((await gateway.post("/v1/trials", trialPayload())).status, 202);
    },
    { NEMO_GYM_GATEWAY_MAX_BODY_BYTES: "16384" },
  );
  assert.throws(() => loadGatewaySettings(gatewayEnv("http://127.0.0.1:9", { NEMO_GYM_GATEWAY_MAX_BODY_BYTES: "600000000" })), /NEMO_GYM_GATEWAY_MAX_BODY_BYTES must be a positive integer below/);
});
