// Parity with NeMo Gym's Python verify (../shared/nemo-gym-data/text_to_sql, never committed), scored with its
// shipped config (check_twice_swap on). The judge answers each line with the replies NeMo Gym's judge gave, in order
// (src/testing/judge-replies.ts): the reward, extracted SQL, judge_passed, failure_reason and verdict labels come back
// for the 5 reference lines and the 5 stored rollouts. NeMo Gym's prompt text lives in its prompts.py, which the
// shared data does not hold: when that file is in this server's folder (fetched on first use, git-ignored), the
// judge prompts are compared with NeMo Gym's recorded ones too; otherwise this project's own prompts file stands in
// (the rewards do not depend on it, the replies being replayed in order).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type InProcessGraph, readRows, referenceLines, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import { repliesJudge, type JudgeReply } from "../../../src/testing/judge-replies.ts";
import textToSql from "../app.ts";

const reference = sharedDataFile("text_to_sql/parity/reference_verify.jsonl");
const rollouts = sharedDataFile("text_to_sql/data/example_rollouts.jsonl");
const skip = reference.skip || rollouts.skip;
const NEMO_PROMPTS = join(import.meta.dirname, "../prompts.py");
const haveNemoPrompts = existsSync(NEMO_PROMPTS);
const EXTRA = ["model_output", "extracted_sql", "judge_passed", "failure_reason"];

const judge = repliesJudge();
let graph: InProcessGraph | undefined;
before(async () => {
  if (skip) return;
  graph = await startServers({
    // NeMo Gym's configs/text_to_sql.yaml, the judge renamed.
    text_to_sql: [
      textToSql,
      {
        judge_model_server: { type: "responses_api_models", name: "judge" },
        judge_responses_create_params: { input: [] },
        judge_endpoint_max_concurrency: null,
        judge_equal_label: "[[A=B]]",
        judge_not_equal_label: "[[A!=B]]",
        check_twice_swap: true,
        reward_if_swap_fails: 0.0,
        judge_prompts_fpath: haveNemoPrompts ? "prompts.py" : "prompt_templates/example_prompts.py",
      },
    ],
    judge: [judge.definition],
  });
});
after(() => graph?.close());

async function verifyWith(request: Record<string, unknown>, replies: JudgeReply[]) {
  judge.load(replies);
  const answer = await graph!.client.post("text_to_sql", "/verify", { json: request });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(judge.remaining(), 0, "every recorded reply was asked for");
  return answer.json<Record<string, any>>();
}

const prompts = (evaluations: any[]) => evaluations.map((e) => e.responses_create_params.input);
const verdicts = (evaluations: any[]) => evaluations.map((e) => e.verdict_label);

test(`the reference set: NeMo Gym's reward and fields on all 5 lines${haveNemoPrompts ? ", and its judge prompts" : " (NeMo Gym's prompts.py absent: prompts not compared)"}`, { skip }, async () => {
  const lines = referenceLines(reference.path!);
  assert.equal(lines.length, 5);
  for (const { lineNumber, request, expectedReward, expectedExtra } of lines) {
    const { judge_replies: replies, ...row } = request;
    const body = await verifyWith(row, replies);
    assert.equal(body.reward, expectedReward, `line ${lineNumber}`);
    for (const field of EXTRA) assert.deepEqual(body[field], expectedExtra[field], `line ${lineNumber}: ${field}`);
    assert.deepEqual(verdicts(body.judge_evaluations), verdicts(expectedExtra.judge_evaluations as any[]), `line ${lineNumber}: verdict labels`);
    if (haveNemoPrompts) assert.deepEqual(prompts(body.judge_evaluations), prompts(expectedExtra.judge_evaluations as any[]), `line ${lineNumber}: judge prompts`);
  }
});

test("the 5 stored rollouts re-verified with their recorded judge answers: every reward and field as stored", { skip }, async () => {
  const stored = readRows(rollouts.path!);
  assert.equal(stored.length, 5);
  for (const [index, rollout] of stored.entries()) {
    const { reward, model_output: _m, extracted_sql: _e, judge_passed: _p, failure_reason: _f, judge_evaluations, ...request } = rollout;
    const body = await verifyWith(request, judge_evaluations.map((e: any) => ({ body: e.response })));
    assert.equal(body.reward, reward, `line ${index + 1}`);
    for (const field of [...EXTRA, "uuid", "sql", "sql_dialect", "sql_context", "sql_prompt", "metadata"]) assert.deepEqual(body[field], rollout[field], `line ${index + 1}: ${field}`);
    assert.deepEqual(verdicts(body.judge_evaluations), verdicts(judge_evaluations), `line ${index + 1}: verdict labels`);
    // The rollouts were recorded before NeMo Gym rewrote SQL_JUDGE_SYSTEM_MESSAGE: only the user prompts still agree.
    const userPrompts = (evaluations: any[]) => prompts(evaluations).map((input: any[]) => input.at(-1));
    if (haveNemoPrompts) assert.deepEqual(userPrompts(body.judge_evaluations), userPrompts(judge_evaluations), `line ${index + 1}: judge user prompts`);
  }
});
