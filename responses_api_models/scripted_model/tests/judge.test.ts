// scripted_model as a judge over real HTTP: judge_replay plays back the judge answers recorded inside rollout lines
// (matched by the judge prompt, several recordings dealt out in turn), judge_rules answers by regular expression;
// both answer /v1/chat/completions too, and a prompt neither knows is a 404, never an invented verdict.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assistantMessage, http, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import scriptedModel from "../app.ts";

const judgePrompt = (question: string) => [
  { role: "system", content: "You are a judge." },
  { role: "user", content: `Is this right? ${question}` },
];

// A rollout line as an environment writes it: the policy's own turn at the top, judge calls nested below.
const rolloutLine = {
  responses_create_params: { input: [{ role: "user", content: "the policy prompt" }] },
  response: { output: [assistantMessage("the policy answer")], model: "policy" },
  reward: 1,
  judge_evaluations: [
    { responses_create_params: { input: judgePrompt("2+2=4") }, response: { output: [assistantMessage("[[A=B]]")], model: "big-judge", usage: { input_tokens: 9, output_tokens: 3, total_tokens: 12 } } },
    { responses_create_params: { input: judgePrompt("2+2=5") }, response: { output: [assistantMessage("first: [[A!=B]]")], model: "big-judge" } },
  ],
  extra: { nested: { responses_create_params: { input: judgePrompt("2+2=5") }, response: { output: [assistantMessage("second: [[A!=B]]")], model: "big-judge" } } },
};

let graph: InProcessGraph;
const client = http();
before(async () => {
  const file = join(mkdtempSync(join(tmpdir(), "gym-judge-replay-")), "rollouts.jsonl");
  writeFileSync(file, JSON.stringify(rolloutLine) + "\n");
  graph = await startServers({
    replayed: [scriptedModel, { mode: "judge_replay", judge_replay_jsonl_fpath: file }],
    ruled: [scriptedModel, { mode: "judge_rules", judge_rules: [{ match: "verdict: (yes|no)", answer: "Score: 7" }, { match: "GRADE", flags: "i", answer: "[[B>A]]" }] }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const ask = (server: string, input: unknown) => client.request(`${graph.url(server)}/v1/responses`, { method: "POST", json: { input } });
const textOf = (body: any) => body.output[0].content[0].text;

describe("judge_replay", () => {
  test("answers a recorded judge prompt with its recorded answer, model and usage", async () => {
    const reply = await ask("replayed", judgePrompt("2+2=4"));
    assert.equal(reply.status, 200, reply.text);
    const body = reply.json<any>();
    assert.deepEqual([textOf(body), body.model, body.usage.total_tokens], ["[[A=B]]", "scripted-judge_replay(big-judge)", 12]);
  });

  test("several recordings of one prompt are dealt out in turn; the policy's own turn is not a judgement", async () => {
    const texts = [];
    for (let i = 0; i < 3; i++) texts.push(textOf((await ask("replayed", judgePrompt("2+2=5"))).json()));
    assert.deepEqual(texts, ["first: [[A!=B]]", "second: [[A!=B]]", "first: [[A!=B]]"]);
    assert.equal((await ask("replayed", [{ role: "user", content: "the policy prompt" }])).status, 404);
  });

  test("an unrecorded prompt is a 404 naming the mode", async () => {
    const reply = await ask("replayed", judgePrompt("1+1=3"));
    assert.equal(reply.status, 404);
    assert.match(reply.text, /judge_replay.*no recorded judgement has this prompt/);
  });

  test("chat completions are answered from the same recordings", async () => {
    const reply = await client.request(`${graph.url("replayed")}/v1/chat/completions`, { method: "POST", json: { messages: judgePrompt("2+2=4") } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json<any>().choices[0].message.content, "[[A=B]]");
  });
});

describe("judge_rules", () => {
  test("the first matching rule answers; flags apply; no match is a 404", async () => {
    assert.equal(textOf((await ask("ruled", "final verdict: yes")).json()), "Score: 7");
    assert.equal(textOf((await ask("ruled", "please grade this")).json()), "[[B>A]]");
    const none = await ask("ruled", "nothing here");
    assert.equal(none.status, 404);
    assert.match(none.text, /no judge rule matches/);
  });

  test("a mode without its data fails the start, naming the key", async () => {
    await assert.rejects(startServers({ bad: [scriptedModel, { mode: "judge_rules" }] }), /mode 'judge_rules' needs judge_rules/);
    await assert.rejects(startServers({ bad: [scriptedModel, { mode: "judge_replay" }] }), /needs judge_replay_jsonl_fpath/);
    await assert.rejects(startServers({ bad: [scriptedModel, { mode: "judge_rules", judge_rules: [{ match: "(", answer: "x" }] }] }), /judge_rules\[0\]\.match is not a valid regular expression/);
  });
});
