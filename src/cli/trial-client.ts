// `gym trial-client` (the Relax thin client, configured entirely by RELAX_* / NEMO_GYM_* variables) and
// `gym gateway convert-dataset <input> <output>` (NeMo Gym rows → Relax rollout rows).
import { runThinClient } from "../gateway/client/main.ts";
import { convertFile } from "../gateway/convert-dataset.ts";
import { arg, defineCommand, flag, POSITIVE_INTEGER } from "./command.ts";

export const trialClientCommand = defineCommand({
  path: ["trial-client"],
  description:
    "run one Relax managed session as a gateway trial: reads RELAX_INPUT_JSON, writes RELAX_OUTPUT_JSON " +
    "(needs RELAX_SESSION_ID, RELAX_SESSION_IO_DIR, RELAX_BASE_URL, NEMO_GYM_URL; SIGTERM aborts the trial)",
  examples: ["RELAX_SESSION_ID=s1 RELAX_SESSION_IO_DIR=/tmp/s1 RELAX_BASE_URL=http://trainer:8000 NEMO_GYM_URL=http://gateway:29300 gym trial-client"],
  flags: {},
  // Exit at once, as the script entry does: a lingering socket must not keep Relax's managed session open.
  run: async () => process.exit(await runThinClient(process.env)),
});

export const convertDatasetCommand = defineCommand({
  path: ["gateway", "convert-dataset"],
  description: "convert NeMo Gym task rows (JSONL) into Relax rollout rows {input, metadata}; input and output must be different files",
  examples: ["gym gateway convert-dataset resources_servers/example_single_tool_call/data/example.jsonl relax_prompts.jsonl --limit 100"],
  args: { input: arg.required("NeMo Gym dataset JSONL"), output: arg.required("Relax prompt JSONL to write") },
  flags: { limit: flag.number("n", "only the first N rows", POSITIVE_INTEGER) },
  async run(_config, { flags, print }) {
    const converted = await convertFile(flags.input, flags.output, { limit: flags.limit });
    print(`Converted ${converted} NeMo Gym row(s) to ${flags.output}`);
  },
});
