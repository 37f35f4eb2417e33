// swe_pivot (through fastify inject): the categories, each level and its failure code, both reward modes and the
// diff-size shaping, where the expected call is found, NeMo Gym's exceptions as unknown_error, the response fields,
// and the authored data. tests/nemo-verify-cases.jsonl holds 81 requests (ours) with the fields NeMo Gym's own app.py
// (07d6b0d, run in Python) answered for each under the given config; every one must come back the same.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, caseVerifyRequest, functionCallItem, injectServers, readRows, readVerifierCaseFile, responseWith, type InjectedGraph } from "../../../src/testing/index.ts";
import swePivot from "../app.ts";
import { extractCommandVerb, pathSuffix, pathsInCommand, toolCategory } from "../pivot.ts";

// What NeMo Gym's verify returned for each verifier case (line → fields), default config.
const NEMO_CASE_FIELDS = JSON.parse(readFileSync(join(import.meta.dirname, "nemo-case-fields.json"), "utf8")) as Record<number, Item>;

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const nemoCases = readRows(join(import.meta.dirname, "nemo-verify-cases.jsonl")) as { label: string; config: Item; fields: Item; output: Item[]; nemo: Item }[];
const configs = [...new Set(nemoCases.map((c) => JSON.stringify(c.config)))];
const instanceOf = (config: Item) => `config_${configs.indexOf(JSON.stringify(config))}`;

let graph: InjectedGraph;
before(async () => {
  graph = await injectServers({
    ...Object.fromEntries(configs.map((config, i) => [`config_${i}`, [swePivot, JSON.parse(config)]])),
    continuous: [swePivot, { reward_mode: "continuous" }],
  });
});
after(() => graph.close());

const params = { input: [{ role: "user", content: "Fix the bug." }] };
const verify = (fields: Item, output: Item[], instance = "config_0") => graph.server(instance).post("/verify", { responses_create_params: params, ...fields, response: responseWith(output) });
const expected = (name: string, args: unknown) => ({ expected_action: { type: "function_call", name, arguments: JSON.stringify(args) } });

describe("NeMo Gym's answers", () => {
  test("every request of nemo-verify-cases.jsonl gets NeMo Gym's fields, values and order", async () => {
    for (const c of nemoCases) {
      const answer = await verify(c.fields, c.output, instanceOf(c.config));
      assert.equal(answer.status, 200, `${c.label}: ${answer.text}`);
      const { responses_create_params: _p, response: _r, ...fields } = answer.json<Item>();
      assert.deepEqual(fields, c.nemo, c.label);
      assert.deepEqual(Object.keys(fields), Object.keys(c.nemo), c.label);
    }
  });
});

describe("the tool categories", () => {
  test("the 63 names and their CamelCase forms, any case; anything else is unknown", () => {
    for (const [name, category] of [
      ["str_replace_editor", "edit"], ["StrReplaceEditor", "edit"], ["APPLY_PATCH", "edit"], ["ExecuteBash", "bash"], ["exec_command", "bash"],
      ["ListDirectory", "search"], ["ls", "search"], ["view", "read"], ["ReadFileContent", "read"], ["submit", "finish"], ["think", "think"], ["TodoWrite", "planning"],
      ["str-replace-editor", "unknown"], ["Bash_", "unknown"], ["", "unknown"],
    ] as const) assert.equal(toolCategory(name), category, name);
  });

  test("a name that is no string is Python's AttributeError", () => {
    assert.throws(() => toolCategory(5n), /'int' object has no attribute 'lower'/);
  });
});

describe("the extractors", () => {
  test("path suffixes, command verbs and the paths a command names", () => {
    assert.equal(pathSuffix("/workspace/src/components/index.js"), "src/components/index.js");
    assert.equal(pathSuffix("/a/b/", 2), "a/b");
    assert.equal(pathSuffix("x.py"), "x.py");
    assert.equal(extractCommandVerb("  /usr/local/bin/pytest -q"), "pytest");
    assert.equal(extractCommandVerb(""), "");
    assert.deepEqual(pathsInCommand(`grep -r 'foo' src/models/ && cat "./a.txt" --x=/etc/hosts ../up/x a/b`), ["src/models/", "./a.txt", "/etc/hosts", "../up/x", "a/b"]);
    assert.deepEqual(pathsInCommand("ls /a"), [], "two characters or fewer are left out");
    assert.deepEqual(pathsInCommand("cat dir/ünï.py"), ["dir/ünï.py"], "\\w is Unicode-wide, as in Python");
  });
});

describe("the verify response", () => {
  test("NeMo Gym's fields in order; expected_answer is the row's (or \"\"), never the expected call; row extras are not echoed", async () => {
    const answer = await verify({ uuid: "u1", ...expected("execute_bash", { command: "ls /w" }), metadata: { category: "bash" }, pivot_tags: ["P1"] }, [functionCallItem("execute_bash", { command: "ls /w" })]);
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "uuid", "expected_answer", "model_output", "tool_name_match", "target_match", "similarity_score", "diff_size_penalty", "failure_reason", "metadata"]);
    assert.match(answer.text, /"reward":1\.0,"uuid":"u1","expected_answer":"","model_output":"execute_bash\(\{\\"command\\": \\"ls \/w\\"\}\)","tool_name_match":true,"target_match":true,"similarity_score":1\.0,"diff_size_penalty":null,"failure_reason":"none","metadata":\{"category":"bash"\}\}$/);
  });

  test("continuous mode reports the diff-size penalty as a float, 0.0 for a call that is no edit", async () => {
    const answer = await verify(expected("execute_bash", { command: "ls /w" }), [functionCallItem("execute_bash", { command: "ls /w" })], "continuous");
    assert.match(answer.text, /"similarity_score":1\.0,"diff_size_penalty":0\.0,"failure_reason":"none"/);
  });

  test("model_output is the call with its decoded arguments as json.dumps writes them, cut at 500 characters", async () => {
    const body = (await verify(expected("finish", {}), [functionCallItem("finish", { message: "ü".repeat(600) })])).json<Item>();
    assert.equal(body.model_output, `finish(${'{"message": "'.concat("\\u00fc".repeat(600)).slice(0, 500)})`);
  });

  test("uuid, expected_answer, expected_action and metadata have NeMo Gym's types (a 422 naming the field)", async () => {
    for (const [field, value] of [["uuid", 1.5], ["expected_answer", 3], ["expected_action", "x"], ["metadata", [1]]] as const) {
      const answer = await verify({ [field]: value }, []);
      assert.equal(answer.status, 422, field);
      assert.equal(answer.json<any>().detail[0].loc[1], field);
    }
  });

  test("a message instead of a call is model_output_invalid; no expected call at all is expected_action_invalid", async () => {
    const noCall = (await verify(expected("finish", {}), [assistantMessage("done")])).json<Item>();
    assert.deepEqual([noCall.reward, noCall.failure_reason, noCall.model_output], [0, "model_output_invalid", "(no function_call in response)"]);
    const noExpected = (await verify({}, [functionCallItem("finish", {})])).json<Item>();
    assert.deepEqual([noExpected.reward, noExpected.failure_reason, noExpected.model_output], [0, "expected_action_invalid", ""]);
  });
});

describe("the data", () => {
  test("example rows are /run requests with an expected function call", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.equal((row.expected_action as Item).type, "function_call");
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(graph.server("config_0"), join(dataDir, "verifier_cases.jsonl"), { minCases: 10, kinds: ["full_reward", "zero_reward", "malformed"] }));

  test("verifier cases: every field as NeMo Gym's verify gave it", async () => {
    for (const verifierCase of readVerifierCaseFile(join(dataDir, "verifier_cases.jsonl"))) {
      const { responses_create_params: _p, response: _r, ...fields } = (await graph.server("config_0").post("/verify", caseVerifyRequest(verifierCase))).json<Item>();
      assert.deepEqual(fields, NEMO_CASE_FIELDS[verifierCase.lineNumber], `line ${verifierCase.lineNumber}`);
    }
  });
});
