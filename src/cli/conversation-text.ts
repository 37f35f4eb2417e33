// A conversation as a person reads it: the messages sent, then every item the agent's response holds in order —
// assistant messages, tool calls (name and pretty arguments), tool outputs (under the tool's name), reasoning —
// the final assistant message as `answer:`, and the reward when the agent scored the rollout. The agent's answer
// is shown as it came: this reads JSON defensively and never validates (`--json` gives the bytes' meaning whole).

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The text of a message's content: a string, or its parts' text / refusal, one per line. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content
    .map((part) => (isObject(part) ? (typeof part.text === "string" ? part.text : typeof part.refusal === "string" ? `(refused) ${part.refusal}` : `[${String(part.type)}]`) : String(part)))
    .join("\n");
}

/** JSON text pretty-printed when it parses (tool arguments and outputs are JSON in a string), else as it is. */
function prettyJsonText(text: unknown): string {
  if (typeof text !== "string") return JSON.stringify(text, null, 2);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const indent = (text: string) => text.replace(/^/gm, "  ");

/** `label: text`, a multi-line text below its label, indented. */
function entry(label: string, text: string): string {
  return text.includes("\n") ? `${label}:\n${indent(text)}` : `${label}: ${text}`;
}

/** A block (pretty JSON) always below its label. */
const block = (label: string, text: string) => `${label}:\n${indent(text)}`;

/** The printable turns of `sent` (the request's input messages) and `response` (a Responses API object). */
export function conversationText(sent: readonly unknown[], response: unknown, reward?: unknown): string[] {
  const turns: string[] = [];
  for (const item of sent) if (isObject(item)) turns.push(entry(String(item.role ?? item.type), contentText(item.content)));

  const output = isObject(response) && Array.isArray(response.output) ? response.output : [];
  const toolNames = new Map<string, string>();
  const incomplete = isObject(response) && isObject(response.incomplete_details) ? response.incomplete_details : undefined;
  const last = output.at(-1);
  // A cut-off message is not an answer.
  const answered = !incomplete && isObject(last) && last.type === "message" && last.role === "assistant";
  for (const item of output) {
    if (!isObject(item)) continue;
    switch (item.type) {
      case "message":
        turns.push(entry(item === last && answered ? "answer" : String(item.role ?? "assistant"), contentText(item.content)));
        break;
      case "function_call":
        toolNames.set(String(item.call_id), String(item.name));
        turns.push(block(`tool call ${String(item.name)}`, prettyJsonText(item.arguments)));
        break;
      case "function_call_output":
        turns.push(block(`tool output ${toolNames.get(String(item.call_id)) ?? `(call ${String(item.call_id)})`}`, prettyJsonText(item.output)));
        break;
      case "reasoning": {
        const summary = Array.isArray(item.summary) ? contentText(item.summary) : "";
        turns.push(entry("reasoning", summary || "(no summary)"));
        break;
      }
      default:
        turns.push(block(String(item.type), JSON.stringify(item, null, 2)));
    }
  }

  if (incomplete) turns.push(`(the response is incomplete: ${String(incomplete.reason ?? "no reason given")})`);
  else if (!answered) turns.push("(no final answer: the agent stopped before the model answered)");
  if (reward !== undefined) turns.push(`reward: ${JSON.stringify(reward)}`);
  return turns;
}
