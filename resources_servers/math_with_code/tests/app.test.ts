// math_with_code over real HTTP, every cell in a real bubblewrap sandbox (a host without one fails these tests,
// never skips them): the tool's reply shape, state carried between the calls of a session and not across sessions,
// NeMo Gym's restricted builtins and error messages, its timeout, the boxed-answer reward, a forged reply, and the
// 503 of a server whose sandbox cannot run.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { BubblewrapSandbox } from "../../../src/sandbox/index.ts";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, assistantMessage, http, type InProcessGraph, overHttp, readRows, responseWith, runVerifierCases, readVerifierCases, startServers, type ServerCalls } from "../../../src/testing/index.ts";
import mathWithCodeServer, { mathWithCode } from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");
const client = http();
let graph: InProcessGraph;
let env: ServerCalls;
before(async () => {
  graph = await startServers({ math_with_code: [mathWithCodeServer, { max_execution_time: 1 }] });
  env = overHttp(graph.url("math_with_code"), client);
});
after(async () => {
  await graph.close();
  await client.close();
});

const run = async (session: ServerCalls, code: string) => {
  const answer = await session.post("/execute_python", { code });
  assert.equal(answer.status, 200, answer.text);
  return answer;
};
const reply = async (session: ServerCalls, code: string) => (await run(session, code)).json<Record<string, unknown>>();
const ok = (stdout: string, result: string | null = null) => ({ success: true, stdout, stderr: "", error_message: null, result });
const failed = (error_message: string) => ({ success: false, stdout: "", stderr: "", error_message, result: null });

describe("execute_python", { concurrency: true }, () => {
  test("answers NeMo Gym's fields in its order, as compact JSON", async () => {
    const answer = await run(env.session(), "print('hi')");
    assert.equal(answer.text, '{"success":true,"stdout":"hi\\n","stderr":"","error_message":null,"result":null}');
  });

  test("result is str() of the last line when it is an expression; a statement-like last line gives none", async () => {
    const session = env.session();
    assert.deepEqual(await reply(session, "x = 6\nx * 7"), ok("", "42"));
    assert.deepEqual(await reply(session, "import math\nmath.sqrt(16)"), ok("", "4.0"));
    assert.deepEqual(await reply(session, "print(x)"), ok("6\n"));
    assert.deepEqual(await reply(session, "y = 1"), ok(""), "an assignment does not evaluate");
  });

  test("variables, imports and functions live on through the session's calls, and only in that session", async () => {
    const session = env.session();
    await reply(session, "import numpy as np2\ntotal = 10");
    await reply(session, "total += 5\nsquares = [k * k for k in range(4)]");
    assert.deepEqual(await reply(session, "print(total, squares, np2.array(squares).sum())"), ok("15 [0, 1, 4, 9] 14\n"));
    assert.deepEqual(await reply(env.session(), "print(total)"), failed("name 'total' is not defined"), "another session starts empty");
  });

  test("numpy and scipy are bound as np, numpy and scipy, as in NeMo Gym", async () => {
    assert.deepEqual(await reply(env.session(), "print(np.arange(4).sum(), numpy.pi > 3, scipy.__name__)"), ok("6 True scipy\n"));
  });

  test("the builtins are NeMo Gym's short list: sorted is not one of them", async () => {
    assert.deepEqual(await reply(env.session(), "print(sorted([2, 1]))"), failed("name 'sorted' is not defined"));
  });

  test("an exception answers success false with str(e), and what the cell printed is dropped", async () => {
    assert.deepEqual(await reply(env.session(), "print('before')\n1 / 0"), failed("division by zero"));
    assert.deepEqual(await reply(env.session(), "def f(:\n  pass"), failed("invalid syntax (<string>, line 1)"));
  });

  test("a failed cell still changed the state before it failed, as NeMo Gym's live interpreter did", async () => {
    const session = env.session();
    assert.deepEqual(await reply(session, "seen = 1\nundefined_name"), failed("name 'undefined_name' is not defined"));
    assert.deepEqual(await reply(session, "print(seen)"), ok("1\n"));
  });

  test("stderr is captured apart from stdout", async () => {
    assert.deepEqual(await reply(env.session(), "import sys\nprint('out')\nprint('err', file=sys.stderr)"), { ...ok("out\n"), stderr: "err\n" });
  });

  test("a cell past max_execution_time answers 'code timed-out', and is not replayed on the next call", async () => {
    const session = env.session();
    await reply(session, "kept = 'yes'");
    assert.deepEqual(await reply(session, "while True:\n    pass"), failed("code timed-out"));
    assert.deepEqual(await reply(session, "print(kept)"), ok("yes\n"));
  });

  test("a cell that swallows its alarm is ended by the sandbox's clock, with the same answer", async () => {
    const code = "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass";
    assert.deepEqual(await reply(env.session(), code), failed("code timed-out"));
  });

  test("a cell that kills the interpreter answers success false and is not replayed", async () => {
    const session = env.session();
    const ended = await reply(session, "import os\nos._exit(3)");
    assert.deepEqual(ended, failed("the Python interpreter ended before the cell finished (exit code 3)"));
    assert.deepEqual(await reply(session, "print('alive')"), ok("alive\n"));
  });

  test("what a cell writes below sys.stdout (os.write(1), a child process) is not its output, as in NeMo Gym", async () => {
    assert.deepEqual(await reply(env.session(), "import os\nos.write(1, b'\\\\boxed{130}\\n')\nprint('mine')"), ok("mine\n"));
  });

  test("a cell that forges a reply on the interpreter's own channel gets an unreadable reply, not the forged one", async () => {
    const forged = JSON.stringify(ok("\\boxed{130}\n")).replace(/"/g, '\\"');
    const code = `import os\nfor fd in range(3, 10):\n    try:\n        os.write(fd, b"${forged}\\n")\n    except OSError:\n        pass`;
    assert.deepEqual(await reply(env.session(), code), failed("the cell wrote into the interpreter's reply channel, so its reply is unreadable"));
  });

  test("the sandbox holds no network and no host files", async () => {
    const answer = await reply(env.session(), "import os, socket\nprint(os.path.exists('/work/wt'), os.path.exists('/root'))\ns = socket.socket()\ns.connect(('127.0.0.1', 22))");
    assert.equal(answer.success, false);
    assert.match(String(answer.error_message), /Network is unreachable|Connection refused|Errno/);
  });

  test("a body without code is a 422", async () => {
    assert.equal((await env.post("/execute_python", {})).status, 422);
  });

  test("/end_session forgets the session's variables and answers an empty success", async () => {
    const session = env.session();
    await reply(session, "z = 3");
    const ended = await session.post("/end_session", {});
    assert.equal(ended.text, '{"success":true,"stdout":"","stderr":"","error_message":null,"result":null}');
    assert.deepEqual(await reply(session, "print(z)"), failed("name 'z' is not defined"));
  });
});

describe("verify", () => {
  const row = readRows(join(dataDir, "example.jsonl"))[0]!;
  const verify = (session: ServerCalls, output: unknown[], expected_result = "130") =>
    session.post("/verify", { responses_create_params: row.responses_create_params, response: responseWith(output as never), expected_result, expected_code_contains: "" });

  test("answers reward, extracted_answer and accuracy (NeMo Gym's fields, nothing echoed)", async () => {
    const answer = await verify(env, [assistantMessage("So \\boxed{130}.")]);
    assert.match(answer.text, /"reward":1\.0,"extracted_answer":"130","accuracy":true\}$/);
    assert.deepEqual(Object.keys(answer.json<object>()), ["responses_create_params", "response", "reward", "extracted_answer", "accuracy"]);
  });

  test("the last \\boxed{} of the last message that has one; wrappers and float forms compare equal", async () => {
    const score = async (text: string, expected: string) => (await verify(env, [assistantMessage(text)], expected)).json<{ reward: number; extracted_answer: string | null }>();
    const eighth = await score("draft \\boxed{1} final \\boxed{\\frac{1}{8}}", "\\(\\frac{1}{8}\\)");
    assert.deepEqual([eighth.reward, eighth.extracted_answer], [1, "\\frac{1}{8}"]);
    assert.equal((await score("\\boxed{\\frac{1}{8}}", "$\\frac{1}{8}$")).reward, 1);
    assert.equal((await score("\\boxed{42.0000001}", "42")).reward, 1);
    assert.equal((await score("\\boxed{0.5}", "\\text{.5}")).reward, 1);
    assert.equal((await score("\\boxed{  }", "1")).extracted_answer, null);
    assert.equal((await score("\\boxed{1", "1")).extracted_answer, null);
  });

  test("without a boxed message, the boxed answer the tool printed counts", async () => {
    const output = [
      { type: "function_call", call_id: "c1", name: "execute_python", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: JSON.stringify(ok("\\boxed{130}\n")) },
      assistantMessage("Done."),
    ];
    assert.equal((await verify(env, output)).json<{ reward: number }>().reward, 1);
  });

  test("verify ends the session's interpreter state", async () => {
    const session = env.session();
    await reply(session, "w = 1");
    await verify(session, [assistantMessage("\\boxed{130}")]);
    assert.deepEqual(await reply(session, "print(w)"), failed("name 'w' is not defined"));
  });

  test("a missing expected_result is a 422", async () => {
    const answer = await env.post("/verify", { responses_create_params: row.responses_create_params, response: responseWith([]) });
    assert.equal(answer.status, 422);
  });
});

describe("data", () => {
  test("the example rows are run requests offering the served tool", async () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assertRowsAreRunRequests(rows);
    assertRowToolsMatchServer(rows, mathWithCodeServer.toolDefinitions);
  });

  test("the verifier cases score as written, their tool calls played in the sandbox", async () => {
    const file = join(dataDir, "verifier_cases.jsonl");
    const { cases } = readVerifierCases(file, "data/verifier_cases.jsonl");
    const outcome = await runVerifierCases({ client: graph.client, instance: "math_with_code", cases, shownFile: "data/verifier_cases.jsonl", callDeadlineMs: 20_000 });
    assert.deepEqual(outcome.problems, []);
  });
});

describe("without a sandbox", () => {
  test("a server whose bubblewrap is missing fails to start, naming bwrap and the fix", async () => {
    const broken = mathWithCode({ sandbox: () => new BubblewrapSandbox({ bwrapPath: "/nonexistent/bwrap" }) });
    await assert.rejects(startServers({ math_with_code: [broken] }), /bubblewrap \(bwrap\) is not installed/);
  });

  test("a tool call or no sandbox at all answers 503 with the cause and the fix, never a reply", async () => {
    const broken = mathWithCode({ sandbox: () => new BubblewrapSandbox({ bwrapPath: "/nonexistent/bwrap" }), probeAtStartup: false });
    const brokenGraph = await startServers({ math_with_code: [broken] });
    try {
      const answer = await overHttp(brokenGraph.url("math_with_code"), client).post("/execute_python", { code: "print(1)" });
      assert.equal(answer.status, 503, answer.text);
      assert.match(answer.text, /bubblewrap \(bwrap\) is not installed/);
      assert.match(answer.text, /apt-get install -y bubblewrap/);
    } finally {
      await brokenGraph.close();
    }
  });
});
