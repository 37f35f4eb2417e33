// NeMo Gym's ReWOO graph (langgraph_agent/rewoo_agent.py): plan → worker (one node per planned step) → solve → end.
//   plan:   PLAN_PROMPT with {task}; the steps are Python's re.findall of
//           `Plan:\s*(.+)\s*(#E\d+)\s*=\s*(\w+)\s*\[([^\]]+)\]` over its answer: (plan, name, tool, tool input);
//   worker: the step's tool input with every earlier result substituted (`str.replace(name, result)` for each
//           result so far, in the order they were first stored) is the whole prompt: every tool is "the LLM";
//           the answer text is stored as the step's result;
//   solve:  SOLVE_PROMPT with {plan} = per step `Plan: <plan>\n<name> = <tool>[<input, substituted with all
//           results>]\nEvidence: <result or N/A>\n\n` concatenated, and {task}.
// Edges: after plan and after each worker, a worker while steps remain, else solve. A plan of more than 23 steps
// exceeds LangGraph's recursion limit (25 node runs): a 500, as in NeMo Gym.
import { pythonFormat } from "../../src/python/str-format.ts";
import { pythonFindall } from "../../src/python/re/index.ts";
import { userMessage } from "../../src/server/graph-agent.ts";
import { langGraphAgent, LangGraphAgentConfig, taskOf } from "./adapter.ts";
import { cachedTexts, moduleString } from "./prompts.ts";

const STEP_PATTERN = String.raw`Plan:\s*(.+)\s*(#E\d+)\s*=\s*(\w+)\s*\[([^\]]+)\]`;

const texts = (fpath: string | undefined) =>
  cachedTexts("rewoo_agent", fpath, (source) => ({
    plan: moduleString(source, "rewoo_agent", "PLAN_PROMPT"),
    solve: moduleString(source, "rewoo_agent", "SOLVE_PROMPT"),
  }));

/** Python's `for k, v in results.items(): text = text.replace(k, v)`. */
function substitute(text: string, results: Map<string, string>): string {
  for (const [name, result] of results) text = text.replaceAll(name, () => result);
  return text;
}

export default langGraphAgent({
  name: "ReWOOAgent",
  config: LangGraphAgentConfig,
  async runGraph({ rawParams, trace, config }) {
    const prompts = await texts(config.prompts_module_fpath);
    const task = taskOf(rawParams.input);

    trace.enter();
    const planPrompt = pythonFormat(prompts.plan, [], { task });
    const planned = await trace.ask([userMessage(planPrompt)]);
    trace.record([userMessage(planPrompt)], planned);
    const steps = pythonFindall<string[]>(STEP_PATTERN, planned.text) as [string, string, string, string][];

    const results = new Map<string, string>();
    for (const [, name, , toolInput] of steps) {
      trace.enter();
      const prompt = substitute(toolInput, results);
      const answer = await trace.ask([userMessage(prompt)]);
      trace.record([userMessage(`Step ${name}: ${prompt}`)], answer);
      results.set(name, answer.text);
    }

    trace.enter();
    const planWithEvidence = steps.map(([plan, name, tool, toolInput]) => `Plan: ${plan}\n${name} = ${tool}[${substitute(toolInput, results)}]\nEvidence: ${results.get(name) ?? "N/A"}\n\n`).join("");
    const solvePrompt = pythonFormat(prompts.solve, [], { plan: planWithEvidence, task });
    const solved = await trace.ask([userMessage(solvePrompt)]);
    trace.record([userMessage(solvePrompt)], solved);
  },
});
