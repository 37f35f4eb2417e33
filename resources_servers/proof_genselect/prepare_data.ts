// NeMo Gym's proof_genselect/prepare_data.py: pairwise-selection JSONL (problem, proof_1, proof_2, correct_index,
// optional score_1 / score_2) → Gym rows whose one user message is NeMo Gym's genselect prompt filled in, routed to
// the simple agent. The prompt (prompt_templates/genselect.yaml) is NeMo Gym's text: fetched on first use from its
// repository at the pinned commit (sha256-checked), git-ignored. Lines are read by Python's json rules and written as
// `json.dumps(row, ensure_ascii=False)` writes them (ints stay ints, floats keep their ".0").
//   node --import ./bin/ts-register.js resources_servers/proof_genselect/prepare_data.ts --input raw.jsonl --output data/example.jsonl [--agent-name NAME]
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { pinnedNemoGymServerFile, readNemoGymServerFile } from "../../src/server/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { pythonJsonDumpsTyped } from "../../src/python/json-dumps.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { isPyDict, pythonStr, type PyDict, type PyValue } from "../../src/python/values.ts";

export const DEFAULT_AGENT_NAME = "proof_genselect_simple_agent";
const TEMPLATE_PATH = "resources_servers/proof_genselect/prompt_templates/genselect.yaml";

/** The `user` text of NeMo Gym's genselect.yaml (fetched into prompt_templates/ when absent). */
export async function genselectTemplate(): Promise<string> {
  const text = await readNemoGymServerFile(join(import.meta.dirname, "prompt_templates", "genselect.yaml"), pinnedNemoGymServerFile(TEMPLATE_PATH));
  const user = (parseYaml(text) as { user?: unknown } | null)?.user;
  if (typeof user !== "string") throw new Error(`${TEMPLATE_PATH}: no \`user\` text`);
  return user;
}

/** `row[key]`: a missing key is the KeyError NeMo Gym's script stops with. */
function required(row: PyDict, key: string, line: number): PyValue {
  if (!row.has(key)) throw new Error(`line ${line}: no '${key}' (KeyError)`);
  return row.get(key)!;
}

/** NeMo Gym's convert_genselect_rows: one Gym row per input row, in order. */
export function convertGenselectRows(rows: readonly PyValue[], template: string, agentName = DEFAULT_AGENT_NAME): PyDict[] {
  return rows.map((row, i) => {
    if (!isPyDict(row)) throw new Error(`line ${i + 1}: not a JSON object`);
    const [problem, proof_1, proof_2] = ["problem", "proof_1", "proof_2"].map((key) => required(row, key, i + 1));
    // str.format renders each value as str() does.
    const userContent = pythonFormat(template, [], { problem: pythonStr(problem!), proof_1: pythonStr(proof_1!), proof_2: pythonStr(proof_2!) });
    const example: PyDict = new Map<string, PyValue>([
      ["agent_ref", new Map([["name", agentName]])],
      ["responses_create_params", new Map([["input", [new Map([["role", "user"], ["content", userContent]])]]])],
      ["problem", problem!],
      ["proof_1", proof_1!],
      ["proof_2", proof_2!],
      ["correct_index", required(row, "correct_index", i + 1)],
    ]);
    for (const key of ["score_1", "score_2"]) if (row.has(key)) example.set(key, row.get(key)!);
    return example;
  });
}

/** The output file's text for the input file's text (blank lines skipped). */
export function convertGenselectJsonl(inputText: string, template: string, agentName = DEFAULT_AGENT_NAME): { text: string; count: number } {
  const rows = inputText.split("\n").filter((line) => line.trim() !== "").map((line) => pythonJsonLoads(line));
  const examples = convertGenselectRows(rows, template, agentName);
  return { text: examples.map((example) => `${pythonJsonDumpsTyped(example, { ensureAscii: false })}\n`).join(""), count: examples.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { input: { type: "string" }, output: { type: "string" }, "agent-name": { type: "string", default: DEFAULT_AGENT_NAME } } });
  if (!values.input || !values.output) {
    process.stderr.write("usage: prepare_data.ts --input raw.jsonl --output out.jsonl [--agent-name NAME]\n");
    process.exit(2);
  }
  const agentName = values["agent-name"]!;
  const { text, count } = convertGenselectJsonl(readFileSync(values.input, "utf8"), await genselectTemplate(), agentName);
  writeFileSync(values.output, text, "utf8");
  process.stdout.write(`Converted ${count} examples: ${values.input} -> ${values.output}\nAgent ref: ${agentName}\n`);
}
