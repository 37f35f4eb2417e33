// `gym agent ask` as a real process against a real graph (`gym env start`: example_single_tool_call + simple_agent +
// scripted_model), found through its head server: the conversation printed as a person reads it, the raw answer
// with --json, NeMo Gym's /v1/responses path with --no-verify, and one line when the agent or the graph is missing.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { conversationText } from "../../src/cli/conversation-text.ts";
import { refusedPort } from "../../src/testing/ports.ts";
import { runGym, startGym, type GymProcess } from "./gym-process.ts";

const CONFIGS = [
  "--config", "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml",
  "--config", "resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml",
  "--config", "responses_api_models/scripted_model/configs/scripted_model.yaml",
];
const AGENT = "example_single_tool_call_simple_agent";
/** An environment whose /seed_session and /verify need row fields (initial_count, expected_count). */
const COUNTER_AGENT = "example_session_state_mgmt_simple_agent";
const QUESTION = "What is the weather in Seattle?";

let graph: GymProcess;
let headPort: string;

before(async () => {
  graph = startGym(["env", "start", ...CONFIGS, "++head_server.port=0"]);
  [, headPort] = (await graph.waitFor(/Head server: http:\/\/[\d.]+:(\d+)/)) as unknown as [string, string];
  await graph.waitFor(/policy_model \(responses_api_models\/scripted_model\) http/);
});
after(() => graph.stop());

test("ask prints the conversation: the question, the get_weather call with its arguments, its output, the answer, the reward", async () => {
  const result = await runGym(["agent", "ask", AGENT, QUESTION, `++head_server.port=${headPort}`]);
  assert.equal(result.code, 0, result.output);
  assert.equal(result.stderr, "");
  const expected = [
    `user: ${QUESTION}`,
    "tool call get_weather:\n  {\n    \"city\": \"Seattle\"\n  }",
    "tool output get_weather:\n  {\n    \"city\": \"Seattle\",\n    \"weather_description\": \"The weather in Seattle is cold.\"\n  }",
    'answer: The tools returned: {"city":"Seattle","weather_description":"The weather in Seattle is cold."}',
    "reward: 1",
  ];
  assert.equal(result.stdout, `${expected.join("\n\n")}\n`);
});

test("--json prints /run's answer whole: the row sent (the question, the served tools, the overrides), the response and the reward", async () => {
  const result = await runGym(["agent", "ask", AGENT, QUESTION, "--json", "--head-url", `http://127.0.0.1:${headPort}`, "++responses_create_params.temperature=0.25"]);
  assert.equal(result.code, 0, result.output);
  const answer = JSON.parse(result.stdout);
  assert.equal(answer.reward, 1);
  assert.equal(answer.responses_create_params.temperature, 0.25, "++responses_create_params.* overrides reach the row");
  assert.deepEqual(answer.responses_create_params.input.map((m: { role: string; content: string }) => [m.role, m.content]), [["user", QUESTION]]);
  assert.deepEqual(answer.responses_create_params.tools.map((t: { name: string }) => t.name), ["get_weather"]);
  assert.deepEqual(answer.response.output.map((item: { type: string }) => item.type), ["function_call", "function_call_output", "message"]);
});

test("--no-verify asks /v1/responses as NeMo Gym's client.py does: the system message is shown, no reward; --no-tools offers none", async () => {
  const asked = await runGym(["agent", "ask", AGENT, QUESTION, "--no-verify", "--system", "Be brief.\nUse tools.", `++head_server.port=${headPort}`]);
  assert.equal(asked.code, 0, asked.output);
  assert.match(asked.stdout, /^system:\n {2}Be brief\.\n {2}Use tools\.\n\nuser: What is the weather in Seattle\?\n\ntool call get_weather:/);
  assert.match(asked.stdout, /\nanswer: The tools returned: /);
  assert.doesNotMatch(asked.stdout, /reward/);

  const toolless = await runGym(["agent", "ask", AGENT, QUESTION, "--no-tools", `++head_server.port=${headPort}`]);
  assert.equal(toolless.code, 0, toolless.output);
  assert.doesNotMatch(toolless.stdout, /tool call/);
  assert.match(toolless.stdout, /\nanswer: My answer is .*\n\nreward: 1\n$/);
});

test("--row-fields give the environment the fields it seeds and scores from; without them, the refusal says which flag to use", async () => {
  const refused = await runGym(["agent", "ask", COUNTER_AGENT, "Add 3 and then 4", `++head_server.port=${headPort}`]);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr.split("\n").length, 2, refused.stderr);
  assert.match(refused.stderr, /^error: agent example_session_state_mgmt_simple_agent answered \/run with 500: .*initial_count.*; the environment refused the row: give the fields it reads with --row-fields '\{…\}', or skip seeding and scoring with --no-verify\n$/);

  const scored = await runGym(["agent", "ask", COUNTER_AGENT, "Add 3 and then 4", "--row-fields", '{"initial_count": 1, "expected_count": 8}', `++head_server.port=${headPort}`]);
  assert.equal(scored.code, 0, scored.output);
  assert.match(scored.stdout, /tool output get_counter_value:\n {2}\{\n {4}"count": 8\n {2}\}\n\n/, "seeded from initial_count");
  assert.match(scored.stdout, /\n\nreward: 1\n$/, "scored against expected_count");
});

test("an agent the graph does not run: one line with the closest name and the agents running, exit 2", async () => {
  const result = await runGym(["agent", "ask", "example_single_tool_call_simpel_agent", QUESTION, `++head_server.port=${headPort}`]);
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  assert.equal(
    result.stderr,
    `error: no agent 'example_single_tool_call_simpel_agent' in the running graph; did you mean '${AGENT}'? (agents running: ${AGENT}, ${COUNTER_AGENT})\n`,
  );
});

test("nothing running: one line saying how to start a graph and how to point at another head server, exit 2", async () => {
  const port = await refusedPort();
  const result = await runGym(["agent", "ask", AGENT, QUESTION, `++head_server.port=${port}`]);
  assert.equal(result.code, 2);
  assert.equal(result.stderr.split("\n").length, 2, result.stderr);
  assert.match(result.stderr, new RegExp(`^error: nothing is running at http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\): start a graph with \`gym env start --config <env\\.yaml> --config <model\\.yaml>\`, or point at the one running with \\+\\+head_server\\.port=PORT\\n$`));
});

test("--head-url without a port, or --row-fields that are not a JSON object, are usage mistakes naming the flag", async () => {
  const result = await runGym(["agent", "ask", AGENT, QUESTION, "--head-url", "http://localhost"]);
  assert.equal(result.code, 2);
  assert.equal(result.stderr, "error: --head-url http://localhost: give http://HOST:PORT (e.g. http://127.0.0.1:11000)\n");
  const fields = await runGym(["agent", "ask", AGENT, QUESTION, "--row-fields", "[1]", `++head_server.port=${headPort}`]);
  assert.equal(fields.code, 2);
  assert.equal(fields.stderr, `error: --row-fields: give a JSON object, e.g. '{"expected_count": 7}'\n`);
});

test("a response without a final message, or an incomplete one, says so instead of showing an answer", () => {
  const call = { type: "function_call", name: "get_weather", arguments: "{not json", call_id: "c1" };
  assert.deepEqual(conversationText([{ role: "user", content: "hi" }], { output: [call] }), [
    "user: hi",
    "tool call get_weather:\n  {not json",
    "(no final answer: the agent stopped before the model answered)",
  ]);
  const message = { type: "message", role: "assistant", content: [{ type: "output_text", text: "partial" }] };
  assert.deepEqual(conversationText([], { output: [message], incomplete_details: { reason: "max_output_tokens" } }, 0), [
    "assistant: partial",
    "(the response is incomplete: max_output_tokens)",
    "reward: 0",
  ]);
});
