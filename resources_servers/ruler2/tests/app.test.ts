// ruler2's verify, rule by rule (fastify inject; values from NeMo Gym's Python): the soft string match and its three
// match types, the multichoice letter, predicted_answer, the per-task metrics with the 12-task suite mean, then the
// data.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import ruler2 from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");

let env: InjectedServer;
before(async () => {
  env = await injectServer(ruler2);
});
after(() => env.close());

const post = (text: string, fields: Item) => env.post("/verify", { responses_create_params: { input: "q" }, response: responseWith([assistantMessage(text)]), ...fields });
async function scored(text: string, fields: Item) {
  const reply = await post(text, fields);
  assert.equal(reply.status, 200, reply.text);
  return reply.json<Item>();
}
const reward = async (text: string, fields: Item) => (await scored(text, fields)).reward;

describe("the verify response", () => {
  test("has NeMo Gym's fields in order; expected_answer and other row fields are not echoed", async () => {
    const reply = await post(" 42.", { expected_answer: ["42"], agent_ref: { name: "x" } });
    assert.deepEqual(Object.keys(reply.json<Item>()), ["responses_create_params", "response", "reward", "eval_type", "match_type", "task", "length", "predicted_answer", "extracted_answer"]);
    assert.match(reply.text, /"reward":1\.0,"eval_type":"ruler2","match_type":"all","task":null,"length":null,"predicted_answer":"42\.","extracted_answer":null}$/);
  });

  test("predicted_answer: stripped, each control character a newline, stripped again", async () => {
    assert.equal((await scored("  7\u0001 and\u001f8 \n", { expected_answer: ["7"] })).predicted_answer, "7\n and\n8");
  });

  test("expected_answer is required (null is one reference, 'None'); a match_type NeMo Gym does not know is a 422 naming it", async () => {
    const missing = await post("x", {});
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.json<Item>().detail[0].loc, ["body", "expected_answer"]);
    assert.equal(await reward("it was none", { expected_answer: null }), 1);
    const unknown = await post("x", { expected_answer: ["x"], match_type: "fuzzy" });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.json<Item>().detail[0].loc, ["body", "match_type"]);
  });
});

describe("the soft string match (eval_type ruler2)", () => {
  test("all: the mean over the references of max(substring, 1 − WER), lower-cased", async () => {
    assert.equal(await reward(" alpha beta delta", { expected_answer: ["Alpha Beta Gamma", "delta"] }), 0.8333333333333334);
    assert.equal(await reward("nothing", { expected_answer: [] }), 0, "no references");
  });

  test("a non-list expected_answer is one reference, str()'d", async () => {
    assert.equal(await reward("the code is 12345", { expected_answer: 12345 }), 1);
  });

  test("part: the best reference, after deleting the Document N: header blocks the prediction repeats", async () => {
    const prediction = "Document 1: Paris is big\nmore\n\nDocument 3:\nThe answer is Lisbon";
    assert.equal(await reward(prediction, { expected_answer: ["paris", "lisbon"], match_type: "part" }), 1);
    assert.equal(await reward(prediction, { expected_answer: ["paris"], match_type: "part" }), 0, "Paris was in a deleted block");
    assert.equal(await reward(prediction, { expected_answer: ["paris"], match_type: "all" }), 1);
  });

  test("2steps: the mean over the references on the last paragraph only", async () => {
    assert.equal(await reward("Question 1: lisbon\n\nfinal: Lisbon Porto", { expected_answer: ["lisbon", "porto faro"], match_type: "2steps" }), 0.5);
    assert.equal(await reward("lisbon\n\nporto", { expected_answer: ["lisbon"], match_type: "2steps" }), 0);
  });
});

describe("the multichoice letter", () => {
  const letter = async (text: string, expected: unknown = "B") => (await scored(text, { expected_answer: expected, eval_type: "multichoice", match_type: "anything" })).extracted_answer;

  test("the last 'The final answer is …' line, else the last \\boxed{…}: one character, else its last standalone capital", async () => {
    assert.equal(await letter("The final answer is B"), "B");
    assert.equal(await letter("The final answer is \\boxed{D}"), "D");
    assert.equal(await letter("so \\boxed{(C) 4}"), "C");
    assert.equal(await letter("\\boxed{x}"), "X");
    assert.equal(await letter("\\boxed{Ｃ}"), "C", "full-width, Arabic and Bengali letters read as A–D");
  });

  test("without one, the last Answer: X (markdown allowed, any case); else none", async () => {
    assert.equal(await letter("**Answer:** c."), "C");
    assert.equal(await letter("Answer: ب"), null, "the letter mapping applies to the boxed text only");
    assert.equal(await letter("I think A is wrong and B"), null);
    assert.equal(await letter("\\boxed{}"), null);
  });

  test("reward 1.0 iff the letter equals expected_answer stripped and upper-cased; no letter is 0.0", async () => {
    assert.equal((await scored("\\boxed{b}", { expected_answer: " b ", eval_type: "multichoice" })).reward, 1);
    assert.equal((await scored("\\boxed{b}", { expected_answer: "C", eval_type: "multichoice" })).reward, 0);
    assert.equal((await scored("no answer", { expected_answer: null, eval_type: "multichoice" })).reward, 0);
  });
});

describe("the aggregate metrics", () => {
  const SUBTASKS = ["mk_niah_basic", "mk_niah_easy", "mk_niah_medium", "mk_niah_hard", "mv_niah_basic", "mv_niah_easy", "mv_niah_medium", "mv_niah_hard", "qa_basic", "qa_easy", "qa_medium", "qa_hard"];
  const metricsOf = async (tasks: string[]) => {
    const verify_responses = tasks.flatMap((task, i) => [0, 1].map((r) => ({ reward: (i + r) % 3 === 0 ? 1.0 : 0.25, task, _ng_task_index: i, _ng_rollout_index: r })));
    const reply = await env.post("/aggregate_metrics", { verify_responses });
    assert.equal(reply.status, 200, reply.text);
    return reply.json<Item>();
  };

  test("pass@k over the reward, per task, and the suite mean of each per-task metric when all 12 tasks are there", async () => {
    const { agent_metrics, key_metrics } = await metricsOf(SUBTASKS);
    assert.equal(agent_metrics["qa_hard/pass@1[avg-of-2]/accuracy"], 62.5);
    const perTask = SUBTASKS.map((task) => agent_metrics[`${task}/pass@1[avg-of-2]/accuracy`] as number);
    assert.ok(Math.abs(agent_metrics["ruler2_suite_avg/pass@1[avg-of-2]/accuracy"] - perTask.reduce((a, b) => a + b) / 12) < 1e-12);
    assert.equal(key_metrics["ruler2_suite_avg/pass@2/accuracy"], agent_metrics["ruler2_suite_avg/pass@2/accuracy"]);
    assert.ok("pass@2/accuracy" in key_metrics && !("pass@1/accuracy" in key_metrics));
    assert.ok(!Object.keys(agent_metrics).some((key) => key.startsWith("majority@")));
  });

  test("no suite mean when a sub-task is missing", async () => {
    const { agent_metrics } = await metricsOf(SUBTASKS.slice(1));
    assert.ok(!Object.keys(agent_metrics).some((key) => key.startsWith("ruler2_suite_avg/")));
  });
});

describe("the data", () => {
  test("example rows are /run requests with an eval_type, a match_type and a task", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok(typeof r.eval_type === "string" && typeof r.match_type === "string" && typeof r.task === "string");
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 5 }));
});
