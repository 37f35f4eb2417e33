// Verify over HTTP: the reward is 1.0 iff every ground-truth value is among the tool answers, exactly.
// Also: the example data, and data/verifier_cases.jsonl played as `gym env test` plays it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, http, type InProcessGraph, readRows, startServers } from "../../../src/testing/index.ts";
import calculator from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const cases = readRows(join(import.meta.dirname, "../data/verifier_cases.jsonl"));
let graph: InProcessGraph;
const client = http();
const post = (path: string, json: unknown) => client.request(`${graph.url("math")}${path}`, { method: "POST", json });

before(async () => (graph = await startServers({ math: [calculator] })));
after(async () => {
  await graph.close();
  await client.close();
});

type Call = { name: string; arguments: unknown; output: string };

/** A rollout's response: each call with its output, then the final message. */
function responseWith(calls: Call[], text = "done") {
  const output: unknown[] = calls.flatMap((c, i) => [
    { type: "function_call", name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments), call_id: `c${i}` },
    { type: "function_call_output", call_id: `c${i}`, output: c.output },
  ]);
  output.push({ id: "m", type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
  return { id: "r", created_at: 1, model: "m", object: "response", output, parallel_tool_calls: false, tool_choice: "auto", tools: [] };
}
const answer = (solution: number | string): Call => ({ name: "return_constant", arguments: { a: solution }, output: `{"solution":${solution}}` });
const fields = { responses_create_params: { input: "x" }, id: 7, depth: 1, breadth: 2 };
const verify = async (groundTruth: unknown, calls: Call[], text?: string) => {
  const verified = await post("/verify", { ...fields, ground_truth: groundTruth, response: responseWith(calls, text) });
  assert.equal(verified.status, 200, verified.text);
  return verified.json<{ reward: number }>().reward;
};

test("every ground-truth value among the tool answers scores 1.0, whatever the final text says", async () => {
  assert.equal(await verify("[-3.0, 0.5]", [answer(0.5), answer(-3)], "I could not do it"), 1);
  assert.equal(await verify("[-3.0, 0.5]", [answer(-3)], "-3.0 and 0.5"), 0);
});

test("a close answer is a wrong answer: equality is exact", async () => {
  assert.equal(await verify("[5.800000000000001]", [answer(5.8)]), 0);
  assert.equal(await verify("[0.8855195169413194]", [answer(0.8855195169413189)]), 0);
  assert.equal(await verify("[0.8855195169413194]", [answer(0.8855195169413194)]), 1);
});

test("order, extra answers and repeated ground-truth values do not matter", async () => {
  assert.equal(await verify("[2.718281828459045, 7.2, 2.718281828459045]", [answer(1), answer(7.2), answer(2.718281828459045)]), 1);
  assert.equal(await verify("[]", []), 1);
});

test("answers are read as float(json.loads(output)['solution']); anything else counts as None", async () => {
  assert.equal(await verify("[11.2]", [{ name: "add", arguments: {}, output: '{"solution": "11.2"}' }]), 1);
  assert.equal(await verify("[1.0]", [{ name: "add", arguments: {}, output: '{"solution": true}' }]), 1);
  for (const output of ['{"detail":"float division by zero"}', "not json", '{"solution":null}', "[11.2]", '{"solution":[11.2]}']) {
    assert.equal(await verify("[11.2]", [{ name: "add", arguments: {}, output }]), 0, output);
  }
  // Python's quirk, kept: a null ground truth is "found" among the None answers.
  assert.equal(await verify("[null]", [{ name: "add", arguments: {}, output: "oops" }]), 1);
});

test("NaN and Infinity are read as Python's json reads them; a NaN answer finds a NaN ground truth (json's one shared NaN object)", async () => {
  assert.equal(await verify("[Infinity]", [{ name: "x", arguments: {}, output: '{"solution": Infinity}' }]), 1);
  assert.equal(await verify("[NaN]", [{ name: "x", arguments: {}, output: '{"solution": NaN}' }]), 1);
  assert.equal(await verify("[NaN]", [{ name: "x", arguments: {}, output: '{"solution": 1.5}' }]), 0);
});

test("the verify response is the params, the response and a float reward: NeMo Gym adds no other field", async () => {
  const verified = await post("/verify", { ...fields, ground_truth: "[5.0]", response: responseWith([answer(5)]) });
  assert.deepEqual(Object.keys(verified.json<object>()), ["responses_create_params", "response", "reward"]);
  assert.match(verified.text, /"reward":1\.0/);
});

test("verify needs ground_truth, id, depth and breadth (422 naming the field); ints may come as strings", async () => {
  const missing = await post("/verify", { responses_create_params: { input: "x" }, ground_truth: "[]", id: 1, breadth: 1, response: responseWith([]) });
  assert.equal(missing.status, 422);
  assert.deepEqual(missing.json<any>().detail.map((d: { loc: unknown }) => d.loc), [["body", "depth"]]);
  assert.equal((await post("/verify", { ...fields, breadth: "1", ground_truth: "[]", response: responseWith([]) })).status, 200);
});

test("a ground truth that is a list, not a JSON string, fails as NeMo Gym's json.loads does (500)", async () => {
  const answered = await post("/verify", { ...fields, ground_truth: [1.0], response: responseWith([]) });
  assert.equal(answered.status, 500);
  assert.match(answered.json<string>(), /^TypeError\('the JSON object must be str, bytes or bytearray, not list'\)$/);
});

test("the example data has 5 valid rows offering exactly the served tools", () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assertRowToolsMatchServer(rows, calculator.toolDefinitions);
});

test("each example row's ground truth is what the tools compute for its prompt", async () => {
  const tool = async (name: string, args: object) => (await post(`/${name}`, args)).json<{ solution: number }>().solution;
  const plans: (() => Promise<number[]>)[] = [
    async () => [await tool("add", { a: 7, b: 3 }), await tool("cos", { radians: 2 }), await tool("divide", { a: 5, b: 4 })],
    async () => [await tool("log", { a: await tool("multiply", { a: 6, b: 2 }), base: 3 })],
    async () => [await tool("pi", {}), await tool("negate", { a: 4 }), await tool("power", { a: 3, b: 2 })],
    async () => [await tool("sin", { radians: await tool("subtract", { a: 9, b: await tool("divide", { a: 2, b: 5 }) }) })],
    async () => [
      await tool("multiply", { a: await tool("add", { a: 1, b: 2 }), b: await tool("subtract", { a: 8, b: 1 }) }),
      await tool("cos", { radians: await tool("pi", {}) }),
    ],
  ];
  for (const [i, row] of rows.entries()) assert.deepEqual(await plans[i]!(), JSON.parse(row.ground_truth), `row ${i + 1}`);
});

test("data/verifier_cases.jsonl: every case gets its expected reward, played as `gym env test` plays it", async () => {
  assert.deepEqual([...new Set(cases.map((c) => c.case))].sort(), ["full_reward", "malformed", "zero_reward"]);
  for (const [i, verifierCase] of cases.entries()) {
    const played: Call[] = [];
    for (const c of verifierCase.tool_calls as { name: string; arguments: unknown }[]) {
      const text = typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments);
      let args: unknown;
      try {
        args = JSON.parse(text);
      } catch (error) {
        played.push({ name: c.name, arguments: text, output: JSON.stringify({ error: `Invalid tool call arguments: ${(error as Error).message}` }) });
        continue;
      }
      played.push({ name: c.name, arguments: text, output: (await post(`/${c.name}`, args)).text });
    }
    const verified = await post("/verify", { ...verifierCase.row, response: responseWith(played, verifierCase.output_text) });
    assert.equal(verified.json<{ reward: number }>().reward, verifierCase.expected_reward, `case ${i + 1} (${verifierCase.case})`);
  }
});

test("ground truth is read with Python's int/float distinction: ints compare exactly, a float is not iterable", async () => {
  // 12345678901234567890 != float(12345678901234567890) in Python; JSON.parse would have rounded both alike.
  assert.equal(await verify("[12345678901234567890]", [{ name: "x", arguments: {}, output: '{"solution": 12345678901234567890}' }]), 0);
  assert.equal(await verify("[12345678901234567168]", [{ name: "x", arguments: {}, output: '{"solution": 12345678901234567890}' }]), 1);
  assert.equal(await verify("[3]", [{ name: "x", arguments: {}, output: '{"solution": 3.0}' }]), 1);
  // float() of an int too large for a double is OverflowError in Python: that answer counts as None.
  assert.equal(await verify("[Infinity]", [{ name: "x", arguments: {}, output: `{"solution": ${"9".repeat(400)}}` }]), 0);
  const answered = await post("/verify", { ...fields, ground_truth: "1.0", response: responseWith([]) });
  assert.equal(answered.status, 500);
  assert.match(answered.json<string>(), /^TypeError\("'float' object is not iterable"\)$/);
});
