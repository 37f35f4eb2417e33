// Real runs for the `gym view` tests: a small collection by our simple_agent over the counter environment, the
// scripted model choosing the tool calls, written by the collection itself (rollouts, failures, aggregate
// metrics, materialized inputs); and a second run of the same inputs that disagrees on a few rewards, as a
// `gym eval reverify` with a changed verify would.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT, type ConfigDict } from "../../../src/config/index.ts";
import { collectRollouts } from "../../../src/rollouts/collect.ts";
import { startInProcess, type InProcessGraph } from "../../../src/testing/in-process.ts";

export const AGENT = "counter_simple_agent";
export const RESOURCES_SERVER = "counter_resources_server";

export const graphConfig = (): ConfigDict => ({
  policy_model: { responses_api_models: { scripted_model: { entrypoint: "app.ts" } } },
  [RESOURCES_SERVER]: { resources_servers: { example_session_state_mgmt: { entrypoint: "app.ts", domain: "agent" } } },
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
  /** The same rollouts with the rewards of `changedTasks` flipped. */
  rescored: string;
  changedTasks: number[];
  close(): Promise<void>;
}

/** Collects the counter's example rows twice each, plus one row the environment refuses (a failure line). */
export async function collectRuns(dir: string): Promise<CollectedRuns> {
  const graph = await startInProcess(graphConfig());
  const rows = readFileSync(join(PROJECT_ROOT, "resources_servers/example_session_state_mgmt/data/example.jsonl"), "utf8").trim().split("\n");
  // No initial_count: /seed_session answers 422, so the rollout fails for good as a bad request.
  const refused = JSON.stringify({ responses_create_params: { input: [{ role: "user", content: "Read the counter, which was never set." }] }, expected_count: 0 });
  const input = join(dir, "input.jsonl");
  writeFileSync(input, [...rows, refused].map((row) => row + "\n").join(""));
  const collected = join(dir, "collected.jsonl");
  await collectRollouts({ client: graph.client, inputPath: input, outputPath: collected, agentName: AGENT, numRepeats: 2, concurrency: 4, maxAttempts: 1, health: null, print: () => {}, warn: () => {} });
  const changedTasks = [0, 2];
  const rescored = join(dir, "rescored.jsonl");
  const lines = readFileSync(collected, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  const flipped = lines.map((line) => (changedTasks.includes(line._ng_task_index as number) && line._ng_rollout_index === 0 ? { ...line, reward: 1 - (line.reward as number) } : line));
  writeFileSync(rescored, flipped.map((line) => JSON.stringify(line) + "\n").join(""));
  return { graph, collected, rescored, changedTasks, close: () => graph.close() };
}
