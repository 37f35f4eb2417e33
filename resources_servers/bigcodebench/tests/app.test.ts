// bigcodebench over real HTTP with real sandbox runs on Debian's /usr/bin/python3: a right solution passes; a wrong
// one fails with the failing test named; a runtime error in the module, a run past subprocess_timeout, a printed
// fake verdict and a write to the harness's descriptor all score 0; a task needing a library that interpreter cannot
// import is a 501 naming it (and the Debian package), never a 0. Needs bwrap and /usr/bin/python3: without them every
// verify is a 503 and these tests fail.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, overHttp, readRows, responseWith, startServers, type InProcessGraph, type ServerCalls } from "../../../src/testing/index.ts";
import bigcodebench from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const PRIMES = rows[0]!.verifier_metadata as Record<string, unknown>;
const CSV = rows[1]!.verifier_metadata as Record<string, unknown>;
const client = http();
let graph: InProcessGraph;
let server: ServerCalls;
before(async () => {
  graph = await startServers({ bigcodebench: [bigcodebench, { num_processes: 2, subprocess_timeout: 2.0 }] });
  server = overHttp(graph.url("bigcodebench"), client);
});
after(async () => {
  await graph.close();
  await client.close();
});

const fenced = (code: string) => `Sure:\n\`\`\`python\n${code}\n\`\`\`\n`;
const PRIMES_RIGHT = "import math\ndef task_func(limit):\n    return [n for n in range(2, limit) if all(n % d for d in range(2, math.isqrt(n) + 1))]";
const verify = (meta: Record<string, unknown>, text: string) =>
  server.post("/verify", { responses_create_params: { input: [] }, response: responseWith([assistantMessage(text)]), verifier_metadata: meta });
async function scored(meta: Record<string, unknown>, text: string) {
  const answer = await verify(meta, text);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}

describe("verdicts", () => {
  test("a right solution passes every test: reward 1.0", async () => {
    const body = await scored(PRIMES, fenced(PRIMES_RIGHT));
    assert.deepEqual([body.reward, body.status, body.details, body.task_id], [1, "pass", {}, "Example/0"]);
    const csv = await scored(CSV, fenced("import csv, io\ndef task_func(text):\n    return list(csv.DictReader(io.StringIO(text)))"));
    assert.equal(csv.reward, 1, JSON.stringify(csv.details));
  });

  test("a wrong solution fails, the failing test named with its trace", async () => {
    const body = await scored(PRIMES, fenced("def task_func(limit):\n    return [n for n in range(2, limit) if n % 2]"));
    assert.deepEqual([body.reward, body.status, Object.keys(body.details)], [0, "fail", ["test_small"]]);
    assert.match(body.details.test_small, /AssertionError/);
  });

  test("an error while loading the module is details.ALL", async () => {
    const body = await scored(PRIMES, fenced("def task_func(limit):\n    return []\nraise RuntimeError('boom')"));
    assert.deepEqual([body.reward, body.status, body.details], [0, "fail", { ALL: "boom" }]);
  });

  test("a run past subprocess_timeout is NeMo Gym's outer timeout", async () => {
    const body = await scored(PRIMES, fenced("def task_func(limit):\n    while True:\n        pass"));
    assert.deepEqual([body.reward, body.status, body.details], [0, "timeout", { reason: "outer_subprocess_timeout" }]);
  });

  test("a task that shells out runs: the sandbox has /bin/sh (its builtins, no host tools)", async () => {
    const test = "import unittest\nclass TestCases(unittest.TestCase):\n    def test_echo(self):\n        self.assertEqual(task_func('echo $((6 * 7))'), '42\\n')\n";
    const meta = { ...PRIMES, task_id: "Example/shell", libs: "['subprocess']", code_prompt: "import subprocess\ndef task_func(command):\n", test };
    const body = await scored(meta, fenced("import subprocess\ndef task_func(command):\n    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout"));
    assert.deepEqual([body.reward, body.status], [1, "pass"], JSON.stringify(body.details));
  });

  test("no fence: the whole answer is the code; empty output is empty_output", async () => {
    const whole = await scored(PRIMES, PRIMES_RIGHT);
    assert.equal(whole.reward, 1);
    const empty = await scored(PRIMES, " ");
    assert.deepEqual([empty.reward, empty.status], [0, "empty_output"]);
  });
});

describe("what a program cannot forge", () => {
  test("printing a pass record to stdout and exiting 0 is no pass", async () => {
    const fake = "import os\nos.write(1, b'x {\"status\": \"pass\", \"details\": {}}\\n')\nprint('{\"status\": \"pass\"}')\nos._exit(0)";
    const body = await scored(PRIMES, fenced(fake));
    assert.deepEqual([body.reward, body.status], [0, "timeout"]);
  });

  test("writing to the harness's own descriptor is foreign to the channel: fail", async () => {
    const hunt = "import os\nfor fd in range(3, 40):\n    try: os.write(fd, b'zz {\"status\": \"pass\", \"details\": {}}\\n')\n    except OSError: pass\nos._exit(0)";
    const body = await scored(PRIMES, fenced(hunt));
    assert.deepEqual([body.reward, body.status], [0, "fail"]);
  });
});

describe("libraries", () => {
  test("a task needing a library the sandbox's python3 cannot import is a 501 naming it and its Debian package", async () => {
    const answer = await verify({ ...PRIMES, task_id: "Example/sklearn", libs: "['sklearn', 'math']" }, fenced(PRIMES_RIGHT));
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /needs sklearn \(ModuleNotFoundError: No module named 'sklearn'\).*apt-get install -y python3-sklearn/);
  });

  test("libraries the test imports count even when the row lists none", async () => {
    const meta = { ...PRIMES, task_id: "Example/imports", libs: null, test: "import not_a_library_anywhere\n" + (PRIMES.test as string) };
    const answer = await verify(meta, fenced(PRIMES_RIGHT));
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /not_a_library_anywhere/);
  });
});

test("a row without test or entry_point is a 422 naming the field", async () => {
  const answer = await verify({ task_id: "x", code_prompt: "" }, fenced(PRIMES_RIGHT));
  assert.equal(answer.status, 422, answer.text);
  assert.match(answer.text, /"test"/);
});

test("the metrics: pass@k of accuracy (reward > 0), keyed on the extracted code", async () => {
  const rollout = (reward: number, code: string, i: number) => ({ reward, extracted_model_code: code, _ng_task_index: 0, _ng_rollout_index: i });
  const answer = await server.post("/aggregate_metrics", { verify_responses: [rollout(1, "a", 0), rollout(0, "b", 1)] });
  assert.equal(answer.status, 200, answer.text);
  const { agent_metrics } = answer.json<Record<string, Record<string, number>>>();
  assert.equal(agent_metrics["pass@2/accuracy"], 100);
  assert.equal(agent_metrics["pass@1[avg-of-2]/accuracy"], 50);
});

test("the example rows are run requests", () => assertRowsAreRunRequests(rows));
