// `gym env wrap path/to/domain.ts --name NAME [--root DIR] [--rows FILE] [--class NAME]`: a resources server
// generated around an existing TypeScript domain module, which the generated app imports rather than copies.
import { join, relative, resolve } from "node:path";
import { Command, CommanderError } from "commander";
import { ScaffoldError } from "../scaffold/common.ts";

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

interface WrapFlags {
  name: string;
  root?: string;
  rows?: string;
  class?: string;
  exposeToolsOverMcp?: boolean;
}

/** Where the command's report and errors go (the process's stdout / stderr unless a caller captures them). */
export interface WrapOutput {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: WrapOutput = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

export function registerEnvWrap(env: Command, output: WrapOutput = processOutput): void {
  env
    .command("wrap")
    .description("generate a resources server around an existing TypeScript domain module (its class or functions become tools, its score() the reward)")
    .argument("<module>", "the domain module, a .ts file")
    .requiredOption("--name <name>", "the environment's name, snake_case")
    .option("--root <dir>", "the folder holding resources_servers/ (default: the working directory)")
    .option("--rows <file>", "JSONL of seed objects for data/example.jsonl (default: the module's EXAMPLE_SEEDS)")
    .option("--class <name>", "the class to wrap, when the module exports several with a scoring member")
    .option("--expose-tools-over-mcp", "serve the tools over MCP too (expose_tools_over_mcp: true in the config)")
    .addHelpText("after", CONVENTIONS)
    .action(async (modulePath: string, flags: WrapFlags) => {
      try {
        // Loaded on use: the TypeScript compiler it needs is too heavy for every other `gym` command to pay for.
        const { wrapDomainModule } = await import("../scaffold/wrap/generate.ts");
        const { envDir, files, domain, warnings } = await wrapDomainModule({
          modulePath,
          name: flags.name,
          rootDir: flags.root,
          rowsPath: flags.rows,
          className: flags.class,
          exposeToolsOverMcp: flags.exposeToolsOverMcp,
        });
        const shown = relative(process.cwd(), envDir) || ".";
        const wrapped = domain.style === "class" ? `class ${domain.className}` : `functions of ${relative(process.cwd(), resolve(modulePath))}`;
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
        output.out(`${lines.join("\n")}\n`);
      } catch (error) {
        if (!(error instanceof ScaffoldError)) throw error;
        output.err(`error: ${error.message}\n`);
        throw new CommanderError(1, "gym.env.wrap", error.message);
      }
    });
}
