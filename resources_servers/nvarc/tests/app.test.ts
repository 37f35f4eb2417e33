// nvarc's verify (through fastify inject): the fields NeMo Gym answers with, the transductive reading (thinking removed,
// digit rows), how the mode is chosen (row over instance), the request model, and the authored data and verifier
// cases. The inductive programs, run in the sandbox over real HTTP, are tests/inductive.test.ts; the grid reading
// itself is pinned rule by rule in tests/ports/arc-grid.test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, type InjectedGraph, injectServers, type Item, readRows, responseWith } from "../../../src/testing/index.ts";
import nvarc from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");
const rows = readRows(join(dataDir, "example.jsonl"));

let graph: InjectedGraph;
before(async () => (graph = await injectServers({ nvarc: [nvarc, { agent_mode: "transductive" }], nvarc_inductive: [nvarc, { agent_mode: "inductive", python_timeout_seconds: 30 }], nvarc_default: [nvarc] })));
after(() => graph.close());

const params = { input: [{ role: "user", content: "Solve the puzzle." }] };
const EXPECTED = [[1, 0], [0, 1]];
const PROGRAM = "The diagonal stays.\n```python\ndef transform(grid):\n    return grid\n```";

const verify = (fields: Record<string, unknown>, output: Item[], server = "nvarc") =>
  graph.server(server).post("/verify", { responses_create_params: params, response: responseWith(output), expected_output: EXPECTED, ...fields });
async function score(text: string, fields: Record<string, unknown> = {}, server = "nvarc") {
  const answer = await verify(fields, [assistantMessage(text)], server);
  assert.equal(answer.status, 200, answer.text);
  const { reward, predicted_output, extraction_successful, exact_match, agent_mode } = answer.json<Record<string, unknown>>();
  return { reward, predicted_output, extraction_successful, exact_match, agent_mode };
}
const result = (reward: number, predicted_output: unknown, agent_mode = "transductive") => ({ reward, predicted_output, extraction_successful: predicted_output !== null, exact_match: reward === 1, agent_mode });

describe("the verify response", () => {
  test("has NeMo Gym's fields in order: reward, expected_output, predicted_output, extraction_successful, exact_match, agent_mode", async () => {
    const answer = await verify({ problem_id: "p", task_id: "t", train: [], test_input: [[0]], agent_mode: "transductive", variant: "transductive" }, [assistantMessage("\\boxed{1 0\n0 1}")]);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "expected_output", "predicted_output", "extraction_successful", "exact_match", "agent_mode"]);
    assert.match(answer.text, /"reward":1\.0,"expected_output":\[\[1,0\],\[0,1\]\],"predicted_output":\[\[1,0\],\[0,1\]\],"extraction_successful":true,"exact_match":true,"agent_mode":"transductive"\}$/);
  });
});

describe("transductive", () => {
  test("the right digit rows score 1; wrong ones 0 (still extracted); unreadable ones 0 with no grid", async () => {
    assert.deepEqual(await score("\\boxed{\n1 0\n0 1\n}"), result(1, EXPECTED));
    assert.deepEqual(await score("\\boxed{0 1\n1 0}"), result(0, [[0, 1], [1, 0]]));
    assert.deepEqual(await score("\\boxed{1 0\n0}"), result(0, null), "ragged rows");
  });

  test("a JSON grid is not the expected format: compact it vanishes, with spaces it becomes one row", async () => {
    assert.deepEqual(await score("\\boxed{[[1,0],[0,1]]}"), result(0, null));
    assert.deepEqual(await score("\\boxed{[[1, 0], [0, 1]]}"), result(0, [[1, 0, 0, 1]]));
  });

  test("<think> blocks are removed before reading, so a boxed draft inside one does not count", async () => {
    assert.deepEqual(await score("<think>\\boxed{0 0\n0 0}</think>\\boxed{1 0\n0 1}"), result(1, EXPECTED));
  });

  test("assistant messages are joined with newlines, so two messages can make two rows", async () => {
    const answer = await verify({}, [assistantMessage("1 0"), assistantMessage("0 1")]);
    assert.equal(answer.json<any>().reward, 1);
  });
});

describe("the mode", () => {
  test("the row's agent_mode wins over the instance's; an empty or null one falls back to it", async () => {
    assert.equal((await score("\\boxed{1 0\n0 1}", { agent_mode: "transductive" }, "nvarc_inductive")).reward, 1);
    // The identity program on test_input [[1, 0], [0, 1]] gives the expected grid only when it runs (inductive).
    const program = { test_input: EXPECTED };
    assert.deepEqual(await score(PROGRAM, { ...program, agent_mode: "" }, "nvarc_inductive"), result(1, EXPECTED, "inductive"));
    assert.deepEqual(await score(PROGRAM, { ...program, agent_mode: null }, "nvarc_inductive"), result(1, EXPECTED, "inductive"));
    assert.deepEqual(await score(PROGRAM, { ...program, agent_mode: "inductive" }), result(1, EXPECTED, "inductive"));
  });

  test("an instance without agent_mode is transductive", async () => {
    assert.deepEqual(await score("\\boxed{1 0\n0 1}", {}, "nvarc_default"), result(1, EXPECTED));
  });

  test("any mode other than 'inductive' reads digit rows, and is echoed as given", async () => {
    assert.deepEqual(await score("\\boxed{1 0\n0 1}", { agent_mode: "Inductive" }), result(1, EXPECTED, "Inductive"));
  });
});

describe("inductive without a program", () => {
  test("an answer without a program scores 0, as in NeMo Gym: nothing runs", async () => {
    assert.deepEqual(await score("It mirrors the grid. \\boxed{1 0\n0 1}", { agent_mode: "inductive" }), result(0, null, "inductive"));
  });

  test("a program only inside <think> is no program", async () => {
    assert.deepEqual(await score("<think>```python\ndef transform(g): return g\n```</think>I give up.", {}, "nvarc_inductive"), result(0, null, "inductive"));
  });
});

describe("the request", () => {
  test("expected_output defaults to [], which no grid equals", async () => {
    const answer = await graph.server("nvarc").post("/verify", { responses_create_params: params, response: responseWith([assistantMessage("\\boxed{1}")]) });
    assert.deepEqual(answer.json<any>().expected_output, []);
    assert.equal(answer.json<any>().reward, 0);
  });

  test("expected_output is read as pydantic's List[List[int]]: integer strings and bools become ints", async () => {
    const answer = await verify({ expected_output: [["1", false], [0, "1"]] }, [assistantMessage("\\boxed{1 0\n0 1}")]);
    assert.equal(answer.json<any>().reward, 1);
    assert.deepEqual(answer.json<any>().expected_output, EXPECTED);
  });

  test("dataset fields of the wrong type are a 422 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ expected_output: [[0.5]] }, "expected_output"],
      [{ test_input: [["x"]] }, "test_input"],
      [{ train: "none" }, "train"],
      [{ task_id: 1 }, "task_id"],
      [{ agent_mode: 1 }, "agent_mode"],
    ];
    for (const [fields, field] of cases) {
      const answer = await verify(fields, [assistantMessage("\\boxed{1}")]);
      assert.equal(answer.status, 422, JSON.stringify(fields));
      assert.equal(answer.json<any>().detail[0].loc[1], field, answer.text);
    }
  });
});

describe("data", () => {
  test("the example rows are 5 valid /run requests: the transductive ones score 1 with their expected rows", async () => {
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    const modes = rows.map((row) => row.agent_mode);
    assert.deepEqual(modes, ["transductive", "transductive", "transductive", "inductive", "inductive"]);
    for (const row of rows.filter((r) => r.agent_mode === "transductive")) {
      const text = `\\boxed{${row.expected_output.map((r: number[]) => r.join(" ")).join("\n")}}`;
      const answer = await graph.server("nvarc").post("/verify", { ...row, response: responseWith([assistantMessage(text)]) });
      assert.equal(answer.json<any>().reward, 1, row.task_id);
    }
  });

  test("every verifier case scores its expected reward", async () => {
    await assertVerifierCasesScore(graph.server("nvarc"), join(dataDir, "verifier_cases.jsonl"), { kinds: ["full_reward", "zero_reward", "malformed"] });
  });
});
