// proof_verification over real HTTP, scripted_model (judge_rules) as the meta-verifier: r_score × r_meta, the
// format and length rules that score 0 without asking the judge, the meta-verifier's verdict read rule by rule, the
// judge_failed row, the opt-in JSONL log, and the refusal of NeMo Gym's JUDGE_SERVER_ARGS external judge.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, readRows, responseWith, serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import proofVerification, { parseVerificationResponse } from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const templates = join(import.meta.dirname, "../data/example_prompt_templates");

// The judge's prompt ends with "Candidate evaluation: <the policy's evaluation>": rules key on the evaluation text.
const rules = [
  { match: "Candidate evaluation: agrees", answer: "They agree. \\boxed{1}" },
  { match: "Candidate evaluation: partly", answer: "Mostly. \\boxed{0.5}" },
  { match: "Candidate evaluation: disagrees", answer: "No: \\boxed{0}" },
  { match: "Candidate evaluation: rambles", answer: "I cannot tell." },
  { match: "Candidate evaluation: two verdicts", answer: "\\boxed{1} — no wait, \\boxed{0}" },
  { match: "Candidate evaluation: lowercase", answer: "\\Boxed{1}" },
  { match: "Candidate evaluation: fenced", answer: "```\n\\boxed{1}\n```" },
  { match: "Candidate evaluation: spaced", answer: "\\boxed{  1  }" },
];

const config = (fields: Record<string, unknown> = {}) => ({ judge_model_server: { type: "responses_api_models", name: "judge" }, temperature: 1.0, top_p: 1.0, prompt_templates_dir: templates, ...fields });

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    proof_verification: [proofVerification, config()],
    thinking: [proofVerification, config({ assert_think_end: true })],
    no_templates: [proofVerification, config({ prompt_templates_dir: mkdtempSync(join(tmpdir(), "gym-proof-none-")) })],
    judge: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const row = { problem: "Prove that 2 + 2 = 4.", proof: "By the Peano axioms, ...", ground_truth_judgement: "Correct. \\boxed{1}", ground_truth_verify_score: 1 };
const verify = (text: string, fields: Record<string, unknown> = {}, instance = "proof_verification") =>
  client.request(`${graph.url(instance)}/verify`, { method: "POST", json: { responses_create_params: { input: [{ role: "user", content: "grade" }] }, response: responseWith([assistantMessage(text)]), ...row, ...fields } });
async function reward(text: string, fields: Record<string, unknown> = {}, instance?: string) {
  const answer = await verify(text, fields, instance);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<{ reward: number }>().reward;
}

describe("proof_verification verify", () => {
  test("agreement with the ground truth and the meta-verifier: 1; the answer is NeMo Gym's BaseVerifyResponse", async () => {
    const answer = await verify("agrees with the reference. \\boxed{1}");
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json<object>()), ["responses_create_params", "response", "reward"]);
    assert.match(answer.text, /"reward":1\.0/);
  });

  test("r_score is 1 - |predicted - ground truth|, times r_meta", async () => {
    assert.equal(await reward("agrees mostly \\boxed{0.5}"), 0.5);
    assert.equal(await reward("agrees but \\boxed{0}", { ground_truth_verify_score: 0.5 }), 0.5);
    assert.equal(await reward("partly right \\boxed{1}"), 0.5);
    assert.equal(await reward("partly right \\boxed{0.5}"), 0.25);
    assert.equal(await reward("disagrees \\boxed{1}"), 0);
  });

  test("the meta-verifier's verdict, rule by rule: none, several (last), other casing, fenced, spaced", async () => {
    assert.equal(await reward("rambles \\boxed{1}"), 0);
    assert.equal(await reward("two verdicts \\boxed{1}"), 0);
    assert.equal(await reward("lowercase \\boxed{1}"), 0);
    assert.equal(await reward("fenced \\boxed{1}"), 1);
    assert.equal(await reward("spaced \\boxed{1}"), 1);
  });

  test("without a \\boxed score, with an empty answer, an invalid ground truth score, or a too long proof: 0, no judge asked", async () => {
    // None of these texts matches a judge rule: a judge call would be a judge_failed row, not a 0.
    assert.equal(await reward("no verdict at all"), 0);
    assert.equal(await reward(""), 0);
    assert.equal(await reward("unjudged \\boxed{1}", { ground_truth_verify_score: 0.7 }), 0);
    assert.equal(await reward("unjudged \\boxed{1}", { proof: "x".repeat(40_001) }), 0);
    assert.equal(await reward(`unjudged ${"y".repeat(20_001)} \\boxed{1}`), 0);
  });

  test("only the text after </think> is the evaluation; assert_think_end requires it", async () => {
    assert.equal(await reward("<think>disagrees \\boxed{0}</think>agrees \\boxed{1}"), 1);
    assert.equal(await reward("agrees \\boxed{1}", {}, "thinking"), 0);
    assert.equal(await reward("<think>hm</think>agrees \\boxed{1}", {}, "thinking"), 1);
  });

  test("a failed judge call (no rule matches → 404) is NeMo Gym's judge_failed row", async () => {
    const answer = await verify("unmatched evaluation \\boxed{1}");
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual([body._ng_failure_class, body.reward, body.problem], ["judge_failed", 0, row.problem]);
    assert.match(String(body._ng_failure_judge_error), /answered 404/);
  });

  test("a missing ground_truth_judgement is a 422 naming it", async () => {
    const answer = await client.request(`${graph.url("proof_verification")}/verify`, { method: "POST", json: { responses_create_params: { input: [] }, response: responseWith([assistantMessage("x")]), ground_truth_verify_score: 1 } });
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.text, /ground_truth_judgement/);
  });

  test("a prompt template that is not there is a 501 naming it", async () => {
    const answer = await verify("agrees \\boxed{1}", {}, "no_templates");
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /meta-verifier\.yaml is missing/);
  });

  test("PROOF_VERIFICATION_LOG_JSONL_PATH: each verify's details appended as NeMo Gym writes them", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "gym-proof-log-")), "log.jsonl");
    process.env.PROOF_VERIFICATION_LOG_JSONL_PATH = path;
    try {
      await reward("partly right \\boxed{0.5}");
      await reward("no verdict");
    } finally {
      delete process.env.PROOF_VERIFICATION_LOG_JSONL_PATH;
    }
    const [judged, unformatted] = readFileSync(path, "utf8").trim().split("\n").map((line) => line.replace(/^\{"ts": "[^"]+", /, "{"));
    assert.match(judged!, /^\{"problem": "Prove that 2 \+ 2 = 4\.", "generated_sequence": "partly right \\\\boxed\{0\.5\}", "reward": 0\.25, "judge_generated_tokens": \d+, "meta_generated_tokens": \d+, "predicted_score": 0\.5, "ground_truth_verify_score": 1\.0, "r_score": 0\.5, "r_meta": 0\.5, "meta_response": "Mostly\. \\\\boxed\{0\.5\}"\}$/);
    assert.equal(unformatted, '{"problem": "Prove that 2 + 2 = 4.", "generated_sequence": "no verdict", "reward": 0.0, "r_format": 0.0, "reason": "invalid_boxed_score", "judge_generated_tokens": 0}');
  });
});

describe("proof_verification configuration", () => {
  test("JUDGE_SERVER_ARGS (NeMo Gym's external judge) fails the start, saying what to do instead", async () => {
    process.env.JUDGE_SERVER_ARGS = JSON.stringify({ server_type: "vllm", model: "m", port: 5000 });
    try {
      await assert.rejects(startServers({ proof_verification: [proofVerification, config()] }), /JUDGE_SERVER_ARGS is set.*openai_model/);
    } finally {
      delete process.env.JUDGE_SERVER_ARGS;
    }
  });

  test("parseVerificationResponse names why a response has no score", () => {
    assert.deepEqual(parseVerificationResponse("x", true), { reason: "missing_think_end" });
    assert.deepEqual(parseVerificationResponse("x", false), { reason: "invalid_boxed_score" });
    assert.deepEqual(parseVerificationResponse(" e \\boxed{1} ", false), { evaluation: "e \\boxed{1}", score: 1 });
  });

  test("data/example.jsonl: five run requests with problem, proof and the ground truth", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok([0, 0.5, 1].includes(r.ground_truth_verify_score as number) && typeof r.ground_truth_judgement === "string");
  });
});
