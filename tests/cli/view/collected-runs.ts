// Real runs for the `gym view` tests: a small collection by our simple_agent over the counter environment, the
// scripted model choosing the tool calls, written by the collection itself (rollouts, failures, aggregate metrics,
// materialized inputs); and its re-verification against a stricter counter (an increment above 5 is refused), written
// as `gym eval reverify` writes it — the rollouts that added 10 at once lose their reward.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { PROJECT_ROOT, type ConfigDict } from "../../../src/config/index.ts";
import { collectRollouts } from "../../../src/rollouts/collect.ts";
import { readJsonl } from "../../../src/rollouts/jsonl.ts";
import { rolloutOutputPaths, RolloutOutputFiles } from "../../../src/rollouts/output-files.ts";
import { reverifyRollouts } from "../../../src/rollouts/reverify.ts";
import { resourcesServer, tool } from "../../../src/server/index.ts";
import { startInProcess, type InProcessGraph } from "../../../src/testing/in-process.ts";

export const AGENT = "counter_simple_agent";
export const RESOURCES_SERVER = "counter_resources_server";
const STRICT_RESOURCES_SERVER = "strict_counter_resources_server";

/** The most the strict counter adds in one call. */
const MAX_INCREMENT = 5;

/** The example counter, but an increment above MAX_INCREMENT is refused (nothing is added). */
const strictCounter = resourcesServer({
  name: "StrictCounterResourcesServer",
  seed: z.object({ initial_count: z.number().int() }),
  state: (seed): { count: number } => ({ count: seed?.initial_count ?? 0 }),
  tools: {
    increment_counter: tool({
      description: "Add a number to the counter.",
      input: z.object({ count: z.number().int().describe("How much to add.") }),
      run: (counter: { count: number }, { count }) => {
        if (Math.abs(count) > MAX_INCREMENT) return { success: false, error: `at most ${MAX_INCREMENT} at a time` };
        counter.count += count;
        return { success: true };
      },
    }),
    get_counter_value: tool({ description: "Read the counter.", input: z.object({}), run: (counter: { count: number }) => ({ count: counter.count }) }),
  },
  verify: {
    input: z.object({ expected_count: z.number().int() }),
    run: (counter, { expected_count }) => (counter !== undefined && counter.count === expected_count ? 1 : 0),
  },
});

const graphConfig = (): ConfigDict => ({
  policy_model: { responses_api_models: { scripted_model: { entrypoint: "app.ts" } } },
  [RESOURCES_SERVER]: { resources_servers: { example_session_state_mgmt: { entrypoint: "app.ts", domain: "agent" } } },
  [STRICT_RESOURCES_SERVER]: { resources_servers: { strict_counter: { entrypoint: "app.ts", domain: "agent" } } },
  [AGENT]: {
    responses_api_agents: {
      simple_agent: {
        entrypoint: "app.ts",
        resources_server: { type: "resources_servers", name: RESOURCES_SERVER },
        model_server: { type: "responses_api_models", name: "policy_model" },
      },
    },
  },
});

export interface CollectedRuns {
  graph: InProcessGraph;
  /** The collection's rollouts file. */
  collected: string;
  /** Its re-verification against the strict counter. */
  rescored: string;
  /** task/repeat of the rollouts whose reward the re-verification changed, in the collection's order. */
  changed: [number, number][];
  close(): Promise<void>;
}

/** Collects the counter's example rows twice each, plus one row the environment refuses (a failure line), then re-verifies. */
export async function collectRuns(dir: string): Promise<CollectedRuns> {
  const graph = await startInProcess(graphConfig(), { [STRICT_RESOURCES_SERVER]: strictCounter });
  const rows = readFileSync(join(PROJECT_ROOT, "resources_servers/example_session_state_mgmt/data/example.jsonl"), "utf8").trim().split("\n");
  // No initial_count: /seed_session answers 422, so the rollout fails for good as a bad request.
  const refused = JSON.stringify({ responses_create_params: { input: [{ role: "user", content: "Read the counter, which was never set." }] }, expected_count: 0 });
  const input = join(dir, "input.jsonl");
  writeFileSync(input, [...rows, refused].map((row) => row + "\n").join(""));
  const collected = join(dir, "collected.jsonl");
  await collectRollouts({ client: graph.client, inputPath: input, outputPath: collected, agentName: AGENT, numRepeats: 2, concurrency: 4, maxAttempts: 1, health: null, print: () => {}, warn: () => {} });

  const rescored = join(dir, "rescored.jsonl");
  const output = new RolloutOutputFiles(rescored).openAppenders();
  const changed: [number, number][] = [];
  try {
    const report = await reverifyRollouts({
      client: graph.client,
      rollouts: readJsonl(collected),
      inputs: readJsonl(rolloutOutputPaths(collected).materializedInputs),
      resourcesServerFor: () => STRICT_RESOURCES_SERVER,
      concurrency: 1,
      callDeadlineMs: 10_000,
      onOutcome: (outcome) => {
        if (!outcome.line) throw new Error(`re-verification of ${outcome.taskIndex}/${outcome.rolloutIndex} failed: ${outcome.failure?.message}`);
        output.appendRollout(outcome.line);
        if (!outcome.rewardEqual) changed.push([outcome.taskIndex, outcome.rolloutIndex]);
      },
    });
    if (report.rewardsDifferent === 0) throw new Error("the strict counter changed no reward: the compare tests would test nothing");
  } finally {
    output.close();
  }
  return { graph, collected, rescored, changed, close: () => graph.close() };
}
