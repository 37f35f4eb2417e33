// NeMo's Tau2Agent.run after the simulation: the transcript the agent's model saw as responses items, split as NeMo
// splits it — input = everything up to the agent's first model turn, the fixed greeting included; output = the rest.
import { chatMessagesToResponseItems } from "../../models/chat-conversion/index.ts";
import { type Tau2Message, toChatMessage } from "./simulation.ts";

type Item = Record<string, unknown>;
const BOUNDARY = new Set(["code_interpreter_call", "computer_call", "custom_tool_call", "file_search_call", "function_call", "image_generation_call", "local_shell_call", "mcp_approval_request", "mcp_call", "mcp_list_tools", "reasoning", "web_search_call"]);

/** split_responses_input_output_items: everything before the first assistant message or model-made item is input. */
function splitItems(items: Item[]): [Item[], Item[]] {
  const at = items.findIndex((i) => (i.type === "message" && i.role === "assistant") || BOUNDARY.has(String(i.type)));
  return at === -1 ? [items, []] : [items.slice(0, at), items.slice(at)];
}

/** The agent-visible messages (with reminders) when there are, else the trajectory without the user's own tool traffic. */
export function responseItems(messages: Tau2Message[], agentMessages: Tau2Message[] | null): { input: Item[]; output: Item[] } {
  const toConvert = agentMessages ?? messages.filter((m) => !(m.role === "user" && m.tool_calls?.length) && !(m.role === "tool" && m.requestor === "user"));
  const items = chatMessagesToResponseItems(toConvert.map(toChatMessage) as any) as Item[];
  const [input1, rest] = splitItems(items);
  const [input2, output] = splitItems(rest.slice(1));
  return { input: [...input1, ...rest.slice(0, 1), ...input2], output };
}
