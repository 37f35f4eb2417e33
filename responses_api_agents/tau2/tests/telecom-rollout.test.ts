// Whole telecom rollouts through the tau2 agent over real HTTP: the task's initial state breaks the phone, the
// scripted user checks and fixes it with its own tools when the scripted agent asks, and τ²-bench's environment
// evaluator scores the end state (env assertions on the replayed world, gold actions, both DBs).
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { http, type InProcessGraph, startServers } from "../../../src/testing/index.ts";
import tau2Agent from "../app.ts";
import { call, say, scripted } from "./scripted.ts";

const DATA_DIR = join(import.meta.dirname, "fixtures", "tau2_data");
const exampleRow = JSON.parse(readFileSync(join(import.meta.dirname, "..", "data", "example.jsonl"), "utf8").trim());
const policy = scripted("scripted-policy");
const user = scripted("scripted-user");
let graph: InProcessGraph;
const client = http();

/** A telecom task of our own: airplane mode is on; fixed when the user turns it off. */
const telecomRow = (criteria: Record<string, unknown> = {}) => ({
  ...exampleRow,
  config: { ...exampleRow.config, domain: "telecom" },
  task: {
    id: "[service_issue]airplane_mode_on[fixture]",
    user_scenario: { persona: null, instructions: { domain: "telecom", reason_for_call: "No service on your phone.", known_info: "You are Mira Okafor, 555-010-0001.", unknown_info: null, task_instructions: "Do what the agent asks with your phone tools." } },
    initial_state: { initialization_data: null, initialization_actions: [{ env_type: "user", func_name: "set_user_info", arguments: { name: "Mira Okafor", phone_number: "555-010-0001" } }, { env_type: "user", func_name: "turn_airplane_mode_on", arguments: {} }], message_history: null },
    evaluation_criteria: {
      actions: [{ action_id: "toggle_airplane_mode_0", requestor: "user", name: "toggle_airplane_mode", arguments: {}, info: null, compare_args: null }],
      env_assertions: [{ env_type: "user", func_name: "assert_service_status", arguments: { expected_status: "connected" }, assert_value: true, message: null }],
      communicate_info: null,
      nl_assertions: null,
      reward_basis: ["ENV_ASSERTION", "ACTION"],
      ...criteria,
    },
  },
});

before(async () => {
  graph = await startServers({
    policy_model: [policy.definition],
    user_model: [user.definition],
    agent: [tau2Agent, { model_server: { type: "responses_api_models", name: "policy_model" }, user_model_server: { type: "responses_api_models", name: "user_model" }, data_dir: DATA_DIR }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});
beforeEach(() => {
  for (const m of [policy, user]) m.turns.length = m.requests.length = 0;
});
const run = async (row: unknown) => {
  const answer = await client.request(`${graph.url("agent")}/run`, { method: "POST", json: row });
  return { status: answer.status, body: answer.json() as any };
};

test("the user checks the status bar and turns airplane mode off with its own tools: env assertion and user action met, reward 1", async () => {
  user.turns.push(say("My phone says no service."), call("check_status_bar", {}), say("It shows an airplane."), call("toggle_airplane_mode", {}), say("Signal is back, thanks! ###STOP###"));
  policy.turns.push(say("Please look at your status bar."), say("Turn airplane mode off, please."));
  const { status, body } = await run(telecomRow());
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.reward, 1);
  const info = body.result.reward_info;
  assert.deepEqual(info.env_assertions, [{ env_assertion: { env_type: "user", func_name: "assert_service_status", arguments: { expected_status: "connected" }, assert_value: true, message: null }, met: true, reward: 1 }]);
  assert.deepEqual(info.reward_breakdown, { ENV_ASSERTION: 1, ACTION: 1 });
  assert.deepEqual(info.db_check, { db_match: true, db_reward: 1 }, "the gold world (initial state + the user's toggle) equals the replayed run");
  const tools = body.result.messages.filter((m: any) => m.role === "tool");
  assert.deepEqual(tools.map((m: any) => [m.requestor, m.content]), [
    ["user", "Status Bar: ✈️ Airplane Mode | 🔋 64%"],
    ["user", "Airplane Mode is now OFF.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 64%"],
  ]);
});

test("the user model is offered the 30 user tools and τ²-bench's tools guidelines; its own tool results come back to it, the agent sees neither", async () => {
  user.turns.push(say("No service."), call("check_sim_status", {}), say("Thanks ###STOP###"));
  policy.turns.push(say("Check your SIM."));
  await run(telecomRow());
  const toolsAsked = user.requests[0]!;
  assert.equal(toolsAsked.tools.length, 30);
  assert.deepEqual(toolsAsked.tools.slice(0, 2).map((t: any) => t.name), ["check_status_bar", "check_network_status"]);
  assert.match(JSON.stringify(toolsAsked.input[0].content), /Fixture user guidelines \(with tools\)/);
  const afterCall = user.requests[2]!;
  assert.ok(afterCall.input.some((i: any) => i.type === "function_call_output" && i.output === "Your SIM card is active and working."), "the user's own tool output goes back to the user model");
  const agentAsked = policy.requests.at(-1)!;
  assert.equal(agentAsked.tools.length, 13, "the agent keeps its 13 tools");
  assert.ok(!JSON.stringify(agentAsked.input).includes("SIM card is active"), "the agent never sees the user's tool results");
  assert.match(JSON.stringify(policy.requests[0]!.input[0].content), /<main_policy>\\nFixture main policy.*<\/main_policy>\\n<tech_support_policy>\\nFixture tech-support manual/);
});

test("the phone left broken: the env assertion fails and the reward is 0 (the agent's talk is not enough)", async () => {
  user.turns.push(say("No service."), say("OK, bye ###STOP###"));
  policy.turns.push(say("Have you tried waiting?"));
  const { body } = await run(telecomRow());
  assert.equal(body.reward, 0);
  assert.equal(body.result.reward_info.env_assertions[0].met, false);
  assert.deepEqual(body.result.reward_info.reward_breakdown, { ENV_ASSERTION: 0, ACTION: 0 });
});

test("the agent's carrier tools and sync: a payment request reaches the phone, the user pays, the bill is paid", async () => {
  const row = telecomRow({ actions: [], env_assertions: [{ env_type: "assistant", func_name: "assert_no_overdue_bill", arguments: { overdue_bill_id: "B2002" }, assert_value: true, message: null }], reward_basis: ["ENV_ASSERTION"] });
  policy.turns.push(call("send_payment_request", { customer_id: "C2001", bill_id: "B2002" }), say("I sent you a payment request."));
  user.turns.push(say("I want to pay my bill."), call("check_payment_request", {}), call("make_payment", {}), say("Paid. ###STOP###"));
  const { body } = await run(row);
  const tools = body.result.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
  assert.deepEqual(tools, ["Payment request sent to the customer for bill B2002", "You have a payment request for bill B2002 of 0.0 USD.", "Payment of 0.0 USD has been made for bill B2002."]);
  assert.equal(body.reward, 1, JSON.stringify(body.result.reward_info));
});

test("a task whose initial state calls a function this port has not is a 501 naming it, never a reward", async () => {
  const row = telecomRow();
  row.task.initial_state.initialization_actions.push({ env_type: "user", func_name: "install_malware", arguments: {} });
  const { status, body } = await run(row);
  assert.equal(status, 501);
  assert.match(JSON.stringify(body), /TelecomUserTools\.install_malware/);
});
