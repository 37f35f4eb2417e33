// spartqa's verify, rule by rule (fastify inject): the answer phrase is found in the text, resolved to one of the four
// candidates, and scored against the gold label; then the metrics, the example rows and the verifier cases. Every
// expected value here was computed by NeMo Gym's own verify / compute_metrics (run locally on the same requests).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import spartqa, { extractAnswer } from "../app.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const OPTIONS = ["a medium blue circle", "a small black circle"];
const row: Item = {
  responses_create_params: { input: [{ role: "user", content: "Which object is left of the square? a medium blue circle or a small black circle?" }] },
  target: "a small black circle",
  options: OPTIONS,
  verifier_metadata: { target: "a small black circle", options: OPTIONS },
};

let env: InjectedServer;
before(async () => (env = await injectServer(spartqa)));
after(() => env.close());

const verify = (output: Item[], fields: Item = {}) => env.post("/verify", { ...row, ...fields, response: responseWith(output) });
async function scored(text: string, fields: Item = {}) {
  const answer = await verify([assistantMessage(text)], fields);
  assert.equal(answer.status, 200, answer.text);
  const { reward, exact, parsed, extracted, predicted_label } = answer.json<Item>();
  return { reward, exact, parsed, extracted, predicted_label };
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order: its own, then target, options, verifier_metadata, then the other row fields", async () => {
    const answer = await verify([assistantMessage("Final answer: a small black circle")], { agent_ref: { name: "x" }, _ng_task_index: 3 });
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "exact", "parsed", "extracted", "predicted_label", "target", "options", "verifier_metadata", "agent_ref", "_ng_task_index"]);
    assert.match(answer.text, /"reward":1\.0,"exact":true,"parsed":true,"extracted":"a small black circle","predicted_label":"a small black circle"/);
  });

  test("absent target, options and verifier_metadata are echoed as their defaults", async () => {
    const answer = await env.post("/verify", { responses_create_params: row.responses_create_params, response: responseWith([assistantMessage("both")]) });
    const body = answer.json<Item>();
    assert.deepEqual([body.reward, body.target, body.options, body.verifier_metadata], [0, "", [], null]);
  });

  test("target must be a string and options a list of strings (pydantic's 422)", async () => {
    assert.equal((await verify([], { target: 3 })).status, 422);
    assert.equal((await verify([], { options: [1, 2] })).status, 422);
    assert.equal((await verify([], { verifier_metadata: "x" })).status, 422);
  });
});

describe("the answer phrase", () => {
  test("the last capture of the first answer pattern that has one", () => {
    assert.equal(extractAnswer("Answer: one\nFinal answer: two\nFinal answer: three"), "three");
    assert.equal(extractAnswer("answer: the small black circle\nAnswer: a medium blue circle"), "a medium blue circle");
    assert.equal(extractAnswer("I think the answer would be both of them."), "both of them.");
  });

  test("the prompt's own template line is not an answer", () => {
    assert.equal(extractAnswer("Final answer: <candidate answer>\nFinal answer: neither"), "neither");
    assert.equal(extractAnswer("Final answer: <candidate answer>"), "Final answer: <candidate answer>");
  });

  test("thinking blocks are dropped; markdown, bullets and quotes around the answer are cleaned", () => {
    assert.equal(extractAnswer("<think>Final answer: no</think>Final Answer: Both"), "Both");
    assert.equal(extractAnswer("<|channel>thought\nFinal answer: x<channel|>Final answer: y"), "y");
    assert.equal(extractAnswer("**Final answer**: **a small black circle**"), "a small black circle");
    assert.equal(extractAnswer("- `\"none of them\"`"), "none of them");
  });

  test("without a pattern: the first line, or the last after a thinking-style opener", () => {
    assert.equal(extractAnswer("a small black circle\nmore text"), "a small black circle");
    assert.equal(extractAnswer("Thinking Process: compare.\nB is right of A.\nsmall black circle"), "small black circle");
    assert.equal(extractAnswer("   \n\n"), "");
  });
});

describe("the candidate it resolves to", () => {
  test("verbatim (article, case and punctuation aside) is exact", async () => {
    assert.deepEqual(await scored("Final answer: Small black circle!"), { reward: 1, exact: true, parsed: true, extracted: "Small black circle!", predicted_label: "a small black circle" });
  });

  test("an alias names one fixed label", async () => {
    assert.deepEqual(await scored("Final answer: neither", { target: "none of them" }), { reward: 1, exact: false, parsed: true, extracted: "neither", predicted_label: "none of them" });
    assert.equal((await scored("Final answer: DK", { target: "none of them" })).reward, 1);
  });

  test("containment of exactly one candidate scores, not exact; naming two resolves to nothing", async () => {
    assert.deepEqual(await scored("The answer is the small black circle, clearly."), { reward: 1, exact: false, parsed: true, extracted: "the small black circle, clearly.", predicted_label: "a small black circle" });
    assert.deepEqual(await scored("Final answer: a medium blue circle or a small black circle"), { reward: 0, exact: false, parsed: true, extracted: "a medium blue circle or a small black circle", predicted_label: "" });
  });

  test("of two nested candidates, the more specific one is meant", async () => {
    const options = ["a triangle in block B", "a big blue triangle in block B"];
    assert.equal((await scored("Final answer: it is a big blue triangle in block B", { options, target: "a big blue triangle in block B" })).reward, 1);
  });

  test("the right label of the wrong candidate scores 0", async () => {
    assert.deepEqual(await scored("Final answer: a medium blue circle"), { reward: 0, exact: false, parsed: true, extracted: "a medium blue circle", predicted_label: "a medium blue circle" });
  });

  test("empty output: parsed false, reward 0", async () => {
    assert.deepEqual(await scored(""), { reward: 0, exact: false, parsed: false, extracted: "", predicted_label: "" });
  });

  test("target and options fall back to verifier_metadata; without options the gold alone is a candidate", async () => {
    assert.equal((await scored("Final answer: small black circle", { target: "", options: [] })).reward, 1);
    assert.equal((await scored("Final answer: small black circle", { target: "", options: [], verifier_metadata: null })).reward, 0);
    assert.equal((await scored("Final answer: a small black circle", { options: [], verifier_metadata: null })).predicted_label, "a small black circle");
  });

  test("the text is output_text, else every message's text (a string content too)", async () => {
    const echoed = await verify([{ type: "message", role: "user", content: "Final answer: a small black circle" }]);
    assert.equal(echoed.json<Item>().reward, 1);
  });
});

describe("the metrics", () => {
  test("mean reward, exact/parse/resolve rates and the both/none slices (NeMo Gym's numbers on the verifier cases)", async () => {
    const verifyResponses = [];
    const cases = readRows(join(dataDir, "verifier_cases.jsonl"));
    for (const [i, c] of cases.entries()) {
      const answer = await env.post("/verify", { ...(c.row as Item), response: responseWith([assistantMessage(c.output_text as string)]) });
      verifyResponses.push({ ...answer.json<Item>(), _ng_task_index: Math.floor(i / 2), _ng_rollout_index: i % 2 });
    }
    const { agent_metrics, key_metrics } = (await env.post("/aggregate_metrics", { verify_responses: verifyResponses })).json<any>();
    const expected = { mean_reward: 0.5625, count: 16, exact_match_rate: 0.3125, parse_rate: 0.9375, label_resolve_rate: 0.6875, accuracy_both_of_them: 0.6, accuracy_none_of_them: 1 / 3 };
    for (const [key, value] of Object.entries(expected)) assert.ok(Math.abs(agent_metrics[key] - value) < 1e-12, `${key}: ${agent_metrics[key]}`);
    assert.deepEqual(key_metrics, { mean_reward: 0.5625, exact_match_rate: 0.3125 });
  });
});

describe("the data", () => {
  test("example rows are /run requests whose gold is one of the four candidates", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok([...(r.options as string[]), "both of them", "none of them"].includes(r.target as string));
  });

  test("verifier cases score as NeMo Gym scored them", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 16 }));
});
