// ns_tools over real HTTP: NeMo-Skills' stateful_python_code_exec in a real bubblewrap sandbox (IPython cells, state
// kept across a session's calls, NeMo-Skills' output shaping, its timeout), verify delegated to a real
// math_with_judge instance with the tool timing fields, the tools refused by name, and the 503 without a sandbox.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { BubblewrapSandbox } from "../../../src/sandbox/index.ts";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, assistantMessage, http, type InProcessGraph, overHttp, readRows, responseWith, serverDefinition, startServers, type ServerCalls } from "../../../src/testing/index.ts";
import nsToolsServer, { nsTools } from "../app.ts";
import { postprocess } from "../python-tool.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const client = http();
const NS_TOOLS = {
  default_verifier: "math_with_judge",
  verifiers: { math_with_judge: { type: "resources_servers", name: "math_with_judge" } },
  nemo_skills_tools: ["nemo_skills.mcp.servers.python_tool::DirectPythonTool"],
  nemo_skills_tool_overrides: { DirectPythonTool: { exec_timeout_s: 1 } },
  disable_session_restore: true,
};
let graph: InProcessGraph;
let env: ServerCalls;
before(async () => {
  const mathWithJudge = await serverDefinition("resources_servers/math_with_judge");
  graph = await startServers({
    ns_tools: [nsToolsServer, NS_TOOLS],
    math_with_judge: [mathWithJudge, { should_use_judge: false, judge_model_server: { type: "responses_api_models", name: "none" }, judge_responses_create_params: { input: [] } }],
  });
  env = overHttp(graph.url("ns_tools"), client);
});
after(async () => {
  await graph.close();
  await client.close();
});

const exec = async (session: ServerCalls, code: unknown) => {
  const answer = await session.post("/stateful_python_code_exec", code === undefined ? {} : { code });
  assert.equal(answer.status, 200, answer.text);
  return answer.text;
};

describe("stateful_python_code_exec", { concurrency: true }, () => {
  test("answers the cell's output as plain text: prints, then the last expression's value without Out[n]", async () => {
    const session = env.session();
    assert.equal(await exec(session, "x = 21\nprint('half')\nx * 2"), "half\n42");
  });

  test("variables and imports persist across a session's calls, and not into another session", async () => {
    const session = env.session();
    await exec(session, "import math\ntotal = math.factorial(5)");
    assert.equal(await exec(session, "total + 1"), "121");
    assert.match(await exec(env.session(), "total"), /NameError: name 'total' is not defined/);
  });

  test("an exception is its Plain traceback, without ANSI codes or ipython-input file lines", async () => {
    const text = await exec(env.session(), "print('a')\n1 / 0");
    assert.match(text, /^a\nTraceback \(most recent call last\):\n/);
    assert.match(text, /ZeroDivisionError: division by zero$/);
    assert.doesNotMatch(text, /\x1B|File <ipython-/);
  });

  test("output past 1000 characters is cut with <output cut>", async () => {
    const text = await exec(env.session(), "print('x' * 1500)");
    assert.equal(text, `${"x".repeat(1000)}<output cut>`);
  });

  test("a missing code argument is the tool's own error text; hidden arguments are dropped", async () => {
    assert.equal(await exec(env.session(), undefined), "Error: missing required argument 'code'");
    const answer = await env.session().post("/stateful_python_code_exec", { code: "print(1)", timeout: 0.001, session_id: "other" });
    assert.equal(answer.text, "1");
  });

  test("a cell past exec_timeout_s is interrupted: a KeyboardInterrupt traceback, and the state is kept", async () => {
    const session = env.session();
    await exec(session, "kept = 'yes'");
    assert.match(await exec(session, "import time\ntime.sleep(30)"), /KeyboardInterrupt/);
    assert.equal(await exec(session, "kept"), "'yes'");
  });

  test("a cell that ignores the interrupt is killed; with restore disabled the next call is told its state is gone", async () => {
    const session = env.session();
    await exec(session, "kept = 'yes'");
    const stubborn = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass";
    assert.equal(await exec(session, stubborn), "Execution timed out after 1 seconds");
    const after = await exec(session, "kept");
    assert.match(after, /^RuntimeError: Sandbox state restoration failed/m, "restore disabled: the model is told its state is gone");
    assert.match(after, /NameError: name 'kept' is not defined/);
  });

  test("an unknown tool name answers NeMo Gym's error text", async () => {
    assert.equal((await env.post("/wikipedia_search", { query: "x" })).text, '{"error":"Unknown tool: wikipedia_search"}');
  });
});

describe("verify", () => {
  test("delegates to math_with_judge and answers its reward, the delegated response, tool timing and the row", async () => {
    const session = env.session();
    await exec(session, "print(2 ** 50)");
    const row = rows[3]!;
    const answer = await session.post("/verify", { ...row, response: responseWith([assistantMessage("The digits sum to \\boxed{76}.")]) });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.equal(body.reward, 1);
    assert.equal(body.delegated_response.reward, 1);
    assert.equal(body.delegated_response.extracted_answer, "76");
    assert.equal(body.num_tool_calls, 1);
    assert.ok(body.total_tool_execution_time_seconds > 0 && body.avg_tool_call_time_seconds === body.total_tool_execution_time_seconds);
    assert.equal(body.tool_timeout_count, 0);
    assert.equal(body.tool_request_timeout_count, 0);
    assert.deepEqual(Object.keys(body).slice(0, 10), ["responses_create_params", "response", "reward", "delegated_response", "total_tool_execution_time_seconds", "num_tool_calls", "avg_tool_call_time_seconds", "tool_timeout_count", "tool_request_timeout_count", "verifier_type"]);
    assert.equal(body.question, row.question);
    const again = await session.post("/verify", { ...row, response: responseWith([assistantMessage("\\boxed{75}")]) });
    assert.equal(again.json<any>().reward, 0);
    assert.equal(again.json<any>().num_tool_calls, 0, "verify drops the session's timings");
  });

  test("an unknown verifier_type is a 500 naming it, never a reward", async () => {
    const answer = await env.post("/verify", { ...rows[0], verifier_type: "mcqa", response: responseWith([assistantMessage("\\boxed{301}")]) });
    assert.equal(answer.status, 500);
    assert.match(answer.text, /Unknown verifier: mcqa/);
  });
});

describe("config and data", () => {
  test("a tool other than NeMo-Skills' Python tool is refused by name at startup", async () => {
    await assert.rejects(startServers({ ns_tools: [nsTools(), { nemo_skills_tools: ["nemo_skills.mcp.servers.coolprop_tool.CoolPropTool"] }] }), /coolprop_tool\.CoolPropTool.*cannot run here/);
    await assert.rejects(startServers({ ns_tools: [nsTools(), { ...NS_TOOLS, nemo_skills_tool_overrides: { DirectPythonTool: { sandbox: { sandbox_type: "local" } } } }] }), /sandbox.*supported: exec_timeout_s, hide_args/);
  });

  test("the example rows are run requests offering the served tool", () => {
    assertRowsAreRunRequests(rows);
    assertRowToolsMatchServer(rows, nsToolsServer.toolDefinitions);
  });

  test("postprocess is NeMo-Skills' Plain one", () => {
    assert.equal(postprocess("\n\x1B[0;31mOut[3]: 5\n  File <ipython-input-1-x>:1\nok\n\n"), "5\nok\n");
    assert.equal(postprocess("\n\n"), "");
  });
});

describe("without a sandbox", () => {
  test("with the Python tool configured, the server fails to start naming bwrap; a call later answers 503", async () => {
    const missing = () => new BubblewrapSandbox({ bwrapPath: "/nonexistent/bwrap" });
    await assert.rejects(startServers({ ns_tools: [nsTools({ sandbox: missing }), NS_TOOLS] }), /bubblewrap \(bwrap\) is not installed/);
    const broken = await startServers({ ns_tools: [nsTools({ sandbox: missing, probeAtStartup: false }), NS_TOOLS] });
    try {
      const answer = await overHttp(broken.url("ns_tools"), client).post("/stateful_python_code_exec", { code: "print(1)" });
      assert.equal(answer.status, 503, answer.text);
      assert.match(answer.text, /apt-get install -y bubblewrap/);
    } finally {
      await broken.close();
    }
  });
});
