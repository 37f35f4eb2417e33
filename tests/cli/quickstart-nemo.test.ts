// NeMo Gym's own quick start, typed as its README types it, over real child processes: `gym env start` with
// the selectors and model flags (no config paths), then `gym eval run --no-serve` against those servers.
// Once with openai_model in front of an OpenAI-compatible fake on loopback, once with scripted_model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { startFakeVllm, type RecordedRequest } from "../../src/testing/fake-vllm.ts";
import { readRows } from "../../src/testing/rows.ts";
import { runGym, startGym } from "./gym-process.ts";

const INPUT = "resources_servers/mcqa/data/example.jsonl";
const AGENT = "mcqa_simple_agent";

/** The example's questions → their expected letters, so that the fake model answers right. */
const expectedByQuestion = new Map(
  readFileSync(join(PROJECT_ROOT, INPUT), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .map((row) => [row.responses_create_params.input.at(-1).content as string, row.expected_answer as string]),
);

function boxedAnswer(request: RecordedRequest): { content: string } {
  const input = request.body.input as { role: string; content: unknown }[];
  const question = input.findLast((item) => item.role === "user")?.content;
  return { content: `\\boxed{${expectedByQuestion.get(question as string) ?? "?"}}` };
}

/** `gym env start <flags>` until the head server is up, then `gym eval run --no-serve` against it. */
async function quickStart(startFlags: string[]): Promise<{ rollouts: Record<string, any>[]; output: string }> {
  const servers = startGym(["env", "start", ...startFlags, "++head_server.port=0"]);
  try {
    const [, headPort] = await servers.waitFor(/servers ready! Head server: http:\/\/[\d.]+:(\d+)/);
    const output = join(mkdtempSync(join(tmpdir(), "gym-quickstart-")), "out.jsonl");
    const run = await runGym(["eval", "run", "--no-serve", "--agent", AGENT, "--input", INPUT, "--output", output, "--limit", "5", `++head_server.port=${headPort}`]);
    assert.equal(run.code, 0, `${run.output}\n--- servers:\n${servers.output()}`);
    return { rollouts: readRows(output), output: run.output };
  } finally {
    await servers.stop();
  }
}

test("quick start with openai_model: --resources-server mcqa --model-type openai_model --model-url <fake> → 5 scored rollouts", async () => {
  const fake = await startFakeVllm({ defaultReply: boxedAnswer });
  try {
    const { rollouts } = await quickStart(["--resources-server", "mcqa", "--model-type", "openai_model", "--model-url", fake.url, "--model-api-key", "x", "--model", "gpt-x"]);
    assert.equal(rollouts.length, 5);
    assert.deepEqual(
      rollouts.map((r) => r.reward),
      [1, 1, 1, 1, 1],
    );
    for (const rollout of rollouts) assert.deepEqual(rollout.agent_ref, { name: AGENT });
    // The model flags reached openai_model: its model name and key, to the URL given.
    const generations = fake.requests.filter((r) => r.path === "/v1/responses");
    assert.equal(generations.length, 5);
    for (const request of generations) {
      assert.equal(request.body.model, "gpt-x");
      assert.equal(request.headers.authorization, "Bearer x");
    }
  } finally {
    await fake.close();
  }
});

test("quick start with zero setup: --resources-server mcqa --model-type scripted_model → 5 rollouts with rewards", async () => {
  const { rollouts } = await quickStart(["--resources-server", "mcqa", "--model-type", "scripted_model"]);
  assert.equal(rollouts.length, 5);
  for (const rollout of rollouts) {
    assert.equal(typeof rollout.reward, "number");
    assert.deepEqual(rollout.agent_ref, { name: AGENT });
  }
});
