// One shape for every `gym` command: its path, what it does, an example, typed flags and arguments, how the
// flags become config (Hydra-style overrides through the one config loader), and what it runs. `registerCommands`
// turns a table of them into commander commands; the `ng_*` aliases come from the same table.
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { UserError } from "../config/errors.ts";
import { didYouMean } from "../config/selectors.ts";
import { loadConfig, type ConfigRequest, type LoadedConfig } from "./load-config.ts";
import { withSearchDirs } from "./search-dirs.ts";

// ── flags ─────────────────────────────────────────────────────────────────────────────────────────────────

/** `--name` alone: true when given. */
export interface BooleanFlag {
  kind: "boolean";
  help: string;
  short?: string;
}

/** `--no-name`: true unless given. */
export interface NegatedFlag {
  kind: "negated";
  help: string;
}

export interface StringFlag {
  kind: "string";
  /** The value's placeholder in the help (`--input <file>`). */
  value: string;
  help: string;
  short?: string;
  default?: string;
  required?: boolean;
  choices?: readonly string[];
}

/** Repeatable: `--config a --config b` → ["a", "b"]. */
export interface ListFlag {
  kind: "list";
  value: string;
  help: string;
  short?: string;
}

export interface NumberFlag {
  kind: "number";
  value: string;
  help: string;
  short?: string;
  default?: number;
  rule: NumberRule;
}

/** Two numbers after one flag, as argparse's nargs=2 (`--reward-range LOW HIGH`). */
export interface NumberPairFlag {
  kind: "numberPair";
  value: string;
  help: string;
}

export type FlagSpec = BooleanFlag | NegatedFlag | StringFlag | ListFlag | NumberFlag | NumberPairFlag;

/** What a numeric flag accepts; anything else is a usage error naming the flag. */
export interface NumberRule {
  integer?: boolean;
  min?: number;
  max?: number;
  /** `min` itself is not allowed (a positive number). */
  exclusiveMin?: boolean;
  /** How the rule reads in the error message. */
  describe: string;
}

export const POSITIVE_INTEGER: NumberRule = { integer: true, min: 1, describe: "must be an integer greater than zero" };
export const POSITIVE_NUMBER: NumberRule = { min: 0, exclusiveMin: true, describe: "must be a number greater than zero" };
export const NON_NEGATIVE_NUMBER: NumberRule = { min: 0, describe: "must be a number, zero or more" };
export const ANY_NUMBER: NumberRule = { describe: "must be a number" };
export const PORT: NumberRule = { integer: true, min: 0, max: 65535, describe: "must be a port number (0-65535)" };

type FlagOptions<K extends FlagSpec> = Partial<Omit<K, "kind" | "help" | "value">>;

/** Flag constructors: the key a flag has in `flags` is its camelCase name (`numRepeats` is `--num-repeats`). */
export const flag = {
  boolean: (help: string, options: { short?: string } = {}): BooleanFlag => ({ kind: "boolean", help, ...options }),
  negated: (help: string): NegatedFlag => ({ kind: "negated", help }),
  string: <const O extends FlagOptions<StringFlag>>(value: string, help: string, options?: O): StringFlag & O => ({ kind: "string", value, help, ...(options as O) }),
  list: (value: string, help: string, options: { short?: string } = {}): ListFlag => ({ kind: "list", value, help, ...options }),
  numberPair: (value: string, help: string): NumberPairFlag => ({ kind: "numberPair", value, help }),
  number: <const O extends Omit<FlagOptions<NumberFlag>, "rule">>(value: string, help: string, rule: NumberRule, options?: O): NumberFlag & O => ({
    kind: "number",
    value,
    help,
    rule,
    ...(options as O),
  }),
};

/** The `--config <path>` flag every config-reading command has. */
export const configFlag = (help = "a config YAML (repeatable; the same as +config_paths=[a.yaml,b.yaml])") => flag.list("path", help, { short: "c" });

type FlagValue<S> = S extends BooleanFlag | NegatedFlag
  ? boolean
  : S extends ListFlag
    ? string[]
    : S extends StringFlag
      ? S extends { default: string } | { required: true }
        ? string
        : string | undefined
      : S extends NumberFlag
        ? S extends { default: number }
          ? number
          : number | undefined
        : S extends NumberPairFlag
          ? [number, number] | undefined
          : never;

// ── positional arguments ──────────────────────────────────────────────────────────────────────────────────

export interface ArgSpec {
  help: string;
  required?: boolean;
  /** Takes every remaining word (Hydra-style overrides, names). */
  variadic?: boolean;
}

export const arg = {
  required: (help: string) => ({ help, required: true }) as const,
  optional: (help: string) => ({ help }) as const,
  variadic: (help: string) => ({ help, variadic: true }) as const,
  /** `[overrides...]`, which every config-reading command takes. */
  overrides: (help = "Hydra-style overrides: +key=value, ++key=value, key=value") => ({ help, variadic: true }) as const,
};

type ArgValue<S> = S extends { variadic: true } ? string[] : S extends { required: true } ? string : string | undefined;

export type FlagSpecs = Record<string, FlagSpec>;
export type ArgSpecs = Record<string, ArgSpec>;

/** What `toConfig` and `run` see: every flag and argument by name, typed from their specs. */
export type CommandValues<F extends FlagSpecs, A extends ArgSpecs> = { [K in keyof F]: FlagValue<F[K]> } & { [K in keyof A]: ArgValue<A[K]> };

// ── commands ──────────────────────────────────────────────────────────────────────────────────────────────

/** Where a command's output goes: the process's stdout / stderr unless a caller (a test) captures them. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: CommandOutput = { out: (text) => void process.stdout.write(text), err: (text) => void process.stderr.write(text) };

export interface CommandContext<V> extends CommandOutput {
  flags: V;
  /** One line on stdout. */
  print(line: string): void;
  /** One line on stderr. */
  warn(line: string): void;
}

type ConfigFor<R> = R extends ConfigRequest ? LoadedConfig : undefined;

/** A command as declared; `R` is what `toConfig` answers (no `toConfig`: the command reads no config). */
export interface CommandSpec<F extends FlagSpecs, A extends ArgSpecs, R extends ConfigRequest | undefined> {
  /** Words after `gym`, e.g. ["eval", "run"]. */
  path: readonly string[];
  /** What it does (the help's first line; also the listing in the parent's help). */
  description: string;
  /** Command lines shown under "Examples:" in the help. */
  examples: readonly string[];
  /** Positional arguments, in order. */
  args?: A;
  flags: F;
  /** How the flags become config: files and Hydra-style overrides (`flagOverrides`), loaded by `loadConfig`. */
  toConfig?: (values: CommandValues<F, A>) => R;
  /** Runs with the loaded config; the answer is the exit code (none: 0). */
  run(config: ConfigFor<R>, context: CommandContext<CommandValues<F, A>>): Promise<number | void> | number | void;
  /** NeMo Gym's names for this command and the arguments they stand for (e.g. ng_collect_rollouts → --no-serve). */
  legacyNames?: Readonly<Record<string, readonly string[]>>;
  /** More help after the examples (conventions, formats). */
  helpAfter?: string;
  /** Takes any flag and word without complaint (a command that only says why it does not apply here). */
  acceptsAnything?: boolean;
}

/** A declared command, its types erased so that different commands fit in one table. */
export interface GymCommand {
  path: readonly string[];
  description: string;
  examples: readonly string[];
  args: ArgSpecs;
  flags: FlagSpecs;
  legacyNames: Readonly<Record<string, readonly string[]>>;
  helpAfter?: string;
  acceptsAnything?: boolean;
  /** Loads the config (when the command reads one) and runs the command; `verbose`: -v/--verbose was given. */
  execute(values: Record<string, unknown>, output: CommandOutput, options?: { verbose?: boolean }): Promise<number>;
}

export function defineCommand<F extends FlagSpecs, A extends ArgSpecs = {}, R extends ConfigRequest | undefined = undefined>(spec: CommandSpec<F, A, R>): GymCommand {
  // Flags and arguments share one namespace in `flags`.
  const clash = Object.keys(spec.args ?? {}).find((name) => name in spec.flags);
  if (clash) throw new Error(`gym ${spec.path.join(" ")}: '${clash}' is both an argument and a flag`);
  return {
    path: spec.path,
    description: spec.description,
    examples: spec.examples,
    args: spec.args ?? {},
    flags: spec.flags,
    legacyNames: spec.legacyNames ?? {},
    helpAfter: spec.helpAfter,
    acceptsAnything: spec.acceptsAnything,
    execute(values, output, { verbose = false } = {}) {
      const flags = values as CommandValues<F, A>;
      // A command with `--search-dir` (selector-flags.ts) runs, selectors and config loading included, with those roots.
      const searchDirs = "searchDir" in spec.flags ? (values.searchDir as string[]) : undefined;
      return withSearchDirs(searchDirs, async () => {
        const asked = spec.toConfig?.(flags);
        // -v reaches the servers through the config, as NeMo Gym's +verbose=true.
        const request = asked && verbose ? { ...asked, flagOverrides: ["++verbose=true", ...(asked.flagOverrides ?? [])] } : asked;
        const config = (request ? await loadConfig(request) : undefined) as ConfigFor<R>;
        const context: CommandContext<CommandValues<F, A>> = {
          ...output,
          flags,
          print: (line) => output.out(`${line}\n`),
          warn: (line) => output.err(`${line}\n`),
        };
        return (await spec.run(config, context)) ?? 0;
      });
    },
  };
}

// ── the command line's own mistakes, in NeMo Gym's words ──────────────────────────────────────────────────

/**
 * Commander with NeMo Gym's (argparse's) messages: every unrecognized flag at once, each with a difflib
 * "did you mean" among the command's own options, and a mistyped command with the choices and the closest.
 */
export class GymCommander extends Command {
  override createCommand(name?: string): Command {
    return new GymCommander(name);
  }

  unknownOption(flag: string): never {
    // Commander's own check, which this override replaces: a command that takes anything gets it.
    if ((this as unknown as { _allowUnknownOption: boolean })._allowUnknownOption) return undefined as never;
    // Operands never start with "-" (Hydra overrides: +a=1, a=1, ~a), so every such word is an unknown flag.
    const unknown = this.args.filter((word) => word.startsWith("-"));
    const flags = unknown.length > 0 ? unknown : [flag];
    const known = this.options.flatMap((option) => [option.short, option.long].filter((name): name is string => !!name));
    known.push("-h", "--help");
    const hints = flags.map((word) => word.split("=", 1)[0]!).map((name) => didYouMean(name, known.filter((option) => option !== name))).join("");
    this.error(`unrecognized arguments: ${flags.join(" ")}${hints}`, { code: "commander.unknownOption" });
  }

  unknownCommand(): never {
    const typo = this.args[0] ?? "";
    const choices = this.commands.map((command) => command.name());
    this.error(`invalid choice: '${typo}' (choose from ${choices.map((name) => `'${name}'`).join(", ")})${didYouMean(typo, choices)}`, { code: "commander.unknownCommand" });
  }
}

// ── registration ──────────────────────────────────────────────────────────────────────────────────────────

/**
 * A mistake on the command line itself (unknown option, missing argument, bad flag value), as commander
 * reports it: a user error like any other.
 */
export class UsageError extends UserError {
  readonly code: string;

  constructor(message: string, code: string) {
    super(message.replace(/^error: /, ""));
    this.name = "UsageError";
    this.code = code;
  }
}

/** Commander's outcomes that are not usage mistakes: help and version shown, or help for a bare group. */
const NOT_USAGE_ERRORS = new Set(["commander.helpDisplayed", "commander.version", "commander.help", "commander.executeSubCommandAsync"]);

/** The exit of a command that finished with a non-zero code (it printed why itself). */
export const EXIT_CODE = "gym.exitCode";

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function parseNumber(rule: NumberRule): (text: string) => number {
  return (text) => {
    const value = text.trim() === "" ? Number.NaN : Number(text);
    const fits =
      Number.isFinite(value) &&
      (!rule.integer || Number.isInteger(value)) &&
      (rule.min === undefined || (rule.exclusiveMin ? value > rule.min : value >= rule.min)) &&
      (rule.max === undefined || value <= rule.max);
    if (!fits) throw new InvalidArgumentError(rule.describe);
    return value;
  };
}

function commanderOption(name: string, spec: FlagSpec): Option {
  const long = `--${spec.kind === "negated" ? "no-" : ""}${kebab(name)}`;
  const short = "short" in spec && spec.short ? `-${spec.short}, ` : "";
  switch (spec.kind) {
    case "boolean":
    case "negated":
      return new Option(`${short}${long}`, spec.help);
    case "list":
      return new Option(`${short}${long} <${spec.value}>`, spec.help).argParser((value: string, previous: string[] = []) => [...previous, value]).default([]);
    case "string": {
      const option = new Option(`${short}${long} <${spec.value}>`, spec.help);
      if (spec.choices) option.choices(spec.choices);
      if (spec.default !== undefined) option.default(spec.default);
      if (spec.required) option.makeOptionMandatory();
      return option;
    }
    case "numberPair":
      // Variadic, checked to be exactly two numbers when the command's values are read.
      return new Option(`${long} <${spec.value}...>`, spec.help).argParser((value: string, previous: number[] = []) => {
        const number = Number(value);
        if (value.trim() === "" || !Number.isFinite(number)) throw new InvalidArgumentError("must be two numbers");
        return [...previous, number];
      });
    case "number": {
      const option = new Option(`${short}${long} <${spec.value}>`, spec.help).argParser(parseNumber(spec.rule));
      if (spec.default !== undefined) option.default(spec.default);
      return option;
    }
  }
}

function examplesHelp(command: GymCommand): string {
  const examples = command.examples.map((example) => `  $ ${example}`).join("\n");
  return `\nExample${command.examples.length > 1 ? "s" : ""}:\n${examples}\n${command.helpAfter ?? ""}`;
}

/** The commander command at `path` under `root`, creating the groups on the way (`gym eval …`). */
function commandAt(root: Command, under: readonly string[], path: readonly string[], groups: Readonly<Record<string, string>>): Command {
  if (under.some((word, i) => path[i] !== word)) throw new Error(`command '${path.join(" ")}' is not under '${under.join(" ")}'`);
  let parent = root;
  for (let i = under.length; i < path.length; i++) {
    const word = path[i]!;
    let next = parent.commands.find((c) => c.name() === word);
    if (!next) {
      next = parent.command(word);
      const group = groups[path.slice(0, i + 1).join(" ")];
      if (group && i < path.length - 1) next.description(group);
    }
    parent = next;
  }
  return parent;
}

export interface RegisterOptions {
  /** What the intermediate words (`env`, `eval`, …) are for. */
  groups?: Readonly<Record<string, string>>;
  /** The path `root` stands for (default: none, `root` is `gym`): `["env"]` registers `env wrap` as `wrap`. */
  under?: readonly string[];
  output?: CommandOutput;
}

/**
 * Registers every command of `table` under `root` (commander), with one error behaviour: commander's usage
 * errors become `UsageError`s (the caller prints them), a command that ends with a non-zero code throws a
 * `CommanderError` with that code.
 */
export function registerCommands(root: Command, table: readonly GymCommand[], options: RegisterOptions = {}): Command {
  const output = options.output ?? processOutput;
  root.exitOverride((error) => {
    if (NOT_USAGE_ERRORS.has(error.code)) throw error;
    throw new UsageError(error.message, error.code);
  });
  // The message reaches the user once, from whoever catches the UsageError; help still goes where it goes.
  root.configureOutput({ writeOut: (text) => output.out(text), writeErr: (text) => output.err(text), outputError: () => undefined });

  for (const spec of table) {
    const command = commandAt(root, options.under ?? [], spec.path, options.groups ?? {});
    command.description(spec.description).addHelpText("after", examplesHelp(spec));
    const argNames = Object.keys(spec.args);
    for (const name of argNames) {
      const { help, required, variadic } = spec.args[name]!;
      const label = `${name}${variadic ? "..." : ""}`;
      command.argument(required ? `<${label}>` : `[${label}]`, help);
    }
    for (const [name, flagSpec] of Object.entries(spec.flags)) command.addOption(commanderOption(name, flagSpec));
    if (spec.acceptsAnything) command.allowUnknownOption().allowExcessArguments();
    // Before or after the command words, as NeMo Gym's (the root has it too, see main.ts).
    if (!("verbose" in spec.flags)) command.addOption(new Option("-v, --verbose", "set logging level to DEBUG (the servers get +verbose=true)"));
    command.action(async (...received: unknown[]) => {
      const options = received[argNames.length] as Record<string, unknown>;
      const verbose = command.optsWithGlobals().verbose === true;
      const values: Record<string, unknown> = { ...options };
      if (!("verbose" in spec.flags)) delete values.verbose;
      for (const [name, flagSpec] of Object.entries(spec.flags)) {
        if (flagSpec.kind === "boolean") values[name] = options[name] === true;
        if (flagSpec.kind === "numberPair" && options[name] !== undefined && (options[name] as number[]).length !== 2) {
          throw new UsageError(`argument --${kebab(name)}: expected 2 arguments`, "commander.invalidArgument");
        }
      }
      argNames.forEach((name, i) => (values[name] = received[i] ?? (spec.args[name]!.variadic ? [] : undefined)));
      const exitCode = await spec.execute(values, output, { verbose });
      if (exitCode !== 0) throw new CommanderError(exitCode, EXIT_CODE, `exit code ${exitCode}`);
    });
  }
  addGroupExamples(root, table);
  return root;
}

/** A group's help (`gym eval --help`) shows the first example of each of its commands. */
function addGroupExamples(root: Command, table: readonly GymCommand[]): void {
  const visit = (group: Command, path: string[]) => {
    for (const child of group.commands) {
      const childPath = [...path, child.name()];
      if (child.commands.length === 0) continue;
      const examples = table.filter((spec) => childPath.every((word, i) => spec.path[i] === word) && spec.path.length > childPath.length).map((spec) => spec.examples[0]!);
      if (examples.length > 0) child.addHelpText("after", `\nExamples:\n${examples.map((example) => `  $ ${example}`).join("\n")}\n`);
      visit(child, childPath);
    }
  };
  visit(root, []);
}

/** `ng_run a b` → the arguments it stands for, from the table's `legacyNames` (plus `extra` for root flags). */
export function legacyExpansions(table: readonly Pick<GymCommand, "path" | "legacyNames">[], extra: Readonly<Record<string, readonly string[]>> = {}): Record<string, string[]> {
  const expansions: Record<string, string[]> = {};
  for (const command of table) for (const [name, args] of Object.entries(command.legacyNames)) expansions[name] = [...command.path, ...args];
  for (const [name, args] of Object.entries(extra)) expansions[name] = [...args];
  return expansions;
}
