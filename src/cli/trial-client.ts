// `gym trial-client` (the Relax thin client, configured entirely by RELAX_* / NEMO_GYM_* variables) and
// `gym gateway convert-dataset <input> <output>` (NeMo Gym rows → Relax rollout rows).
import { Command, InvalidArgumentError } from "commander";
import { runThinClient } from "../gateway/client/main.ts";
import { convertFile } from "../gateway/convert-dataset.ts";

export function trialClientCommand(): Command {
  return new Command("trial-client")
    .description(
      "run one Relax managed session as a gateway trial: reads RELAX_INPUT_JSON, writes RELAX_OUTPUT_JSON " +
        "(needs RELAX_SESSION_ID, RELAX_SESSION_IO_DIR, RELAX_BASE_URL, NEMO_GYM_URL; SIGTERM aborts the trial)",
    )
    // Exit at once, as the script entry does: a lingering socket must not keep Relax's managed session open.
    .action(async () => process.exit(await runThinClient(process.env)));
}

function positiveInteger(value: string): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new InvalidArgumentError("must be an integer greater than zero");
  return parsed;
}

export function convertDatasetCommand(print: (line: string) => void = (line) => void process.stdout.write(`${line}\n`)): Command {
  return new Command("convert-dataset")
    .description("convert NeMo Gym task rows (JSONL) into Relax rollout rows {input, metadata}; input and output must be different files")
    .argument("<input>", "NeMo Gym dataset JSONL")
    .argument("<output>", "Relax prompt JSONL to write")
    .option("--limit <n>", "only the first N rows", positiveInteger)
    .action(async (input: string, output: string, flags: { limit?: number }) => {
      const converted = await convertFile(input, output, { limit: flags.limit });
      print(`Converted ${converted} NeMo Gym row(s) to ${output}`);
    });
}
