// NeMo Gym's reflection graph (langgraph_agent/reflection_agent.py): generate → (should_continue) → reflect → generate …
//   state:     `messages`, from the input: a string is one human message; of a list, an assistant message with list
//              content and a function_call go to the recorded outputs (not to the model), other items become
//              human (role user/human, or no role) or ai (assistant/ai) messages of their content (missing or
//              empty: ""), system/developer items are dropped;
//   generate:  the messages (human → user, ai → assistant) as the input; its answer text is appended as an ai message;
//   reflect:   the messages plus the critique question as the input; the critique question is recorded but not
//              kept in `messages`; the answer text is appended as a *human* message; reflections + 1;
//   should_continue (after generate): end when reflections >= max_reflections, or when the last message contains
//              `<answer>`; else reflect.
// So at most 1 + 2·max_reflections model calls, and LangGraph's recursion limit (25 node runs) fails a longer run.
import { z } from "zod";
import { userMessage } from "../../src/server/graph-agent.ts";
import type { ResponseCreateParamsInput } from "../../src/protocol/index.ts";
import { langGraphAgent, LangGraphAgentConfig, pyTruthy } from "./adapter.ts";
import { cachedTexts, literalAfter } from "./prompts.ts";

const ReflectionAgentConfig = LangGraphAgentConfig.extend({
  max_reflections: z.number().int().default(2),
});

const texts = (fpath: string | undefined) =>
  cachedTexts("reflection_agent", fpath, (source) => ({
    critique: literalAfter(source, "reflection_agent", String.raw`reflection_prompt = NeMoGymEasyInputMessage\(\s*role="user",\s*content=`, "the reflect node's critique message"),
  }));

type GraphMessage = { kind: "human" | "ai"; content: unknown };

/** NeMo Gym's get_initial_state of the reflection graph: the messages, and the input items kept as outputs. */
export function initialState(input: ResponseCreateParamsInput["input"]): { messages: GraphMessage[]; outputs: unknown[] } {
  if (typeof input === "string") return { messages: [{ kind: "human", content: input }], outputs: [] };
  const messages: GraphMessage[] = [];
  const outputs: unknown[] = [];
  for (const item of input as Record<string, unknown>[]) {
    // A message's `type` defaults to "message" in NeMo Gym's input models.
    const type = item.type ?? ("role" in item ? "message" : undefined);
    const isOutput = type === "message" && item.role === "assistant" && Array.isArray(item.content);
    if (isOutput || type === "function_call") {
      outputs.push(item);
      continue;
    }
    const role = pyTruthy(item.role) ? item.role : "user";
    const content = pyTruthy(item.content) ? item.content : "";
    if (role === "user" || role === "human") messages.push({ kind: "human", content });
    else if (role === "assistant" || role === "ai") messages.push({ kind: "ai", content });
  }
  return { messages, outputs };
}

const asInput = (messages: GraphMessage[]) => messages.map((m) => ({ content: m.content, role: m.kind === "human" ? "user" : "assistant" }));

export default langGraphAgent({
  name: "ReflectionAgent",
  config: ReflectionAgentConfig,
  async runGraph({ rawParams, trace, config }) {
    const { critique } = await texts(config.prompts_module_fpath);
    const { messages, outputs } = initialState(rawParams.input);
    trace.outputs.push(...outputs);
    let reflections = 0;

    for (;;) {
      trace.enter();
      const generated = await trace.ask(asInput(messages));
      trace.record([], generated);
      messages.push({ kind: "ai", content: generated.text });

      if (reflections >= config.max_reflections) break;
      // The last message is the answer just generated.
      if (generated.text.includes("<answer>")) break;

      trace.enter();
      const critiqueMessage = userMessage(critique);
      const reflected = await trace.ask([...asInput(messages), critiqueMessage]);
      trace.record([critiqueMessage], reflected);
      messages.push({ kind: "human", content: reflected.text });
      reflections++;
    }
  },
});
