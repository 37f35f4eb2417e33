// `gym dataset render` (NeMo Gym's ng_materialize_prompts): a prompt template applied to raw rows, written
// out with responses_create_params.input filled in and prompt_config_used naming the template.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UserError } from "../config/errors.ts";
import { pythonJsonDumps } from "../python/json-dumps.ts";
import { readJsonl } from "../rollouts/jsonl.ts";
import { applyPromptConfig, loadPromptConfig } from "../rollouts/prompt-config.ts";
import { arg, defineCommand, flag } from "./command.ts";
import { resolveUserPath } from "./eval-run.ts";
import { flagOverrides } from "./load-config.ts";
import { searchDirFlags } from "./selector-flags.ts";

export const datasetRenderCommand = defineCommand({
  path: ["dataset", "render"],
  description: "apply a prompt template to raw JSONL rows and write the materialized rows (NeMo Gym's ng_materialize_prompts)",
  examples: ["gym dataset render --input data/raw.jsonl --prompt-config prompts/mcqa.yaml --output data/materialized.jsonl"],
  legacyNames: { ng_materialize_prompts: [] },
  args: { overrides: arg.overrides() },
  flags: {
    input: flag.string("file", "raw input JSONL (+input_jsonl_fpath)", { short: "i" }),
    promptConfig: flag.string("file", "prompt template YAML {system?, user} (+prompt_config)"),
    output: flag.string("file", "output JSONL (+output_jsonl_fpath)", { short: "o" }),
    ...searchDirFlags,
  },
  toConfig: (flags) => ({
    overrides: flags.overrides,
    withoutModel: true,
    flagOverrides: flagOverrides({ input_jsonl_fpath: flags.input, prompt_config: flags.promptConfig, output_jsonl_fpath: flags.output }),
  }),
  run({ resolved }, { print }) {
    const required = { input_jsonl_fpath: "--input", prompt_config: "--prompt-config", output_jsonl_fpath: "--output" } as const;
    for (const [key, flagName] of Object.entries(required)) {
      if (typeof resolved[key] !== "string" || resolved[key] === "") throw new UserError(`${key} is required (${flagName} or +${key}=…)`);
    }
    const promptPath = resolveUserPath(resolved.prompt_config as string);
    const prompt = loadPromptConfig(promptPath);
    const rows = readJsonl(resolveUserPath(resolved.input_jsonl_fpath as string));
    applyPromptConfig(rows, prompt, resolved.input_jsonl_fpath as string);
    const output = resolve(resolved.output_jsonl_fpath as string);
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, rows.map(({ row }) => `${pythonJsonDumps({ ...row, prompt_config_used: promptPath })}\n`).join(""));
    print(`Materialized ${rows.length} rows to ${output}`);
  },
});
