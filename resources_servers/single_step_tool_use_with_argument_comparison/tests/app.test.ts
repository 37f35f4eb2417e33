// The pivot environment (through fastify inject): the verify response's fields, each category, both shipped comparator
// settings (base and parallel), request validation, and the authored data and verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, caseVerifyRequest, type InjectedGraph, injectServers, readRows, readVerifierCaseFile } from "../../../src/testing/index.ts";
import { ActionSchema, StepRewardCategory as Category } from "../../../src/ports/tool-call-comparison.ts";
import { loadGlobalConfig } from "../../../src/config/index.ts";
import pivot from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");
const configDir = join(import.meta.dirname, "../configs");
const rows = readRows(join(dataDir, "example.jsonl"));
const parallelRows = readRows(join(dataDir, "parallel_example.jsonl"));

let graph: InjectedGraph;

before(async () => {
  graph = await injectServers({
    pivot: [pivot, { tool_call_comparator_config: { word_count_similarity_threshold: 0.1 } }],
    parallel: [pivot, { tool_call_comparator_config: { word_count_similarity_threshold: 0.1, parallel_tool_call_rewarding: true, allow_subset: true, allow_superset: true, parallel_tool_call_reward_mode: "f1" } }],
  });
});
after(() => graph.close());

type Item = Record<string, unknown>;
const message = (text: string): Item => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const functionCall = (name: string, args: unknown, id = name): Item => ({ type: "function_call", call_id: `call_${id}`, name, arguments: typeof args === "string" ? args : JSON.stringify(args) });
const reasoning: Item = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }] };
const response = (output: Item[]) => ({ id: "resp_1", created_at: 1, model: "m", object: "response", output, parallel_tool_calls: false, tool_choice: "auto", tools: [] });
const params = { input: [{ role: "user", content: "Set the views metric count to 75." }] };
const expectedCall = { type: "function_call", name: "set_metric_count", arguments: JSON.stringify({ metric_name: "views", metric_count: 75 }) };

const verify = async (expected_action: unknown, output: Item[], instance = "pivot") => {
  const answer = await graph.server(instance).post("/verify", { responses_create_params: params, response: response(output), expected_action });
  return answer;
};
const scored = async (expected_action: unknown, output: Item[], instance = "pivot") => {
  const answer = await verify(expected_action, output, instance);
  assert.equal(answer.status, 200, answer.text);
  const { reward, category } = answer.json<{ reward: number; category: string }>();
  return [reward, category];
};

describe("the verify response", () => {
  test("echoes params, response and expected_action, then reward and category, as NeMo Gym's model dumps them", async () => {
    const answer = await verify({ ...expectedCall, note: "dropped, as pydantic drops it" }, [functionCall("set_metric_count", { metric_count: 75, metric_name: "views" })]);
    const body = answer.json<Record<string, any>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "expected_action", "category"]);
    assert.deepEqual(body.expected_action, expectedCall);
    assert.equal(body.category, Category.EXPECTED_TOOL_CALL);
    assert.match(answer.text, /"reward":1\.0,/, "the reward is a Python float on the wire");
  });

  test("a batch expected_action comes back with its calls in the canonical shape", async () => {
    const expected = { type: "function_call_batch", calls: [{ ...expectedCall, extra: 1 }] };
    const body = (await verify(expected, [message("hi")])).json<Record<string, any>>();
    assert.deepEqual(body.expected_action, { type: "function_call_batch", calls: [expectedCall] });
  });
});

describe("rewards and categories (base config: threshold 0.1, call count not counted)", () => {
  test("no output, or reasoning only, is NO_ACTION_FOUND", async () => {
    assert.deepEqual(await scored(expectedCall, []), [0, Category.NO_ACTION_FOUND]);
    assert.deepEqual(await scored({ type: "message", content: "hi" }, [reasoning]), [0, Category.NO_ACTION_FOUND]);
  });

  test("the expected call matches; a numeric string where an int was expected does not", async () => {
    assert.deepEqual(await scored(expectedCall, [reasoning, functionCall("set_metric_count", { metric_name: "views", metric_count: 75 })]), [1, Category.EXPECTED_TOOL_CALL]);
    assert.deepEqual(await scored(expectedCall, [functionCall("set_metric_count", { metric_name: "views", metric_count: "75" })]), [0, Category.ARGUMENT_VALUE_TYPE_DIFFERENT]);
    assert.deepEqual(await scored(expectedCall, [functionCall("set_metric_count", '{"metric_name": "views", "metric_count": 75.0}')]), [0, Category.ARGUMENT_VALUE_TYPE_DIFFERENT]);
    assert.deepEqual(await scored(expectedCall, [functionCall("set_metric", { metric_name: "views", metric_count: 75 })]), [0, Category.UNEXPECTED_TOOL]);
    assert.deepEqual(await scored(expectedCall, [functionCall("set_metric_count", "metric_count=75")]), [0, Category.ARGUMENTS_DECODE_ERROR]);
  });

  test("a call after narration is judged on the call; a message alone is not a call", async () => {
    assert.deepEqual(await scored(expectedCall, [message("Setting it now."), functionCall("set_metric_count", { metric_name: "views", metric_count: 75 })]), [1, Category.EXPECTED_TOOL_CALL]);
    assert.deepEqual(await scored(expectedCall, [message("Which metric?")]), [0, Category.NO_EXPECTED_TOOL_CALL]);
  });

  test("an expected message is matched by any message and missed by a call", async () => {
    assert.deepEqual(await scored({ type: "message", content: "Anything" }, [message("Something else")]), [1, Category.EXPECTED_CHAT_MESSAGE_FOUND]);
    assert.deepEqual(await scored({ type: "message", content: "Anything" }, [message("x"), functionCall("f", {})]), [0, Category.NO_EXPECTED_CHAT_MESSAGE]);
  });

  test("surplus calls are free while parallel rewarding is off", async () => {
    const output = [functionCall("lookup", { q: "x" }, "a"), functionCall("set_metric_count", { metric_name: "views", metric_count: 75 }, "b")];
    assert.deepEqual(await scored(expectedCall, output), [1, Category.EXPECTED_TOOL_CALL]);
  });
});

describe("the parallel config (rewarding on, subset and superset admitted, f1)", () => {
  const alpha = { type: "function_call", name: "search", arguments: '{"query": "alpha"}' };
  const beta = { type: "function_call", name: "search", arguments: '{"query": "beta"}' };
  const expected = { type: "function_call_batch", calls: [alpha, beta] };

  test("the expected calls in any order score 1", async () => {
    assert.deepEqual(await scored(expected, [functionCall("search", { query: "beta" }, "b"), functionCall("search", { query: "alpha" }, "a")], "parallel"), [1, Category.EXPECTED_TOOL_CALL_BATCH]);
  });

  test("a missing call or a surplus call costs f1 credit", async () => {
    assert.deepEqual(await scored(expected, [functionCall("search", { query: "alpha" })], "parallel"), [2 / 3, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
    const withSurplus = [functionCall("search", { query: "alpha" }, "a"), functionCall("search", { query: "beta" }, "b"), functionCall("search", { query: "gamma" }, "c")];
    assert.deepEqual(await scored(expected, withSurplus, "parallel"), [0.8, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
    assert.deepEqual(await scored(expectedCall, [functionCall("set_metric_count", { metric_name: "views", metric_count: 75 }, "a"), functionCall("x", {}, "b")], "parallel"), [2 / 3, Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT]);
  });
});

describe("request validation", () => {
  test("a missing or malformed expected_action is a 422 naming it", async () => {
    for (const expected_action of [undefined, { type: "tool" }, { type: "function_call", name: "f" }, { type: "function_call", name: "f", arguments: { a: 1 } }, { type: "function_call_batch", calls: [] }, { type: "message", content: 5 }]) {
      const answer = await verify(expected_action, [message("x")]);
      assert.equal(answer.status, 422, JSON.stringify(expected_action));
      assert.equal(answer.json<any>().detail[0].loc[1], "expected_action", answer.text);
    }
  });

  test("an expected call whose arguments are not JSON fails the verify (500), as in NeMo Gym", async () => {
    const answer = await verify({ type: "function_call", name: "f", arguments: "not json" }, [functionCall("f", {})]);
    assert.equal(answer.status, 500);
    assert.match(answer.text, /JSONDecodeError/);
  });

  test("the server serves no tools", async () => {
    assert.deepEqual((await graph.server("pivot").get("/tools")).json(), []);
    assert.equal((await graph.server("pivot").post("/set_metric_count", {})).status, 404);
  });

  test("an instance without tool_call_comparator_config does not start", async () => {
    await assert.rejects(injectServers({ broken: [pivot, {}] }), /tool_call_comparator_config/);
  });
});

describe("shipped configs and data", () => {
  test("every NeMo Gym config is shipped, each pairing a resources server with a tool_simulation_agent", async () => {
    for (const name of ["", "parallel_tool_calls_", "droid_pivot_", "search_pivot_", "swe_pivot_", "toolcall_schema_"]) {
      const { resolved } = await loadGlobalConfig({ configPaths: [join(configDir, `${name}single_step_tool_use_with_argument_comparison.yaml`), "responses_api_models/scripted_model/configs/scripted_model.yaml"], overrides: [] });
      const serverName = `${name}single_step_tool_use_with_argument_comparison_resources_server`;
      const agentName = `${name}single_step_tool_use_with_argument_comparison_agent`;
      const server = (resolved[serverName] as any).resources_servers.single_step_tool_use_with_argument_comparison;
      assert.equal(typeof server.tool_call_comparator_config.word_count_similarity_threshold, "number", name);
      assert.equal((resolved[agentName] as any).responses_api_agents.tool_simulation_agent.resources_server.name, serverName);
    }
  });

  test("the example rows are valid /run requests with a valid expected_action (5 base, 5 parallel)", () => {
    for (const data of [rows, parallelRows]) {
      assert.equal(data.length, 5);
      assertRowsAreRunRequests(data);
      for (const row of data) assert.ok(ActionSchema.safeParse(row.expected_action).success, JSON.stringify(row.expected_action));
    }
    assert.ok(parallelRows.some((row) => row.expected_action.type === "function_call_batch"));
  });

  test("the expected action itself scores 1 on every example row", async () => {
    for (const [instance, data] of [["pivot", rows], ["parallel", parallelRows]] as const) {
      for (const row of data) {
        const action = row.expected_action;
        const output = action.type === "message" ? [message(action.content)] : (action.type === "function_call" ? [action] : action.calls).map((c: any, i: number) => functionCall(c.name, c.arguments, String(i)));
        const answer = await graph.server(instance).post("/verify", { ...row, response: response(output) });
        assert.equal(answer.json<{ reward: number }>().reward, 1, `${instance}: ${answer.text.slice(-300)}`);
      }
    }
  });

  test("every verifier case scores its expected reward (base config)", async () => {
    const cases = readVerifierCaseFile(join(dataDir, "verifier_cases.jsonl"));
    assert.deepEqual(new Set(cases.map((c) => c.case)), new Set(["full_reward", "zero_reward", "malformed"]));
    for (const verifierCase of cases) {
      const answer = await graph.server("pivot").post("/verify", caseVerifyRequest(verifierCase));
      assert.equal(answer.status, 200, answer.text);
      const body = answer.json<{ reward: number; category: string }>();
      assert.equal(body.reward, verifierCase.expected_reward, `verifier_cases.jsonl:${verifierCase.lineNumber} (${verifierCase.case}): ${body.category}`);
    }
  });
});
