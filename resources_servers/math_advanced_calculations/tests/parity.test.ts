// Parity with NeMo Gym's Python server, from its reference data in ../shared (skipped when absent):
// its recorded rollouts re-verified here, its reference verify requests, and its dataset's ground truths,
// which CPython computed with the same deliberately wrong tools.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { assertParity, http, type InProcessGraph, parityLine, readRows, referenceLines, referenceRowsAsInputs, reverifyStored, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import calculator from "../app.ts";
import { pythonJsonLoads } from "../../../src/python/json.ts";

const rollouts = sharedDataFile("math_advanced_calculations/data/example_rollouts.jsonl");
const reference = sharedDataFile("math_advanced_calculations/parity/reference_verify.jsonl");
const dataset = sharedDataFile("math_advanced_calculations/data/example.jsonl");

let graph: InProcessGraph;
const client = http();
const post = (path: string, json: unknown, cookies?: Record<string, string>) => client.request(`${graph.url("math_advanced_calculations")}${path}`, { method: "POST", json, cookies });

before(async () => (graph = await startServers({ math_advanced_calculations: [calculator] })));
after(async () => {
  await graph.close();
  await client.close();
});

test("NeMo Gym's recorded rollouts re-verify to every stored reward, extra field and tool output", { skip: rollouts.skip || reference.skip }, async (t) => {
  // The rollout lines lack the dataset fields (ground_truth, id, …); the reference set joined them back by prompt.
  const report = await reverifyStored(graph, { rollouts: rollouts.path!, inputs: referenceRowsAsInputs(reference.path!), server: "math_advanced_calculations", verifyOnly: false, concurrency: 1 });
  for (const outcome of report.outcomes) t.diagnostic(parityLine(outcome));
  // NeMo Gym's verify response carries no field beyond params, response and reward.
  assertParity(report, { rows: 5, extraFields: [] });
  for (const outcome of report.outcomes) {
    assert.ok(outcome.toolCallsReplayed > 0);
    assert.equal(outcome.toolOutputsDifferent, 0, parityLine(outcome));
    assert.deepEqual(Object.keys(outcome.line!).filter((k) => !k.startsWith("_ng_")), ["responses_create_params", "response", "reward"]);
  }
});

test("NeMo Gym's reference verify requests give the expected reward and extra fields; their tool calls give the stored outputs", { skip: reference.skip }, async () => {
  const lines = referenceLines(reference.path!);
  assert.equal(lines.length, 10);
  for (const { lineNumber, request, expectedReward, expectedExtra } of lines) {
    const { response, ...row } = request;
    let cookies = (await post("/seed_session", row)).cookies;
    const outputs = new Map<string, string>(response.output.filter((o: any) => o.type === "function_call_output").map((o: any) => [o.call_id, o.output]));
    for (const item of response.output.filter((o: any) => o.type === "function_call")) {
      const answer = await post(`/${item.name}`, JSON.parse(item.arguments), cookies);
      cookies = { ...cookies, ...answer.cookies };
      assert.deepEqual(pythonJsonLoads(answer.text), pythonJsonLoads(outputs.get(item.call_id)!), `line ${lineNumber}: ${item.name} ${item.arguments}`);
    }
    const verified = (await post("/verify", request, cookies)).json<Record<string, unknown>>();
    assert.equal(verified.reward, expectedReward, `line ${lineNumber}`);
    for (const [key, value] of Object.entries(expectedExtra)) assert.deepEqual(verified[key], value, `line ${lineNumber}: ${key}`);
  }
});

// ---- the prompts' expressions, evaluated with our tools ----

type Node = { number: number } | { tool: string; args: Record<string, Node> };

/** Parses "(4.0 ** 6.0 / pi)", "cos((5.0 - log(5.0, (5.0 / 1.0))))", "-(5.0)" into tool calls (Python precedence). */
function parseExpression(text: string): Node {
  const tokens = text.match(/\d+\.\d+|\*\*|[-+*/(),]|[a-z]+/g)!;
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++]!;
    if (expected !== undefined && token !== expected) throw new Error(`expected ${expected}, got ${token} in ${text}`);
    return token;
  };
  const binary: Record<string, string> = { "+": "add", "-": "subtract", "*": "multiply", "/": "divide", "**": "power" };
  const additive = (): Node => {
    let left = multiplicative();
    while (peek() === "+" || peek() === "-") left = { tool: binary[take()]!, args: { a: left, b: multiplicative() } };
    return left;
  };
  const multiplicative = (): Node => {
    let left = power();
    while (peek() === "*" || peek() === "/") left = { tool: binary[take()]!, args: { a: left, b: power() } };
    return left;
  };
  const power = (): Node => {
    const base = unary();
    return peek() === "**" ? (take(), { tool: "power", args: { a: base, b: power() } }) : base;
  };
  const unary = (): Node => {
    if (peek() === "-") return take(), { tool: "negate", args: { a: unary() } };
    const token = take();
    if (token === "(") return [additive(), take(")")][0] as Node;
    if (token === "pi") return { tool: "pi", args: {} };
    if (token === "sin" || token === "cos") return take("("), [{ tool: token, args: { radians: additive() } }, take(")")][0] as Node;
    if (token === "log") {
      take("(");
      const a = additive();
      take(",");
      const base = additive();
      take(")");
      return { tool: "log", args: { a, base } };
    }
    return { number: Number(token) };
  };
  const node = additive();
  if (at !== tokens.length) throw new Error(`unparsed tail in ${text}`);
  return node;
}

/** The prompt's comma-separated expressions ("… values for A, B, and C using only the given tools."). */
function promptExpressions(prompt: string): string[] {
  const list = /values? for (.*) using only the given tools\.$/.exec(prompt)![1]!;
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of list) {
    if (ch === "," && depth === 0) (parts.push(current), (current = ""));
    else current += ch;
    depth += ch === "(" ? 1 : ch === ")" ? -1 : 0;
  }
  parts.push(current);
  return parts.map((p) => p.trim().replace(/^and /, ""));
}

test("the ground truths CPython computed for NeMo Gym's example prompts are what our tools compute", { skip: dataset.skip }, async () => {
  const evaluate = async (node: Node): Promise<number> => {
    if ("number" in node) return node.number;
    const args: Record<string, number> = {};
    for (const [name, child] of Object.entries(node.args)) args[name] = await evaluate(child);
    const answer = await post(`/${node.tool}`, args);
    assert.equal(answer.status, 200, `${node.tool} ${JSON.stringify(args)}: ${answer.text}`);
    return answer.json<{ solution: number }>().solution;
  };
  for (const row of readRows(dataset.path!)) {
    const prompt = row.responses_create_params.input[0].content as string;
    const values = [];
    for (const expression of promptExpressions(prompt)) values.push(await evaluate(parseExpression(expression)));
    assert.deepEqual(values, JSON.parse(row.ground_truth), prompt);
  }
});
