// proof_judge over real HTTP, scripted_model (judge_rules) as the verifier and meta-verifier: the answer format
// rules, alpha·r_y (beta 0) and alpha·r_y + beta·(1-|s'-r_y|)·r_meta, the judges' verdicts rule by rule, the
// zero_reward_incorrect_groups aggregation, the judge_failed row (for a whole group too), and the config rules.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, readRows, responseWith, serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import proofJudge, { parseProofResponse } from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const templates = join(import.meta.dirname, "../data/example_prompt_templates");

// Verifier prompts start "Grade the proof", meta-verifier prompts "Is this self-evaluation"; rules key on the proof
// text (verifier) and the self-evaluation text (meta-verifier).
const rules = [
  { match: "^Grade the proof.*Proof: sound", answer: "Correct. \\boxed{1}" },
  { match: "^Grade the proof.*Proof: gappy", answer: "Minor gaps: \\boxed{0.5}" },
  { match: "^Grade the proof.*Proof: wrong", answer: "\\boxed{0}" },
  { match: "^Grade the proof.*Proof: vague", answer: "Hard to say." },
  { match: "^Grade the proof.*Proof: recant", answer: "\\boxed{1}, on second thought \\boxed{0}" },
  { match: "^Grade the proof.*Proof: shouty", answer: "\\BOXED{1}" },
  { match: "^Is this self-evaluation.*Self-evaluation: honest", answer: "Accurate. \\boxed{1}" },
  { match: "^Is this self-evaluation.*Self-evaluation: inflated", answer: "\\boxed{0}" },
];

const config = (fields: Record<string, unknown> = {}) => ({ judge_model_server: { type: "responses_api_models", name: "judge" }, prompt_templates_dir: templates, ...fields });

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    verifier_only: [proofJudge, config()],
    with_meta: [proofJudge, config({ alpha: 0.5, beta: 0.5 })],
    groups: [proofJudge, config({ zero_reward_incorrect_groups: true, expected_group_size: 2 })],
    thinking: [proofJudge, config({ assert_think_end: true })],
    judge: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const answerText = (proof: string, selfEvaluation: string) => `Thinking aside.\n## Solution\n${proof}\n## Self Evaluation\n${selfEvaluation}`;
const verify = (instance: string, text: string, fields: Record<string, unknown> = {}) =>
  client.request(`${graph.url(instance)}/verify`, { method: "POST", json: { responses_create_params: { input: [{ role: "user", content: "prove" }] }, response: responseWith([assistantMessage(text)]), problem: "P", ...fields } });
async function reward(instance: string, text: string, fields?: Record<string, unknown>) {
  const answer = await verify(instance, text, fields);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<{ reward: number }>().reward;
}

describe("parseProofResponse", () => {
  test("the proof between the headers and the self-evaluation after, each stripped, with its \\boxed score", () => {
    assert.deepEqual(parseProofResponse("<think>## Solution x</think> intro ## Solution\n  p \n## Self Evaluation\n fine \\boxed{0.5} ", false), { proof: "p", selfEvaluation: "fine \\boxed{0.5}", selfScore: 0.5 });
  });
  test("each missing part names itself", () => {
    assert.deepEqual(parseProofResponse("no headers", false), { reason: "missing_solution_header" });
    assert.deepEqual(parseProofResponse("## Self Evaluation \\boxed{1}\n## Solution p", false), { reason: "missing_self_eval_header" });
    assert.deepEqual(parseProofResponse("## Solution p ## Self Evaluation ok", false), { reason: "invalid_boxed_score" });
    assert.deepEqual(parseProofResponse("## Solution p ## Self Evaluation \\boxed{1}", true), { reason: "missing_think_end" });
    assert.deepEqual(parseProofResponse("## solution p ## self evaluation \\boxed{1}", false), { reason: "missing_solution_header" }, "headers are case-sensitive");
  });
  test("the first ## Solution and the first ## Self Evaluation after it split the answer", () => {
    assert.deepEqual(parseProofResponse("## Solution a ## Solution b ## Self Evaluation c ## Self Evaluation \\boxed{1}", false), { proof: "a ## Solution b", selfEvaluation: "c ## Self Evaluation \\boxed{1}", selfScore: 1 });
  });
});

describe("proof_judge verify (beta 0: the verifier alone)", () => {
  test("reward = alpha · r_y; the answer is NeMo Gym's BaseVerifyResponse", async () => {
    const answer = await verify("verifier_only", answerText("sound argument", "I am sure. \\boxed{1}"));
    assert.deepEqual([Object.keys(answer.json<object>()), answer.json<{ reward: number }>().reward], [["responses_create_params", "response", "reward"], 1]);
    assert.match(answer.text, /"reward":1\.0/);
    assert.equal(await reward("verifier_only", answerText("gappy argument", "\\boxed{1}")), 0.5);
    assert.equal(await reward("verifier_only", answerText("wrong argument", "\\boxed{1}")), 0);
  });

  test("the verifier's verdict, rule by rule: none → 0, several → the last, other casing → none", async () => {
    assert.equal(await reward("verifier_only", answerText("vague argument", "\\boxed{1}")), 0);
    assert.equal(await reward("verifier_only", answerText("recant argument", "\\boxed{1}")), 0);
    assert.equal(await reward("verifier_only", answerText("shouty argument", "\\boxed{1}")), 0);
  });

  test("format failures and too long parts score 0 without a judge call", async () => {
    // None of these proofs matches a judge rule: a judge call would be a judge_failed row.
    for (const text of ["", "no headers", answerText("unjudged", "no score"), answerText("x".repeat(40_001), "\\boxed{1}"), answerText("unjudged", `${"y".repeat(20_001)} \\boxed{1}`)]) {
      assert.equal(await reward("verifier_only", text), 0, text.slice(0, 40));
    }
  });

  test("assert_think_end: no </think> → 0; the text after it is parsed", async () => {
    assert.equal(await reward("thinking", answerText("sound", "\\boxed{1}")), 0);
    assert.equal(await reward("thinking", `<think>hmm</think>${answerText("sound", "\\boxed{1}")}`), 1);
  });

  test("a failed judge call is NeMo Gym's judge_failed row", async () => {
    const answer = await verify("verifier_only", answerText("unmatched proof", "\\boxed{1}"));
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual([answer.status, body._ng_failure_class, body.reward, body.problem], [200, "judge_failed", 0, "P"]);
  });
});

describe("proof_judge verify (beta > 0: verifier and meta-verifier)", () => {
  test("alpha·r_y + beta·(1 - |s' - r_y|)·r_meta", async () => {
    assert.equal(await reward("with_meta", answerText("sound", "honest \\boxed{1}")), 1);
    // r_y 0.5, s' 1, r_meta 1: 0.25 + 0.5·0.5.
    assert.equal(await reward("with_meta", answerText("gappy", "honest \\boxed{1}")), 0.5);
    assert.equal(await reward("with_meta", answerText("gappy", "honest \\boxed{0.5}")), 0.75);
    assert.equal(await reward("with_meta", answerText("sound", "inflated \\boxed{1}")), 0.5);
    assert.equal(await reward("with_meta", answerText("wrong", "honest \\boxed{0}")), 0.5);
  });

  test("either judge failing is the judge_failed row", async () => {
    const answer = await verify("with_meta", answerText("sound", "unmatched self-evaluation \\boxed{1}"));
    assert.equal(answer.json<Record<string, unknown>>()._ng_failure_class, "judge_failed");
  });
});

describe("zero_reward_incorrect_groups", () => {
  test("a group whose every proof the verifier scored 0 gets 0 throughout, even a format failure's", async () => {
    const [a, b] = await Promise.all([verify("groups", answerText("wrong one", "\\boxed{1}"), { problem: "G1" }), verify("groups", "no headers", { problem: "G1" })]);
    assert.deepEqual([a.json<{ reward: number }>().reward, b.json<{ reward: number }>().reward], [0, 0]);
  });

  test("one correct proof keeps each member's own reward", async () => {
    const [a, b] = await Promise.all([verify("groups", answerText("sound one", "\\boxed{1}"), { problem: "G2" }), verify("groups", answerText("wrong two", "\\boxed{1}"), { problem: "G2" })]);
    assert.deepEqual([a.json<{ reward: number }>().reward, b.json<{ reward: number }>().reward], [1, 0]);
  });

  test("the groups are per problem; PROOF_JUDGE_LOG_JSONL_PATH records group_all_r_y_zero and original_reward", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "gym-proof-judge-log-")), "log.jsonl");
    process.env.PROOF_JUDGE_LOG_JSONL_PATH = path;
    try {
      const answers = await Promise.all([
        verify("groups", answerText("gappy x", "\\boxed{1}"), { problem: "G3" }),
        verify("groups", answerText("wrong x", "\\boxed{1}"), { problem: "G4" }),
        verify("groups", answerText("wrong y", "\\boxed{1}"), { problem: "G3" }),
        verify("groups", answerText("wrong z", "\\boxed{1}"), { problem: "G4" }),
      ]);
      assert.deepEqual(answers.map((a) => a.json<{ reward: number }>().reward), [0.5, 0, 0, 0]);
    } finally {
      delete process.env.PROOF_JUDGE_LOG_JSONL_PATH;
    }
    const lines = readFileSync(path, "utf8").trim().split("\n");
    assert.equal(lines.length, 4);
    const gappy = lines.find((line) => line.includes('"generated_sequence": "Thinking aside.\\n## Solution\\ngappy x'))!;
    assert.match(gappy, /"reward": 0\.5, "r_y": 0\.5, "s_prime": 1\.0, "judge_generated_tokens": \d+, "verifier_generated_tokens": \d+, "verifier_response": "Minor gaps: \\\\boxed\{0\.5\}", "group_all_r_y_zero": false\}$/);
    const zeroed = lines.filter((line) => line.includes('"problem": "G4"'));
    assert.equal(zeroed.length, 2);
    for (const line of zeroed) assert.match(line, /"reward": 0\.0, .*"original_reward": 0\.0, "group_all_r_y_zero": true\}$/);
  });

  test("a member whose judge call failed fails the whole group (no member waits forever)", async () => {
    const answers = await Promise.all([verify("groups", answerText("sound", "\\boxed{1}"), { problem: "G5" }), verify("groups", answerText("unmatched", "\\boxed{1}"), { problem: "G5" })]);
    assert.deepEqual(answers.map((a) => a.json<Record<string, unknown>>()._ng_failure_class), ["judge_failed", "judge_failed"]);
  });

  test("without a problem: a 500, as NeMo Gym's ValueError", async () => {
    const answer = await verify("groups", answerText("sound", "\\boxed{1}"), { problem: "" });
    assert.equal(answer.status, 500, answer.text);
  });
});

describe("proof_judge configuration", () => {
  test("zero_reward_incorrect_groups without a positive expected_group_size fails the start", async () => {
    await assert.rejects(startServers({ proof_judge: [proofJudge, config({ zero_reward_incorrect_groups: true })] }), /expected_group_size must be > 0/);
  });

  test("JUDGE_SERVER_ARGS fails the start, naming the openai_model way", async () => {
    process.env.JUDGE_SERVER_ARGS = "{}";
    try {
      await assert.rejects(startServers({ proof_judge: [proofJudge, config()] }), /JUDGE_SERVER_ARGS is set.*openai_model/);
    } finally {
      delete process.env.JUDGE_SERVER_ARGS;
    }
  });

  test("data/example.jsonl: five run requests with a problem", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.equal(typeof row.problem, "string");
  });
});
