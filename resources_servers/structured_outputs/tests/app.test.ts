// structured_outputs' verify (through fastify inject): each error_type NeMo Gym reports, in text and tool-call mode, the
// schema strictification, XML/CSV coercion (and the xml_coerce_types switch), the echoed row fields in NeMo
// Gym's order, metrics, and the authored data and verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, functionCallItem, type InjectedGraph, injectServers, type Item, readRows, responseWith } from "../../../src/testing/index.ts";
import structuredOutputs from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");

let graph: InjectedGraph;
before(async () => (graph = await injectServers({ structured_outputs: [structuredOutputs], structured_outputs_raw_xml: [structuredOutputs, { xml_coerce_types: false }] })));
after(() => graph.close());

const params = { input: [{ role: "user", content: "question" }] };

const person = { type: "object", properties: { name: { type: "string" }, age: { type: "integer" }, active: { type: "boolean" } } };

async function verify(row: Item, output: Item[], instance = "structured_outputs", responseExtra: Item = {}) {
  const answer = await graph.server(instance).post("/verify", { responses_create_params: params, response: responseWith(output, responseExtra), ...row });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}
const text = (schemaType: string, answer: string, schema: unknown = person, instance?: string) =>
  verify({ schema_str: JSON.stringify(schema), schema_type: schemaType }, [assistantMessage(answer)], instance);
const toolCall = (calls: Item[], row: Item = {}, responseExtra: Item = {}) =>
  verify({ schema_str: JSON.stringify(person), response_mode: "tool_call", ...row }, calls, "structured_outputs", responseExtra);
const outcome = (body: Record<string, any>) => [body.reward, body.error_type];

describe("the verify response", () => {
  test("echoes every row field after reward, schema_str and schema_type, in NeMo Gym's order", async () => {
    const body = await verify({ schema_str: JSON.stringify(person), schema_type: "json", problem_type: "direct", num_tools: 3, has_distractors: false, extra_field: "ignored" }, [assistantMessage('{"name": "Ann", "age": 3, "active": true}')]);
    assert.deepEqual(Object.keys(body), [
      "responses_create_params", "response", "reward", "schema_str", "schema_type", "error_type", "error_message", "problem_type", "schema_repr", "source_format", "num_turns",
      "source_record_id", "response_mode", "tool_name", "tool_schema_mode", "tool_payload_key", "tool_choice", "parallel_tool_calls", "source_schema_type", "num_tools",
      "num_distractors", "has_distractors", "instruction_layout", "instruction_detail_level", "system_instruction_style", "tool_name_style", "distractor_style", "tool_union_mode",
    ]);
    assert.deepEqual([body.reward, body.error_type, body.problem_type, body.num_tools, body.has_distractors, body.response_mode, body.schema_repr], [1, null, "direct", 3, false, "text", null]);
  });

  test("a schema_type outside json/yaml/xml/toml/csv is a 422", async () => {
    const answer = await graph.server("structured_outputs").post("/verify", { responses_create_params: params, response: responseWith([assistantMessage("{}")]), schema_str: "{}", schema_type: "ini" });
    assert.equal(answer.status, 422);
    assert.match(answer.text, /schema_type/);
  });
});

describe("text mode", () => {
  test("the whole text must parse: a code fence around JSON is a parse_error with json's message", async () => {
    assert.deepEqual(outcome(await text("json", '{"name": "Ann", "age": 3, "active": true}')), [1, null]);
    const fenced = await text("json", '```json\n{"name": "Ann", "age": 3, "active": true}\n```');
    assert.deepEqual([fenced.reward, fenced.error_type, fenced.error_message], [0, "parse_error", "JSONDecodeError: Expecting value: line 1 column 1 (char 0)"]);
  });

  test("blank text is empty_response; an unparsable schema is schema_error", async () => {
    const blank = await text("json", " \n\t");
    assert.deepEqual([blank.reward, blank.error_type, blank.error_message], [0, "empty_response", "No assistant response text"]);
    const badSchema = await verify({ schema_str: "{not json" }, [assistantMessage("{}")]);
    assert.deepEqual([badSchema.error_type, badSchema.error_message], ["schema_error", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"]);
  });

  test("the schema is strictified: every property required, no others allowed — nested too", async () => {
    const missing = await text("json", '{"name": "Ann", "age": 3}');
    assert.equal(missing.error_type, "validation_error");
    assert.equal(
      missing.error_message,
      "ValidationError: 'active' is a required property\n\nFailed validating 'required' in schema:\n    {'type': 'object',\n     'properties': {'name': {'type': 'string'},\n                    'age': {'type': 'integer'},\n        ",
      "jsonschema's text, cut at 200 characters (produced by python3)",
    );
    const extra = await text("json", '{"name": "Ann", "age": 3, "active": true, "x": 1}');
    assert.equal(extra.error_type, "validation_error");
    const nested = { type: "object", properties: { p: { type: "array", items: person } } };
    assert.deepEqual(outcome(await text("json", '{"p": [{"name": "Ann", "age": 3}]}', nested)), [0, "validation_error"]);
  });

  test("schemas inside anyOf lists are not strictified (NeMo Gym only walks dict values)", async () => {
    const schema = { type: "object", properties: { v: { anyOf: [{ type: "object", properties: { a: { type: "integer" } } }, { type: "string" }] } } };
    assert.deepEqual(outcome(await text("json", '{"v": {"b": 1}}', schema)), [1, null]);
  });

  test("format is not checked and nullable is not a keyword", async () => {
    const schema = { type: "object", properties: { email: { type: "string", format: "email" }, n: { type: "string", nullable: true } } };
    assert.deepEqual(outcome(await text("json", '{"email": "not-an-email", "n": "x"}', schema)), [1, null]);
    assert.deepEqual(outcome(await text("json", '{"email": "a@b.c", "n": null}', schema)), [0, "validation_error"]);
  });

  test("YAML is typed as PyYAML types it: yes is a boolean, an unquoted date is not a string", async () => {
    assert.deepEqual(outcome(await text("yaml", "name: Ann\nage: 3\nactive: yes\n")), [1, null]);
    const schema = { type: "object", properties: { when: { type: "string" } } };
    const date = await text("yaml", "when: 2024-01-15\n", schema);
    assert.deepEqual([date.error_type, date.error_message], ["validation_error", "ValidationError: datetime.date(2024, 1, 15) is not of type 'string'\n\nFailed validating 'type' in schema['properties']['when']:\n    {'type': 'string'}\n\nOn instance['when']:\n    datetime.date(2024, 1, 15)"]);
    assert.deepEqual(outcome(await text("yaml", "when: '2024-01-15'\n", schema)), [1, null]);
  });

  test("XML: the root tag is a key, leaves are coerced to the schema's types, arrays unwrapped", async () => {
    const schema = { type: "object", properties: { person: { type: "object", properties: { name: { type: "string" }, age: { type: "integer" }, active: { type: "boolean" }, tags: { type: "array", items: { type: "string" } }, note: { type: "string" } } } } };
    const xml = "<person><name>Ann</name><age>3</age><active>TRUE</active><tags><tag>a</tag><tag>b</tag></tags><note/></person>";
    assert.deepEqual(outcome(await text("xml", xml, schema)), [1, null]);
    assert.deepEqual(outcome(await text("xml", xml.replace("<tags><tag>a</tag><tag>b</tag></tags>", "<tags><tag>a</tag></tags>"), schema)), [1, null]);
    assert.deepEqual(outcome(await text("xml", xml.replace("<age>3</age>", "<age>three</age>"), schema)), [0, "validation_error"]);
    // Without the person wrapper in the schema, the root key is an additional property.
    assert.deepEqual(outcome(await text("xml", xml, person)), [0, "validation_error"]);
  });

  test("with xml_coerce_types off, XML leaves stay strings", async () => {
    const schema = { type: "object", properties: { n: { type: "integer" } } };
    assert.deepEqual(outcome(await text("xml", "<n>3</n>", schema)), [1, null]);
    assert.deepEqual(outcome(await text("xml", "<n>3</n>", schema, "structured_outputs_raw_xml")), [0, "validation_error"]);
  });

  test("XML that is not well-formed is a parse_error with expat's message", async () => {
    const body = await text("xml", "Here it is:\n<person/>");
    assert.deepEqual([body.error_type, body.error_message], ["parse_error", "ExpatError: syntax error: line 1, column 0"]);
  });

  test("CSV rows are coerced per column; an empty cell is None where null is allowed", async () => {
    const schema = { type: "array", items: { type: "object", properties: { n: { type: "integer" }, x: { type: ["number", "null"] }, ok: { type: "boolean" } } } };
    assert.deepEqual(outcome(await text("csv", "n,x,ok\n1,2.5,true\n2,,0\n", schema)), [1, null]);
    assert.deepEqual(outcome(await text("csv", "n,x,ok\none,2.5,true\n", schema)), [0, "validation_error"]);
    assert.deepEqual(outcome(await text("csv", "n,x,ok,extra\n1,2.5,true,9\n", schema)), [0, "validation_error"]);
  });

  test("TOML parses with tomllib's rules", async () => {
    assert.deepEqual(outcome(await text("toml", 'name = "Ann"\nage = 3\nactive = true\n')), [1, null]);
    assert.deepEqual(outcome(await text("toml", "name = Ann\n")), [0, "parse_error"]);
  });
});

describe("tool-call mode", () => {
  const good = { name: "Ann", age: 3, active: true };

  test("the single call's arguments, or one key of them, are validated", async () => {
    assert.deepEqual(outcome(await toolCall([functionCallItem("save", good)])), [1, null]);
    assert.deepEqual(outcome(await toolCall([functionCallItem("save", { person: good })], { tool_name: "save", tool_payload_key: "person" })), [1, null]);
    assert.deepEqual(outcome(await toolCall([functionCallItem("save", { person: { name: "Ann" } })], { tool_payload_key: "person" })), [0, "validation_error"]);
  });

  test("each failure has NeMo Gym's error_type and message", async () => {
    const cases: [Item[], Item, string, string][] = [
      [[assistantMessage("text only")], {}, "missing_tool_call", "No function_call item found in assistant response"],
      [[functionCallItem("a", good), functionCallItem("b", good)], {}, "multiple_tool_calls", "Expected exactly one function_call, got: a, b"],
      [[functionCallItem("other", good)], { tool_name: "save" }, "wrong_tool_name", "Expected tool 'save', got: other"],
      [[functionCallItem("save", '{"name": ')], {}, "tool_arguments_parse_error", "JSONDecodeError: Expecting value: line 1 column 10 (char 9)"],
      [[functionCallItem("save", good)], { tool_payload_key: "person" }, "missing_tool_payload_key", "Missing tool payload key: person"],
      [[functionCallItem("save", [1])], { tool_payload_key: "person" }, "missing_tool_payload_key", "Missing tool payload key: person"],
    ];
    for (const [output, row, errorType, errorMessage] of cases) {
      const body = await toolCall(output, row);
      assert.deepEqual([body.reward, body.error_type, body.error_message], [0, errorType, errorMessage], errorType);
    }
  });

  test("a response error is api_error", async () => {
    const body = await toolCall([functionCallItem("save", good)], {}, { error: { code: "server_error", message: "boom" } });
    assert.deepEqual([body.reward, body.error_type, body.error_message], [0, "api_error", "code='server_error' message='boom'"]);
  });

  test("a text-mode answer in tool-call mode is missing_tool_call, whatever the text", async () => {
    assert.deepEqual(outcome(await toolCall([assistantMessage(JSON.stringify(good))])), [0, "missing_tool_call"]);
  });
});

describe("metrics and data", () => {
  test("mean reward per format and per row attribute, as compute_metrics groups them", async () => {
    const records = [
      { reward: 1, schema_type: "json", problem_type: "direct", parallel_tool_calls: false, num_tools: 2, has_distractors: true, response_mode: "tool_call", _ng_task_index: 0, _ng_rollout_index: 0 },
      { reward: 0, schema_type: "json", problem_type: "direct", parallel_tool_calls: null, num_tools: 2, has_distractors: false, response_mode: "text", _ng_task_index: 1, _ng_rollout_index: 0 },
      { reward: 1, schema_type: "yaml", problem_type: "", _ng_task_index: 2, _ng_rollout_index: 0 },
    ];
    const answer = await graph.server("structured_outputs").post("/aggregate_metrics", { verify_responses: records.map((r) => ({ responses_create_params: params, response: responseWith([]), ...r })) });
    assert.equal(answer.status, 200, answer.text);
    const metrics = answer.json<any>().agent_metrics;
    assert.equal(metrics["mean/reward_json"], 0.5);
    assert.equal(metrics["mean/reward_yaml"], 1);
    assert.equal(metrics["mean/reward_direct"], 0.5);
    assert.equal(metrics["mean/reward_parallel_tool_calls_false"], 1);
    assert.equal(metrics["mean/reward_num_tools_2"], 0.5);
    assert.equal(metrics["mean/reward_has_distractors_true"], 1);
    assert.equal(metrics["mean/reward_has_distractors_false"], 0);
    assert.equal(metrics["mean/reward_response_mode_tool_call"], 1);
    assert.equal(metrics["mean/reward_"], undefined, "an empty problem_type is not a group");
  });

  test("the example rows are valid run requests", () => {
    assertRowsAreRunRequests(readRows(join(dataDir, "example.jsonl")));
  });

  test("every verifier case scores its expected reward", async () => {
    await assertVerifierCasesScore(graph.server("structured_outputs"), join(dataDir, "verifier_cases.jsonl"));
  });
});
