// finance_agent's loop rule by rule, over real HTTP: a queue-driven model, and the real finance_sec_search server
// answering SEC.gov from its fixture (a full rollout: search, parse, submit, verify).
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { responsesApiModel } from "../../../src/server/index.ts";
import { http, readRows, serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import financeAgent, { toolErrorMessage, truncateOldestExchange } from "../app.ts";
const finance = await serverDefinition("resources_servers/finance_sec_search");

type Item = Record<string, unknown>;
const turns: { output: Item[]; incomplete_details?: unknown }[] = [];
const requests: Item[][] = [];
const model = responsesApiModel({
  name: "QueueModel",
  config: z.looseObject({}),
  async responses({ params, rawParams }) {
    requests.push(structuredClone(rawParams.input) as Item[]);
    const turn: { output: unknown[]; incomplete_details?: unknown } = turns.shift() ?? { output: [message("out of turns")] };
    return { id: `resp_${requests.length}`, created_at: 1, error: null, incomplete_details: turn.incomplete_details ?? null, instructions: null, metadata: null, model: "queue", object: "response", output: turn.output, parallel_tool_calls: true, temperature: null, tool_choice: "auto", tools: params.tools, top_p: null, usage: null } as any;
  },
});
const call = (name: string, args: unknown, id = name) => ({ type: "function_call", call_id: `c_${id}`, name, arguments: typeof args === "string" ? args : JSON.stringify(args), id: `fc_${id}`, status: "completed" });
function message(text: string) {
  return { type: "message", role: "assistant", id: "m", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
}
const rows = readRows(join(import.meta.dirname, "../../../resources_servers/finance_sec_search/data/example.jsonl"));
const URL10K = "https://www.sec.gov/Archives/edgar/data/1234567/000123456724000031/acme-20241231.htm";

let graph: InProcessGraph;
const client = http();
const agentConfig = { resources_server: { type: "resources_servers", name: "fin" }, model_server: { type: "responses_api_models", name: "policy" }, no_tool_call_nudge: "Continue.", max_time_seconds: null, abort_on_tool_error_types: ["ValueError"], max_steps: 4 };
before(async () => {
  graph = await startServers({
    fin: [finance, { search_fixture_path: "data/example_search_fixture.jsonl", judge_model_server: null, judge_prompt_template: "{question}", retrieval_system_prompt: "Read." }],
    policy: [model, {}],
    agent: [financeAgent, agentConfig],
    timed: [financeAgent, { ...agentConfig, max_time_seconds: 0 }],
    aborting: [financeAgent, { ...agentConfig, abort_on_tool_error_types: ["Invalid end_date format"] }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});
beforeEach(() => {
  turns.length = 0;
  requests.length = 0;
});
const run = async (agent = "agent") => {
  const answer = await client.request(`${graph.url(agent)}/run`, { method: "POST", json: rows[0] });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
};

test("a full rollout: search, parse, submit ends the loop (done_tool) and verify scores the submitted answer", async () => {
  turns.push({ output: [call("sec_filing_search", { ticker: "ACME", form_types: ["10-K"] })] }, { output: [call("parse_html_page", { url: URL10K, key: "tenk" })] }, { output: [call("submit_final_result", { final_result: "48,300,000 shares" }), call("web_search", { search_query: "never run" })] });
  const body = await run();
  assert.equal(body.reward, 1);
  assert.deepEqual(body.response.metadata, { stop_reason: "done_tool", steps: "3" });
  const outputs = body.response.output.filter((i: Item) => i.type === "function_call_output");
  assert.equal(outputs.length, 3, "the call after submit_final_result is not run");
  assert.match(JSON.parse(outputs[1].output).results, /^SUCCESS: The result has been saved to the data storage under the key: tenk\./);
});

test("a full rollout with scripted_model (replay mode) as the policy: its recorded turns played through the loop, the tools run for real, verify scores it", async () => {
  // The recording: what a model said to this prompt (the agent's own first request, as it builds it).
  turns.push({ output: [message("probe")] });
  await run();
  const prompt = requests[0]!;
  const said = [call("sec_filing_search", { ticker: "ACME", form_types: ["10-K"] }, "r1"), call("parse_html_page", { url: URL10K, key: "tenk" }, "r2"), call("submit_final_result", { final_result: "48,300,000 shares" }, "r3")];
  const recorded = said.flatMap((c) => [c, { type: "function_call_output", call_id: c.call_id, output: "{}" }]);
  const dir = mkdtempSync(join(tmpdir(), "finance-replay-"));
  const file = join(dir, "recording.jsonl");
  writeFileSync(file, `${JSON.stringify({ responses_create_params: { input: prompt }, response: { output: recorded, usage: null } })}\n`);
  const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
  const replayGraph = await startServers({
    fin: [finance, { search_fixture_path: "data/example_search_fixture.jsonl", judge_model_server: null, judge_prompt_template: "{question}", retrieval_system_prompt: "Read." }],
    policy: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: file }],
    agent: [financeAgent, agentConfig],
  });
  try {
    const answer = await client.request(`${replayGraph.url("agent")}/run`, { method: "POST", json: rows[0] });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.equal(body.reward, 1);
    assert.deepEqual(body.response.metadata, { stop_reason: "done_tool", steps: "3" });
    assert.match(body.response.model, /^scripted-replay/);
    const outputs = body.response.output.filter((i: Item) => i.type === "function_call_output");
    assert.match(JSON.parse(outputs[1].output).results, /^SUCCESS: The result has been saved to the data storage under the key: tenk\./, "the real tool ran, not the recording's output");
  } finally {
    await replayGraph.close();
  }
});

test("a prose-only turn gets the nudge as a user message and the loop goes on; max_steps ends it (max_turns)", async () => {
  turns.push({ output: [message("thinking aloud")] });
  const body = await run();
  assert.deepEqual(body.response.metadata, { stop_reason: "max_turns", steps: "4" });
  assert.deepEqual(requests[1]!.at(-1), { role: "user", content: "Continue.", type: "message" });
  assert.equal(body.reward, 0);
});

test("an incomplete response for max_output_tokens stops the loop", async () => {
  turns.push({ output: [message("cut")], incomplete_details: { reason: "max_output_tokens" } });
  assert.deepEqual((await run()).response.metadata, { stop_reason: "max_output_tokens", steps: "1" });
});

test("max_time_seconds is checked before each model call (max_time)", async () => {
  const body = await run("timed");
  assert.deepEqual(body.response.metadata, { stop_reason: "max_time", steps: "0" });
  assert.equal(requests.length, 0);
});

test("a tool error starting with an abort_on_tool_error_types name ends the rollout (stop_reason error)", async () => {
  turns.push({ output: [call("web_search", { search_query: "q", end_date: "bad" }), call("submit_final_result", { final_result: "x" })] });
  const body = await run("aborting");
  assert.deepEqual(body.response.metadata, { stop_reason: "error", steps: "1" });
  assert.equal(body.response.output.filter((i: Item) => i.type === "function_call_output").length, 1);
});

test("only an error field counts as a tool error: results wrapping {error}, or a flat {error}", () => {
  assert.equal(toolErrorMessage(JSON.stringify({ results: JSON.stringify({ error: "ValueError: bad" }) })), "ValueError: bad");
  assert.equal(toolErrorMessage(JSON.stringify({ error: "flat" })), "flat");
  assert.equal(toolErrorMessage(JSON.stringify({ results: "ValueError: only mentioned" })), undefined);
});

test("unparsable arguments are handed back to the model as a Tool call failed error", async () => {
  turns.push({ output: [call("sec_filing_search", "{not json")] }, { output: [call("submit_final_result", { final_result: "x" })] });
  const body = await run();
  const first = body.response.output.find((i: Item) => i.type === "function_call_output");
  assert.match(JSON.parse(first.output).error, /^Tool call failed: JSONDecodeError: /);
});

test("truncate_on_overflow drops the oldest model block and the tool results after it", () => {
  const items = [{ type: "function_call" }, { type: "function_call_output" }, { type: "message", role: "user" }, { type: "reasoning" }, { type: "function_call_output" }];
  assert.deepEqual(truncateOldestExchange(items), items.slice(3));
  assert.deepEqual(truncateOldestExchange([{ type: "function_call" }, { type: "function_call_output" }]), [{ type: "function_call" }, { type: "function_call_output" }]);
});
