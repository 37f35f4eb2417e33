// The part of FutureHouse's aviary (`aviary.core`) that NeMo Gym's aviary resources server drives: an Environment
// is reset to its first observations and tools, stepped with the model's tool calls, and closed; a TaskDataset
// makes a fresh Environment for a task index. Observations are aviary Messages: a tool's reply (ToolResponseMessage)
// or any other message (the task, a hint, an EnvStateMessage).

/** aviary's FunctionInfo: what `Tool.info.model_dump()` gives, in its key order. */
export interface ToolInfo {
  name: string;
  description: string;
  parameters: { type: "object"; properties: Record<string, unknown>; required: string[]; [key: string]: unknown };
}

/** A tool call as aviary's ToolCall holds it: arguments already parsed from JSON (an object). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type Observation =
  | { kind: "tool_response"; toolCallId: string; content: string }
  /** `envState`: an aviary EnvStateMessage (or `info.is_env_state`), which the agent may collapse. */
  | { kind: "message"; role: "user" | "assistant" | "system" | "developer"; content: string; envState?: boolean };

export interface StepResult {
  obs: Observation[];
  reward: number;
  done: boolean;
}

export interface AviaryEnvironment {
  reset(signal: AbortSignal): Promise<{ obs: Observation[]; tools: ToolInfo[] }>;
  step(calls: ToolCall[], signal: AbortSignal): Promise<StepResult>;
  close(): Promise<void>;
}

export interface TaskDataset {
  /** A fresh environment for the task; an index out of range throws the IndexError aviary's dataset raises. */
  newEnvironment(taskIndex: number): AviaryEnvironment | Promise<AviaryEnvironment>;
}

/** An aviary tool's one string parameter, as `Tool.from_function` documents it from the docstring. */
export function stringParameter(name: string, description: string): Record<string, unknown> {
  const title = name
    .split("_")
    .map((part) => (part === "" ? part : part[0]!.toUpperCase() + part.slice(1)))
    .join(" ");
  return { [name]: { description, title, type: "string" } };
}
