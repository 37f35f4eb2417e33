// Builders for the model output an environment's /verify is asked to score. The fixed ids ("msg_1", "resp_1")
// are what the environments' tests have always sent; no verifier reads them.

export type Item = Record<string, unknown>;

/** A completed assistant message with one `output_text` part per text. */
export const assistantMessage = (...texts: string[]): Item => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  status: "completed",
  content: texts.map((text) => ({ type: "output_text", text, annotations: [] })),
});

/** A function call; `args` that are not already a string are sent JSON-encoded. */
export const functionCallItem = (name: string, args: unknown, callId = `call_${name}`): Item => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});

/** A Responses API response carrying `output`; `extra` adds or overrides top-level fields (e.g. `error`). */
export const responseWith = (output: Item[], extra: Item = {}) => ({
  id: "resp_1",
  created_at: 1,
  model: "m",
  object: "response",
  output,
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  ...extra,
});
