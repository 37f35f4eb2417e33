// Replay policy: plays back the model turns of recorded rollouts (NeMo Gym rollout JSONL). A request is
// matched by its prompt; the items the agent already sent back tell how far into the recording we are, and
// the next model turn is the recorded items up to the next item the environment produced: a tool output, or
// (in a Gymnasium-style rollout, where gymnasium_agent appends each observation as a user message) a user message.
import { readJsonl } from "../../src/rollouts/jsonl.ts";
import { isMessage, messageKey, type Item } from "./conversation.ts";

/** What identifies a prompt item: a message's role and text; another item's type and payload (ids aside). */
function promptItemKey(item: Item): unknown {
  if (isMessage(item)) return messageKey(item);
  return { type: item.type, name: item.name, arguments: item.arguments, call_id: item.call_id, output: item.output };
}

interface Recording {
  promptLength: number;
  output: Item[];
  usage: unknown;
  model: string;
  source: string;
}

export interface ReplayTurn {
  items: Item[];
  /** The recording's total usage, reported on its final turn only so the agent's sum equals the recorded one. */
  usage: unknown;
  model: string;
  isFinalTurn: boolean;
}

export class ReplayNoMatchError extends Error {}

/** Model-produced items are compared by what identifies them; tool outputs are ours and may differ in bytes. */
function sameModelItem(recorded: Item, sent: Item): boolean {
  if (recorded.type !== (sent.type ?? "message")) return false;
  if (recorded.type === "function_call") return recorded.call_id === sent.call_id && recorded.name === sent.name;
  if (recorded.type === "function_call_output") return recorded.call_id === sent.call_id;
  if (recorded.type === "message") return (recorded.role ?? "assistant") === sent.role;
  return true;
}

/** An item the agent appended from the environment, not from the model: where a recorded model turn ends. */
function isEnvironmentItem(item: Item): boolean {
  return item.type === "function_call_output" || (isMessage(item) && item.role === "user");
}

export class ReplayLibrary {
  private readonly byPrompt = new Map<string, Recording[]>();
  private readonly promptLengths = new Set<number>();
  private readonly nextPick = new Map<string, number>();
  size = 0;

  static fromFiles(paths: string[]): ReplayLibrary {
    const library = new ReplayLibrary();
    for (const path of paths) {
      for (const { lineNumber, row } of readJsonl(path)) library.add(row as Item, `${path}:${lineNumber}`);
    }
    return library;
  }

  add(rollout: Item, source: string): void {
    const input = rollout.responses_create_params?.input;
    const output = rollout.response?.output;
    if (!Array.isArray(output) || (typeof input !== "string" && !Array.isArray(input))) {
      throw new Error(`${source}: not a rollout (needs responses_create_params.input and response.output)`);
    }
    const prompt: Item[] = typeof input === "string" ? [{ role: "user", content: input }] : input;
    const key = JSON.stringify(prompt.map(promptItemKey));
    const recordings = this.byPrompt.get(key) ?? [];
    recordings.push({ promptLength: prompt.length, output, usage: rollout.response.usage ?? null, model: rollout.response.model ?? "replay", source });
    this.byPrompt.set(key, recordings);
    this.promptLengths.add(prompt.length);
    this.size++;
  }

  nextTurn(items: Item[]): ReplayTurn {
    for (const promptLength of this.promptLengths) {
      if (items.length < promptLength) continue;
      const key = JSON.stringify(items.slice(0, promptLength).map(promptItemKey));
      const candidates = this.byPrompt.get(key);
      if (!candidates) continue;
      const sent = items.slice(promptLength);
      const matching = candidates.filter((r) => r.promptLength === promptLength && sent.length < r.output.length && sent.every((item, i) => sameModelItem(r.output[i]!, item)));
      if (matching.length === 0) continue;
      // Several recordings of one prompt (num_repeats) are dealt out in turn on the first call.
      let recording = matching[0]!;
      if (sent.length === 0) {
        const pick = this.nextPick.get(key) ?? 0;
        this.nextPick.set(key, pick + 1);
        recording = matching[pick % matching.length]!;
      }
      let end = sent.length;
      while (end < recording.output.length && !isEnvironmentItem(recording.output[end]!)) end++;
      const isFinalTurn = recording.output.slice(end).every(isEnvironmentItem);
      return { items: recording.output.slice(sent.length, end), usage: isFinalTurn ? recording.usage : null, model: recording.model, isFinalTurn };
    }
    const firstUser = items.find((item) => isMessage(item) && item.role === "user");
    throw new ReplayNoMatchError(
      `no recorded rollout continues this conversation (${items.length} items; first user message: ${JSON.stringify(firstUser ? messageKey(firstUser).text.slice(0, 120) : null)})`,
    );
  }
}
