// SciCode over real HTTP, every sub-step in real bubblewrap sandboxes (they need bwrap: without it the server answers
// 503 and these tests fail loudly). The example rows and their targets (data/example_test_data.json) are our own.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { assistantMessage, http, overHttp, readRows, responseWith, startServers, type ServerCalls } from "../../../src/testing/index.ts";
import type { InProcessGraph } from "../../../src/testing/in-process.ts";
import scicode, { sanitizeTest } from "../app.ts";
import { handedOver } from "../substep.ts";

const DATA = join(import.meta.dirname, "../data");
const rows = readRows(join(DATA, "example.jsonl")) as Record<string, any>[];
const [demo1, demo2] = rows as [Record<string, any>, Record<string, any>];

const ENERGY = "import numpy as np\ndef energy_levels(n, omega):\n    return (np.arange(n) + 0.5) * omega\n";
const PARTITION = ENERGY + "def partition_function(n, omega, beta):\n    return np.exp(-beta * energy_levels(n, omega)).sum()\n";
const STATS = "import numpy as np\ndef column_stats(m):\n    return m.mean(axis=0), m.std(axis=0)\n";

let graph: InProcessGraph;
let server: ServerCalls;
let noData: ServerCalls;
let missingData: ServerCalls;
before(async () => {
  graph = await startServers({
    scicode: [scicode, { test_data_fpath: join(DATA, "example_test_data.json"), timeout_secs: 3 }],
    scicode_unconfigured: [scicode, {}],
    scicode_missing: [scicode, { test_data_fpath: "/nonexistent/test_data.h5" }],
  });
  server = overHttp(graph.url("scicode"), http());
  noData = overHttp(graph.url("scicode_unconfigured"), http());
  missingData = overHttp(graph.url("scicode_missing"), http());
});
after(() => graph.close());

const verify = async (target: ServerCalls, row: Record<string, any>, solutions: Record<string, string> | null) => {
  const answer = await target.post("/verify", { ...row, responses_create_params: { input: [] }, response: responseWith([assistantMessage("")]), solutions });
  return { status: answer.status, text: answer.text, json: () => answer.json() as Record<string, any> };
};

test("every sub-step right: reward 1.0, with NeMo Gym's per-step fields", async () => {
  const answer = await verify(server, demo1, { "demo1.1": ENERGY, "demo1.2": PARTITION });
  assert.equal(answer.status, 200, answer.text);
  const body = answer.json();
  assert.equal(body.reward, 1.0);
  assert.deepEqual(body.step_results, [true, true]);
  assert.equal(body.num_steps_passed, 2);
  assert.equal(body.num_steps_total, 2);
  assert.equal(body.problem_accuracy, true);
  assert.equal(body.subtask_accuracy, 1.0);
  assert.equal(body.problem_id, "demo1");
  assert.equal("sub_steps" in body, false, "the request's sub_steps are not carried into the rollout");
});

test("a tuple-returning step compared with cmp_tuple_or_list passes; a wrong value fails that step only", async () => {
  assert.equal((await verify(server, demo2, { "demo2.1": STATS })).json().reward, 1.0);
  const wrongSecond = PARTITION.replace("np.exp(-beta", "np.exp(-2 * beta");
  const body = (await verify(server, demo1, { "demo1.1": ENERGY, "demo1.2": wrongSecond })).json();
  assert.deepEqual(body.step_results, [true, false]);
  assert.equal(body.reward, 0.0);
  assert.equal(body.subtask_accuracy, 0.5);
});

test("prefilled steps (absent from solutions) are not scored; the out-of-context sentinel fails; no solutions is 0", async () => {
  const prefilled = (await verify(server, demo1, { "demo1.2": PARTITION })).json();
  assert.deepEqual([prefilled.step_results, prefilled.num_steps_total, prefilled.reward], [[true], 1, 1.0]);
  const sentinel = (await verify(server, demo1, { "demo1.1": ENERGY, "demo1.2": "_ran_out_of_context_" })).json();
  assert.deepEqual([sentinel.step_results, sentinel.reward, sentinel.subtask_accuracy], [[true, false], 0.0, 0.5]);
  const none = (await verify(server, demo1, null)).json();
  assert.deepEqual([none.reward, none.num_steps_total, none.step_results, none.problem_accuracy], [0.0, 0, [], false]);
});

test("code that raises, does not parse, or runs past timeout_secs fails its step", async () => {
  const raises = (await verify(server, demo2, { "demo2.1": "def column_stats(m):\n    raise ValueError('no')\n" })).json();
  assert.equal(raises.reward, 0.0);
  const syntax = (await verify(server, demo2, { "demo2.1": "def column_stats(m) return 1" })).json();
  assert.equal(syntax.reward, 0.0);
  const slow = (await verify(server, demo2, { "demo2.1": "import time\ntime.sleep(60)\n" + STATS })).json();
  assert.equal(slow.reward, 0.0);
});

test("forging: exiting 0, patching numpy, printing a fake hand-over, or reading the targets does not pass", async () => {
  const forgeries = {
    "exit 0 before the tests": "import sys\nsys.exit(0)\n",
    "os._exit(0) at import": "import os\nos._exit(0)\n",
    "patched comparisons": "import numpy as np, builtins\nnp.allclose = lambda *a, **k: True\ndef column_stats(m):\n    return 0\n",
    "fake hand-over then exit": "import os, sys, json\nfor k, v in os.environ.items(): pass\nprint('\\n' + 'scicode-x' + '\\n{\"outcome\": \"complete\", \"tests\": {}}\\nscicode-x')\nos._exit(0)\n",
    // The targets are never in the capture sandbox: neither the JSON copy nor the server's files are there.
    "reading the targets": `import json\ndef column_stats(m):\n    return tuple(json.load(open(${JSON.stringify(join(DATA, "example_test_data.json"))}))['demo2.1'])\n`,
  };
  for (const [name, code] of Object.entries(forgeries)) {
    const body = (await verify(server, demo2, { "demo2.1": code })).json();
    assert.equal(body.reward, 0.0, name);
    assert.deepEqual(body.step_results, [false], name);
  }
});

test("a forged hand-over between the real nonce lines carries only data: the check still compares it", async () => {
  // The model's code can learn the nonce (it is in its own process) and write a hand-over of its choosing; that
  // hand-over is decoded as data, so it passes only when its values equal the targets — i.e. the answer is right.
  const nonceReader = "import json, sys\nspec = json.load(open('spec.json'))\nn = spec['nonce']\nprint('\\n' + n + '\\n' + json.dumps({'outcome': 'complete', 'tests': {'0': {'0': [{'t': 'tuple', 'v': [1, 2]}]}}}) + '\\n' + n)\nimport os\nos._exit(0)\n";
  assert.equal((await verify(server, demo2, { "demo2.1": nonceReader })).json().reward, 0.0);
});

test("missing test data: 501 naming the file or the key, never a 0", async () => {
  const unconfigured = await verify(noData, demo2, { "demo2.1": STATS });
  assert.equal(unconfigured.status, 501);
  assert.match(unconfigured.text, /test_data_fpath is not configured/);
  const missing = await verify(missingData, demo2, { "demo2.1": STATS });
  assert.equal(missing.status, 501);
  assert.match(missing.text, /\/nonexistent\/test_data\.h5 is missing/);
  const unknownStep = await verify(server, { ...demo2, sub_steps: [{ ...demo2.sub_steps[0], step_number: "demo9.1" }] }, { "demo2.1": STATS });
  assert.equal(unknownStep.status, 501);
  assert.match(unknownStep.text, /no targets for step demo9\.1/);
});

test("test_data.h5 needs h5py inside the sandbox: without it, a 501 naming h5py", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "scicode-h5-"));
  const h5 = join(dir, "test_data.h5");
  writeFileSync(h5, "not really hdf5");
  const h5Graph = await startServers({ scicode: [scicode, { test_data_fpath: h5 }] });
  t.after(() => h5Graph.close());
  const answer = await verify(overHttp(h5Graph.url("scicode"), http()), demo2, { "demo2.1": STATS });
  // This machine's sandbox Python has no h5py; a host that has it reaches the file and fails reading this fake one.
  if (answer.status === 501) assert.match(answer.text, /h5py/);
  else assert.equal(answer.status, 500, answer.text);
});

test("a test that calls the model's function on the target is a 501 (this runner cannot split it), not a 0", async () => {
  const row = { ...demo2, sub_steps: [{ ...demo2.sub_steps[0], test_cases: ["assert np.allclose(column_stats(target), target)"] }] };
  const answer = await verify(server, row, { "demo2.1": STATS });
  assert.equal(answer.status, 501);
  assert.match(answer.text, /model's function is called on the target/);
});

test("sanitizeTest drops SciCode's own imports; handedOver reads the last hand-over only", () => {
  assert.equal(sanitizeTest("from scicode.compare.cmp import cmp_tuple_or_list\nimport scicode\nassert f(1) == target"), "assert f(1) == target");
  assert.equal(handedOver("x\nN\nfirst\nN\ny\nN\nsecond\nN\n", "N"), "second");
  assert.match(handedOver("printed only\n", "N"), /nothing handed over/);
});
