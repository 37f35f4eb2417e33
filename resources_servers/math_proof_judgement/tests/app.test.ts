// math_proof_judgement: the "Judgement: Yes/No" verdict rule by rule (NeMo Skills' format 1), verify's response
// fields, and the classification metrics (Skills' precision / recall / F1 averaged across the k samples).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, injectServers, readRows, responseWith, type InjectedGraph } from "../../../src/testing/index.ts";
import mathProofJudgement from "../app.ts";
import { classificationMetrics, parseJudgement } from "../judgement.ts";

describe("parseJudgement", () => {
  test("Yes and No, in any case, with markdown bold around the label or the verdict", () => {
    for (const [text, verdict] of [
      ["Judgement: Yes", true],
      ["judgement: no", false],
      ["JUDGEMENT:YES.", true],
      ["**Judgement**: No", false],
      ["**Judgement:** Yes", true],
      ["Judgement :   \n  yes, the proof holds", true],
      ["Judgement: Nope", false],
    ] as const) {
      assert.equal(parseJudgement(text), verdict, text);
    }
  });

  test("bold after the colon is stripped once: '** **Yes**' keeps its inner bold and is no verdict (as in Skills)", () => {
    assert.equal(parseJudgement("**Judgement:** **Yes**"), null);
  });

  test("several verdicts: the first counts", () => {
    assert.equal(parseJudgement("Judgement: No\n...on reflection\nJudgement: Yes"), false);
  });

  test("missing label, another spelling, a verdict that is neither, empty: none", () => {
    for (const text of ["The proof is correct.", "Judgment: Yes", "Verdict: Yes", "Judgement: Maybe", "Judgement:", "", null]) {
      assert.equal(parseJudgement(text), null, String(text));
    }
  });

  test("a verdict inside a code block is found like any other", () => {
    assert.equal(parseJudgement("```\nJudgement: Yes\n```"), true);
  });
});

let graph: InjectedGraph;
before(async () => {
  graph = await injectServers({ math_proof_judgement: [mathProofJudgement, {}] });
});
after(() => graph.close());

const verify = (text: string, fields: Record<string, unknown>) =>
  graph.server("math_proof_judgement").post("/verify", { responses_create_params: { input: [{ role: "user", content: "judge" }] }, response: responseWith([assistantMessage(text)]), ...fields });

describe("math_proof_judgement verify", () => {
  test("a matching verdict is reward 1; the response carries NeMo Gym's fields, then the row's", async () => {
    const answer = await verify("Looks right.\nJudgement: Yes", { expected_judgement: "Judgement: Yes", problem_id: "p1", extra_field: 7 });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "expected_judgement", "extracted_judgement", "tp", "fp", "fn", "tn", "problem_id", "problem", "proof", "extra_field"]);
    assert.match(answer.text, /"reward":1\.0,"expected_judgement":"Judgement: Yes","extracted_judgement":"Yes","tp":1\.0,"fp":0\.0,"fn":0\.0,"tn":0\.0,"problem_id":"p1","problem":null,"proof":null,"extra_field":7/);
  });

  test("a wrong verdict, no verdict, or no gold: reward 0 with the confusion counts", async () => {
    const fp = (await verify("Judgement: Yes", { expected_judgement: "Judgement: No" })).json<Record<string, unknown>>();
    assert.deepEqual([fp.reward, fp.extracted_judgement, fp.fp], [0, "Yes", 1]);
    const none = (await verify("unsure", { expected_judgement: "Judgement: No" })).json<Record<string, unknown>>();
    assert.deepEqual([none.reward, none.extracted_judgement, [none.tp, none.fp, none.fn, none.tn].map(Number).reduce((a, b) => a + b)], [0, null, 0]);
    const noGold = (await verify("Judgement: No", {})).json<Record<string, unknown>>();
    assert.deepEqual([noGold.reward, noGold.expected_judgement, noGold.tn], [0, null, 0]);
  });

  test("reasoning items are not read; assistant text parts are joined by newlines", async () => {
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Judgement: No" }] };
    const answer = await graph.server("math_proof_judgement").post("/verify", { responses_create_params: { input: [] }, response: responseWith([reasoning, assistantMessage("Judgement: Yes")]), expected_judgement: "Judgement: Yes" });
    assert.equal(answer.json<{ reward: number }>().reward, 1);
  });

  test("/aggregate_metrics: accuracy with pass@k, and precision / recall / F1", async () => {
    const rows: Record<string, unknown>[] = [];
    const cases: Array<[string, string[]]> = [
      ["Judgement: Yes", ["Judgement: Yes", "Judgement: No"]],
      ["Judgement: No", ["Judgement: Yes", "Judgement: Yes"]],
    ];
    for (const [task, [gold, outputs]] of cases.entries()) {
      for (const [rollout, text] of outputs.entries()) rows.push({ ...(await verify(text, { expected_judgement: gold })).json<Record<string, unknown>>(), _ng_task_index: task, _ng_rollout_index: rollout });
    }
    const answer = await graph.server("math_proof_judgement").post("/aggregate_metrics", { verify_responses: rows });
    assert.equal(answer.status, 200, answer.text);
    const metrics = answer.json<{ agent_metrics: Record<string, number>; key_metrics: Record<string, number> }>();
    assert.equal(metrics.agent_metrics["pass@1[avg-of-2]/accuracy"], 25);
    // Sample 0: tp 1, fp 1 → P 50, R 100; sample 1: tp 0, fp 1, fn 1 → P 0, R 0.
    assert.equal(metrics.agent_metrics["pass@1[avg-of-2]/precision"], 25);
    assert.equal(metrics.agent_metrics["pass@1[avg-of-2]/recall"], 50);
    assert.equal(metrics.agent_metrics["total_positives"], 1);
    assert.equal(metrics.key_metrics["pass@1[avg-of-2]/f1"], metrics.agent_metrics["pass@1[avg-of-2]/f1"]);
    // NeMo Gym keeps compute_pass_majority_metrics' per_sample_aggregate: each run's accuracy, run 0 then run 1.
    assert.deepEqual((metrics.agent_metrics as Record<string, unknown>).per_sample_aggregate, { accuracy: [50, 0], true_positive: [50, 0], false_positive: [50, 50], false_negative: [0, 50], true_negative: [0, 0], no_answer: [0, 0] });
  });
});

describe("classificationMetrics", () => {
  const rollout = (gold: string, extracted: string | null) => ({ expected_judgement: gold, extracted_judgement: extracted });
  test("pass@k takes the gold verdict if any sample has it; majority@k the more frequent, a tie the first", () => {
    const metrics = classificationMetrics([
      [rollout("Judgement: Yes", "No"), rollout("Judgement: Yes", "Yes"), rollout("Judgement: Yes", "No")],
      [rollout("Judgement: No", null), rollout("Judgement: No", "Yes"), rollout("Judgement: No", "No")],
    ]);
    // pass@3: task 1 → Yes (tp), task 2 → No (tn): P 100 (no positive predictions → tp/(tp+fp) = 1), R 100.
    assert.deepEqual([metrics["pass@3/precision"], metrics["pass@3/recall"], metrics["pass@3/f1"]], [100, 100, 100]);
    // majority@2: task 1 tie No/Yes → No (fn); task 2 only Yes → fp. P 0, R 0, F1 0.
    assert.deepEqual([metrics["majority@2/precision"], metrics["majority@2/recall"], metrics["majority@2/f1"]], [0, 0, 0]);
    // majority@1: task 1 No (fn), task 2 none: no positive predictions → P 100, R 0, F1 0.
    assert.deepEqual([metrics["majority@1/precision"], metrics["majority@1/recall"], metrics["majority@1/f1"]], [100, 0, 0]);
  });

  test("no tasks: no metrics", () => {
    assert.deepEqual(classificationMetrics([]), {});
  });
});

describe("authored data", () => {
  test("data/example.jsonl: five run requests with a gold judgement", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.notEqual(parseJudgement(row.expected_judgement as string), null);
  });
});
