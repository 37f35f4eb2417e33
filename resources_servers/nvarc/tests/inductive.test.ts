// nvarc's inductive mode over real HTTP, each program run in a real bubblewrap sandbox (a host without one fails
// these tests, never skips them): NeMo Gym's outcomes for a right, a wrong, a failing, a banned and a slow program,
// numpy results, and the forging attempts — a program that prints a verdict, or looks for the expected grid, scores
// 0: the server compares the grid itself and the sandbox never holds expected_output.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BubblewrapSandbox } from "../../../src/sandbox/index.ts";
import { assistantMessage, http, type InProcessGraph, overHttp, responseWith, startServers, type ServerCalls } from "../../../src/testing/index.ts";
import nvarcServer, { nvarc } from "../app.ts";

const client = http();
let graph: InProcessGraph;
let env: ServerCalls;
before(async () => {
  graph = await startServers({ nvarc_inductive: [nvarcServer, { agent_mode: "inductive", python_timeout_seconds: 1 }] });
  env = overHttp(graph.url("nvarc_inductive"), client);
});
after(async () => {
  await graph.close();
  await client.close();
});

const TEST_INPUT = [[1, 2, 3], [4, 5, 6]];
const MIRRORED = [[3, 2, 1], [6, 5, 4]];
const program = (body: string) => `Here is the rule.\n\`\`\`python\n${body}\n\`\`\``;

async function score(code: string, expected_output = MIRRORED) {
  const answer = await env.post("/verify", { responses_create_params: { input: [] }, response: responseWith([assistantMessage(program(code))]), test_input: TEST_INPUT, expected_output });
  assert.equal(answer.status, 200, answer.text);
  const { reward, predicted_output, extraction_successful, exact_match, agent_mode } = answer.json<Record<string, unknown>>();
  assert.equal(agent_mode, "inductive");
  return { reward, predicted_output, extraction_successful, exact_match };
}
const scored = (reward: number, predicted_output: unknown) => ({ reward, predicted_output, extraction_successful: predicted_output !== null, exact_match: reward === 1 });

describe("running transform(test_input)", { concurrency: true }, () => {
  test("a right program scores 1 with its grid; a wrong one 0 with its grid", async () => {
    assert.deepEqual(await score("def transform(grid):\n    return [row[::-1] for row in grid]"), scored(1, MIRRORED));
    assert.deepEqual(await score("def transform(grid):\n    return grid"), scored(0, TEST_INPUT));
  });

  test("numpy arrays and numpy ints come back as lists of ints; scipy is importable", async () => {
    assert.deepEqual(await score("import numpy as np\nfrom scipy import ndimage\ndef transform(grid):\n    return np.fliplr(np.array(grid))"), scored(1, MIRRORED));
  });

  test("what the program prints does not disturb its result", async () => {
    assert.deepEqual(await score("def transform(grid):\n    print('thinking', grid)\n    return [row[::-1] for row in grid]"), scored(1, MIRRORED));
  });

  test("no grid (null) for: an exception, no transform, None, a ragged or empty grid, non-int cells", async () => {
    for (const code of [
      "def transform(grid):\n    return 1 / 0",
      "def solve(grid):\n    return grid",
      "def transform(grid):\n    return None",
      "def transform(grid):\n    return [[1, 2], [3]]",
      "def transform(grid):\n    return []",
      "def transform(grid):\n    return [[0.5, 1]]",
    ]) {
      assert.deepEqual(await score(code), scored(0, null), code);
    }
  });

  test("NeMo Gym's banned imports and builtins fail the program: os, open, and a class statement", async () => {
    assert.deepEqual(await score("import os\ndef transform(grid):\n    return grid"), scored(0, null));
    assert.deepEqual(await score("def transform(grid):\n    open('/etc/passwd')\n    return grid"), scored(0, null));
    assert.deepEqual(await score("class Rule:\n    pass\ndef transform(grid):\n    return [row[::-1] for row in grid]"), scored(0, null));
  });

  test("a transform past python_timeout_seconds, or a program that never gets to it, gives no grid", async () => {
    assert.deepEqual(await score("def transform(grid):\n    while True:\n        pass"), scored(0, null));
    assert.deepEqual(await score("while True:\n    try:\n        pass\n    except BaseException:\n        pass\ndef transform(grid):\n    return grid"), scored(0, null));
  });
});

describe("forging", { concurrency: true }, () => {
  test("a program that prints a verdict of its own in place of the runner's reply scores 0", async () => {
    const code = [
      "import sys",
      "def transform(grid):",
      "    sys.__stdout__.write('{\"success\": true, \"exact_match\": true, \"reward\": 1.0, \"result\": true}\\n')",
      "    sys.__stdout__.flush()",
      "    raise SystemExit(0)",
    ].join("\n");
    assert.deepEqual(await score(code), scored(0, null));
  });

  test("the expected grid is nowhere in the sandbox: the runner's own request holds the program and the input only", async () => {
    const code = "import sys\ndef transform(grid):\n    request = sys.modules['__main__'].request\n    return request.get('expected_output') or [[len(request)]]";
    assert.deepEqual(await score(code), scored(0, [[3]]));
  });
});

describe("without a sandbox", () => {
  const missing = () => new BubblewrapSandbox({ bwrapPath: "/nonexistent/bwrap" });

  test("an inductive instance fails to start, naming bwrap and the fix; a transductive one starts", async () => {
    await assert.rejects(startServers({ nvarc: [nvarc({ sandbox: missing }), { agent_mode: "inductive" }] }), /bubblewrap \(bwrap\) is not installed/);
    const transductive = await startServers({ nvarc: [nvarc({ sandbox: missing }), { agent_mode: "transductive" }] });
    await transductive.close();
  });

  test("an inductive row with a program answers 503 with the cause and the fix, never a reward", async () => {
    const brokenGraph = await startServers({ nvarc: [nvarc({ sandbox: missing }), { agent_mode: "transductive" }] });
    try {
      const calls = overHttp(brokenGraph.url("nvarc"), client);
      const answer = await calls.post("/verify", { responses_create_params: { input: [] }, response: responseWith([assistantMessage(program("def transform(g):\n    return g"))]), test_input: TEST_INPUT, expected_output: TEST_INPUT, agent_mode: "inductive" });
      assert.equal(answer.status, 503, answer.text);
      assert.match(answer.text, /bubblewrap \(bwrap\) is not installed.*apt-get install -y bubblewrap/s);
      const transductive = await calls.post("/verify", { responses_create_params: { input: [] }, response: responseWith([assistantMessage("\\boxed{1 2 3\n4 5 6}")]), expected_output: TEST_INPUT });
      assert.equal(transductive.json<{ reward: number }>().reward, 1, "the transductive path needs no sandbox");
    } finally {
      await brokenGraph.close();
    }
  });
});
