// The one command table: every command's --help says what it does and shows an example, the README's
// commands and NeMo Gym's names are all registered, and flags become the config overrides they stand for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Command, CommanderError } from "commander";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { defineCommand, flag, POSITIVE_INTEGER, registerCommands, arg } from "../../src/cli/command.ts";
import { COMMAND_GROUPS, COMMAND_INDEX, loadAllCommands, loadCommandsFor } from "../../src/cli/commands.ts";
import { expandLegacyCommand, LEGACY_COMMANDS } from "../../src/cli/legacy-aliases.ts";
import { buildProgram } from "../../src/cli/main.ts";
import { runGym } from "./gym-process.ts";

const COMMANDS = await loadAllCommands();
const squeeze = (text: string) => text.replace(/\s+/g, " ");

/** `gym <path> --help` in process: what it prints. */
async function helpOf(path: readonly string[]): Promise<string> {
  let text = "";
  const program = buildProgram(COMMANDS, { out: (t) => (text += t), err: (t) => (text += t) });
  await assert.rejects(program.parseAsync([...path, "--help"], { from: "user" }), (error) => error instanceof CommanderError && error.code === "commander.helpDisplayed");
  return text;
}

test("the command index says what each command module declares: its path and NeMo Gym names, in order", () => {
  assert.deepEqual(COMMAND_INDEX.map((entry) => [entry.path, entry.legacyNames]), COMMANDS.map((command) => [command.path, command.legacyNames]));
});

test("a command line loads the one command it names; help, a bare group and a typo load the whole table", async () => {
  const paths = async (args: string[]) => (await loadCommandsFor(args)).map((command) => command.path.join(" "));
  assert.deepEqual(await paths(["eval", "run", "--no-serve"]), ["eval run"]);
  assert.deepEqual(await paths(["-v", "env", "start", "+a=1"]), ["env start"]);
  assert.deepEqual(await paths(["gateway", "convert-dataset", "x"]), ["gateway convert-dataset"]);
  assert.deepEqual(await paths(["gateway", "--port", "0"]), ["gateway"]);
  assert.deepEqual(await paths(["--version", "--json"]), []);
  for (const args of [[], ["--help"], ["eval"], ["eval", "--help"], ["evl", "run"]]) assert.equal((await paths(args)).length, COMMANDS.length, args.join(" "));
});

test("--help of every registered command shows its description and an example", async () => {
  assert.ok(COMMANDS.length >= 15);
  for (const command of COMMANDS) {
    const help = squeeze(await helpOf(command.path));
    const name = command.path.join(" ");
    assert.ok(command.examples.length > 0, `${name} has an example`);
    assert.ok(help.includes(`Usage: gym ${name} `), `${name}: usage line\n${help}`);
    assert.ok(help.includes(squeeze(command.description)), `${name}: description\n${help}`);
    assert.match(help, /Examples?: \$ /, `${name}: examples section`);
    for (const example of command.examples) assert.ok(help.includes(`$ ${squeeze(example)}`), `${name}: example '${example}'\n${help}`);
  }
});

test("--help of every group (and of gym itself) shows what it is for and an example of each of its commands", async () => {
  const groups = new Set(COMMANDS.flatMap((c) => c.path.slice(0, -1).map((_, i) => c.path.slice(0, i + 1).join(" "))));
  assert.ok(["env", "eval", "dataset"].every((g) => groups.has(g)), [...groups].join(", "));
  for (const group of groups) {
    const help = squeeze(await helpOf(group.split(" ")));
    const description = COMMAND_GROUPS[group] ?? COMMANDS.find((c) => c.path.join(" ") === group)?.description;
    assert.ok(description && help.includes(squeeze(description)), `${group}: description\n${help}`);
    for (const command of COMMANDS.filter((c) => c.path.length > 1 && c.path.slice(0, -1).join(" ") === group)) {
      assert.ok(help.includes(`$ ${squeeze(command.examples[0]!)}`), `${group}: example of ${command.path.join(" ")}\n${help}`);
    }
  }
  const root = squeeze(await helpOf([]));
  assert.match(root, /NeMo Gym in TypeScript/);
  assert.match(root, /Examples: \$ gym env start --resources-server mcqa/);
});

test("ng_run --help: NeMo Gym's +config_paths spelling is in the help", async () => {
  const result = await runGym(["ng_run", "--help"]);
  assert.equal(result.code, 0, result.output);
  assert.match(result.stdout, /^Usage: gym env start /);
  assert.match(result.stdout, /\+config_paths=\[a\.yaml,b\.yaml\]/);
});

test("every NeMo Gym ng_* / nemo_gym_* name whose command we have is an alias for it (nemo_gym/cli/legacy.py at 07d6b0d)", () => {
  const NEMO_LEGACY: Record<string, string[]> = {
    run: ["env", "start"],
    test: ["env", "test"],
    init_resources_server: ["env", "init"],
    collect_rollouts: ["eval", "run", "--no-serve"],
    e2e_collect_rollouts: ["eval", "run"],
    aggregate_rollouts: ["eval", "aggregate"],
    materialize_prompts: ["dataset", "render"],
    reward_profile: ["eval", "profile"],
    prepare_data: ["dataset", "collate"],
    dump_config: ["env", "resolve"],
    validate: ["env", "validate"],
    help: ["--help"],
    status: ["env", "status"],
    version: ["--version"],
  };
  for (const [key, args] of Object.entries(NEMO_LEGACY)) {
    assert.deepEqual(LEGACY_COMMANDS[`ng_${key}`], args, `ng_${key}`);
    assert.deepEqual(expandLegacyCommand(`nemo_gym_${key}`, ["x"]).args, [...args, "x"], `nemo_gym_${key}`);
  }
  assert.equal(expandLegacyCommand("gym", ["nemo_gym_run", "x"]).notice, "`nemo_gym_run` is deprecated and will be removed in a future release; use `gym env start` instead.");
});

test("the real CLI prints a command's help with its example (exit 0)", async () => {
  const result = await runGym(["eval", "reverify", "--help"]);
  assert.equal(result.code, 0, result.output);
  assert.match(result.stdout, /^Usage: gym eval reverify \[options\] \[overrides\.\.\.\]\n\nre-score stored rollouts/);
  assert.match(result.stdout, /\nExample:\n {2}\$ gym eval reverify --config /);
});

test("every command path and ng_* name the README documents is registered", () => {
  const readme = readFileSync(join(PROJECT_ROOT, "README.md"), "utf8");
  const paths = new Set(COMMANDS.map((c) => c.path.join(" ")));
  // `gym env init …`, `npm run gym -- eval run …`; not reasoning-gym's prose ("reasoning-gym task").
  const documented = [...readme.matchAll(/(?<![\w-])gym (?:-- )?([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)].map(([, first, second]) => (second && paths.has(`${first} ${second}`) ? `${first} ${second}` : first!));
  assert.ok(documented.length >= 10, `found ${documented.length} documented commands`);
  for (const path of new Set(documented)) assert.ok(paths.has(path), `README documents \`gym ${path}\`, which the table does not register`);
  for (const expected of ["env start", "env status", "eval run", "eval reverify", "eval aggregate", "dataset validate", "env init", "env wrap", "env test", "gateway", "gateway convert-dataset", "trial-client"]) {
    assert.ok(documented.includes(expected), `the README scan finds \`gym ${expected}\``);
  }

  const legacy = new Set([...readme.matchAll(/\bng_[a-z_]+/g)].map(([name]) => name));
  assert.ok(legacy.size >= 5, [...legacy].join(", "));
  for (const name of legacy) assert.ok(LEGACY_COMMANDS[name], `README documents ${name}, which is not an alias`);

  // And what package.json installs as bins.
  const bins = Object.keys(JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).bin).filter((name) => name.startsWith("ng_"));
  for (const name of bins) assert.ok(LEGACY_COMMANDS[name], `bin ${name} is an alias`);
});

test("ng_* names come from the command table and expand to registered commands", async () => {
  assert.deepEqual(LEGACY_COMMANDS.ng_collect_rollouts, ["eval", "run", "--no-serve"]);
  assert.deepEqual(LEGACY_COMMANDS.ng_run, ["env", "start"]);
  assert.deepEqual(LEGACY_COMMANDS.ng_version, ["--version"]);
  assert.deepEqual(expandLegacyCommand("ng_status.js", ["--json"]), {
    args: ["env", "status", "--json"],
    notice: "`ng_status` is deprecated and will be removed in a future release; use `gym env status` instead.",
  });
  const paths = new Set(COMMANDS.map((c) => c.path.join(" ")));
  for (const [name, args] of Object.entries(LEGACY_COMMANDS)) {
    if (args[0]!.startsWith("--")) continue;
    const words = args.filter((a) => !a.startsWith("-"));
    assert.ok(paths.has(words.join(" ")), `${name} → ${args.join(" ")}`);
  }
});

test("defineCommand: typed flags and arguments, toConfig's overrides reach the one config loader, run's code is the exit", async () => {
  const seen: unknown[] = [];
  const command = defineCommand({
    path: ["probe", "run"],
    description: "a probe",
    examples: ["gym probe run x --limit 2"],
    args: { name: arg.required("a name"), overrides: arg.overrides() },
    flags: { limit: flag.number("n", "rows", POSITIVE_INTEGER), quiet: flag.boolean("say less"), serve: flag.negated("no servers"), tag: flag.list("t", "tags") },
    toConfig: (flags) => ({ overrides: flags.overrides, flagOverrides: flags.limit === undefined ? [] : [`++limit=${flags.limit}`] }),
    run(config, { flags }) {
      seen.push({ limit: config.resolved.limit, extra: config.resolved.extra, flags });
      return flags.quiet ? 0 : 4;
    },
  });
  const program = () => registerCommands(new Command("gym").exitOverride(), [command], { groups: { probe: "probes" }, output: { out: () => undefined, err: () => undefined } });
  await program().parseAsync(["probe", "run", "x", "--limit", "2", "--quiet", "--no-serve", "--tag", "a", "--tag", "b", "++extra=1", "++limit=5"], { from: "user" });
  await assert.rejects(program().parseAsync(["probe", "run", "y"], { from: "user" }), (error) => error instanceof CommanderError && error.exitCode === 4);
  assert.deepEqual(seen, [
    // The user's own overrides come last and win over the flags' translation.
    { limit: 5, extra: 1, flags: { limit: 2, quiet: true, serve: false, tag: ["a", "b"], name: "x", overrides: ["++extra=1", "++limit=5"] } },
    { limit: undefined, extra: undefined, flags: { quiet: false, serve: true, tag: [], name: "y", overrides: [] } },
  ]);
  assert.equal(program().commands[0]!.description(), "probes");
});
