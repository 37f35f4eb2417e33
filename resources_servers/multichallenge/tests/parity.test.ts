// NeMo Gym's multichallenge reference rollouts (../shared/nemo-gym-data, never committed). At 07d6b0d its
// `data/example_rollouts.jsonl` is byte for byte its `example.jsonl`: the rows were never run, so no reward and no
// judge answer is recorded and there is nothing to replay (parity: 0 of 5 rows reproducible, all for that reason).
// This test pins that fact — a future data drop with recorded rewards fails it, demanding the replay — and checks
// the shipped config (NeMo Gym's YAML) scores every NeMo Gym example row end to end with a rule judge: the row's
// context and rubric reach the judge through NeMo Gym's template exactly.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadYamlFile } from "../../../src/config/yaml.ts";
import { assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import multichallenge from "../app.ts";

const rollouts = sharedDataFile("multichallenge/data/example_rollouts.jsonl");
const dataset = sharedDataFile("multichallenge/data/example.jsonl");
const skip = rollouts.skip || dataset.skip;
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

let graph: InProcessGraph | undefined;
let shipped: Record<string, any>;
const client = http();
before(async () => {
  if (skip) return;
  const config = await loadYamlFile(join(import.meta.dirname, "../configs/multichallenge.yaml"));
  shipped = (config.multichallenge as any).resources_servers.multichallenge;
  graph = await startServers({
    multichallenge: [multichallenge, { ...shipped, judge_model_server: { type: "responses_api_models", name: "judge_model" } }],
    // Every question whose text mentions the user's name passes; the rest fail.
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: [{ match: "EVALUATION QUESTION:\\n[^\\n]*\\bname\\b", answer: "Step by step... [[YES]]" }, { match: ".", answer: "[[NO]]" }] }],
  });
});
after(async () => {
  await graph?.close();
  await client.close();
});

test("NeMo Gym's reference rollouts record no reward and no judge answer (nothing to replay: 0/5 reproducible)", { skip }, () => {
  assert.equal(readFileSync(rollouts.path!, "utf8"), readFileSync(dataset.path!, "utf8"), "example_rollouts.jsonl is the example rows themselves");
  for (const row of readRows(rollouts.path!)) {
    for (const field of ["reward", "response", "rubric_evaluations", "num_passed"]) assert.equal(field in row, false, `${row.uuid} records ${field}: replay it`);
  }
});

test("every NeMo Gym example row is scored through the shipped template and system message", { skip }, async () => {
  const rows = readRows(dataset.path!);
  assert.equal(rows.length, 5);
  for (const row of rows) {
    const answer = await client.request(`${graph!.url("multichallenge")}/verify`, { method: "POST", json: { ...row, response: responseWith([assistantMessage("<think>plan</think>Hello Alex, try apple slices.")]) } });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    const rubric = row.rubric as { question: string; pass_criteria: string }[];
    assert.equal(body.num_total, rubric.length);
    assert.equal(body.context, row.context);
    const passed = rubric.filter((item) => /\bname\b/.test(item.question)).length;
    assert.equal(body.reward, passed / rubric.length, String(row.uuid));
    body.rubric_evaluations.forEach((evaluation: any, i: number) => {
      const expectedPrompt = (shipped.judge_prompt_template as string)
        .replace("{context}", row.context as string)
        .replace("{response}", "Hello Alex, try apple slices.")
        .replace("{question}", rubric[i]!.question)
        .replace("{pass_criteria}", rubric[i]!.pass_criteria);
      assert.equal(evaluation.judge_prompt, expectedPrompt);
    });
  }
});
