// IHEval (NeMo Gym's benchmarks/iheval/prepare.py over resources_servers/iheval/prepare_iheval.py): the whole
// dataset from the ytyz1307zzh/IHEval repository archive, one row per example of each task's input_data.json files,
// in NeMo Gym's task order. A row's request is built as IHEval's run_model.py builds it — system first, then the
// canned conversation history, the instruction, and a tool task's pre-canned call and result — in the Responses
// shape; the gold answer rides as JSON text, `id` as a string, and rows name the benchmark's agent.
//
// Difference from NeMo Gym at 07d6b0d: its benchmark step re-shapes "Chat" items that are already Responses items and
// raises KeyError on the first tool-use row (a function_call item has no `content`, a flat tool no `function`), so
// its preparation fails; here those items and tools are kept as the server's prepare step wrote them.
import { UserError } from "../../src/config/errors.ts";
import { definePrepare, url, type Row } from "../../src/rollouts/prepare/define.ts";
import { parsePythonJson } from "../../src/rollouts/prepare/readers.ts";
import { pythonJsonDumpsTyped } from "../../src/python/json-dumps.ts";
import { compareStrings } from "../../src/python/str.ts";
import { str } from "../../src/rollouts/prepare/define.ts";

export const IHEVAL_ZIP = "https://github.com/ytyz1307zzh/IHEval/archive/refs/heads/main.zip";
const TOP_DIR = "IHEval-main";
const BENCHMARK_AGENT = "iheval_benchmark_simple_agent";
/** (domain, task) in NeMo Gym's order; the task is also the verifier's scorer key. */
const TASKS: readonly [string, string][] = [
  ["task-execution", "verb-extract"],
  ["task-execution", "translation"],
  ["task-execution", "lang-detect"],
  ["safety", "system-prompt-extract"],
  ["safety", "user-prompt-hijack"],
  ["tool-use", "slack-user"],
  ["tool-use", "get-webpage"],
  ["rule-following", "single-turn"],
  ["rule-following", "multi-turn"],
];

interface Member {
  name: string;
  data: Buffer;
}

/** Python's sorted() of pathlib paths: part by part, each by code point. */
function comparePaths(a: string, b: string): number {
  const [x, y] = [a.split("/"), b.split("/")];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const order = compareStrings(x[i]!, y[i]!);
    if (order !== 0) return order;
  }
  return x.length - y.length;
}

/** call_api.py's tool turn: the flat function tool (every parameter required), the canned call and its result. */
function toolTurn(tool: Row): { definition: Row[]; call: Row; result: Row } {
  const { definition, call, return: result } = tool;
  return {
    definition: [{ type: "function", name: definition.name, description: definition.description, parameters: { type: "object", properties: definition.parameters, required: Object.keys(definition.parameters) }, strict: null }],
    // The result is keyed by the call's id, so the pair cannot drift apart (upstream ships them identical).
    call: { type: "function_call", call_id: call.id, name: call.name, arguments: pythonJsonDumpsTyped(call.arguments) },
    result: { type: "function_call_output", call_id: call.id, output: result.content },
  };
}

function toRow(example: Row, domain: string, task: string, setting: string): Row {
  const input: Row[] = (example.conversation_history ?? []).map((content: string, i: number) => ({ role: i % 2 === 0 ? "user" : "assistant", content }));
  input.push({ role: "user", content: example.instruction });
  let tools: Row[] | undefined;
  if (example.tool !== undefined && example.tool !== null) {
    const turn = toolTurn(example.tool);
    input.push(turn.call, turn.result);
    tools = turn.definition;
  }
  if (example.system !== undefined && example.system !== null) input.unshift({ role: "system", content: example.system });
  return {
    responses_create_params: tools ? { input, tools } : { input },
    // Upstream ids are ints for some tasks and strings for others; one type keeps the metrics aggregator happy.
    id: str(example.id),
    task,
    domain,
    setting,
    instruction: str(example.instruction ?? ""),
    answer: pythonJsonDumpsTyped(example.answer ?? null, { ensureAscii: false }),
    agent_ref: { type: "responses_api_agents", name: BENCHMARK_AGENT },
  };
}

function rowsOfArchive(members: readonly Member[]): Row[] {
  const rows: Row[] = [];
  for (const [domain, task] of TASKS) {
    const taskRoot = `${TOP_DIR}/benchmark/${domain}/${task}/`;
    const files = members.filter((m) => m.name.startsWith(taskRoot) && m.name.endsWith("/input_data.json")).sort((a, b) => comparePaths(a.name, b.name));
    if (files.length === 0) throw new UserError(`iheval: the IHEval archive has no input_data.json under ${taskRoot}`);
    for (const file of files) {
      const setting = file.name.slice(taskRoot.length, -"/input_data.json".length);
      const examples = parsePythonJson(file.data.toString("utf8")) as Row[];
      // Python's relative_to() of the task folder itself is ".".
      for (const example of examples) rows.push(toRow(example, domain, task, setting || "."));
    }
  }
  return rows;
}

export default definePrepare({
  ensureAscii: false,
  sources: [url(IHEVAL_ZIP, { format: "zip" })],
  convert: (archive) => rowsOfArchive(archive.members as Member[]),
});
