// terminal_multi_harness (through fastify inject): tests/nemo-verify-cases.jsonl holds 110 requests of our own —
// every harness rule, the schema checks, batches, messages — with what NeMo Gym's own app.py (07d6b0d, run in Python
// with openapi-schema-validator 0.6.3) answered for each: every field, its order, or its 500. Then the response
// shape, request validation, the shipped configs, and the authored data and verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, caseVerifyRequest, functionCallItem, injectServers, readRows, readVerifierCaseFile, responseWith, type InjectedGraph } from "../../../src/testing/index.ts";
import { loadGlobalConfig } from "../../../src/config/index.ts";
import harness from "../app.ts";
import { extractAction, StepRewardCategory } from "../comparator.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
// What NeMo Gym's verify returned for each verifier case (line → fields), codex config.
const NEMO_CASE_FIELDS = JSON.parse(readFileSync(join(import.meta.dirname, "nemo-case-fields.json"), "utf8")) as Record<number, Item>;
const nemoCases = readRows(join(import.meta.dirname, "nemo-verify-cases.jsonl")) as { label: string; config: Item; fields: Item; output: Item[]; nemo?: Item; nemo_error?: string }[];
const configs = [...new Set(nemoCases.map((c) => JSON.stringify(c.config)))];
const instanceOf = (config: Item) => `config_${configs.indexOf(JSON.stringify(config))}`;
const CODEX = { tool_call_comparator_config: { string_similarity_threshold: 0.9 } };

let graph: InjectedGraph;
before(async () => {
  graph = await injectServers({
    ...Object.fromEntries(configs.map((config, i) => [`config_${i}`, [harness, { tool_call_comparator_config: JSON.parse(config) }]])),
    codex: [harness, CODEX],
  });
});
after(() => graph.close());

const params = { input: [{ role: "user", content: "Next step." }] };
const post = (fields: Item, output: Item[], instance = "codex") => graph.server(instance).post("/verify", { responses_create_params: params, ...fields, response: responseWith(output) });
const EXEC = { type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] } };
const expectedExec = { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "ls -la" }) };

describe("NeMo Gym's answers", () => {
  test("every request of nemo-verify-cases.jsonl gets NeMo Gym's fields in its order, or its 500", async () => {
    for (const c of nemoCases) {
      const answer = await post(c.fields, c.output, instanceOf(c.config));
      if (c.nemo_error !== undefined) {
        assert.equal(answer.status, 500, `${c.label}: ${answer.text}`);
        continue;
      }
      assert.equal(answer.status, 200, `${c.label}: ${answer.text}`);
      const { responses_create_params: _p, response: _r, ...fields } = answer.json<Item>();
      assert.deepEqual(fields, c.nemo, c.label);
      assert.deepEqual(Object.keys(fields), Object.keys(c.nemo!), c.label);
    }
  });
});

describe("the verify response", () => {
  test("params, response, reward, harness, expected_action, category, declared_tools, threshold, similarity_score; floats as Python writes them", async () => {
    const answer = await post({ harness: "codex", expected_action: { ...expectedExec, note: "dropped" }, declared_tools: [EXEC], threshold: 1, agent_ref: { name: "x" } }, [functionCallItem("exec_command", { cmd: "ls -la" })]);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "harness", "expected_action", "category", "declared_tools", "threshold", "similarity_score"]);
    assert.match(answer.text, /"reward":1\.0,"harness":"codex","expected_action":\{"type":"function_call","name":"exec_command","arguments":"\{\\"cmd\\":\\"ls -la\\"\}"\},"category":"A tool call that matches the expected tool call was found","declared_tools":\[.*\],"threshold":1\.0,"similarity_score":1\.0\}$/);
  });

  test("a batch expected_action comes back with `ordered` (default true); harness defaults to generic", async () => {
    const body = (await post({ expected_action: { type: "function_call_batch", calls: [expectedExec] }, declared_tools: [EXEC] }, [])).json<Item>();
    assert.deepEqual([body.harness, body.expected_action, body.category], ["generic", { type: "function_call_batch", calls: [expectedExec], ordered: true }, StepRewardCategory.NO_ACTION_FOUND]);
  });

  test("arguments that are no JSON object are NeMo Gym's 500 (its comparator hands up a result without `matches`)", async () => {
    for (const args of ["{oops", "[1, 2]", "\"text\""]) {
      const answer = await post({ harness: "codex", expected_action: expectedExec, declared_tools: [EXEC] }, [functionCallItem("exec_command", args)]);
      assert.equal(answer.status, 500, args);
    }
  });

  test("expected_action, declared_tools and threshold have NeMo Gym's types (a 422 naming the field)", async () => {
    for (const [field, value] of [["expected_action", { type: "shell" }], ["expected_action", { type: "message" }], ["declared_tools", [1]], ["threshold", "high"]] as const) {
      const answer = await post({ expected_action: expectedExec, [field]: value }, []);
      assert.equal(answer.status, 422, `${field}: ${answer.text}`);
      assert.equal(answer.json<any>().detail[0].loc[1], field);
    }
    assert.equal((await post({}, [])).status, 422, "expected_action is required");
  });
});

describe("extractAction", () => {
  const message = (content: unknown) => ({ type: "message", role: "assistant", id: "m", status: "completed", content });
  test("calls win over text; several calls are a batch in output order; messages' text is joined; no text part is no message", () => {
    const call = { type: "function_call", call_id: "c", name: "a", arguments: "{}" };
    assert.deepEqual(extractAction([message([{ type: "output_text", text: "x", annotations: [] }]), call] as never), { type: "function_call", name: "a", arguments: "{}" });
    assert.deepEqual(extractAction([call, { ...call, name: "b" }] as never), { type: "function_call_batch", calls: [{ type: "function_call", name: "a", arguments: "{}" }, { type: "function_call", name: "b", arguments: "{}" }], ordered: true });
    assert.deepEqual(extractAction([message([{ type: "output_text", text: "a", annotations: [] }]), message([{ type: "output_text", text: "b", annotations: [] }])] as never), { type: "message", content: "ab" });
    assert.equal(extractAction([message([{ type: "refusal", refusal: "no" }])] as never), null);
    assert.deepEqual(extractAction([message([{ type: "output_text", text: "", annotations: [] }])] as never), { type: "message", content: "" });
  });
});

describe("the configs", () => {
  test("the four harness configs load; stirrup's query_string_similarity_threshold is ignored, as pydantic ignores it", async () => {
    for (const name of ["codex", "agent006", "opencode", "stirrup"]) {
      const { resolved } = await loadGlobalConfig({ configPaths: [join(import.meta.dirname, `../configs/terminal_multi_harness_${name}.yaml`), "responses_api_models/scripted_model/configs/scripted_model.yaml"], overrides: [] });
      const instance = (resolved[`terminal_multi_harness_${name}_resources_server`] as any).resources_servers.terminal_multi_harness;
      assert.equal(instance.tool_call_comparator_config.string_similarity_threshold, 0.9, name);
      const agent = (resolved[`terminal_multi_harness_${name}_agent`] as any).responses_api_agents.tool_simulation_agent;
      assert.equal(agent.resources_server.name, `terminal_multi_harness_${name}_resources_server`, name);
    }
    const stirrup = await injectServers({ s: [harness, { tool_call_comparator_config: { string_similarity_threshold: 0.9, query_string_similarity_threshold: 0.8 } }] });
    const query = { type: "function_call", name: "web_search", arguments: JSON.stringify({ query: "sqlite latest release" }) };
    const tools = [{ type: "function", name: "web_search", parameters: { type: "object", properties: { query: { type: "string" } } } }];
    const answer = await stirrup.server("s").post("/verify", { responses_create_params: params, harness: "stirrup", expected_action: query, declared_tools: tools, response: responseWith([functionCallItem("web_search", { query: "sqlite latest version" })]) });
    assert.equal(answer.json<Item>().category, StepRewardCategory.WEB_SEARCH_QUERY_SIMILARITY_BELOW_THRESHOLD, "0.9 applies to queries too");
    await stirrup.close();
  });
});

describe("the data", () => {
  test("example rows (codex) and stirrup rows are /run requests whose expected calls name declared tools", () => {
    for (const file of ["example.jsonl", "stirrup_example.jsonl"]) {
      const rows = readRows(join(dataDir, file));
      assert.equal(rows.length, 5, file);
      assertRowsAreRunRequests(rows);
      for (const row of rows) {
        const names = (row.declared_tools as { name: string }[]).map((t) => t.name);
        const action = row.expected_action as { type: string; name?: string; calls?: { name: string }[] };
        for (const name of action.type === "function_call" ? [action.name!] : (action.calls ?? []).map((c) => c.name)) assert.ok(names.includes(name), `${file}: ${name}`);
      }
    }
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(graph.server("codex"), join(dataDir, "verifier_cases.jsonl"), { minCases: 10, kinds: ["full_reward", "zero_reward", "malformed", "refused"] }));

  test("verifier cases: every field as NeMo Gym's verify gave it", async () => {
    for (const verifierCase of readVerifierCaseFile(join(dataDir, "verifier_cases.jsonl"))) {
      if (verifierCase.case === "refused") continue;
      const { responses_create_params: _p, response: _r, ...fields } = (await graph.server("codex").post("/verify", caseVerifyRequest(verifierCase))).json<Item>();
      assert.deepEqual(fields, NEMO_CASE_FIELDS[verifierCase.lineNumber], `line ${verifierCase.lineNumber}`);
    }
  });
});
