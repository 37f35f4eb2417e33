// proof_genselect: the <best_solution> tag rule by rule (pinned to what NeMo Gym's extract_best_solution returns for
// the same texts), assert_think_end, the reward and verify's base response, request validation, the opt-in log, and
// the authored data and verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServers, readRows, responseWith, type InjectedGraph } from "../../../src/testing/index.ts";
import genselect, { extractBestSolution } from "../app.ts";
import { convertGenselectJsonl } from "../prepare_data.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");

// [text, assert_think_end, NeMo Gym's selected index, NeMo Gym's reason]
const NEMO_SELECTIONS: [string, boolean, number | null, string | null][] = [
  ["<best_solution>1</best_solution>", false, 1, null],
  ["<best_solution>1</best_solution>", true, null, "missing_think_end"],
  ["<best_solution>2</best_solution>", false, 2, null],
  ["<best_solution>2</best_solution>", true, null, "missing_think_end"],
  ["<best_solution> 2\n</best_solution>", false, 2, null],
  ["<best_solution> 2\n</best_solution>", true, null, "missing_think_end"],
  ["<best_solution>+1</best_solution>", false, 1, null],
  ["<best_solution>+1</best_solution>", true, null, "missing_think_end"],
  ["<best_solution>01</best_solution>", false, 1, null],
  ["<best_solution>01</best_solution>", true, null, "missing_think_end"],
  ["<best_solution>٢</best_solution>", false, 2, null],
  ["<best_solution>٢</best_solution>", true, null, "missing_think_end"],
  ["<best_solution>1_0</best_solution>", false, null, "best_solution_out_of_range"],
  ["<best_solution>1_0</best_solution>", true, null, "missing_think_end"],
  ["<best_solution>1.0</best_solution>", false, null, "invalid_best_solution_value"],
  ["<best_solution>1.0</best_solution>", true, null, "missing_think_end"],
  ["<best_solution></best_solution>", false, null, "invalid_best_solution_value"],
  ["<best_solution></best_solution>", true, null, "missing_think_end"],
  ["<best_solution>3</best_solution>", false, null, "best_solution_out_of_range"],
  ["<best_solution>3</best_solution>", true, null, "missing_think_end"],
  ["<best_solution>0</best_solution>", false, null, "best_solution_out_of_range"],
  ["<best_solution>0</best_solution>", true, null, "missing_think_end"],
  ["<best_solution>-1</best_solution>", false, null, "best_solution_out_of_range"],
  ["<best_solution>-1</best_solution>", true, null, "missing_think_end"],
  ["<best_solution>1</best_solution><best_solution>2</best_solution>", false, 1, null],
  ["<best_solution>1</best_solution><best_solution>2</best_solution>", true, null, "missing_think_end"],
  ["</best_solution>x<best_solution>2", false, 2, null],
  ["</best_solution>x<best_solution>2", true, null, "missing_think_end"],
  ["</best_solution><best_solution>1", false, 1, null],
  ["</best_solution><best_solution>1", true, null, "missing_think_end"],
  ["best_solution: 1", false, null, "missing_best_solution_tag"],
  ["best_solution: 1", true, null, "missing_think_end"],
  ["<best_solution>1", false, null, "missing_best_solution_tag"],
  ["<best_solution>1", true, null, "missing_think_end"],
  ["<think>x</think><best_solution>2</best_solution>", false, 2, null],
  ["<think>x</think><best_solution>2</best_solution>", true, 2, null],
  ["<best_solution>1</best_solution></think>then nothing", false, null, "missing_best_solution_tag"],
  ["<best_solution>1</best_solution></think>then nothing", true, null, "missing_best_solution_tag"],
  ["<think>a</think><think>b</think> <best_solution>1</best_solution>", false, 1, null],
  ["<think>a</think><think>b</think> <best_solution>1</best_solution>", true, 1, null],
  ["<best_solution>one</best_solution>", false, null, "invalid_best_solution_value"],
  ["<best_solution>one</best_solution>", true, null, "missing_think_end"],
  ["<BEST_SOLUTION>1</BEST_SOLUTION>", false, null, "missing_best_solution_tag"],
  ["<BEST_SOLUTION>1</BEST_SOLUTION>", true, null, "missing_think_end"],
];

describe("the selection", () => {
  test("every text as NeMo Gym's extract_best_solution reads it, with and without assert_think_end", () => {
    for (const [text, assertThinkEnd, index, reason] of NEMO_SELECTIONS) {
      const selection = extractBestSolution(text, assertThinkEnd);
      assert.deepEqual(selection, index !== null ? { index: BigInt(index) } : { reason }, `${JSON.stringify(text)} (assert_think_end ${assertThinkEnd})`);
    }
  });

  test("digits past Python's int() limit are no number (invalid_best_solution_value)", () => {
    assert.deepEqual(extractBestSolution(`<best_solution>${"9".repeat(5000)}</best_solution>`, false), { reason: "invalid_best_solution_value" });
  });
});

let graph: InjectedGraph;
before(async () => {
  graph = await injectServers({ plain: [genselect, {}], strict: [genselect, { assert_think_end: true }] });
});
after(() => graph.close());

const row = { responses_create_params: { input: [{ role: "user", content: "Which proof is better?" }] }, problem: "P", proof_1: "A", proof_2: "B", correct_index: 2 };
const verify = (output: Item[], fields: Item = {}, instance = "plain") => graph.server(instance).post("/verify", { ...row, ...fields, response: responseWith(output) });
const rewardOf = async (output: Item[], fields: Item = {}, instance = "plain") => {
  const answer = await verify(output, fields, instance);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<{ reward: number }>().reward;
};

describe("the verify response", () => {
  test("is NeMo Gym's base response: params, response, reward (the row's fields are not echoed)", async () => {
    const answer = await verify([assistantMessage("<best_solution>2</best_solution>")], { score_1: 0, score_2: 1, extra: "x" });
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward"]);
    assert.match(answer.text, /"reward":1\.0}$/);
  });

  test("reward 1.0 iff the selection is correct_index", async () => {
    assert.equal(await rewardOf([assistantMessage("<best_solution>2</best_solution>")]), 1);
    assert.equal(await rewardOf([assistantMessage("<best_solution>1</best_solution>")]), 0);
    assert.equal(await rewardOf([assistantMessage("<best_solution>1</best_solution>")], { correct_index: 1 }), 1);
    assert.equal(await rewardOf([assistantMessage("<best_solution>1</best_solution>")], { correct_index: "1" }), 1, "pydantic reads \"1\" as an int");
    assert.equal(await rewardOf([assistantMessage("<best_solution>3</best_solution>")], { correct_index: 3 }), 0, "only 1 or 2 is a selection");
  });

  test("the text is the assistant messages' output_text parts joined (no separator); reasoning is not read", async () => {
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "<best_solution>2</best_solution>" }] };
    assert.equal(await rewardOf([assistantMessage("<best_solution>", "2</best_solution>")]), 1);
    assert.equal(await rewardOf([assistantMessage("<best_solution>"), assistantMessage("2</best_solution>")]), 1);
    assert.equal(await rewardOf([reasoning]), 0);
    assert.equal(await rewardOf([]), 0);
  });

  test("assert_think_end: a text without </think> selects nothing; the text after the last </think> is read", async () => {
    assert.equal(await rewardOf([assistantMessage("<best_solution>2</best_solution>")], {}, "strict"), 0);
    assert.equal(await rewardOf([assistantMessage("thinking</think><best_solution>2</best_solution>")], {}, "strict"), 1);
    assert.equal(await rewardOf([assistantMessage("<best_solution>2</best_solution></think>")], {}, "plain"), 0, "after the last </think> there is no tag");
  });

  test("problem, proof_1, proof_2 and correct_index are required; scores are optional floats (422s naming the field)", async () => {
    for (const field of ["problem", "proof_1", "proof_2", "correct_index"]) {
      const { [field]: _dropped, ...rest } = row as Item;
      const answer = await graph.server("plain").post("/verify", { ...rest, response: responseWith([assistantMessage("x")]) });
      assert.equal(answer.status, 422, field);
      assert.deepEqual(answer.json<any>().detail[0].loc, ["body", field]);
    }
    assert.equal((await verify([], { correct_index: 1.5 })).status, 422);
    assert.equal((await verify([], { score_1: "high" })).status, 422);
    assert.equal((await verify([], { score_2: null })).status, 200);
  });
});

describe("PROOF_GENSELECT_LOG_JSONL_PATH", () => {
  test("one line per scored answer: ts, problem, generated_sequence, reward, selected_index, correct_index, reason", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "gym-genselect-log-")), "log.jsonl");
    process.env.PROOF_GENSELECT_LOG_JSONL_PATH = path;
    try {
      await verify([assistantMessage("<best_solution>2</best_solution>")], { problem: "Pé" });
      await verify([assistantMessage("pick <best_solution>x</best_solution>")]);
      await verify([]);
    } finally {
      delete process.env.PROOF_GENSELECT_LOG_JSONL_PATH;
    }
    const lines = readFileSync(path, "utf8").trim().split("\n");
    assert.equal(lines.length, 2, "an answer without text is not logged");
    assert.match(lines[0]!, /^\{"ts": "\d{4}-\d\d-\d\dT[\d:.]+\+00:00", "problem": "Pé", "generated_sequence": "<best_solution>2<\/best_solution>", "reward": 1\.0, "selected_index": 2, "correct_index": 2\}$/);
    assert.match(lines[1]!, /"reward": 0\.0, "selected_index": null, "correct_index": 2, "reason": "invalid_best_solution_value"\}$/);
  });
});

describe("the data", () => {
  test("example rows are /run requests with two proofs and the index of the better one", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok([1, 2].includes(r.correct_index as number) && typeof r.proof_1 === "string" && typeof r.proof_2 === "string");
  });

  test("verifier cases score as written (NeMo Gym's verify gives each the same reward)", () =>
    assertVerifierCasesScore(graph.server("plain"), join(dataDir, "verifier_cases.jsonl"), { minCases: 8, kinds: ["full_reward", "zero_reward", "malformed"] }));
});

describe("prepare_data (NeMo Gym's prepare_data.py)", () => {
  // A template of our own; the expected text is what NeMo Gym's convert_genselect_jsonl wrote for the same input.
  const template = "Problem: {problem}\nOne: {proof_1}\nTwo: {proof_2}\n{{braces}} done";
  const input = "{\"problem\": \"Prove \u00e9\", \"proof_1\": \"A {x}\", \"proof_2\": \"B\", \"correct_index\": 1, \"score_1\": 1.0, \"score_2\": 0}\n{\"problem\": 5, \"proof_1\": 1.5, \"proof_2\": true, \"correct_index\": 2}\n\n{\"problem\": \"P\", \"proof_1\": \"X\", \"proof_2\": \"Y\", \"correct_index\": 2.0, \"score_2\": 0.5, \"extra\": [1]}\n";
  const nemoOutput = "{\"agent_ref\": {\"name\": \"my_agent\"}, \"responses_create_params\": {\"input\": [{\"role\": \"user\", \"content\": \"Problem: Prove é\\nOne: A {x}\\nTwo: B\\n{braces} done\"}]}, \"problem\": \"Prove é\", \"proof_1\": \"A {x}\", \"proof_2\": \"B\", \"correct_index\": 1, \"score_1\": 1.0, \"score_2\": 0}\n{\"agent_ref\": {\"name\": \"my_agent\"}, \"responses_create_params\": {\"input\": [{\"role\": \"user\", \"content\": \"Problem: 5\\nOne: 1.5\\nTwo: True\\n{braces} done\"}]}, \"problem\": 5, \"proof_1\": 1.5, \"proof_2\": true, \"correct_index\": 2}\n{\"agent_ref\": {\"name\": \"my_agent\"}, \"responses_create_params\": {\"input\": [{\"role\": \"user\", \"content\": \"Problem: P\\nOne: X\\nTwo: Y\\n{braces} done\"}]}, \"problem\": \"P\", \"proof_1\": \"X\", \"proof_2\": \"Y\", \"correct_index\": 2.0, \"score_2\": 0.5}\n";

  test("rows become NeMo Gym's lines byte for byte: the prompt filled by str.format, ints and floats kept, scores only when given", () => {
    assert.deepEqual(convertGenselectJsonl(input, template, "my_agent"), { text: nemoOutput, count: 3 });
  });

  test("a row without a required key stops it, naming the line and the key", () => {
    assert.throws(() => convertGenselectJsonl('{"problem": "p", "proof_1": "a", "proof_2": "b"}\n', template), /line 1: no 'correct_index'/);
  });
});
