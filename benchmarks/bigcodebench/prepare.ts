// BigCodeBench (NeMo Gym's benchmarks/bigcodebench/prepare.py): bigcode/bigcodebench-hard (split=hard, the
// default) or bigcode/bigcodebench (split=full) at v0.1.4. The question is the instruct prompt up to "You should
// write self-contained code starting with:", that line, and the code prompt in a python fence, every four spaces a
// tab; the test, entry point and code prompt go to verifier_metadata. Written with orjson as NeMo Gym writes it.
import { definePrepare, huggingFace } from "../../src/rollouts/prepare/define.ts";
import { pythonStrip } from "../../src/python/str.ts";

const VERSION = "v0.1.4";
const DELIMITER = "You should write self-contained code starting with:";

function question(instructPrompt: string, codePrompt: string): string {
  const index = instructPrompt.indexOf(DELIMITER);
  if (index === -1) throw new Error(`delimiter ${JSON.stringify(DELIMITER)} not found in instruct_prompt`);
  const wrapped = !codePrompt.includes("```") || !codePrompt.includes("```python") ? `\`\`\`python\n${codePrompt}\n\`\`\`` : codePrompt;
  return `${pythonStrip(instructPrompt.slice(0, index))}\n\n${DELIMITER}\n${wrapped}`;
}

export default definePrepare<{ split: string }>({
  defaults: { split: "hard" },
  sources: ({ split }) => [huggingFace(split === "full" ? "bigcode/bigcodebench" : "bigcode/bigcodebench-hard", VERSION)],
  dumps: "orjson",
  convert: (row, { args }) => ({
    question: question(row.instruct_prompt, row.code_prompt).replaceAll("    ", "\t"),
    verifier_metadata: { task_id: row.task_id, test: row.test, entry_point: row.entry_point, code_prompt: row.code_prompt, split: args.split },
  }),
});
