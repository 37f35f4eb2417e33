// A user's mistake, through the real `gym` process: exactly one line on stderr (the message), exit 2, no stack
// trace, nothing started. Anything else is a bug: its stack trace, exit 1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { UserError } from "../../src/config/errors.ts";
import { defineCommand, registerCommands } from "../../src/cli/command.ts";
import { runProgram } from "../../src/cli/main.ts";
import { runGym } from "./gym-process.ts";

const COUNTER = ["--config", "resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml", "--config", "responses_api_models/scripted_model/configs/scripted_model.yaml"];
const DATASET = "resources_servers/example_session_state_mgmt/data/example.jsonl";
const dir = mkdtempSync(join(tmpdir(), "gym-user-errors-"));
const output = join(dir, "out.jsonl");
const badJsonl = join(dir, "bad.jsonl");
writeFileSync(badJsonl, '{"responses_create_params": {"input": "add 1"}}\n{"responses_create_params": \n');

const MISTAKES: { name: string; args: string[]; message: RegExp }[] = [
  { name: "missing required flag (eval run --no-serve without --input)", args: ["eval", "run", "--no-serve", "--agent", "a", "--output", output], message: /^error: input_jsonl_fpath: input_jsonl_fpath is required \(--input FILE or \+input_jsonl_fpath=FILE\)$/ },
  { name: "missing required option (commander)", args: ["env", "wrap", "domain.ts"], message: /^error: required option '--name <name>' not specified$/ },
  { name: "missing input file", args: ["eval", "run", "--no-serve", "--agent", "a", "--input", join(dir, "absent.jsonl"), "--output", output], message: /^error: cannot read '.*absent\.jsonl': ENOENT$/ },
  { name: "unreadable input file (a folder)", args: ["eval", "reverify", "--no-serve", "--rollouts", dir], message: /^error: cannot read '.*gym-user-errors-\w+': EISDIR$/ },
  { name: "bad config path", args: ["env", "validate", "--config", join(dir, "absent.yaml")], message: /^error: config_paths entry '.*absent\.yaml' was not found\. Looked in: .*absent\.yaml/ },
  { name: "bad override syntax", args: ["env", "resolve", "++foo=[1,2"], message: /^error: Malformed override '\+\+foo=\[1,2': expected ',' or '\]' in list/ },
  { name: "unknown agent name", args: ["eval", "run", ...COUNTER, "--agent", "no_such_agent", "--input", DATASET, "--output", output, "++head_server.port=0"], message: /^error: unknown agent 'no_such_agent': not an agent instance of the config \(agents: example_session_state_mgmt_simple_agent\); fix --agent \/ \+agent_name or the rows' agent_ref$/ },
  { name: "invalid JSONL line", args: ["eval", "run", "--no-serve", "--agent", "a", "--input", badJsonl, "--output", output], message: new RegExp(`^error: ${badJsonl.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:2: not valid JSON`) },
  { name: "bad flag value", args: ["eval", "run", "--no-serve", "--input", DATASET, "--output", output, "--limit", "abc"], message: /^error: option '--limit <n>' argument 'abc' is invalid\. must be an integer greater than zero$/ },
  { name: "bad flag value (number out of range)", args: ["gateway", "--port", "70000"], message: /^error: option '--port <port>' argument '70000' is invalid\. must be a port number \(0-65535\)$/ },
  // NeMo Gym's (argparse's) words, with difflib's closest option of the command.
  { name: "unknown option", args: ["env", "status", "--bogus"], message: /^error: unrecognized arguments: --bogus Did you mean `--verbose`\?$/ },
  { name: "unknown options, each with its hint", args: ["eval", "run", "--limt", "3", "--agnt", "x"], message: /^error: unrecognized arguments: --limt --agnt Did you mean `--limit`\? Did you mean `--agent`\?$/ },
  { name: "mistyped command", args: ["evl", "run"], message: /^error: invalid choice: 'evl' \(choose from 'list', 'search', 'env', 'eval', 'dataset', .*\) Did you mean `eval`\?$/ },
  { name: "mistyped subcommand", args: ["eval", "rn"], message: /^error: invalid choice: 'rn' \(choose from .*'run'.*\) Did you mean `run`\?$/ },
  { name: "selector naming no config", args: ["env", "resolve", "--resources-server", "mcqaa"], message: /^error: `--resources-server mcqaa` was specified which implies config `resources_servers\/mcqaa\/configs\/mcqaa\.yaml`, which does not exist\. Did you mean `mcqa`\? See available resources-server configs in `.*\/resources_servers`\.$/ },
  // Was an uncaught Error (a stack trace) before the collection settings' issues became user errors.
  { name: "a config value out of range", args: ["eval", "run", "--no-serve", "--agent", "a", "--input", DATASET, "--output", output, "++limit=-3", "++num_repeats=zero"], message: /^error: limit: Too small: expected number to be >0; num_repeats: Invalid input/ },
];

for (const mistake of MISTAKES) {
  test(`user error, one line and exit 2: ${mistake.name}`, async () => {
    const result = await runGym(mistake.args);
    assert.equal(result.code, 2, result.output);
    const lines = result.stderr.split("\n").filter((line) => line !== "");
    assert.equal(lines.length, 1, `stderr is one line:\n${result.stderr}`);
    assert.match(lines[0]!, mistake.message);
    assert.equal(result.stderr, `${lines[0]}\n`);
    assert.doesNotMatch(result.output, /\n\s+at /, "no stack frames");
    assert.doesNotMatch(result.output, /servers ready|Head server/, "reported before any server starts");
  });
}

test("a legacy name's notice and a user error: the notice, then the one error line", async () => {
  const result = await runGym(["ng_collect_rollouts", "+agent_name=a", `+output_jsonl_fpath=${output}`]);
  assert.equal(result.code, 2, result.output);
  assert.deepEqual(result.stderr.split("\n"), [
    "`ng_collect_rollouts` is deprecated and will be removed in a future release; use `gym eval run --no-serve` instead.",
    "error: input_jsonl_fpath: input_jsonl_fpath is required (--input FILE or +input_jsonl_fpath=FILE)",
    "",
  ]);
});

test("errors are told apart by type: a UserError (or subclass) is one line and exit 2, anything else its stack trace and exit 1", async () => {
  class SubclassedMistake extends UserError {}
  const table = [
    defineCommand({ path: ["mistake"], description: "fails as a user error", examples: ["gym mistake"], flags: {}, run: () => { throw new SubclassedMistake("the file\nis missing"); } }),
    // Named like a user error, but not one: the name does not count.
    defineCommand({ path: ["bug"], description: "fails as a bug", examples: ["gym bug"], flags: {}, run: () => { const error = new Error("undefined is not a function"); error.name = "InputError"; throw error; } }),
    defineCommand({ path: ["fails"], description: "ends with exit code 3", examples: ["gym fails"], flags: {}, run: () => 3 }),
  ];
  const run = async (args: string[]) => {
    const err: string[] = [];
    const program = registerCommands(new Command("gym"), table, { output: { out: () => undefined, err: (text) => err.push(text) } });
    return { code: await runProgram(program, args, (text) => err.push(text)), err: err.join("") };
  };
  assert.deepEqual(await run(["mistake"]), { code: 2, err: "error: the file is missing\n" });
  const bug = await run(["bug"]);
  assert.equal(bug.code, 1);
  assert.match(bug.err, /^error: InputError: undefined is not a function\n\s+at /);
  assert.deepEqual(await run(["fails"]), { code: 3, err: "" });
  assert.deepEqual(await run(["--nope"]), { code: 2, err: "error: unknown option '--nope'\n" });
});
