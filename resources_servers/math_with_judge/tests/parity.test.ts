// Parity with NeMo Gym's Python verifier (math-verify 0.8.0) on its recorded math_with_judge rollouts
// (../shared/nemo-gym-data, never committed). Those rollouts were scored with the judge on; the shipped configs
// have it off. With the judge off, every reward, extracted_answer and library_reward comes back the same, and
// judge_evaluations is null exactly where the recording asked a judge. With the judge on, scripted_model
// replays the recorded verdicts and the rewards match again. End to end, the recorded turns replayed through
// simple_agent score as recorded.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReverifyReport } from "../../../src/rollouts/reverify.ts";
import { assertParity, assertSameAsRecorded, type InProcessGraph, parityDetails, readRows, replayEndToEnd, reverifyStored, sharedDataFile, startReplayGraph } from "../../../src/testing/index.ts";
import { judgePrompt, JUDGE_SYSTEM_MESSAGE } from "../../../src/ports/math/equivalence-judge.ts";

const configs = [join(import.meta.dirname, "../configs/math_with_judge.yaml")];
const rollouts = sharedDataFile("math_with_judge/data/example_rollouts.jsonl");
const dataset = sharedDataFile("math_with_judge/data/example.jsonl");
const skip = rollouts.skip || dataset.skip;
const EXTRA_FIELDS = ["expected_answer", "extracted_answer", "library_reward", "judge_evaluations"];

/**
 * The recorded verdicts, keyed by the prompts this server sends: B is the extracted answer (NeMo Gym's current
 * code; the recording predates that and showed the whole generation), A the expected answer, then swapped.
 */
function judgeReplayFile(): string {
  const lines: string[] = [];
  for (const row of readRows(rollouts.path!)) {
    const question = readRows(dataset.path!).find((r) => r.expected_answer === row.expected_answer)!.question as string;
    (row.judge_evaluations ?? []).forEach((evaluation: any, order: number) => {
      const [a, b] = order === 0 ? [row.expected_answer, row.extracted_answer] : [row.extracted_answer, row.expected_answer];
      const input = [{ role: "system", content: JUDGE_SYSTEM_MESSAGE }, { role: "user", content: judgePrompt(question, a, b) }];
      lines.push(JSON.stringify({ responses_create_params: { input }, response: { output: evaluation.response.output } }));
    });
  }
  const file = join(mkdtempSync(join(tmpdir(), "gym-math-judge-replay-")), "judge.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

let judgeOff: InProcessGraph | undefined;
let judgeOn: InProcessGraph | undefined;
before(async () => {
  if (skip) return;
  judgeOff = await startReplayGraph(configs, rollouts.path!);
  judgeOn = await startReplayGraph(configs, judgeReplayFile(), ["++math_with_judge.resources_servers.math_with_judge.should_use_judge=true"]);
});
after(async () => {
  await judgeOff?.close();
  await judgeOn?.close();
});

const reverify = (graph: InProcessGraph): Promise<ReverifyReport> =>
  reverifyStored(graph, { rollouts: rollouts.path!, inputs: dataset.path!, server: "math_with_judge", callDeadlineMs: 20_000 });

test("judge off: NeMo Gym's 5 recorded rewards, extracted answers and library rewards are reproduced", { skip }, async () => {
  const report = await reverify(judgeOff!);
  // Only judge_evaluations may differ, and only where the recording asked the judge (we do not).
  const askedJudge = readRows(rollouts.path!).flatMap((row, i) => (row.judge_evaluations !== null ? [i + 1] : []));
  assertParity(report, {
    rows: 5,
    extraFields: EXTRA_FIELDS,
    expectedDifferences: askedJudge.map((line) => ({ line, fields: ["judge_evaluations"], why: "the recording asked the judge; with it off we do not" })),
  });
  for (const outcome of report.outcomes) assert.equal(outcome.line!.judge_evaluations, null, parityDetails(report));
});

test("judge on, with the recorded verdicts replayed: the same rewards and as many judge calls as recorded", { skip }, async () => {
  const report = await reverify(judgeOn!);
  const stored = readRows(rollouts.path!);
  for (const outcome of report.outcomes) {
    assert.equal(outcome.failure, undefined, parityDetails(report));
    assert.equal(outcome.rewardEqual, true, parityDetails(report));
    const recorded = stored[outcome.lineNumber - 1]!;
    const ours = outcome.line!;
    assert.deepEqual([ours.extracted_answer, ours.library_reward], [recorded.extracted_answer, recorded.library_reward]);
    const verdicts = (evaluations: any) => (evaluations ?? []).map((e: any) => e.response.output.at(-1).content.at(-1).text);
    assert.deepEqual(verdicts(ours.judge_evaluations), verdicts(recorded.judge_evaluations), `line ${outcome.lineNumber}`);
  }
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(judgeOff!, { inputs: dataset.path!, agentName: "math_with_judge_simple_agent" });
  assertSameAsRecorded(ours, readRows(rollouts.path!), { rows: 5, extraFields: ["expected_answer", "extracted_answer", "library_reward"] });
});
