// Dataset validation before any server starts: protocol problems and environment problems, each with its
// file, line and field path, worded as the server's 422 would be.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { environmentFromDefinition, formatProblem, loadEnvironment, validateDatasetFile, validateDatasetText, type DatasetProblem } from "../../src/rollouts/dataset-validate.ts";
import { sharedDataFile } from "../../src/testing/shared-data.ts";
import weather from "../../resources_servers/example_single_tool_call/app.ts";
import multiStep from "../../resources_servers/example_multi_step/app.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";

const ENVIRONMENTS = { example_single_tool_call: weather, example_multi_step: multiStep, example_session_state_mgmt: counter } as const;
const messages = (problems: DatasetProblem[]) => problems.map(formatProblem);
const lines = (...rows: unknown[]) => rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n";

const counterEnvironment = environmentFromDefinition(counter);
const counterTools = counter.toolDefinitions;
const counterRow = (extra: Record<string, unknown> = {}) => ({ responses_create_params: { input: "add 1", tools: counterTools }, initial_count: 0, expected_count: 1, ...extra });

for (const [name, definition] of Object.entries(ENVIRONMENTS)) {
  test(`${name}: our example dataset is valid against its environment`, async () => {
    const problems = await validateDatasetFile(join(PROJECT_ROOT, "resources_servers", name, "data/example.jsonl"), () => environmentFromDefinition(definition));
    assert.deepEqual(messages(problems), []);
  });

  const reference = sharedDataFile(`${name}/data/example.jsonl`);
  test(`${name}: NeMo Gym's example dataset is valid against our environment (descriptions may differ)`, { skip: reference.skip }, async () => {
    const problems = await validateDatasetFile(reference.path!, () => environmentFromDefinition(definition));
    assert.deepEqual(messages(problems), []);
  });
}

test("protocol problems name the line and the field path, as the 422 would", async () => {
  const text = lines(
    counterRow(),
    "{not json",
    "[1, 2]",
    { expected_count: 1 },
    { responses_create_params: { input: "x", seed: 3 } },
    // Typed: an untyped item with a bad role is an mcp_list_tools item in NeMo Gym (every field defaulted).
    { responses_create_params: { input: [{ type: "message", role: "robot", content: "x" }] } },
    { responses_create_params: { input: "x" }, agent_ref: { type: "responses_api_models" } },
    { responses_create_params: { input: "x" }, _ng_task_index: "3", _ng_rollout_index: -1 },
  );
  const [notJson, ...others] = messages(await validateDatasetText("data.jsonl", text));
  assert.match(notJson!, /^data\.jsonl:2: not valid JSON \(.+\)$/);
  assert.deepEqual(others, [
    "data.jsonl:3: each line must be a JSON object",
    "data.jsonl:4: responses_create_params: Field required",
    "data.jsonl:5: responses_create_params.seed: Extra inputs are not permitted",
    "data.jsonl:6: responses_create_params.input.0.role: Input should be 'user', 'assistant', 'system' or 'developer'",
    "data.jsonl:7: agent_ref.name: Field required",
    "data.jsonl:7: agent_ref.type: Input should be 'responses_api_agents'",
    "data.jsonl:8: _ng_task_index: Input should be a non-negative integer",
    "data.jsonl:8: _ng_rollout_index: Input should be a non-negative integer",
  ]);
});

test("fields the environment declares for /seed_session and /verify are required on every row", async () => {
  const problems = await validateDatasetText("counter.jsonl", lines(counterRow(), counterRow({ initial_count: undefined }), counterRow({ expected_count: "six" })), () => counterEnvironment);
  assert.deepEqual(messages(problems), [
    "counter.jsonl:2: initial_count: Field required (StatefulCounterResourcesServer's /seed_session reads it)",
    "counter.jsonl:3: expected_count: Input should be a valid number (StatefulCounterResourcesServer's /verify needs it)",
  ]);

  const multiStepRow = { id: 0, responses_create_params: { input: "hot?" }, expected_synonym_values: [711], minefield_label: "Hot", minefield_label_value: 299 };
  const missing = await validateDatasetText("ms.jsonl", lines(multiStepRow), () => environmentFromDefinition(multiStep));
  assert.deepEqual(messages(missing), ["ms.jsonl:1: expected_synonyms: Field required (ExampleMultiStepResourcesServer's /verify needs it)"]);
});

test("offered tools must be served, with the same arguments; descriptions and titles may differ", async () => {
  const [increment, read] = counterTools;
  const renamed = { ...read, name: "read_counter" };
  const wrongType = { ...increment, parameters: { ...increment!.parameters, properties: { count: { type: "number" } } } };
  const reworded = { ...increment, description: "Adds.", parameters: { ...increment!.parameters, title: "Increment", properties: { count: { type: "integer", title: "Count" } } } };
  const extraField = { ...increment, parameters: { ...increment!.parameters, properties: { count: { type: "integer" }, by: { type: "string" } } } };
  const webSearch = { type: "web_search" };
  const problems = await validateDatasetText("tools.jsonl", lines(
    counterRow({ responses_create_params: { input: "x", tools: [renamed, reworded, webSearch] } }),
    counterRow({ responses_create_params: { input: "x", tools: [wrongType] } }),
    counterRow({ responses_create_params: { input: "x", tools: [extraField] } }),
  ), () => counterEnvironment);
  assert.deepEqual(messages(problems), [
    "tools.jsonl:1: responses_create_params.tools.0.name: 'read_counter' is not a tool of StatefulCounterResourcesServer (it serves: increment_counter, get_counter_value)",
    `tools.jsonl:2: responses_create_params.tools.0.parameters.properties.count.type: the dataset offers "number", StatefulCounterResourcesServer's 'increment_counter' takes "integer"`,
    `tools.jsonl:3: responses_create_params.tools.0.parameters.properties.by: the dataset offers {"type":"string"}, StatefulCounterResourcesServer's 'increment_counter' takes nothing`,
  ]);
});

test("an environment is loaded from its app.ts; a file that is not a resources server is refused", async () => {
  const loaded = await loadEnvironment(join(PROJECT_ROOT, "resources_servers/example_session_state_mgmt/app.ts"));
  assert.equal(loaded.name, "StatefulCounterResourcesServer");
  assert.deepEqual(loaded.tools, counterTools);
  await assert.rejects(loadEnvironment(join(PROJECT_ROOT, "responses_api_agents/simple_agent/app.ts")), /does not default-export a resources server definition/);
});
