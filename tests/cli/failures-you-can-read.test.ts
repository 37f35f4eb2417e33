// Failures a user can read, through the real `gym` process: a configuration mistake stops the run at once with one
// line and the fix (before any rollout is sent); a run whose model cannot be reached ends with a table of its
// failures, each message unwrapped (innermost cause first), and every server logs the failures it answered.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { refusedPort } from "../../src/testing/ports.ts";
import { runGym, startGym, type GymProcess } from "./gym-process.ts";
import { Command } from "commander";
import { fileSystemProblem, runProgram } from "../../src/cli/main.ts";
import { defineCommand, registerCommands } from "../../src/cli/command.ts";
import { ServerExitedError } from "../../src/cli/server-session.ts";

const COUNTER_CONFIG = "resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml";
const COUNTER = ["--config", COUNTER_CONFIG, "--config", "responses_api_models/scripted_model/configs/scripted_model.yaml"];
const AGENT = "example_session_state_mgmt_simple_agent";
const DATASET = "resources_servers/example_session_state_mgmt/data/example.jsonl";
const dir = mkdtempSync(join(tmpdir(), "gym-failures-"));

/** Exit 2, and stderr is exactly one line (returned): no stack frames anywhere. */
async function oneLineError(args: string[]): Promise<{ line: string; output: string }> {
  const result = await runGym(args);
  assert.equal(result.code, 2, result.output);
  const lines = result.stderr.split("\n").filter((line) => line !== "");
  assert.equal(lines.length, 1, `stderr is one line:\n${result.stderr}`);
  assert.doesNotMatch(result.output, /\n\s+at /, "no stack frames");
  return { line: lines[0]!, output: result.output };
}

/** A port something else holds while `use` runs. */
async function withBusyPort<T>(use: (port: number) => Promise<T>): Promise<T> {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  try {
    return await use((holder.address() as { port: number }).port);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
}

async function startGraph(extra: string[] = []): Promise<{ gym: GymProcess; headPort: number }> {
  const gym = startGym(["env", "start", ...COUNTER, "++head_server.port=0", ...extra]);
  const match = await gym.waitFor(/servers ready! Head server: http:\/\/127\.0\.0\.1:(\d+)/);
  return { gym, headPort: Number(match[1]) };
}

test("a misspelled --agent with --no-serve: refused against the running graph's config, before any rollout is sent", async () => {
  const { gym, headPort } = await startGraph();
  try {
    const output = join(dir, "typo-no-serve.jsonl");
    const { line } = await oneLineError(["eval", "run", "--no-serve", `++head_server.port=${headPort}`, "--agent", `${AGENT}x`, "--input", DATASET, "--output", output]);
    assert.equal(
      line,
      `error: unknown agent '${AGENT}x': not an agent instance of the running servers (agents: ${AGENT}); did you mean '${AGENT}'? fix --agent / +agent_name or the rows' agent_ref`,
    );
    // Nothing was sent: no output file, and the agent answered no /run (it logs every failed one).
    assert.equal(existsSync(output), false);
    assert.equal(existsSync(join(dir, "typo-no-serve_failures.jsonl")), false);
    assert.doesNotMatch(gym.output(), /POST \/run/);
  } finally {
    await gym.stop();
  }
});

test("a misspelled --agent is refused even when every row has its own agent_ref (it would be ignored without a word)", async () => {
  const input = join(dir, "with-agent-ref.jsonl");
  writeFileSync(input, `${JSON.stringify({ responses_create_params: { input: "add 1" }, agent_ref: { name: AGENT } })}\n`);
  const output = join(dir, "typo-agent-ref.jsonl");
  const { line, output: text } = await oneLineError(["eval", "run", ...COUNTER, "++head_server.port=0", "--agent", "example_session_state_mgmt_simple_agnet", "--input", input, "--output", output]);
  assert.equal(
    line,
    `error: unknown agent 'example_session_state_mgmt_simple_agnet': not an agent instance of the config (agents: ${AGENT}); did you mean '${AGENT}'? fix --agent / +agent_name or the rows' agent_ref`,
  );
  assert.doesNotMatch(text, /servers ready/, "refused before any server starts");
  assert.equal(existsSync(output), false);
});

test("a misspelled collection setting is refused with the setting meant, not ignored", async () => {
  const { line } = await oneLineError(["eval", "run", "--no-serve", "--agent", AGENT, "--input", DATASET, "--output", join(dir, "o.jsonl"), "+num_repeat=4"]);
  assert.equal(line, "error: unknown setting 'num_repeat': did you mean 'num_repeats'? (+num_repeats=…)");
});

test("an output that cannot be written is said before any server starts", async () => {
  const notAFolder = join(dir, "a-file");
  writeFileSync(notAFolder, "");
  const { line, output } = await oneLineError(["eval", "run", ...COUNTER, "++head_server.port=0", "--agent", AGENT, "--input", DATASET, "--output", join(notAFolder, "out.jsonl")]);
  assert.equal(line, `error: cannot write the output ${join(notAFolder, "out.jsonl")}: ${notAFolder} is not a folder (EEXIST); choose another --output (+output_jsonl_fpath=…)`);
  assert.doesNotMatch(output, /servers ready/);
  // eval reverify too.
  const rollouts = join(dir, "rollouts.jsonl");
  writeFileSync(rollouts, `${JSON.stringify({ _ng_task_index: 0, _ng_rollout_index: 0, agent_ref: { name: AGENT }, reward: 1 })}\n`);
  const reverify = await runGym(["eval", "reverify", ...COUNTER, "++head_server.port=0", "--rollouts", rollouts, "--output", join(notAFolder, "re.jsonl")]);
  assert.equal(reverify.code, 2, reverify.output);
  assert.match(reverify.stderr, /^error: cannot write the output \S+re\.jsonl: \S+a-file is not a folder \(EEXIST\)/);
  assert.doesNotMatch(reverify.output, /servers ready/);
});

test("no head server for --no-serve: the message says how to point at one (++head_server.port)", async () => {
  const port = await refusedPort();
  const { line } = await oneLineError(["eval", "run", "--no-serve", `++head_server.port=${port}`, "--agent", AGENT, "--input", DATASET, "--output", join(dir, "o.jsonl")]);
  assert.match(line, new RegExp(`^error: could not connect to the head server at http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\): no servers running, or the head server is on another port\\? `));
  assert.match(line, /Start them with `gym env start --config …`, pass --config to start them for this command, or give the running head server's port with \+\+head_server\.port=<port>$/);
});

test("the head server's port in use: one line naming the port and ++head_server.port", async () => {
  await withBusyPort(async (port) => {
    const { line } = await oneLineError(["env", "start", ...COUNTER, `++head_server.port=${port}`]);
    assert.equal(line, `error: head server port ${port} on 127.0.0.1 is in use (another gym running?); stop it or choose another with ++head_server.port=<port> (0 = any free port)`);
  });
});

test("a server's fixed port in use: one line naming the port and the instance's port key", async () => {
  await withBusyPort(async (port) => {
    const { line, output } = await oneLineError(["env", "start", ...COUNTER, "++head_server.port=0", `++example_session_state_mgmt_resources_server.resources_servers.example_session_state_mgmt.port=${port}`]);
    assert.equal(
      line,
      `error: example_session_state_mgmt_resources_server failed to start: port ${port} on 127.0.0.1 is in use (another gym running?); stop what holds it or choose another with ++example_session_state_mgmt_resources_server.resources_servers.example_session_state_mgmt.port=<port> (0 = any free port)`,
    );
    assert.doesNotMatch(output, /EADDRINUSE/, "the errno is translated, not printed");
  });
});

test("an entrypoint that does not exist: one line naming it and its key, not an import's stack", async () => {
  const config = join(dir, "bad-entrypoint.yaml");
  writeFileSync(config, "broken_env:\n  resources_servers:\n    example_session_state_mgmt:\n      entrypoint: no_such_app.py\n      domain: agent\n");
  const { line } = await oneLineError(["env", "start", "--config", config, "++head_server.port=0"]);
  assert.match(
    line,
    /^error: entrypoint 'no_such_app\.py' of 'broken_env' not found in \S+\/resources_servers\/example_session_state_mgmt \(nor its \.ts\/\.js twin\); fix \+\+broken_env\.resources_servers\.example_session_state_mgmt\.entrypoint=<file>$/,
  );
});

test("a model endpoint that cannot be reached: a failure table with the innermost cause first, and each server logs its failures", async () => {
  const closed = await refusedPort();
  const output = join(dir, "unreachable.jsonl");
  const result = await runGym([
    "eval", "run", "--config", COUNTER_CONFIG, "--config", "responses_api_models/openai_model/configs/openai_model.yaml",
    `++policy_base_url=http://127.0.0.1:${closed}/v1`, "++policy_api_key=k", "++policy_model_name=m",
    "++policy_model.responses_api_models.openai_model.max_retries=0", "++head_server.port=0",
    "--agent", AGENT, "--input", DATASET, "--output", output, "--limit", "2", "--max-attempts", "1",
  ]);
  assert.equal(result.code, 1, result.output);
  const lines = result.stdout.split("\n");
  const header = lines.findIndex((line) => line === "Failed rollouts by class:");
  assert.ok(header >= 0, result.stdout);
  // class, count, then the innermost cause: the model server's own words about the upstream.
  const first = lines[header + 2]!;
  assert.match(first, new RegExp(`^  environment_unavailable +2  policy_model: upstream http://127\\.0\\.0\\.1:${closed}/v1/responses could not be reached: .*ECONNREFUSED`));
  const via = lines.slice(header + 3, header + 5).map((line) => line.trim());
  assert.deepEqual(via, [
    "← example_session_state_mgmt_simple_agent: policy_model/v1/responses answered HTTP 502 (environment_unavailable)",
    `← example_session_state_mgmt_simple_agent: ${AGENT}/v1/responses answered it reported environment_unavailable (environment_unavailable)`,
  ]);
  for (const line of lines.slice(header, header + 5)) assert.doesNotMatch(line, /\\"|\\'/, "no escaped quotes");
  // The servers' own logs, through the launcher: one line per failed answer, with the rollout and the cause.
  assert.match(result.output, new RegExp(`\\(policy_model\\) WARN POST /v1/responses answered 502: upstream http://127\\.0\\.0\\.1:${closed}/v1/responses could not be reached`));
  assert.match(result.output, new RegExp(`\\(${AGENT}\\) WARN rollout 0-0: POST /run answered 500: upstream http://127\\.0\\.0\\.1:${closed}/v1/responses could not be reached: .* \\(from policy_model\\)`));
});

test("a file-system error on a path is one line (cannot <syscall> '<path>': <code>); others are not", () => {
  const error = Object.assign(new Error("EACCES: permission denied, open '/x/y'"), { code: "EACCES", syscall: "open", path: "/x/y" });
  assert.equal(fileSystemProblem(error), "cannot open '/x/y': EACCES");
  assert.equal(fileSystemProblem(new TypeError("undefined is not a function")), undefined);
  assert.equal(fileSystemProblem(Object.assign(new Error("x"), { code: "ECONNRESET" })), undefined);
});

test("a server that died while a command ran: one line naming it (exit 1), and a file-system error: one line (exit 2)", async () => {
  const table = [
    defineCommand({ path: ["died"], description: "a server died", examples: ["gym died"], flags: {}, run: () => { throw new ServerExitedError({ instanceName: "env", code: 1, signal: null }); } }),
    defineCommand({ path: ["disk"], description: "a path is missing", examples: ["gym disk"], flags: {}, run: () => { throw Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT", syscall: "open", path: "/x" }); } }),
  ];
  const run = async (args: string[]) => {
    const err: string[] = [];
    const program = registerCommands(new Command("gym"), table, { output: { out: () => undefined, err: (text) => err.push(text) } });
    return { code: await runProgram(program, args, (text) => err.push(text)), err: err.join("") };
  };
  assert.deepEqual(await run(["died"]), { code: 1, err: "error: server env exited (code 1) while the command was running; its output is above\n" });
  assert.deepEqual(await run(["disk"]), { code: 2, err: "error: cannot open '/x': ENOENT\n" });
});
