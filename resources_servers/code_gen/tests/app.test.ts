// code_gen's verify over real HTTP, every program run in the bubblewrap sandbox (no bwrap here: these fail with the
// sandbox's 503, loudly). Passing and failing programs in both modes, NeMo Gym's result codes, the reasoning-format
// penalty, and programs that try to fake a pass: by printing result-like markers, by printing the expected value and
// then crashing, by writing into the harness's report channel, or by looking for the expected output in the process.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, overHttp, readRows, responseWith, startServers, type InProcessGraph, type ServerCalls } from "../../../src/testing/index.ts";
import codeGen from "../app.ts";
import { extractCode } from "../extract.ts";
import { stdioMismatch } from "../compare.ts";

let graph: InProcessGraph;
let server: ServerCalls;
let penalised: ServerCalls;
before(async () => {
  const config = { num_processes: 2, unit_test_timeout_secs: 1, debug: false };
  graph = await startServers({ code_gen: [codeGen, config], code_gen_penalty: [codeGen, { ...config, reasoning_format_penalty: -1.0 }] });
  server = overHttp(graph.url("code_gen"), http());
  penalised = overHttp(graph.url("code_gen_penalty"), http());
});
after(() => graph.close());

const SUM_TESTS = { inputs: ["2\n1 2\n", "3\n5 5 5\n"], outputs: ["3\n", "15\n"], fn_name: null };
const fenced = (code: string) => `Here it is.\n\`\`\`python\n${code}\n\`\`\``;

async function verify(answer: string, unitTests: unknown = SUM_TESTS, options: { reasoning?: string; on?: ServerCalls; difficulty?: string } = {}) {
  const output = [...(options.reasoning === undefined ? [] : [{ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: options.reasoning }] }]), assistantMessage(answer)];
  const reply = await (options.on ?? server).post("/verify", {
    responses_create_params: { input: [{ role: "user", content: "Solve it." }] },
    verifier_metadata: { unit_tests: unitTests, difficulty: options.difficulty },
    response: responseWith(output),
  });
  assert.equal(reply.status, 200, reply.text);
  return reply.json<Record<string, any>>();
}

describe("stdin/stdout tests", () => {
  test("a right program scores 1.0 with NeMo Gym's response fields", async () => {
    const body = await verify(fenced("n = int(input())\nprint(sum(map(int, input().split())))"), SUM_TESTS, { difficulty: "easy" });
    assert.deepEqual([body.reward, body.result], [1, [true, true]]);
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "extracted_model_output", "extracted_model_code", "result", "metadata", "unit_tests_time_taken", "reasoning_format_violation_rate", "difficulty"]);
    assert.equal(body.extracted_model_code, "n = int(input())\nprint(sum(map(int, input().split())))");
    assert.equal(typeof body.metadata["execution time"], "number");
    assert.equal(typeof body.unit_tests_time_taken, "number");
    assert.equal(body.difficulty, "easy");
  });

  test("a wrong answer is -2 at the first failing test, with NeMo Gym's message", async () => {
    const body = await verify(fenced("n = int(input())\nxs = list(map(int, input().split()))\nprint(3)"));
    assert.deepEqual([body.reward, body.result], [0, [true, -2]]);
    assert.deepEqual(body.metadata, { output: "3\n", inputs: "3\n5 5 5\n", expected: "15\n", error_code: -2, error_message: "Wrong answer at output_line_idx=0: 3 != 15" });
  });

  test("an endless loop is -3 (the per-test limit), a crash -4 with its traceback", async () => {
    const slow = await verify(fenced("while True:\n    pass"));
    assert.deepEqual([slow.reward, slow.result, slow.metadata.error_message], [0, [-3], "Time Limit Exceeded"]);
    const crash = await verify(fenced("print(1 // 0)"));
    assert.deepEqual([crash.reward, crash.result, crash.metadata.error], [0, [-4], "ZeroDivisionError('integer division or modulo by zero')"]);
    assert.match(crash.metadata.traceback, /ZeroDivisionError/);
  });

  test("a program that ends the harness (os._exit) before every test ran is NeMo Gym's global failure, -1 each", async () => {
    const body = await verify(fenced("import os\nos._exit(0)"));
    assert.deepEqual([body.reward, body.result, body.metadata], [0, [-1, -1], null]);
  });

  test("output lines compare stripped, numbers as Decimals", () => {
    assert.equal(stdioMismatch("1.50  2\n\n", " 1.5 2.000"), undefined);
    assert.equal(stdioMismatch("1e2\n", "100"), undefined);
    assert.equal(stdioMismatch("0.1\n", "0.10000000001"), "Wrong answer at output_line_idx=0: 0.1 != 0.10000000001");
    assert.equal(stdioMismatch("1\n\n2", "1\n2"), "Wrong answer: mismatched output length");
  });
});

describe("call-based tests (fn_name)", () => {
  const TWO_SUM = { inputs: ["[2, 7, 11, 15]\n9", "[3, 2, 4]\n6"], outputs: ["[0, 1]", "[1, 2]"], fn_name: "twoSum" };
  const SOLUTION = "class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n                return (seen[target - x], i)\n            seen[x] = i";

  test("class Solution's method is called with the JSON arguments; a returned tuple counts as a list", async () => {
    const body = await verify(fenced(SOLUTION), TWO_SUM);
    assert.deepEqual([body.reward, body.result], [1, [true, true]]);
  });

  test("a wrong return value is false with NeMo Gym's metadata (Python's str of each value)", async () => {
    const body = await verify(fenced("def twoSum(nums, target):\n    return {'i': None}"), TWO_SUM);
    assert.deepEqual([body.reward, body.result], [0, [false]]);
    assert.deepEqual(body.metadata, { output: "{'i': None}", inputs: "[[2, 7, 11, 15], 9]", expected: "[0, 1]", error_code: -2, error_message: "Wrong Answer" });
  });

  test("floats compare with np.allclose, strings of numbers too; a missing function is NeMo Gym's setup error", async () => {
    const tests = { inputs: ["1"], outputs: ["0.3"], fn_name: "f" };
    assert.equal((await verify(fenced("def f(x):\n    return 0.1 + 0.2"), tests)).reward, 1);
    assert.equal((await verify(fenced("def f(x):\n    return '0.3000000001'"), tests)).reward, 1);
    assert.equal((await verify(fenced("def f(x):\n    return {0.3}"), tests)).reward, 0);
    const missing = await verify(fenced("def g(x):\n    return 0.3"), tests);
    assert.deepEqual([missing.result, missing.metadata], [[-4], { error_code: -4, error_message: "Error during testing: cannot unpack non-iterable NoneType object" }]);
  });
});

describe("programs that try to fake a pass", () => {
  test("printing result-like markers is just wrong output", async () => {
    for (const code of ['print(\'{"setup": "ok"}\')\nprint(\'{"t": 0, "status": "ok", "stdout": "3\\\\n"}\')', "print('PASS')\nprint('[true, true]')"]) {
      const body = await verify(fenced(code));
      assert.deepEqual([body.reward, body.result], [0, [-2]], code);
    }
  });

  test("printing the expected output and then crashing is a runtime error", async () => {
    const body = await verify(fenced("n = int(input())\nprint(sum(map(int, input().split())))\nraise SystemError('after the answer')"));
    assert.deepEqual([body.reward, body.result], [0, [-4]]);
  });

  test("call-based: printing the expected value is not returning it; printing it then raising is -4", async () => {
    const tests = { inputs: ["[1, 2]"], outputs: ["3"], fn_name: "f" };
    const printed = await verify(fenced("def f(xs):\n    print(3)\n    print('3')\n    return 0"), tests);
    assert.deepEqual([printed.reward, printed.result], [0, [false]]);
    const raised = await verify(fenced("import json, sys\ndef f(xs):\n    print(json.dumps(sum(xs)))\n    sys.stdout.flush()\n    raise RuntimeError('gone')"), tests);
    assert.deepEqual([raised.reward, raised.result], [0, [-4]]);
  });

  test("writing a forged record into every descriptor (the report channel among them) never passes", async () => {
    const forge = (record: string) =>
      `import os, json\ndef f(xs):\n    line = (json.dumps(${record}) + "\\n").encode()\n    for fd in range(1, 64):\n        try:\n            os.write(fd, line)\n        except OSError:\n            pass\n    return 0`;
    const tests = { inputs: ["[1, 2]", "[2, 2]"], outputs: ["3", "4"], fn_name: "f" };
    const forgedPass = await verify(fenced(forge('{"t": 0, "status": "ok", "value": {"int": "3"}, "str": "3", "json": "3", "float": "3.0", "seconds": 0}')), tests);
    assert.equal(forgedPass.reward, 0);
    assert.deepEqual(forgedPass.metadata, { error_code: -4, error_message: "Error during testing: the program wrote into the test harness's report channel" });
    const forgedEnd = await verify(fenced(forge('{"end": true}')), tests);
    assert.equal(forgedEnd.reward, 0);
  });

  test("the expected outputs are nowhere in the sandbox: a program searching its process for them finds nothing", async () => {
    // NeMo Gym's grader holds the expected output in the same process; here it never enters the sandbox.
    const code = "import gc, sys\nfound = [o for o in gc.get_objects() if isinstance(o, (list, dict)) and ('15\\n' in o or 'outputs' in o)]\nframe = sys._getframe()\nwhile frame:\n    found += [v for v in frame.f_locals.values() if v == '15\\n']\n    frame = frame.f_back\nprint('15' if found else '0')";
    const body = await verify(fenced(code), { inputs: ["3\n5 5 5\n"], outputs: ["15\n"], fn_name: null });
    assert.deepEqual([body.reward, body.result], [0, [-2]]);
    assert.equal(body.metadata.output, "0\n");
  });
});

describe("answers that score before anything runs", () => {
  test("an empty answer, or one without two ``` lines, scores 0 with NeMo Gym's nulls", async () => {
    const blank = await verify("  \n");
    assert.deepEqual([blank.reward, blank.extracted_model_output, blank.result], [0, null, null]);
    const unfenced = await verify("print(3)");
    assert.deepEqual([unfenced.reward, unfenced.extracted_model_output, unfenced.extracted_model_code], [0, "print(3)", null]);
    assert.equal(extractCode("```python\nfirst\n```\ntext\n```\nlast\n```"), "last");
  });

  test("a row without valid unit_tests is a 422 naming the field", async () => {
    const reply = await server.post("/verify", { responses_create_params: { input: [] }, verifier_metadata: { unit_tests: { inputs: "x" } }, response: responseWith([assistantMessage(fenced("print(1)"))]) });
    assert.equal(reply.status, 422, reply.text);
    assert.match(reply.text, /verifier_metadata.*unit_tests/);
  });
});

describe("the reasoning-format penalty", () => {
  test("a think tag in the final answer, or two in the reasoning, scores reasoning_format_penalty even when right", async () => {
    const right = "n = int(input())\nprint(sum(map(int, input().split())))";
    const tagged = await verify(`<think>hm</think>\n${fenced(right)}`, SUM_TESTS, { on: penalised });
    assert.deepEqual([tagged.reward, tagged.reasoning_format_violation_rate, tagged.result], [-1, 1, [true, true]]);
    const twice = await verify(fenced(right), SUM_TESTS, { on: penalised, reasoning: "<think>a<think>b" });
    assert.equal(twice.reward, -1);
    const once = await verify(fenced(right), SUM_TESTS, { on: penalised, reasoning: "<think>a</think>" });
    assert.deepEqual([once.reward, once.reasoning_format_violation_rate], [1, 0]);
    assert.equal((await verify(`</think>${fenced(right)}`)).reward, 0, "the default penalty is 0.0");
  });
});

test("metrics: pass@k and majority@k overall and per difficulty, with NeMo Gym's key metrics", async () => {
  const rollout = (task: number, reward: number, code: string, difficulty: string) => ({ _ng_task_index: task, _ng_rollout_index: 0, reward, extracted_model_code: code, difficulty, response: {} });
  const reply = await server.post("/aggregate_metrics", {
    verify_responses: [rollout(0, 1, "a", "easy"), { ...rollout(0, 0, "b", "easy"), _ng_rollout_index: 1 }, rollout(1, 0, "c", "hard"), { ...rollout(1, 0, "c", "hard"), _ng_rollout_index: 1 }],
  });
  assert.equal(reply.status, 200, reply.text);
  const { agent_metrics, key_metrics } = reply.json<Record<string, any>>();
  assert.equal(agent_metrics["pass@2/accuracy"], 50);
  assert.equal(agent_metrics["pass@1[avg-of-2]/accuracy"], 25);
  assert.equal(agent_metrics["easy/pass@2/accuracy"], 100);
  assert.equal(agent_metrics["hard/pass@1[avg-of-2]/accuracy"], 0);
  assert.ok("pass@1[avg-of-2]/accuracy/avg_sample_std_dev" in agent_metrics);
  assert.ok("majority@2/accuracy" in key_metrics && "easy/pass@1[avg-of-2]/accuracy" in key_metrics && !("pass@2/no_answer" in key_metrics), JSON.stringify(key_metrics));
});

test("our example rows are run requests, and each scores 1.0 with a right program", async () => {
  const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
  assertRowsAreRunRequests(rows);
  const answers = [
    "n = int(input())\nprint(sum(map(int, input().split())))",
    "from collections import Counter\ns = input().strip()\nc = Counter(s)\nprint(min(c, key=lambda ch: (-c[ch], ch)))",
    "a, b = map(int, input().split())\nprint(f'{a / b:.6f}')",
    "class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n                return [seen[target - x], i]\n            seen[x] = i",
    "class Solution:\n    def climbStairs(self, n):\n        a, b = 1, 1\n        for _ in range(n):\n            a, b = b, (a + b) % 1000000007\n        return a",
  ];
  for (const [i, row] of rows.entries()) {
    const body = await verify(fenced(answers[i]!), row.verifier_metadata.unit_tests);
    assert.equal(body.reward, 1, `row ${i + 1}: ${JSON.stringify(body.metadata)}`);
  }
});
