// arc_agi's verify (through fastify inject): the fields NeMo Gym answers with, the first-valid-grid rule on the joined
// assistant text, the request model (defaults, lax ints, 422s), its 500, and the authored data and verifier cases.
// The grid reading itself is pinned rule by rule in tests/ports/arc-grid.test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, type InjectedServer, injectServer, type Item, readRows, responseWith } from "../../../src/testing/index.ts";
import arcAgi from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");
const rows = readRows(join(dataDir, "example.jsonl"));

let env: InjectedServer;
before(async () => (env = await injectServer(arcAgi, {}, { instanceName: "arc_agi" })));
after(() => env.close());

const params = { input: [{ role: "user", content: "Solve the puzzle." }] };
const EXPECTED = [[1, 2], [3, 4]];

const verify = (fields: Record<string, unknown>, output: Item[]) =>
  env.post("/verify", { responses_create_params: params, response: responseWith(output), ...fields });
async function score(output: Item[], fields: Record<string, unknown> = { expected_output: EXPECTED }) {
  const answer = await verify(fields, output);
  assert.equal(answer.status, 200, answer.text);
  const { reward, predicted_output, extraction_successful } = answer.json<Record<string, unknown>>();
  return { reward, predicted_output, extraction_successful };
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order: reward, expected_output, predicted_output, extraction_successful", async () => {
    const answer = await verify({ expected_output: EXPECTED, train: [{ input: [[1]], output: [[2]] }], test_input: [[0]], task_id: "t1" }, [assistantMessage("\\boxed{[[1,2],[3,4]]}")]);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "expected_output", "predicted_output", "extraction_successful"]);
    assert.match(answer.text, /"reward":1\.0,"expected_output":\[\[1,2\],\[3,4\]\],"predicted_output":\[\[1,2\],\[3,4\]\],"extraction_successful":true\}$/);
  });

  test("no grid: reward 0, predicted_output null, extraction_successful false", async () => {
    assert.deepEqual(await score([assistantMessage("I cannot solve this.")]), { reward: 0, predicted_output: null, extraction_successful: false });
  });
});

describe("scoring", () => {
  test("the right grid scores 1, a wrong or differently shaped one 0 (still extracted)", async () => {
    assert.deepEqual(await score([assistantMessage("$$\n\\boxed{[[1, 2], [3, 4]]}\n$$")]), { reward: 1, predicted_output: EXPECTED, extraction_successful: true });
    assert.deepEqual(await score([assistantMessage("\\boxed{[[1,2],[4,3]]}")]), { reward: 0, predicted_output: [[1, 2], [4, 3]], extraction_successful: true });
    assert.deepEqual(await score([assistantMessage("\\boxed{[[1,2,3,4]]}")]), { reward: 0, predicted_output: [[1, 2, 3, 4]], extraction_successful: true });
  });

  test("the first valid grid of the whole answer wins, across messages and parts", async () => {
    const wrongFirst = await score([assistantMessage("Draft: \\boxed{[[4,3],[2,1]]}"), assistantMessage("Final: \\boxed{[[1,2],[3,4]]}")]);
    assert.deepEqual(wrongFirst, { reward: 0, predicted_output: [[4, 3], [2, 1]], extraction_successful: true });
    const brokenFirst = await score([assistantMessage("\\boxed{[[1,2],[3,4]]]}", "\\boxed{[[1,2],[3,4]]}")]);
    assert.deepEqual(brokenFirst, { reward: 1, predicted_output: EXPECTED, extraction_successful: true });
  });

  test("a bare grid counts when nothing is boxed", async () => {
    assert.equal((await score([assistantMessage("So the output is [[1, 2], [3, 4]].")])).reward, 1);
  });

  test("reasoning items and tool calls are not read", async () => {
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "\\boxed{[[1,2],[3,4]]}" }] };
    const call = { type: "function_call", call_id: "c1", name: "f", arguments: '{"grid": [[1,2],[3,4]]}' };
    assert.equal((await score([reasoning, call, assistantMessage("done")])).extraction_successful, false);
  });
});

describe("the request", () => {
  test("expected_output defaults to [], which no grid equals", async () => {
    assert.deepEqual(await score([assistantMessage("\\boxed{[[1]]}")], {}), { reward: 0, predicted_output: [[1]], extraction_successful: true });
  });

  test("expected_output is read as pydantic's List[List[int]]: integer strings, 2.0 and bools become ints", async () => {
    const answer = await verify({ expected_output: [["1", 2.0], [true, " 4 "]] }, [assistantMessage("\\boxed{[[1,2],[1,4]]}")]);
    assert.equal(answer.json<any>().reward, 1);
    assert.deepEqual(answer.json<any>().expected_output, [[1, 2], [1, 4]]);
  });

  test("dataset fields of the wrong type are a 422 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ expected_output: [[1.5]] }, "expected_output"],
      [{ expected_output: [1, 2] }, "expected_output"],
      [{ test_input: "[[1]]" }, "test_input"],
      [{ train: [[1]] }, "train"],
      [{ task_id: 7 }, "task_id"],
    ];
    for (const [fields, field] of cases) {
      const answer = await verify(fields, [assistantMessage("\\boxed{[[1]]}")]);
      assert.equal(answer.status, 422, JSON.stringify(fields));
      assert.equal(answer.json<any>().detail[0].loc[1], field, answer.text);
    }
  });

  test("an int of more than 4300 digits in a candidate is NeMo Gym's 500 (json.loads raises ValueError)", async () => {
    const answer = await verify({ expected_output: EXPECTED }, [assistantMessage(`\\boxed{[[${"7".repeat(4301)}]]}`)]);
    assert.equal(answer.status, 500);
  });
});

describe("data", () => {
  test("the example rows are 5 valid /run requests whose expected output, boxed, scores 1", async () => {
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) {
      const answer = await env.post("/verify", { ...row, response: responseWith([assistantMessage(`\\boxed{${JSON.stringify(row.expected_output)}}`)]) });
      assert.equal(answer.json<any>().reward, 1, row.task_id);
    }
  });

  test("every verifier case scores its expected reward", async () => {
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { kinds: ["full_reward", "zero_reward", "malformed"] });
  });
});
