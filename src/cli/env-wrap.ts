// `gym env wrap path/to/domain.ts --name NAME [--root DIR] [--rows FILE] [--class NAME]`: a resources server
// generated around an existing TypeScript domain module, which the generated app imports rather than copies.
import { join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { ScaffoldError } from "../scaffold/common.ts";
import { arg, defineCommand, flag, processOutput, registerCommands, type CommandOutput } from "./command.ts";

const CONVENTIONS = `
What the domain module provides (see tests/scaffold/fixtures/wordle/wordle.ts):
  class style      one exported class (or --class): the constructor's parameters are the seed fields read from
                   the row (a lone object parameter: its properties); each public method is a tool named in
                   snake_case — private, protected, #private, _-prefixed and @internal ones are not; a method
                   named dispose (or tagged @dispose) runs when the session is dropped
  function style   no such class: createState(...) (or a function tagged @state) builds the state from the seed
                   fields; every exported function taking that state first is a tool, called as f(state, ...)
  reward           a method, getter or exported function named score / reward / verify, or tagged @reward; it
                   returns a number or { reward, ... } and may take the final assistant text (a string)
  types            string, number (an alias named Integer/int: integer), boolean, literal unions (enums), arrays,
                   interfaces and object types of these, optional parameters; JSDoc and @param describe them
  data             EXAMPLE_SEEDS (or --rows): seed objects for data/example.jsonl, with an optional prompt / task;
                   VERIFIER_CASES: [{ case, seed, tool_calls: [{ name, arguments }], output_text?, expected_reward }]
                   for data/verifier_cases.jsonl (without it: one derived malformed case)
`;

export const envWrapCommand = defineCommand({
  path: ["env", "wrap"],
  description: "generate a resources server around an existing TypeScript domain module (its class or functions become tools, its score() the reward)",
  examples: ["gym env wrap tests/scaffold/fixtures/wordle/wordle.ts --name word_game"],
  args: { module: arg.required("the domain module, a .ts file") },
  flags: {
    name: flag.string("name", "the environment's name, snake_case", { required: true }),
    root: flag.string("dir", "the folder holding resources_servers/ (default: the working directory)"),
    rows: flag.string("file", "JSONL of seed objects for data/example.jsonl (default: the module's EXAMPLE_SEEDS)"),
    class: flag.string("name", "the class to wrap, when the module exports several with a scoring member"),
    exposeToolsOverMcp: flag.boolean("serve the tools over MCP too (expose_tools_over_mcp: true in the config)"),
  },
  helpAfter: CONVENTIONS,
  async run(_config, { flags, out }) {
    // Loaded on use: the TypeScript compiler it needs is too heavy for every other `gym` command to pay for.
    const { wrapDomainModule } = await import("../scaffold/wrap/generate.ts");
    const { envDir, files, domain, warnings } = await wrapDomainModule({
      modulePath: flags.module,
      name: flags.name,
      rootDir: flags.root,
      rowsPath: flags.rows,
      className: flags.class,
      exposeToolsOverMcp: flags.exposeToolsOverMcp,
    });
    const shown = relative(process.cwd(), envDir) || ".";
    const wrapped = domain.style === "class" ? `class ${domain.className}` : `functions of ${relative(process.cwd(), resolve(flags.module))}`;
    const lines = [
      `Created ${shown} around ${wrapped} (tools: ${domain.tools.map((t) => t.toolName).join(", ")}; reward: ${domain.score.name}):`,
      ...files.map((file) => `  ${join(shown, file)}`),
      ...(warnings.length > 0 ? ["", "Warnings:", ...warnings.map((w) => `  - ${w}`)] : []),
      "",
      "Next:",
      `  node --import tsx --test ${join(shown, "tests/app.test.ts")}`,
      `  npm run gym -- eval run --config ${join(shown, "configs", `${flags.name}.yaml`)} --config responses_api_models/scripted_model/configs/scripted_model.yaml \\`,
      `    --agent ${flags.name}_simple_agent --input ${join(shown, "data/example.jsonl")} --output results/${flags.name}.jsonl`,
    ];
    out(`${lines.join("\n")}\n`);
  },
});

/** `gym env wrap` alone under `env` (a program embedding it, or a test capturing its output). */
export function registerEnvWrap(env: Command, output: CommandOutput = processOutput): void {
  registerCommands(env, [envWrapCommand], { under: ["env"], output });
}
