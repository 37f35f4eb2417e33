import type { Shape } from "./model-dump.ts";

// A τ²-bench domain as this port runs it: its DB (plain JSON, mutated in place by its tools), its policy, its tools,
// the functions tasks call on its toolkit by name, and — in a domain where the user acts too (telecom) — the user's
// own DB, tools and functions and the sync that keeps the two worlds consistent.
export type Tau2ToolKind = "read" | "write" | "generic" | "think";
type Obj = Record<string, any>;

export interface Tau2Tool {
  name: string;
  /** τ²-bench's ToolType; only write tools mutate state (they alone are replayed when a trajectory is re-scored). */
  kind: Tau2ToolKind;
  /** The chat-completions tool the model is offered. */
  schema: Record<string, unknown>;
  run(db: Obj, args: Obj): unknown;
  /** The pydantic shape of a non-string result (how τ²-bench writes it into the tool message); plain JSON without. */
  output?: Shape;
}

/** A toolkit method a task calls by name (initialization_actions, env_assertions): any method, tools included. */
export type Tau2Function = (db: Obj, args: Obj) => unknown;

export interface Tau2UserSide {
  dbPath: string;
  /** The toolkit class (TelecomUserTools): Python names it in a call's TypeError. */
  className: string;
  loadDb(text: string): Obj;
  tools: Tau2Tool[];
  functions: Record<string, Tau2Function>;
  /** Environment.sync_tools, run after every tool call, function call and orchestrator step. */
  sync(db: Obj, userDb: Obj): void;
}

export interface Tau2Domain {
  name: string;
  /** The toolkit class (AirlineTools…): Python names it in a call's TypeError. */
  className: string;
  /** τ²-bench repository paths (see src/config/tau2-bench-files.ts). */
  dbPath: string;
  policyPaths: string[];
  tools: Tau2Tool[];
  /** The DB file's text as the DB model loads it (JSON when absent). */
  loadDb?(text: string): Obj;
  /** How the policy files make the agent's policy (one file: its text; several, joined by newlines, when absent). */
  joinPolicies?(texts: string[]): string;
  /** Toolkit methods beyond the tools, callable by name from a task; the tools are callable so too. */
  functions?: Record<string, Tau2Function>;
  user?: Tau2UserSide;
}

/**
 * The top-level arguments of a model's tool call whose JSON literal was an integer ("2", not "2.0"): Python keeps
 * the two apart and prints them differently (f"{gb_amount} GB"), JSON.parse does not. Set (non-enumerable, so never
 * written or compared) where the model's arguments are parsed; a task's own arguments carry none.
 */
export const INTEGER_LITERALS = Symbol("integer literals");
export function markIntegerLiterals(args: Obj, keys: Iterable<string>): Obj {
  Object.defineProperty(args, INTEGER_LITERALS, { value: new Set(keys), enumerable: false });
  return args;
}
/** Was `args[key]` written as a JSON integer? Unknown (a task's arguments) reads as the parameter's own type, float. */
export const isIntegerLiteral = (args: Obj, key: string): boolean => (args as { [INTEGER_LITERALS]?: Set<string> })[INTEGER_LITERALS]?.has(key) ?? false;
