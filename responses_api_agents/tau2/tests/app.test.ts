// The tau2 agent over real HTTP: a scripted policy model and a scripted user-simulator model (each a queue of
// turns, recording what it was asked), the airline domain on this folder's own tiny DB fixture, τ²-bench's loop
// rule by rule and its reward.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { http, type InProcessGraph, serverDefinition, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import { compute } from "../../../src/ports/tau2/metrics.ts";
import tau2Agent from "../app.ts";
import { call, calls, say, scripted } from "./scripted.ts";

const DATA_DIR = join(import.meta.dirname, "fixtures", "tau2_data");
const exampleRow = JSON.parse(readFileSync(join(import.meta.dirname, "..", "data", "example.jsonl"), "utf8").trim());

const policy = scripted("scripted-policy");
// The project's scripted_model (loaded by its path, as a config names it) playing the user from rules.
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const userRules = [
  { match: "is cancelled", answer: "Great, thank you! ###STOP###" },
  { match: "How can I help you today", answer: "Hi, I'm Ada Park (ada_park_101). Please cancel reservation RES001." },
];
const user = scripted("scripted-user");
// τ²-bench's NL-assertions judge played by scripted_model from rules: "polite" is met, "rude" is not, "garbled" is no JSON.
const nlJudgeRules = [
  { match: "garbled", answer: "I think it went fine." },
  { match: "rude", answer: JSON.stringify({ results: [{ expectedOutcome: "Agent is rude", reasoning: "It was polite.", metExpectation: false }] }) },
  { match: "expectedOutcomes:\\n        \\['Agent is polite'\\]", answer: JSON.stringify({ results: [{ expectedOutcome: "Agent is polite", reasoning: "Courteous throughout.", metExpectation: true }] }) },
];

let graph: InProcessGraph;
const client = http();
const refs = { model_server: { type: "responses_api_models", name: "policy_model" }, user_model_server: { type: "responses_api_models", name: "user_model" }, data_dir: DATA_DIR };
const run = async (agent: string, row: unknown) => {
  const answer = await client.request(`${graph.url(agent)}/run`, { method: "POST", json: row });
  return { status: answer.status, body: answer.json() as any, headers: answer.headers };
};
const withCriteria = (criteria: Record<string, unknown>) => ({ ...exampleRow, task: { ...exampleRow.task, evaluation_criteria: { ...exampleRow.task.evaluation_criteria, ...criteria } } });

before(async () => {
  graph = await startServers({
    policy_model: [policy.definition],
    user_model: [user.definition],
    rules_user_model: [scriptedModel, { mode: "judge_rules", judge_rules: userRules }],
    agent: [tau2Agent, refs],
    short_agent: [tau2Agent, { ...refs, max_steps: 4 }],
    limited_agent: [tau2Agent, { ...refs, max_agent_steps: 3, turns_remaining_interval: 1 }],
    every_other_agent: [tau2Agent, { ...refs, max_agent_steps: 5, turns_remaining_interval: 2 }],
    scripted_user_agent: [tau2Agent, { ...refs, user_model_server: { type: "responses_api_models", name: "rules_user_model" } }],
    nl_judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: nlJudgeRules }],
    nl_agent: [tau2Agent, { ...refs, nl_assertions_model_server: { type: "responses_api_models", name: "nl_judge_model" } }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});
beforeEach(() => {
  for (const m of [policy, user]) {
    m.turns.length = 0;
    m.requests.length = 0;
  }
});

/** The example task solved: look up, cancel, confirm; the user stops. */
function scriptSolved() {
  user.turns.push(say("Hi, I'm Ada Park (ada_park_101). Please cancel reservation RES001."), say("Thanks! ###STOP###"));
  policy.turns.push(call("get_reservation_details", { reservation_id: "RES001" }), call("cancel_reservation", { reservation_id: "RES001" }), say("Your reservation RES001 is cancelled."));
}

test("a full airline rollout: the tools change the DB as the gold action does, the agent says it, reward 1", async () => {
  scriptSolved();
  const { status, body } = await run("agent", exampleRow);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.reward, 1);
  assert.equal(body.result.termination_reason, "user_stop");
  assert.deepEqual(body.result.reward_info.db_check, { db_match: true, db_reward: 1 });
  assert.deepEqual(body.result.reward_info.reward_breakdown, { DB: 1, COMMUNICATE: 1 });
  assert.deepEqual(body.result.messages.map((m: any) => m.role), ["assistant", "user", "assistant", "tool", "assistant", "tool", "assistant", "user"]);
  assert.equal(body.result.messages[0].content, "Hi! How can I help you today?");
  const cancelled = JSON.parse(body.result.messages[5].content);
  assert.equal(cancelled.status, "cancelled");
  assert.deepEqual(cancelled.payment_history, [{ payment_id: "credit_card_1", amount: 180 }, { payment_id: "credit_card_1", amount: -180 }]);
  assert.equal(body.num_steps, 8);
  assert.equal(body.num_agent_calls, 4);
  assert.equal(body.task.id, "example_cancel_1");
});

test("the answered config is the row's as NeMo rewrites it: both models' LiteLLM names and bases, the agent's limits", async () => {
  scriptSolved();
  const { body } = await run("limited_agent", { ...exampleRow, responses_create_params: { input: [], temperature: 0.5 } });
  assert.equal(body.config.llm_agent, "openai/dummy agent model");
  assert.equal(body.config.llm_user, "openai/dummy user model");
  assert.equal(body.config.llm_args_agent.api_base, `${graph.url("policy_model")}/v1`);
  assert.equal(body.config.llm_args_agent.temperature, 0.5);
  assert.equal(body.config.llm_args_user.api_base, `${graph.url("user_model")}/v1`);
  assert.deepEqual([body.config.max_steps, body.config.max_agent_steps, body.config.turns_remaining_interval], [200, 3, 1]);
  assert.equal(body.config.domain, "airline");
});

test("a full rollout whose user simulator is scripted_model (judge_rules) scores 1", async () => {
  policy.turns.push(call("get_reservation_details", { reservation_id: "RES001" }), call("cancel_reservation", { reservation_id: "RES001" }), say("Your reservation RES001 is cancelled."));
  const { status, body } = await run("scripted_user_agent", exampleRow);
  assert.equal(status, 200, JSON.stringify(body));
  assert.deepEqual(body.result.messages.filter((m: any) => m.role === "user").map((m: any) => m.content), ["Hi, I'm Ada Park (ada_park_101). Please cancel reservation RES001.", "Great, thank you! ###STOP###"]);
  assert.equal(body.result.termination_reason, "user_stop");
  assert.equal(body.reward, 1);
});

test("the agent's model gets the policy prompt, the domain's tools, its sampling parameters and the transcript as chat", async () => {
  scriptSolved();
  await run("agent", { ...exampleRow, responses_create_params: { input: [], temperature: 0.3, max_output_tokens: 77 } });
  const first = policy.requests[0]!;
  const system = first.input[0];
  assert.equal(system.role, "system");
  assert.match(JSON.stringify(system.content), /You are a customer service agent that helps the user according to the <policy> provided below/);
  assert.match(JSON.stringify(system.content), /Test airline policy/);
  assert.equal(first.tools.length, 14);
  assert.ok(first.tools.some((t: any) => t.name === "cancel_reservation"));
  assert.equal(first.temperature, 0.3);
  assert.equal(first.max_output_tokens, 77);
  assert.equal(first.input[1].role, "assistant", "the greeting is the agent's own turn");
  const last = policy.requests[2]!;
  assert.ok(last.input.some((i: any) => i.type === "function_call_output"), "tool results go back to the agent");
});

test("the user simulator's model gets the guidelines with the scenario and sees the agent's text as the user's", async () => {
  scriptSolved();
  await run("agent", exampleRow);
  const first = user.requests[0]!;
  const system = JSON.stringify(first.input[0].content);
  assert.match(system, /Test user guidelines/);
  assert.doesNotMatch(system, /PERSONA_GUIDELINES/);
  assert.match(system, /<scenario>\\nInstructions:\\n\\tDomain: airline\\n\\tReason for call:\\n\\t\\tYou want to cancel/);
  assert.equal(first.input[1].role, "user");
  assert.match(JSON.stringify(first.input[1].content), /How can I help you today/);
  assert.equal(first.tools, undefined, "the airline user has no tools");
  const second = user.requests[1]!;
  assert.deepEqual(second.input.slice(1).map((i: any) => i.role ?? i.type), ["user", "assistant", "user"], "its own turns are the assistant's; tool traffic it never sees");
});

test("a DB that differs from the gold replay scores 0 (the agent cancels the wrong reservation)", async () => {
  user.turns.push(say("Cancel RES001 please."), say("###STOP###"));
  policy.turns.push(call("cancel_reservation", { reservation_id: "RES002" }), say("Your reservation is cancelled."));
  const { body } = await run("agent", exampleRow);
  assert.equal(body.reward, 0);
  assert.equal(body.result.reward_info.db_check.db_match, false);
  assert.equal(body.result.reward_info.reward_breakdown.COMMUNICATE, 1);
});

test("COMMUNICATE: the required text must appear in an agent message (case and commas ignored)", async () => {
  user.turns.push(say("Cancel RES001."), say("###TRANSFER###"));
  policy.turns.push(call("cancel_reservation", { reservation_id: "RES001" }), say("Done, it is no longer booked."));
  const { body } = await run("agent", exampleRow);
  assert.equal(body.result.termination_reason, "user_stop", "###TRANSFER### stops the user too");
  assert.equal(body.reward, 0);
  assert.deepEqual(body.result.reward_info.reward_breakdown, { DB: 1, COMMUNICATE: 0 });
});

test("ACTION: a gold action counts when some tool call has its name and compare_args", async () => {
  user.turns.push(say("Cancel RES001."), say("###OUT-OF-SCOPE###"));
  policy.turns.push(call("cancel_reservation", { reservation_id: "RES001" }), say("Cancelled."));
  const row = withCriteria({ reward_basis: ["ACTION"], actions: [{ action_id: "a", requestor: "assistant", name: "cancel_reservation", arguments: { reservation_id: "RES001", reason: "ignored" }, compare_args: ["reservation_id"] }] });
  const { body } = await run("agent", row);
  assert.equal(body.reward, 1);
  assert.equal(body.result.reward_info.action_checks[0].action_match, true);
  assert.equal(body.result.reward_info.action_checks[0].tool_type, "write");
});

test("the agent's ###STOP### ends the run as agent_stop", async () => {
  user.turns.push(say("Cancel RES001."));
  policy.turns.push(call("cancel_reservation", { reservation_id: "RES001" }), say("Cancelled. ###STOP###"));
  const { body } = await run("agent", exampleRow);
  assert.equal(body.result.termination_reason, "agent_stop");
  assert.equal(body.reward, 1);
});

test("max_steps ends the run (never while a tool call waits) and a premature end scores 0", async () => {
  user.turns.push(say("Cancel RES001."), say("Are you there?"));
  policy.turns.push(call("cancel_reservation", { reservation_id: "RES001" }), say("Cancelled."), say("never asked"));
  const { body } = await run("short_agent", exampleRow);
  assert.equal(body.result.termination_reason, "max_steps");
  assert.equal(body.reward, 0);
  assert.equal(body.num_steps, 5, "greeting + 4 steps");
  assert.match(body.result.reward_info.info.note, /terminated prematurely/);
});

test("config.max_errors failing tool calls end the run as too_many_errors", async () => {
  user.turns.push(say("Cancel RES009."));
  policy.turns.push(calls(["cancel_reservation", { reservation_id: "RES009" }], ["get_user_details", { user_id: "nobody" }]));
  const { body } = await run("agent", { ...exampleRow, config: { ...exampleRow.config, max_errors: 2 } });
  assert.equal(body.result.termination_reason, "too_many_errors");
  const tools = body.result.messages.filter((m: any) => m.role === "tool");
  assert.deepEqual(tools.map((m: any) => [m.content, m.error]), [["Error: Reservation RES009 not found", true], ["Error: User nobody not found", true]]);
});

test("a tool the domain does not have is an error result the agent sees, not a crash", async () => {
  user.turns.push(say("Cancel RES001."), say("###STOP###"));
  policy.turns.push(call("run_speed_test", {}), say("Sorry."));
  const { body } = await run("agent", exampleRow);
  assert.equal(body.result.messages[3].content, "Error: Tool 'run_speed_test' not found.");
  assert.equal(body.reward, 0);
});

test("a call with an argument the tool does not take fails as Python's call would, and changes nothing", async () => {
  user.turns.push(say("Cancel RES001."), say("###STOP###"));
  policy.turns.push(calls(["cancel_reservation", { reservation_id: "RES001", reason: "change of plans" }], ["get_flight_status", { flight_number: "HAT100" }]), say("Your reservation is cancelled."));
  const { body } = await run("agent", exampleRow);
  const tools = body.result.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
  assert.deepEqual(tools, ["Error: AirlineTools.cancel_reservation() got an unexpected keyword argument 'reason'", "Error: AirlineTools.get_flight_status() missing 1 required positional argument: 'date'"]);
  assert.equal(body.reward, 0, "the reservation was not cancelled");
});

test("max_agent_steps: each agent message is a step; the limit ends the run as max_agent_steps", async () => {
  user.turns.push(say("Cancel RES001."));
  policy.turns.push(call("get_reservation_details", { reservation_id: "RES001" }), call("get_user_details", { user_id: "ada_park_101" }), say("Still checking"));
  const { body } = await run("limited_agent", exampleRow);
  assert.equal(body.result.termination_reason, "max_agent_steps");
  assert.equal(body.agent_steps, 3);
  assert.equal(body.max_agent_steps, 3);
  assert.equal(body.result.agent_steps, 3);
  assert.equal(body.reward, 0);
});

test("reminders: on user messages and the last tool result the agent gets, only in agent_messages and the responses input", async () => {
  user.turns.push(say("Cancel RES001."), say("###STOP###"));
  policy.turns.push(calls(["get_reservation_details", { reservation_id: "RES001" }], ["get_user_details", { user_id: "ada_park_101" }]), say("Cancelled."));
  const { body } = await run("limited_agent", exampleRow);
  const reminder = (n: number) => `ENVIRONMENT REMINDER: You have ${n} turns left to complete the task.`;
  assert.doesNotMatch(JSON.stringify(body.result.messages), /ENVIRONMENT REMINDER/);
  const agentMessages = body.result.agent_messages;
  assert.equal(agentMessages[1].content, `Cancel RES001.\n\n${reminder(3)}`);
  assert.doesNotMatch(agentMessages[3].content, /REMINDER/, "only the last of several tool results");
  assert.ok(agentMessages[4].content.endsWith(`\n\n${reminder(2)}`));
  assert.match(JSON.stringify(body.responses_create_params.input), /You have 3 turns left/);
  assert.match(JSON.stringify(policy.requests[1]!.input), /You have 2 turns left/);
});

test("turns_remaining_interval 2: every second user message carries the reminder", async () => {
  user.turns.push(say("Hello."), say("Cancel RES001."), say("Thanks ###STOP###"));
  policy.turns.push(say("How can I help?"), say("Which one?"), say("Cancelled."));
  const { body } = await run("every_other_agent", exampleRow);
  const users = body.result.agent_messages.filter((m: any) => m.role === "user");
  assert.deepEqual(users.map((m: any) => /REMINDER/.test(m.content)), [false, true, false]);
  assert.equal(body.result.termination_reason, "user_stop");
});

test("without a step limit there are no agent_messages and agent_steps is null", async () => {
  scriptSolved();
  const { body } = await run("agent", exampleRow);
  assert.equal(body.result.agent_messages, null);
  assert.equal(body.agent_steps, null);
  assert.equal(body.max_agent_steps, null);
});

test("the response: input holds the greeting and the first user turn, output the agent's turns; usage statistics from the agent's calls", async () => {
  scriptSolved();
  const { body } = await run("agent", exampleRow);
  assert.equal(body.response.id, "tau2-airline-example_cancel_1");
  assert.deepEqual(body.responses_create_params.input.map((i: any) => [i.type, i.role]), [["message", "assistant"], ["message", "user"]]);
  assert.deepEqual(body.response.output.map((i: any) => i.type), ["function_call", "function_call_output", "function_call", "function_call_output", "message", "message"]);
  assert.equal(body.response.output[0].arguments, '{"reservation_id": "RES001"}', "arguments as tau2's json.dumps writes them");
  // The agent's three model calls answered usage 10/1, 20/2, 30/3; the fixed greeting has none (but is an agent call).
  assert.equal(body.num_agent_calls, 4);
  assert.equal(body.min_prompt_tokens, 10);
  assert.equal(body.max_prompt_tokens, 30);
  assert.equal(body.mean_prompt_tokens, 20);
  assert.equal(body.mean_completion_tokens, 2);
});

test("a domain not ported is a 501 naming it", async () => {
  const { status, body } = await run("agent", { ...exampleRow, config: { ...exampleRow.config, domain: "banking_knowledge" } });
  assert.equal(status, 501);
  assert.match(JSON.stringify(body), /banking_knowledge is not ported \(airline, retail, telecom and telecom-workflow are\)/);
});

test("an NL_ASSERTION basis without nl_assertions_model_server is a 501 naming the key (never a reward)", async () => {
  scriptSolved();
  const { status, body } = await run("agent", withCriteria({ reward_basis: ["DB", "NL_ASSERTION"], nl_assertions: ["Agent is polite"] }));
  assert.equal(status, 501);
  assert.match(JSON.stringify(body), /NL_ASSERTION.*nl_assertions_model_server/);
});

test("with nl_assertions_model_server, NL_ASSERTION is judged as τ²-bench's evaluator asks: its prompts, the trajectory as role: content lines, all met → 1", async () => {
  scriptSolved();
  const { status, body } = await run("nl_agent", withCriteria({ reward_basis: ["DB", "NL_ASSERTION"], nl_assertions: ["Agent is polite"] }));
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.reward, 1);
  assert.deepEqual(body.result.reward_info.nl_assertions, [{ nl_assertion: "Agent is polite", met: true, justification: "Courteous throughout." }]);
  assert.deepEqual(body.result.reward_info.reward_breakdown, { DB: 1, NL_ASSERTION: 1 });
});

test("an NL assertion the judge finds unmet scores 0; a judge answer that is not its JSON is a typed failure, never a score", async () => {
  scriptSolved();
  const unmet = await run("nl_agent", withCriteria({ reward_basis: ["DB", "NL_ASSERTION"], nl_assertions: ["Agent is rude"] }));
  assert.equal(unmet.body.reward, 0);
  assert.equal(unmet.body.result.reward_info.nl_assertions[0].met, false);
  scriptSolved();
  const garbled = await run("nl_agent", withCriteria({ reward_basis: ["DB", "NL_ASSERTION"], nl_assertions: ["garbled"] }));
  assert.equal(garbled.status, 500);
  assert.equal(garbled.headers["x-ng-failure-class"], "invalid_inner_answer");
  assert.equal(garbled.body.reward, undefined);
});

test("a row field NeMo pins (verbose_logs: false) set otherwise is a 422 naming it", async () => {
  const { status, body } = await run("agent", { ...exampleRow, verbose_logs: true });
  assert.equal(status, 422);
  assert.match(JSON.stringify(body), /verbose_logs/);
});

test("a failing model call is a typed failure, never a reward", async () => {
  user.turns.push("fail");
  const { status, body } = await run("agent", exampleRow);
  assert.equal(status, 500);
  assert.equal(body.reward, undefined);
});

test("an empty model message fails the rollout as τ²-bench's Message.validate does (a typed failure, no reward)", async () => {
  user.turns.push(say("Cancel RES001."));
  policy.turns.push(say("   "));
  const { status, body, headers } = await run("agent", exampleRow);
  assert.equal(status, 500);
  assert.equal(headers["x-ng-failure-class"], "invalid_inner_answer");
  assert.match(JSON.stringify(body), /neither content nor tool calls/);
});

test("the airline tools: booking charges and seats, a gift card balance rule, a one-stop search", async () => {
  const { airline } = await import("../../../src/ports/tau2/airline.ts");
  const db = JSON.parse(readFileSync(join(DATA_DIR, "tau2", "domains", "airline", "db.json"), "utf8"));
  const tool = (n: string) => airline.tools.find((t) => t.name === n)!;
  const booked: any = tool("book_reservation").run(db, { user_id: "ada_park_101", origin: "SFO", destination: "JFK", flight_type: "one_way", cabin: "economy", flights: [{ flight_number: "HAT100", date: "2024-05-20" }], passengers: [{ first_name: "A", last_name: "B", dob: "2000-01-01" }], payment_methods: [{ payment_id: "gift_card_2", amount: 100 }, { payment_id: "credit_card_1", amount: 110 }], total_baggages: 1, nonfree_baggages: 0, insurance: "yes" });
  assert.equal(booked.reservation_id, "HATHAT");
  assert.equal(db.flights.HAT100.dates["2024-05-20"].available_seats.economy, 8);
  assert.equal(db.users.ada_park_101.payment_methods.gift_card_2.amount, 0);
  assert.throws(() => tool("update_reservation_baggages").run(db, { reservation_id: "RES001", total_baggages: 3, nonfree_baggages: 2, payment_id: "gift_card_2" }), /Gift card balance is not enough/);
  assert.equal(tool("calculate").run(db, { expression: "(180 + 30) * 2 / 3" }), "140.0");
  assert.equal(tool("get_flight_status").run(db, { flight_number: "HAT100", date: "2024-05-10" }), "landed");
  assert.deepEqual(tool("search_onestop_flight").run(db, { origin: "SFO", destination: "JFK", date: "2024-05-20" }), []);
});

// NeMo Gym's own rollouts (responses_api_agents/tau2/data/example_rollouts.jsonl), when /work/shared has them: its
// compute_metrics figures reproduced from the recorded rollouts.
const rollouts = sharedDataFile("tau2/example_rollouts.jsonl");
test("compute_metrics reproduces NeMo Gym's figures on its example rollouts", { skip: rollouts.skip || (!existsSync(rollouts.path!) && "no tau2/example_rollouts.jsonl in the shared data") }, () => {
  const rows = readFileSync(rollouts.path!, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const m = compute([rows]);
  assert.equal(m.macro_average, 1);
  assert.equal(m["trajectory_termination_reason/user_stop/count"], 5);
  assert.equal(m["message_finish_reason/tool_calls/count"], 20);
  assert.equal(m["message_finish_reason/stop/count"], 5);
  assert.equal(m["trajectory_transfer_to_human_agents/count"], 4);
  assert.equal(m["telecom/num_samples_unique"], 1);
});

test("the retail tools: a pending item change charges the gift card; results are written as τ²-bench's models dump them", async () => {
  const { retail } = await import("../../../src/ports/tau2/retail.ts");
  const { Tau2Environment } = await import("../../../src/ports/tau2/simulation.ts");
  const env = new Tau2Environment(retail, JSON.parse(readFileSync(join(DATA_DIR, "tau2", "domains", "retail", "db.json"), "utf8")));
  const user = env.getResponse({ id: "c1", name: "get_user_details", arguments: { user_id: "lee_test_1" }, requestor: "assistant" });
  assert.match(user.content!, /"balance": 47\.0\}/, "a float field keeps its .0");
  const changed = env.getResponse({ id: "c2", name: "modify_pending_order_items", arguments: { order_id: "#W0000001", item_ids: ["2000000001"], new_item_ids: ["2000000002"], payment_method_id: "gift_card_1" }, requestor: "assistant" });
  assert.equal(changed.error, false, changed.content!);
  assert.match(changed.content!, /"status": "pending \(item modified\)", "fulfillments": \[\], "payment_history": \[\{"transaction_type": "payment", "amount": 30\.5, "payment_method_id": "gift_card_1"\}, \{"transaction_type": "payment", "amount": 1\.5, "payment_method_id": "gift_card_1"\}\], "cancel_reason": null, "exchange_items": null/);
  assert.equal(env.db.users.lee_test_1.payment_methods.gift_card_1.balance, 45.5);
  const cancel = env.getResponse({ id: "c3", name: "cancel_pending_order", arguments: { order_id: "#W0000001", reason: "no longer needed" }, requestor: "assistant" });
  assert.equal(cancel.content, "Error: Non-pending order cannot be cancelled");
  assert.equal(env.getResponse({ id: "c4", name: "list_all_product_types", arguments: {}, requestor: "assistant" }).content, '{"Desk Lamp": "1000000001"}');
});

// NeMo Gym's recorded rewards reproduced: each rollout of a ported domain is replayed on a fresh copy of τ²-bench's
// DB (τ²-bench's strict set_state replay: every mutating call's output must match the recorded one) and scored
// with its task; the DB comes from the data dir (fetched pinned when absent and reachable).
test("NeMo Gym's example rollouts: the recorded rewards of the ported domains are reproduced from their trajectories", { skip: rollouts.skip || (!existsSync(rollouts.path!) && "no tau2/example_rollouts.jsonl in the shared data") }, async (t) => {
  const { readTau2File } = await import("../../../src/ports/tau2/data.ts");
  const { airline } = await import("../../../src/ports/tau2/airline.ts");
  const { retail } = await import("../../../src/ports/tau2/retail.ts");
  const { telecom } = await import("../../../src/ports/tau2/telecom.ts");
  const { evaluateSimulation, replayTrajectory, Tau2Environment } = await import("../../../src/ports/tau2/simulation.ts");
  const domains: Record<string, typeof airline> = { airline, retail, telecom };
  const dataDir = join(import.meta.dirname, "..", "tau2_data");
  const rows = readFileSync(rollouts.path!, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  let reproduced = 0;
  for (const r of rows) {
    const domain = domains[r.config.domain]!;
    let texts: [string, string | null];
    try {
      texts = [await readTau2File(dataDir, domain.dbPath), domain.user ? await readTau2File(dataDir, domain.user.dbPath) : null];
    } catch (error) {
      t.diagnostic(`${r.config.domain} task ${r.task.id}: not re-scored, ${(error as Error).message.slice(0, 200)}`);
      continue;
    }
    const fresh = () => ({ db: (domain.loadDb ?? JSON.parse)(texts[0]), userDb: domain.user ? domain.user.loadDb(texts[1]!) : null });
    // τ²-bench's strict set_state replay on the task's initial state: every mutating call's output must match the recorded one.
    const world = fresh();
    const env = new Tau2Environment(domain, world.db, world.userDb);
    env.setInitialState(r.task.initial_state, r.task.id);
    assert.deepEqual(replayTrajectory(env, r.result.messages), [], `${r.task.id}: a replayed call's output differs from the recorded one`);
    const info = await evaluateSimulation({ messages: r.result.messages, agentMessages: null, terminationReason: r.result.termination_reason, agentSteps: null, maxAgentSteps: null, stepCount: 0, numErrors: 0, env }, r.task, r.evaluation_type, fresh);
    assert.equal(info.reward, r.reward, `${r.config.domain} task ${r.task.id}`);
    assert.deepEqual(info.env_assertions, r.result.reward_info.env_assertions, `${r.task.id}: the env assertion checks`);
    assert.deepEqual(info.db_check, r.result.reward_info.db_check, `${r.task.id}: the DB check`);
    reproduced++;
  }
  t.diagnostic(`re-scored ${reproduced}/${rows.length} of NeMo Gym's tau2 rollouts to their recorded reward`);
});

test("NeMo Gym's example rollouts: the recorded responses items are rebuilt from the recorded messages", { skip: rollouts.skip || (!existsSync(rollouts.path!) && "no tau2/example_rollouts.jsonl in the shared data") }, async () => {
  const { responseItems } = await import("../../../src/ports/tau2/response.ts");
  const rows = readFileSync(rollouts.path!, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  // Item ids are fresh uuids and the token fields the model's; the rest must be NeMo's bytes.
  const strip = (items: any[]) => items.map(({ id: _id, prompt_token_ids: _p, generation_token_ids: _g, generation_log_probs: _l, ...rest }) => rest);
  for (const r of rows) {
    const ours = responseItems(r.result.messages, r.result.agent_messages ?? null);
    // The rows' own input is the agent's system prompt (one item), ahead of the converted transcript. Where input
    // ends is not compared: the file was recorded (April 2026) when NeMo's split stopped only at an assistant
    // message or reasoning; at 07d6b0d a function_call is a boundary too, which is the split made here.
    assert.deepEqual(strip([...ours.input, ...ours.output]), strip([...r.responses_create_params.input.slice(1), ...r.response.output]), r.task.id);
    assert.deepEqual(ours.input.map((i: any) => i.role), ["assistant", "user"], "the greeting and the first user turn");
  }
});

test("/aggregate_metrics adds NeMo's tau2 figures to the key metrics, without the row's constant flags", async () => {
  scriptSolved();
  const solved = (await run("agent", exampleRow)).body;
  user.turns.push(say("Cancel RES001."), say("Are you there?"));
  policy.turns.push(call("cancel_reservation", { reservation_id: "RES001" }), say("Cancelled."), say("never asked"));
  const cut = (await run("short_agent", exampleRow)).body;
  const answer = await client.request(`${graph.url("agent")}/aggregate_metrics`, { method: "POST", json: { verify_responses: [{ ...solved, _ng_task_index: 0, _ng_rollout_index: 0 }, { ...cut, _ng_task_index: 0, _ng_rollout_index: 1 }] } });
  const key = (answer.json() as any).key_metrics;
  assert.equal(key["mean/reward"], 0.5);
  assert.equal(key["airline/reward"], 0.5);
  assert.equal(key["trajectory_termination_reason/max_steps/count"], 1);
  assert.equal(key["trajectory_termination_reason/user_stop/pct"], 0.5);
  assert.equal(key["message_finish_reason/tool_calls/count"], 3);
  assert.equal(key["mean/seed"], undefined);
  assert.equal(key["trajectory_missing_tool_call/count"], 0);
});

test("compute_metrics counts a max_agent_steps termination (NeMo's own case)", () => {
  const row = { config: { domain: "airline" }, task: { id: "1" }, reward: 0, result: { termination_reason: "max_agent_steps", messages: [{ role: "assistant", content: "hi", raw_data: null }] } };
  const m = compute([[row]]);
  assert.equal(m["trajectory_termination_reason/max_agent_steps/count"], 1);
  assert.equal(m["trajectory_termination_reason/max_agent_steps/pct"], 1);
  assert.equal(m["trajectory_missing_tool_call/count"], 1);
});
