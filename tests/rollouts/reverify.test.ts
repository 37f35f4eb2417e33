// Re-scoring stored rollouts over real HTTP: NeMo Gym's example rollouts score the same against our example
// environments (the counter's state is rebuilt by replaying the stored tool calls), a different verify is
// counted as different, and a row that cannot be re-verified is an error — never "equal".
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { readJsonl, type InputLine, type Row } from "../../src/rollouts/jsonl.ts";
import { formatReverifyReport, reverifyRollouts, type ReverifyOptions } from "../../src/rollouts/reverify.ts";
import { resourcesServer, tool } from "../../src/server/index.ts";
import type { FunctionCall } from "../../src/protocol/index.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";
import { startServers } from "../../src/testing/servers.ts";
import { sharedDataFile } from "../../src/testing/shared-data.ts";
import weather from "../../resources_servers/example_single_tool_call/app.ts";
import multiStep from "../../resources_servers/example_multi_step/app.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";

const ENVIRONMENTS = ["example_single_tool_call", "example_multi_step", "example_session_state_mgmt"] as const;

// A stricter weather verify than the example's "always 1": the model must have asked about the expected city.
let inFlight = 0;
let maxInFlight = 0;
const strictWeather = resourcesServer({
  name: "StrictWeatherResourcesServer",
  tools: {
    get_weather: tool({ input: z.object({ city: z.string() }), run: (_s, { city }) => ({ city, weather_description: `The weather in ${city} is cold.` }) }),
  },
  verify: {
    input: z.object({ expected_city: z.string() }),
    async run(_state, { response, expected_city }) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (expected_city === "slow") await new Promise((r) => setTimeout(r, 700));
        if (expected_city === "crash") throw new Error("verifier bug");
        await new Promise((r) => setTimeout(r, 20));
        const calls = response.output.filter((item): item is FunctionCall => item.type === "function_call");
        const asked = calls.some((call) => JSON.parse(call.arguments).city === expected_city);
        return { reward: asked ? 1 : 0, asked_expected_city: asked };
      } finally {
        inFlight--;
      }
    },
  },
});

let graph: InProcessGraph;
before(async () => {
  graph = await startServers({
    example_single_tool_call: [weather],
    example_multi_step: [multiStep],
    example_session_state_mgmt: [counter],
    strict_weather: [strictWeather],
  });
});
after(() => graph.close());

const reverify = (options: Omit<ReverifyOptions, "client">) => reverifyRollouts({ client: graph.client, callDeadlineMs: 10_000, ...options });

describe("NeMo Gym's example rollouts re-verified against our example environments", () => {
  for (const environment of ENVIRONMENTS) {
    const rollouts = sharedDataFile(`${environment}/data/example_rollouts.jsonl`);
    const dataset = sharedDataFile(`${environment}/data/example.jsonl`);

    test(`${environment}: 100% reward parity, extra fields equal, replayed tool answers equal`, { skip: rollouts.skip || dataset.skip }, async () => {
      const report = await reverify({ rollouts: readJsonl(rollouts.path!), inputs: readJsonl(dataset.path!), resourcesServerFor: () => environment, concurrency: 4 });
      const [env] = report.environments;
      assert.equal(report.environments.length, 1);
      assert.deepEqual(
        { rows: env!.rows, rewardsEqual: env!.rewardsEqual, rewardsDifferent: env!.rewardsDifferent, extraFieldsEqual: env!.extraFieldsEqual, errors: env!.errors, toolOutputsDifferent: env!.toolOutputsDifferent },
        { rows: 5, rewardsEqual: 5, rewardsDifferent: 0, extraFieldsEqual: 5, errors: 0, toolOutputsDifferent: 0 },
        formatReverifyReport(report),
      );
    });
  }

  const counterRollouts = sharedDataFile("example_session_state_mgmt/data/example_rollouts.jsonl");
  const counterDataset = sharedDataFile("example_session_state_mgmt/data/example.jsonl");

  test("the counter's state is rebuilt by replaying every stored tool call on the seeded session", { skip: counterRollouts.skip || counterDataset.skip }, async () => {
    const report = await reverify({ rollouts: readJsonl(counterRollouts.path!), inputs: readJsonl(counterDataset.path!), resourcesServerFor: () => "example_session_state_mgmt" });
    assert.equal(report.environments[0]!.toolCallsReplayed, 15, "3 tool calls in each of the 5 rollouts");
  });

  test("verify alone (NeMo Gym's reverify) cannot score the counter: without its state every reward differs", { skip: counterRollouts.skip || counterDataset.skip }, async () => {
    const report = await reverify({ rollouts: readJsonl(counterRollouts.path!), inputs: readJsonl(counterDataset.path!), resourcesServerFor: () => "example_session_state_mgmt", verifyOnly: true });
    assert.equal(report.rewardsDifferent, 5);
    assert.deepEqual(report.outcomes.map((o) => o.line!.reward), [0, 0, 0, 0, 0]);
  });

  test("without inputs each row is rebuilt from its line: enough for the weather, not for the counter (its seed field is reported)", { skip: counterRollouts.skip }, async () => {
    const weatherRollouts = sharedDataFile("example_single_tool_call/data/example_rollouts.jsonl");
    const weatherReport = await reverify({ rollouts: readJsonl(weatherRollouts.path!), resourcesServerFor: () => "example_single_tool_call" });
    assert.equal(weatherReport.rewardsEqual, 5);

    const counterReport = await reverify({ rollouts: readJsonl(counterRollouts.path!), resourcesServerFor: () => "example_session_state_mgmt" });
    assert.equal(counterReport.rewardsEqual, 0);
    assert.equal(counterReport.errors, 5);
    for (const outcome of counterReport.outcomes) {
      assert.equal(outcome.failure?.failureClass, "seed_session");
      assert.equal(outcome.failure?.status, 422);
      assert.match(outcome.failure!.message, /initial_count/);
    }
  });
});

// ---- synthetic rollouts for the strict weather verify ----

const AGENT = "weather_agent";

function response(cities: string[]): Row {
  const output: Row[] = cities.flatMap((city, i) => [
    { type: "function_call", call_id: `call_${i}`, name: "get_weather", arguments: JSON.stringify({ city }), id: `fc_${i}`, status: "completed" },
    { type: "function_call_output", call_id: `call_${i}`, output: JSON.stringify({ city, weather_description: `The weather in ${city} is cold.` }) },
  ]);
  output.push({ type: "message", id: "msg", role: "assistant", status: "completed", content: [{ type: "output_text", text: "It is cold.", annotations: [] }] });
  return { id: "resp", created_at: 1, model: "m", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] };
}

/** A stored line scored by a lenient verify (reward 1, asked_expected_city true), and its materialized input. */
function stored(task: number, expectedCity: string, askedCities: string[]): { line: Row; input: Row } {
  const params = { input: [{ role: "user", content: `weather in ${expectedCity}?` }] };
  const keys = { _ng_task_index: task, _ng_rollout_index: 0, agent_ref: { name: AGENT } };
  return {
    line: { responses_create_params: params, response: response(askedCities), reward: 1.0, asked_expected_city: true, ...keys },
    input: { responses_create_params: params, expected_city: expectedCity, ...keys },
  };
}

const asLines = (rows: Row[]): InputLine[] => rows.map((row, i) => ({ lineNumber: i + 1, text: JSON.stringify(row), row }));

test("a different verify makes rewards and extra fields differ, and the report counts them", async () => {
  const cases = [stored(0, "Paris", ["Paris"]), stored(1, "Oslo", ["Rome"]), stored(2, "Lima", []), stored(3, "Kyiv", ["Riga", "Kyiv"])];
  // Materialized inputs are matched by (task, rollout), whatever their order.
  const report = await reverify({ rollouts: asLines(cases.map((c) => c.line)), inputs: asLines(cases.map((c) => c.input).reverse()), resourcesServerFor: () => "strict_weather" });

  assert.deepEqual(report.environments.map((e) => [e.resourcesServer, e.rows, e.rewardsEqual, e.rewardsDifferent, e.extraFieldsEqual, e.extraFieldsDifferent, e.errors]), [["strict_weather", 4, 2, 2, 2, 2, 0]]);
  assert.deepEqual(report.environments[0]!.differentFieldCounts, { asked_expected_city: 2 });
  assert.deepEqual(report.outcomes.map((o) => [o.taskIndex, o.rewardEqual, o.differentFields]), [[0, true, []], [1, false, ["asked_expected_city"]], [2, false, ["asked_expected_city"]], [3, true, []]]);
  assert.equal(report.environments[0]!.meanNewReward, 0.5);

  // The re-scored line: the verify response, then the row's keys, as a collected rollout line.
  const line = report.outcomes[1]!.line!;
  assert.deepEqual(Object.keys(line), ["responses_create_params", "response", "reward", "asked_expected_city", "_ng_task_index", "_ng_rollout_index", "agent_ref"]);
  assert.equal(line.reward, 0);
  assert.deepEqual(line.agent_ref, { name: AGENT });

  const text = formatReverifyReport(report);
  assert.match(text, /strict_weather\s+4\s+2\s+2\s+2\s+2\s+0\s+1\.0000 → 0\.5000/);
  assert.match(text, /line 2 \(task 1, rollout 0, strict_weather\): reward 1\.0 → 0\.0; fields asked_expected_city/);
});

test("a failed verify and a verify past its deadline are errors, never counted as equal", async () => {
  const cases = [stored(0, "Paris", ["Paris"]), stored(1, "crash", ["crash"]), stored(2, "slow", ["slow"])];
  const report = await reverify({ rollouts: asLines(cases.map((c) => c.line)), inputs: asLines(cases.map((c) => c.input)), resourcesServerFor: () => "strict_weather", callDeadlineMs: 300 });
  assert.deepEqual(report.outcomes.map((o) => o.failure?.failureClass ?? "ok"), ["ok", "verify", "timeout"]);
  assert.equal(report.outcomes[1]!.failure!.status, 500);
  assert.equal(report.outcomes[1]!.line, undefined);
  assert.deepEqual([report.rewardsEqual, report.rewardsDifferent, report.errors], [1, 0, 2]);
  assert.match(formatReverifyReport(report), /Errors \(2\):\n {2}line 2 \(task 1, rollout 0\): verify: strict_weather\/verify answered 500/);
});

test("rows are re-verified at most `concurrency` at a time", async () => {
  const cases = Array.from({ length: 12 }, (_, i) => stored(i, "Paris", ["Paris"]));
  // The previous test's slow verify may still be running on the server after its client gave up.
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
  maxInFlight = 0;
  const report = await reverify({ rollouts: asLines(cases.map((c) => c.line)), inputs: asLines(cases.map((c) => c.input)), resourcesServerFor: () => "strict_weather", concurrency: 3 });
  assert.equal(report.rewardsEqual, 12);
  assert.ok(maxInFlight <= 3 && maxInFlight >= 2, `at most 3 verifies at once (saw ${maxInFlight})`);
});

test("a row without an input or without a resources server is reported with the reason", async () => {
  const cases = [stored(0, "Paris", ["Paris"]), stored(1, "Oslo", ["Oslo"])];
  const orphan = { ...cases[1]!.line, _ng_task_index: 7, agent_ref: { name: "other_agent" } };
  const report = await reverify({
    rollouts: asLines([cases[0]!.line, orphan, { ...cases[1]!.line, agent_ref: { name: "other_agent" } }]),
    inputs: asLines(cases.map((c) => c.input)),
    resourcesServerFor: (agent) => {
      if (agent !== AGENT) throw new Error(`no resources server for agent '${agent}'`);
      return "strict_weather";
    },
  });
  assert.deepEqual(report.outcomes.map((o) => o.failure?.failureClass ?? "ok"), ["ok", "no_input", "no_resources_server"]);
  assert.match(report.outcomes[1]!.failure!.message, /no input row has _ng_task_index=7, _ng_rollout_index=0/);
  assert.match(report.outcomes[2]!.failure!.message, /other_agent/);
});
