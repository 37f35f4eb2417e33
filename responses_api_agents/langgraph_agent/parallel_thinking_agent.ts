// NeMo Gym's parallel-thinking graph (langgraph_agent/parallel_thinking_agent.py): parallel_think → aggregate → end.
//   parallel_think: the first num_parallel_paths perspective prompts (Python's `[:n]`), padded to n with the
//                   fill-in prompt (its f-string with {task}); one model call per perspective, all at once, each a
//                   single user message `<perspective>\n\nProblem: <task>`, all sent with the caller's cookies.
//                   Their outputs are recorded in perspective order; the last path's cookies go on.
//   aggregate:      AGGREGATE_PROMPT with {num_paths}, {paths_text} = `--- Path <i> ---\n<answer>` joined by blank
//                   lines, and {task}.
// With no path at all NeMo Gym fails every request (IndexError on the empty results): refused when the config is read.
import { z } from "zod";
import { pythonFormat } from "../../src/python/str-format.ts";
import { userMessage } from "../../src/server/graph-agent.ts";
import { langGraphAgent, LangGraphAgentConfig, taskOf } from "./adapter.ts";
import { cachedTexts, fillFString, literalAfter, moduleString, moduleStringList } from "./prompts.ts";

const ParallelThinkingAgentConfig = LangGraphAgentConfig.extend({
  num_parallel_paths: z.number().int().default(4),
  /** Unset: NeMo Gym's DEFAULT_PERSPECTIVE_PROMPTS (read out of its module). */
  perspective_prompts: z.array(z.string()).optional(),
}).superRefine((config, context) => {
  const available = config.perspective_prompts?.length ?? 4;
  const kept = config.num_parallel_paths >= 0 ? Math.min(available, config.num_parallel_paths) : Math.max(0, available + config.num_parallel_paths);
  if (Math.max(kept, config.num_parallel_paths) < 1) {
    context.addIssue({ code: "custom", path: ["num_parallel_paths"], message: `num_parallel_paths ${config.num_parallel_paths} leaves no reasoning path (NeMo Gym's parallel_think then fails every request)` });
  }
});

const texts = (fpath: string | undefined) =>
  cachedTexts("parallel_thinking_agent", fpath, (source) => ({
    aggregate: moduleString(source, "parallel_thinking_agent", "AGGREGATE_PROMPT"),
    perspectives: moduleStringList(source, "parallel_thinking_agent", "DEFAULT_PERSPECTIVE_PROMPTS"),
    // The fill-in perspective: `prompts.append(f"…{task}")`.
    fillIn: literalAfter(source, "parallel_thinking_agent", String.raw`prompts\.append\(f`, "the fill-in perspective f-string"),
  }));

export default langGraphAgent({
  name: "ParallelThinkingAgent",
  config: ParallelThinkingAgentConfig,
  async runGraph({ rawParams, trace, config }) {
    const prompts = await texts(config.prompts_module_fpath);
    const task = taskOf(rawParams.input);
    const numPaths = config.num_parallel_paths;

    trace.enter();
    const perspectives = (config.perspective_prompts ?? prompts.perspectives).slice(0, numPaths);
    while (perspectives.length < numPaths) perspectives.push(fillFString(prompts.fillIn, "task", task, "parallel_thinking_agent"));
    const pathPrompts = perspectives.map((perspective) => `${perspective}\n\nProblem: ${task}`);
    const answers = await Promise.all(pathPrompts.map((prompt) => trace.ask([userMessage(prompt)])));
    if (answers.length === 0) throw new Error("IndexError: list index out of range");
    answers.forEach((answer, index) => trace.record([userMessage(pathPrompts[index])], answer));

    trace.enter();
    const pathsText = answers.map((answer, i) => `--- Path ${i + 1} ---\n${answer.text}`).join("\n\n");
    const aggregatePrompt = pythonFormat(prompts.aggregate, [], { num_paths: String(answers.length), paths_text: pathsText, task });
    const aggregated = await trace.ask([userMessage(aggregatePrompt)]);
    trace.record([userMessage(aggregatePrompt)], aggregated);
  },
});
