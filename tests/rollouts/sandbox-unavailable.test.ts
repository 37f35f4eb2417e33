// A sandbox that cannot start is the environment's outage, never the model's score: code_gen whose bubblewrap is
// missing answers its verify 503 (SandboxUnavailableError), simple_agent passes that on as an infrastructure failure,
// and the collector ends each attempt as `environment_unavailable` — no reward in any file — with the failure table
// naming the cause and the fix. Real HTTP between real servers (code_gen, simple_agent, scripted_model replaying an
// answer with code, so the sandbox is really asked for).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectRollouts, formatSummary } from "../../src/rollouts/collect.ts";
import { BubblewrapSandbox } from "../../src/sandbox/index.ts";
import { startServers, type InProcessGraph } from "../../src/testing/index.ts";
import { codeGen } from "../../resources_servers/code_gen/app.ts";
import scriptedModel from "../../responses_api_models/scripted_model/app.ts";
import simpleAgent from "../../responses_api_agents/simple_agent/app.ts";

const dir = mkdtempSync(join(tmpdir(), "gym-sandbox-503-"));
const PROMPT = [{ role: "user", content: "Read n and print n squared." }];
const ANSWER = "```python\nn = int(input())\nprint(n * n)\n```";
const row = { responses_create_params: { input: PROMPT }, verifier_metadata: { unit_tests: { inputs: ["3\n"], outputs: ["9\n"], fn_name: null } } };
const recording = {
  responses_create_params: { input: PROMPT },
  response: { id: "resp_1", created_at: 1, model: "m", object: "response", output: [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: ANSWER, annotations: [] }] }], parallel_tool_calls: true, tool_choice: "auto", tools: [] },
};

let graph: InProcessGraph;
before(async () => {
  writeFileSync(join(dir, "recorded.jsonl"), `${JSON.stringify(recording)}\n`);
  writeFileSync(join(dir, "input.jsonl"), `${JSON.stringify(row)}\n`);
  const broken = codeGen({ sandbox: () => new BubblewrapSandbox({ bwrapPath: join(dir, "no-such-bwrap") }) });
  graph = await startServers({
    code_gen: [broken, { num_processes: 1, unit_test_timeout_secs: 2, debug: false }],
    policy: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: join(dir, "recorded.jsonl") }],
    agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "code_gen" }, model_server: { type: "responses_api_models", name: "policy" } }],
  });
});
after(async () => {
  await graph?.client.close();
  await graph?.close();
  rmSync(dir, { recursive: true, force: true });
});

test("code_gen's sandbox 503 ends every attempt as environment_unavailable, never a reward; the table names cause and fix", async () => {
  const printed: string[] = [];
  const outputPath = join(dir, "out.jsonl");
  const summary = await collectRollouts({
    client: graph.client,
    inputPath: join(dir, "input.jsonl"),
    outputPath,
    agentName: "agent",
    numRepeats: 2,
    maxAttempts: 2,
    retryBackoffMs: 5,
    disableAggregation: true,
    health: null,
    print: (line) => printed.push(line),
    progressStream: { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream,
    runConfig: graph.config,
  });
  assert.equal(summary.succeeded, 0);
  assert.equal(summary.failed, 2);
  assert.equal(readFileSync(outputPath, "utf8").trim(), "", "no rollout was scored");
  const failures = readFileSync(summary.failuresPath, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(failures.length, 4, "two rollouts × two attempts");
  for (const failure of failures) {
    assert.equal(failure._ng_failure_class, "environment_unavailable", JSON.stringify(failure));
    assert.equal("reward" in failure, false, `no reward on ${JSON.stringify(failure)}`);
  }
  assert.deepEqual(summary.failureClasses.map((entry) => [entry.failureClass, entry.rollouts]), [["environment_unavailable", 2]]);

  const table = formatSummary(summary).split("\n");
  const header = table.indexOf("Failed rollouts by class:");
  assert.ok(header >= 0, table.join("\n"));
  const first = table[header + 2]!;
  // The innermost cause first, in code_gen's own words: what is missing and the command that fixes it.
  assert.match(first, /^ {2}environment_unavailable +2 {2}code_gen: Sandbox unavailable: bubblewrap \(bwrap\) is not installed\. Fix: apt-get install -y bubblewrap/);
  for (const line of table.slice(header, header + 4)) assert.doesNotMatch(line, /\\"|\\'/, "no escaped quotes");
});
