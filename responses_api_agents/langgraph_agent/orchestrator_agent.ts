// NeMo Gym's orchestrator graph (langgraph_agent/orchestrator_agent.py): decompose → dispatch (one node per
// sub-task) → synthesize → end. Every node is one model call whose input is a single user message:
//   decompose:  DECOMPOSE_PROMPT with {task}; the sub-tasks are the `SUBTASK <n>: <text>` lines of its answer
//               (Python's re.findall of `SUBTASK\s+\d+:\s*(.+)`, each stripped), the first max_subtasks of them;
//               none → the task itself;
//   dispatch:   the sub-task instruction with {subtask}; its answer text is that sub-task's result;
//   synthesize: SYNTHESIZE_PROMPT with {task} and {subtask_results} = per sub-task
//               `--- Sub-task <i>: <sub-task> ---\nResult: <its answer>`, joined by blank lines.
// Edges: after decompose and after each dispatch, dispatch again while sub-tasks remain, else synthesize.
import { z } from "zod";
import { pythonFormat } from "../../src/python/str-format.ts";
import { pythonFindall } from "../../src/python/re/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { userMessage } from "../../src/server/graph-agent.ts";
import { langGraphAgent, LangGraphAgentConfig, taskOf } from "./adapter.ts";
import { cachedTexts, fillFString, literalAfter, moduleString } from "./prompts.ts";

const OrchestratorAgentConfig = LangGraphAgentConfig.extend({
  /** At most this many sub-tasks are dispatched (Python's `[:max_subtasks]`: a negative value drops from the end). */
  max_subtasks: z.number().int().default(5),
});

const texts = (fpath: string | undefined) =>
  cachedTexts("orchestrator_agent", fpath, (source) => ({
    decompose: moduleString(source, "orchestrator_agent", "DECOMPOSE_PROMPT"),
    synthesize: moduleString(source, "orchestrator_agent", "SYNTHESIZE_PROMPT"),
    // The dispatch node's f-string (`prompt = f"…{subtask}"`), the module's only f-string assigned to `prompt`.
    dispatch: literalAfter(source, "orchestrator_agent", "prompt = f", "the dispatch node's prompt f-string"),
  }));

export default langGraphAgent({
  name: "OrchestratorAgent",
  config: OrchestratorAgentConfig,
  async runGraph({ rawParams, trace, config }) {
    const prompts = await texts(config.prompts_module_fpath);
    const task = taskOf(rawParams.input);

    trace.enter();
    const decomposePrompt = pythonFormat(prompts.decompose, [], { task });
    const decomposed = await trace.ask([userMessage(decomposePrompt)]);
    trace.record([userMessage(decomposePrompt)], decomposed);
    let subtasks = pythonFindall<string>(String.raw`SUBTASK\s+\d+:\s*(.+)`, decomposed.text)
      .slice(0, config.max_subtasks)
      .map((subtask) => pythonStrip(subtask));
    if (subtasks.length === 0) subtasks = [task];

    const results = new Map<string, string>();
    for (let index = 0; index < subtasks.length; index++) {
      trace.enter();
      const prompt = fillFString(prompts.dispatch, "subtask", subtasks[index]!, "orchestrator_agent");
      const answer = await trace.ask([userMessage(prompt)]);
      trace.record([userMessage(prompt)], answer);
      results.set(`subtask_${index + 1}`, answer.text);
    }

    trace.enter();
    const subtaskResults = subtasks.map((subtask, i) => `--- Sub-task ${i + 1}: ${subtask} ---\nResult: ${results.get(`subtask_${i + 1}`) ?? "N/A"}`).join("\n\n");
    const synthesizePrompt = pythonFormat(prompts.synthesize, [], { task, subtask_results: subtaskResults });
    const synthesized = await trace.ask([userMessage(synthesizePrompt)]);
    trace.record([userMessage(synthesizePrompt)], synthesized);
  },
});
