import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { type InjectedServer, injectServer, readRows, startServers } from "../../../src/testing/index.ts";
import { calculatorResultText, evaluateSafeMath } from "../../../src/ports/aviary/safe-math.ts";
import { CalculatorEnv } from "../../../src/ports/aviary/gsm8k.ts";
import gsm8k from "../gsm8k_app.ts";
import hypotest from "../hypotest_app.ts";

const PROBLEMS = join(import.meta.dirname, "../data/gsm8k_problems.jsonl");
let env: InjectedServer;
before(async () => (env = await injectServer(gsm8k, { gsm8k_jsonl_fpath: PROBLEMS }, { instanceName: "gsm8k" })));
after(() => env.close());

/** What aviary's calculator tool answers for an expression. */
function calculate(expr: unknown): string {
  return new CalculatorEnv(null, "p", 1).calculator(expr)[0];
}

test("the calculator evaluates Python arithmetic with Python's number semantics, and makes integral floats ints", () => {
  const cases: [string, string][] = [
    ["1 + 1", "2"],
    ["12 * (50 / 60)", "10"],
    ["100 / 3", "33.333333333333336"],
    ["7 // 2", "3"],
    ["-7 // 2", "-4"],
    ["-7 % 3", "2"],
    ["7.5 % -2", "-0.5"],
    ["2 ** 10", "1024"],
    ["2 ** -1", "0.5"],
    ["-2 ** 2", "-4"],
    ["2 ** 3 ** 2", "512"],
    ["2 ** 100", "1267650600228229401496703205376"],
    ["1e20", "100000000000000000000"],
    ["0.1 + 0.2", "0.30000000000000004"],
    ["round(2.5)", "2"],
    ["round(3.14159, 2)", "3.14"],
    ["round(2.567, ndigits=1)", "3"],
    ["abs(-3.5)", "3.5"],
    ["min(4, 2.0, 3)", "2"],
    ["max(1, 2)", "2"],
    ["True + 1", "2"],
    ["1_000 * 3", "3000"],
    ["0x10 + 0b11", "19"],
    ["  3 * 4  ", "12"],
  ];
  for (const [expr, expected] of cases) assert.equal(calculate(expr), expected, expr);
});

test("the calculator refuses every other expression with aviary's error text, reward -1 and done", () => {
  const cases: [unknown, string][] = [
    ["1 / 0", "Error using calculator: ValueError('Division by zero is not allowed')."],
    ["5 % 0", "Error using calculator: ValueError('Division by zero is not allowed')."],
    ["x + 1", `Error using calculator: ValueError("Invalid mathematical expression: Unsupported AST node type: <class 'ast.Name'>").`],
    ["__import__('os')", "Error using calculator: ValueError('Invalid mathematical expression: Unsupported function: __import__')."],
    ["__import__('os').system('ls')", "Error using calculator: ValueError('Invalid mathematical expression: Only simple function calls are supported')."],
    ["math.sqrt(2)", "Error using calculator: ValueError('Invalid mathematical expression: Only simple function calls are supported')."],
    ["1 << 2", `Error using calculator: ValueError("Invalid mathematical expression: Unsupported operation: <class 'ast.LShift'>").`],
    ["~1", `Error using calculator: ValueError("Invalid mathematical expression: Unsupported unary operation: <class 'ast.Invert'>").`],
    ["'a'", `Error using calculator: ValueError("Invalid mathematical expression: Unsupported constant type: <class 'str'>").`],
    ["1 < 2", `Error using calculator: ValueError("Invalid mathematical expression: Unsupported AST node type: <class 'ast.Compare'>").`],
    ["[1, 2]", `Error using calculator: ValueError("Invalid mathematical expression: Unsupported AST node type: <class 'ast.List'>").`],
    ["sum(1, 2)", `Error using calculator: ValueError("Invalid mathematical expression: 'int' object is not iterable").`],
    ["1 +", "Error using calculator: ValueError('Invalid mathematical expression: invalid syntax (<unknown>, line 1)')."],
    ["10.0 ** 400", "Error using calculator: OverflowError(34, 'Numerical result out of range')."],
    ["1e308 * 10", "Error using calculator: OverflowError('cannot convert float infinity to integer')."],
    ["(-8) ** 0.5", `Error using calculator: TypeError("int() argument must be a string, a bytes-like object or a real number, not 'complex'").`],
    [12, `Error using calculator: AttributeError("'int' object has no attribute 'strip'").`],
  ];
  for (const [expr, expected] of cases) {
    const [text, reward, done] = new CalculatorEnv(null, "p", 1).calculator(expr);
    assert.equal(text, expected, String(expr));
    assert.equal(reward, -1);
    assert.equal(done, true);
  }
});

test("the calculator never runs code: a name, an attribute or a lambda is only ever a node it refuses", () => {
  for (const expr of ["globalThis", "process.exit()", "(lambda: 1)()", "[x for x in (1,)]", "f'{1}'"]) assert.match(calculate(expr), /^Error using calculator: /, expr);
  assert.equal(calculatorResultText(evaluateSafeMath("(((1)))")), "1");
});

test("seed_session resets the task: its problem as the user message and aviary's two tools, strict", async () => {
  const seeded = await env.post("/seed_session", { task_idx: 0 });
  assert.equal(seeded.status, 200);
  const body = seeded.json<any>();
  assert.match(body.env_id, /^[0-9a-f-]{36}$/);
  // Task 0 of the train split is row 1 (aviary drops index % 5 == 0).
  assert.deepEqual(body.obs, [{ content: "Mina reads 15 pages a day for 6 days, then 20 pages on the seventh day. How many pages does she read that week?", role: "user", type: "message" }]);
  assert.deepEqual(body.tools[0], {
    name: "calculator",
    parameters: { type: "object", properties: { expr: { description: "A valid Python expression.", title: "Expr", type: "string" } }, required: ["expr"], additionalProperties: false },
    strict: true,
    type: "function",
    description: "Calculate a mathematical expression.",
  });
  assert.equal(body.tools[1].name, "submit_answer");
  assert.equal(body.tools[1].description, "Submit the proposed answer and check if it is correct. This action is terminal.");
});

const call = (name: string, args: unknown, id = `call_${name}`) => ({ type: "function_call", call_id: id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) });
const response = (envId: string) => ({ id: "r", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [], env_id: envId, group_id: "0", contains_transitions: true });

async function seed(taskIdx = 0): Promise<string> {
  return (await env.post("/seed_session", { task_idx: taskIdx })).json<{ env_id: string }>().env_id;
}

test("a step runs the calls in order; a correct submit_answer ends with reward 1, which verify reports as the sum", async () => {
  const envId = await seed(0);
  const first = await env.post("/step", { env_id: envId, action: [call("calculator", { expr: "15 * 6" }, "a"), call("calculator", { expr: "90 + 20" }, "b")] });
  assert.deepEqual(first.json(), {
    obs: [
      { call_id: "a", output: "90", type: "function_call_output", id: null, status: null },
      { call_id: "b", output: "110", type: "function_call_output", id: null, status: null },
    ],
    reward: 0,
    done: false,
  });
  assert.match(first.text, /"reward":0\.0/);
  const submitted = await env.post("/step", { env_id: envId, action: [call("submit_answer", { answer: "110" })] });
  assert.deepEqual(submitted.json<any>().obs[0].output, "True");
  assert.equal(submitted.json<any>().done, true);
  const verified = await env.post("/verify", { responses_create_params: { input: [] }, response: response(envId), task_idx: 0 });
  assert.equal(verified.json<any>().reward, 1);
  assert.equal(verified.json<any>().task_idx, 0);
});

test("a wrong answer scores 0 and an unparsable one -1; both end the episode", async () => {
  for (const [answer, output, reward] of [["111", "False", 0], ["about 110", "False", -1], ["110.005", "True", 1]] as const) {
    const envId = await seed(0);
    const stepped = (await env.post("/step", { env_id: envId, action: [call("submit_answer", { answer })] })).json<any>();
    assert.deepEqual([stepped.obs[0].output, stepped.reward, stepped.done], [output, reward, true], answer);
  }
});

test("unknown tools get an empty output; alone they cost -1 each and end the episode", async () => {
  const envId = await seed(1);
  const mixed = (await env.post("/step", { env_id: envId, action: [call("search", { q: 1 }, "x"), call("calculator", { expr: "2*3" }, "y")] })).json<any>();
  assert.deepEqual(mixed.obs.map((o: any) => [o.call_id, o.output]), [["y", "6"], ["x", ""]]);
  assert.equal(mixed.reward, 0);
  const alone = (await env.post("/step", { env_id: envId, action: [call("search", {}, "p"), call("browse", {}, "q")] })).json<any>();
  assert.deepEqual([alone.reward, alone.done], [-2, true]);
});

test("an empty action is told to call a tool (-1, done); arguments that are not JSON get NeMo Gym's user message", async () => {
  const envId = await seed(2);
  const empty = (await env.post("/step", { env_id: envId, action: [] })).json<any>();
  assert.deepEqual(empty, { obs: [{ content: "Must call one of the provided tools (calculator or submit_answer).", role: "user", type: "message" }], reward: -1, done: true });
  const broken = (await env.post("/step", { env_id: envId, action: [call("calculator", "{expr: 1")] })).json<any>();
  assert.deepEqual(broken, { obs: [{ content: "Invalid tool call arguments (not a valid JSON)", role: "user", type: "message" }], reward: 0, done: false });
  const verified = await env.post("/verify", { responses_create_params: { input: [] }, response: response(envId) });
  assert.equal(verified.json<any>().reward, -1);
});

test("a tool called with the wrong keywords fails the step as aviary raises (500 naming the TypeError)", async () => {
  const envId = await seed(2);
  const answer = await env.post("/step", { env_id: envId, action: [call("calculator", { expression: "1" })] });
  assert.equal(answer.status, 500);
  assert.match(answer.text, /TypeError.*unexpected keyword argument 'expression'/);
});

test("bad requests are 4xx naming what is wrong: no task_idx, an index out of range, an unknown env_id", async () => {
  const noIndex = await env.post("/seed_session", { responses_create_params: { input: [] } });
  assert.equal(noIndex.status, 422);
  assert.deepEqual(noIndex.json<any>().detail[0].loc, ["body", "task_idx"]);
  const outOfRange = await env.post("/seed_session", { task_idx: 8 });
  assert.equal(outOfRange.status, 422);
  assert.match(outOfRange.text, /task_idx 8 is out of range: the train split has 8 tasks/);
  const unknown = await env.post("/step", { env_id: "nope", action: [] });
  assert.equal(unknown.status, 404);
  assert.match(unknown.text, /env_id 'nope'/);
  const noEnvId = await env.post("/verify", { responses_create_params: { input: [] }, response: { output: [] } });
  assert.equal(noEnvId.status, 422);
});

test("an environment that never stepped verifies to 0.0, as NeMo Gym's defaultdict; close succeeds once", async () => {
  const envId = await seed(3);
  assert.equal((await env.post("/verify", { responses_create_params: { input: [] }, response: response(envId) })).json<any>().reward, 0);
  assert.deepEqual((await env.post("/close", { env_id: envId })).json(), { message: "Success", success: true });
  assert.deepEqual((await env.post("/close", { env_id: envId })).json(), { message: `KeyError('${envId}')`, success: false });
});

test("without gsm8k_jsonl_fpath a seed is a 501 naming the key", async () => {
  const bare = await injectServer(gsm8k, {}, { instanceName: "bare" });
  try {
    const answer = await bare.post("/seed_session", { task_idx: 0 });
    assert.equal(answer.status, 501);
    assert.match(answer.text, /gsm8k_jsonl_fpath/);
  } finally {
    await bare.close();
  }
});

test("an entrypoint this port does not run (hypotest_app.py) fails to start, saying why", async () => {
  await assert.rejects(startServers({ bbh: [hypotest, {}] }), /hypotest_app\.py \(HypotestResourcesServer\) is not ported: .*hypotest/);
});

test("the example rows are task indices of the example problems (the last five of the ten)", () => {
  const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
  assert.equal(rows.length, 5);
  for (const [i, row] of rows.entries()) assert.deepEqual([row.task_idx, row.responses_create_params], [5 + i, { input: [] }]);
});

// ---- HotPotQA ----

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import hotpotqa from "../hotpotqa_app.ts";
import { cleanStr, normalizeAnswer } from "../../../src/ports/aviary/hotpotqa.ts";
import { parseWikipediaSearchPage, wikipediaSearchBackend } from "../../../src/ports/aviary/wikipedia.ts";

const QUESTIONS = join(import.meta.dirname, "../data/hotpotqa_example_questions.jsonl");
const FIXTURE = join(import.meta.dirname, "../data/wikipedia_fixture.jsonl");

async function hotpot(run: (server: InjectedServer, step: (envId: string, name: string, args: unknown) => Promise<any>) => Promise<void>) {
  const server = await injectServer(hotpotqa, { hotpotqa_jsonl_fpath: QUESTIONS, wikipedia_fixture_jsonl_fpath: FIXTURE }, { instanceName: "hotpotqa" });
  const step = async (envId: string, name: string, args: unknown) => (await server.post("/step", { env_id: envId, action: [call(name, args)] })).json<any>();
  try {
    await run(server, step);
  } finally {
    await server.close();
  }
}

test("HotPotQA: search shows the article's first five sentences, lookup walks the lines with the keyword, a contained answer scores 1", async () => {
  await hotpot(async (server, step) => {
    const seeded = (await server.post("/seed_session", { task_idx: 0 })).json<any>();
    assert.equal(seeded.obs[0].content, "Question: Which river flows through the city where the Harbor Bridge of Lumeria was built?");
    assert.deepEqual(seeded.tools.map((t: any) => t.name), ["search", "lookup", "submit_answer"]);
    const searched = await step(seeded.env_id, "search", { entity: "Harbor Bridge of Lumeria" });
    assert.equal(searched.obs[0].output, "The Harbor Bridge of Lumeria is a suspension bridge in Port Vell. It was completed in 1931. It spans the mouth of the harbour.. Port Vell is a city on the Silver River. The river reaches the sea at the harbour..");
    assert.equal((await step(seeded.env_id, "lookup", { keyword: "river" })).obs[0].output, "(Result 1 / 1) Port Vell is a city on the Silver River. The river reaches the sea at the harbour.");
    assert.equal((await step(seeded.env_id, "lookup", { keyword: "river" })).obs[0].output, "No more results.");
    const submitted = await step(seeded.env_id, "submit_answer", { answer: "It is the Silver River." });
    assert.deepEqual([submitted.obs[0].output, submitted.reward, submitted.done], ["Finished.", 1, true]);
  });
});

test("HotPotQA: no article gives similar titles; a disambiguation page searches again in brackets; a wrong answer scores 0", async () => {
  await hotpot(async (server, step) => {
    const envId = (await server.post("/seed_session", { task_idx: 1 })).json<any>().env_id;
    assert.equal((await step(envId, "lookup", { keyword: "born" })).obs[0].output, "Lookup failed. You have not specified a Wikipedia page yet.");
    assert.equal((await step(envId, "search", { entity: "Quill Press" })).obs[0].output, `Search for 'Quill Press' returned no results. Similar: ['Quill Press (publisher)', 'Quill & Ink', 'Press gang'].`);
    assert.match((await step(envId, "search", { entity: "Quill Press (publisher)" })).obs[0].output, /^Quill Press was a publishing house founded by Ada Marsh\. Ada Marsh was born in 1872/);
    const wrong = await step(envId, "submit_answer", { answer: "1873" });
    assert.deepEqual([wrong.reward, wrong.done], [0, true]);
  });
});

test("HotPotQA: a search the fixture lacks is a 503 naming the query, never an observation", async () => {
  await hotpot(async (server) => {
    const envId = (await server.post("/seed_session", { task_idx: 0 })).json<any>().env_id;
    const answer = await server.post("/step", { env_id: envId, action: [call("search", { entity: "Nowhere Town" })] });
    assert.equal(answer.status, 503);
    assert.match(answer.text, /Nowhere\+Town/);
  });
});

test("HotPotQA's answer normalisation and ReAct's clean_str", () => {
  assert.equal(normalizeAnswer("The Quick, Brown Fox!"), "quick brown fox");
  assert.equal(normalizeAnswer("  an   Apple a day "), "apple day");
  assert.equal(cleanStr("unicode escape: \\u00e9"), "unicode escape: é");
  assert.equal(cleanStr("SBN IT\\ICCU\\UBO\\2771748."), "SBN IT\\ICCU\\UBO\\2771748.");
  assert.equal(cleanStr("naïve ☃ \\n"), "naïve ☃ \\n");
});

test("the Wikipedia search page is read as aviary reads it: result headings, else paragraphs then lists", () => {
  assert.deepEqual(parseWikipediaSearchPage(`<div class="mw-search-result-heading"><a>Foo &amp; Bar</a></div><div class='x mw-search-result-heading'> Baz </div>`), { similar: ["Foo & Bar", "Baz"] });
  assert.deepEqual(parseWikipediaSearchPage(`<ul><li>one item</li><li>two</li></ul><p>First <b>bold</b> para.</p><script>x</script><p>Second</p>`), { texts: ["First bold para.", "Second", "one itemtwo"] });
});

test("the real Wikipedia backend: aviary's URL and User-Agent, redirects followed, a 429 retried, answers cached", async () => {
  const seen: { url: string; agent: string | undefined }[] = [];
  let first = true;
  const wiki = createServer((request, response) => {
    seen.push({ url: request.url!, agent: request.headers["user-agent"] });
    if (request.url!.startsWith("/w/index.php")) {
      if (first) {
        first = false;
        response.writeHead(429, { "retry-after": "0" }).end("slow down");
        return;
      }
      response.writeHead(302, { location: "/wiki/Port_Vell" }).end();
      return;
    }
    response.writeHead(200, { "content-type": "text/html" }).end("<p>Port Vell is a city on the Silver River.</p>");
  });
  await new Promise<void>((resolve) => wiki.listen(0, "127.0.0.1", resolve));
  const backend = wikipediaSearchBackend({ searchUrl: `http://127.0.0.1:${(wiki.address() as AddressInfo).port}/w/index.php`, backoffMs: 1 });
  try {
    assert.deepEqual(await backend.search("Port+Vell"), { texts: ["Port Vell is a city on the Silver River."] });
    assert.deepEqual(await backend.search("Port+Vell"), { texts: ["Port Vell is a city on the Silver River."] });
    assert.deepEqual(seen.map((s) => s.url), ["/w/index.php?search=Port+Vell", "/w/index.php?search=Port+Vell", "/wiki/Port_Vell"]);
    assert.ok(seen.every((s) => s.agent === "Aviary (https://github.com/Future-House/aviary)"));
  } finally {
    await backend.close();
    await new Promise((resolve) => wiki.close(resolve));
  }
});
