import type { Shape } from "./model-dump.ts";

// A τ²-bench domain as this port runs it: its DB (plain JSON, mutated in place by its tools), its policy and its tools.
export type Tau2ToolKind = "read" | "write" | "generic" | "think";

export interface Tau2Tool {
  name: string;
  /** τ²-bench's ToolType; read and generic tools do not mutate the DB. */
  kind: Tau2ToolKind;
  /** The chat-completions tool the agent is offered. */
  schema: Record<string, unknown>;
  run(db: Record<string, any>, args: Record<string, any>): unknown;
  /** The pydantic shape of a non-string result (how τ²-bench writes it into the tool message); plain JSON without. */
  output?: Shape;
}

export interface Tau2Domain {
  name: string;
  /** The toolkit class (AirlineTools…): Python names it in a call's TypeError. */
  className: string;
  /** τ²-bench repository paths (see src/config/tau2-bench-files.ts). */
  dbPath: string;
  policyPaths: string[];
  tools: Tau2Tool[];
}
