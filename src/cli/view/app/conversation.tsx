// One rollout as a conversation: the prompt's messages, then the response's items in order — reasoning, the
// assistant's messages, each tool call with its arguments and the tool's output — and what verify added.
import type { RolloutLine } from "./api.ts";

type Item = Record<string, unknown>;

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined ? "" : JSON.stringify(content, null, 2);
  return content.map((part: Item) => (typeof part?.text === "string" ? part.text : JSON.stringify(part))).join("\n");
}

function pretty(json: unknown): string {
  if (typeof json !== "string") return JSON.stringify(json, null, 2);
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function Message({ role, body }: { role: string; body: string }) {
  return (
    <div class={`turn turn-${role}`} data-testid={`turn-${role}`}>
      <div class="turn-role">{role}</div>
      <pre class="turn-text">{body}</pre>
    </div>
  );
}

function OutputItem({ item, outputs }: { item: Item; outputs: Map<string, Item> }) {
  switch (item.type) {
    case "message":
      return <Message role={String(item.role ?? "assistant")} body={text(item.content)} />;
    case "reasoning": {
      const summary = Array.isArray(item.summary) ? text(item.summary) : "";
      return (
        <details class="turn turn-reasoning" data-testid="turn-reasoning" open>
          <summary>reasoning</summary>
          <pre class="turn-text">{summary || text(item.content)}</pre>
        </details>
      );
    }
    case "function_call": {
      const output = outputs.get(String(item.call_id));
      return (
        <div class="turn turn-tool" data-testid="turn-tool-call">
          <div class="turn-role">
            tool call <code>{String(item.name)}</code>
          </div>
          <pre class="turn-text tool-arguments">{pretty(item.arguments)}</pre>
          {output && (
            <>
              <div class="turn-role">output</div>
              <pre class="turn-text tool-output" data-testid="tool-output">
                {pretty(output.output)}
              </pre>
            </>
          )}
        </div>
      );
    }
    case "function_call_output":
      return null; // shown under its call
    default:
      return <Message role={String(item.type ?? "item")} body={JSON.stringify(item, null, 2)} />;
  }
}

/** Fields of the line that are neither the conversation nor bookkeeping: what verify returned besides the reward. */
function verifyExtras(line: Item): Item {
  const extras: Item = {};
  for (const [key, value] of Object.entries(line)) {
    if (key === "responses_create_params" || key === "response" || key === "agent_ref" || key === "reward" || key.startsWith("_ng_")) continue;
    extras[key] = value;
  }
  return extras;
}

export function Conversation({ rollout, title }: { rollout: RolloutLine; title?: string }) {
  const { line, summary } = rollout;
  const params = (line.responses_create_params ?? {}) as Item;
  const input = typeof params.input === "string" ? [{ role: "user", content: params.input }] : ((params.input as Item[] | undefined) ?? []);
  const response = (line.response ?? {}) as Item;
  const output = Array.isArray(response.output) ? (response.output as Item[]) : [];
  // A call's output can sit in the response (an agent's loop) or in the prompt (a replayed conversation).
  const outputs = new Map([...input, ...output].filter((item) => item.type === "function_call_output").map((item) => [String(item.call_id), item]));
  const extras = verifyExtras(line);
  return (
    <section class="conversation" data-testid="conversation">
      <header class="conversation-head">
        <strong>{title ?? `task ${summary.task} · repeat ${summary.repeat}`}</strong>
        {summary.kind === "rollout" ? (
          <span class="pill" data-testid="conversation-reward">
            reward {summary.reward}
          </span>
        ) : (
          <span class="pill pill-failure">failed: {summary.failureClass}</span>
        )}
        {summary.tokens !== null && <span class="pill">{summary.tokens} tokens</span>}
        <span class="pill">{summary.turns} turns</span>
      </header>
      {input.map((item) =>
        item.type === "function_call_output" ? null : item.type === "function_call" || item.type === "reasoning" ? (
          <OutputItem item={item} outputs={outputs} />
        ) : (
          <Message role={String(item.role ?? item.type ?? "message")} body={text(item.content)} />
        ),
      )}
      {output.map((item) => (
        <OutputItem item={item} outputs={outputs} />
      ))}
      {Object.keys(extras).length > 0 && (
        <div class="turn turn-verify" data-testid="verify-extras">
          <div class="turn-role">{summary.kind === "rollout" ? "verify extras" : "failure"}</div>
          <pre class="turn-text">{JSON.stringify(extras, null, 2)}</pre>
        </div>
      )}
    </section>
  );
}
