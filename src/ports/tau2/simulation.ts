// τ²-bench's half-duplex text simulation (src/tau2/orchestrator/orchestrator.py, agent/llm_agent.py,
// user/user_simulator.py) and its evaluator (src/tau2/evaluator/*), ported rule by rule for the agent NeMo Gym runs:
// llm_agent + user_simulator, no solo mode, no voice, communication protocol not enforced (NeMo's rows set
// enforce_communication_protocol: false). The two model calls are injected (`generate`); everything else is here.
import { InfrastructureFailure } from "../../client/inner-answer.ts";
import { HttpError } from "../../protocol/errors.ts";
import { pythonJsonDumps } from "../../python/json-dumps.ts";
import { floatRepr } from "../../python/float.ts";
import { pythonJsonDumpsTyped } from "../../python/json-dumps.ts";
import { pythonStringRepr } from "../../python/repr.ts";
import { deepUpdate } from "./deep-update.ts";
import type { Tau2Domain, Tau2Tool } from "./domain.ts";
import { dumpShaped, ModelValue, shaped, type Shape } from "./model-dump.ts";

export const STOP = "###STOP###";
export const TRANSFER = "###TRANSFER###";
export const OUT_OF_SCOPE = "###OUT-OF-SCOPE###";
export const FIRST_AGENT_MESSAGE = "Hi! How can I help you today?";

export const AGENT_INSTRUCTION = [
  "You are a customer service agent that helps the user according to the <policy> provided below.",
  "In each turn you can either:",
  "- Send a message to the user.",
  "- Make a tool call.",
  "You cannot do both at the same time.",
  "",
  "Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.",
].join("\n");

export const agentSystemPrompt = (policy: string): string => `<instructions>\n${AGENT_INSTRUCTION}\n</instructions>\n<policy>\n${policy}\n</policy>`;
export const userSystemPrompt = (guidelines: string, instructions: string): string => `${guidelines.replace("<PERSONA_GUIDELINES>", "")}\n\n<scenario>\n${instructions}\n</scenario>`;

export type TerminationReason = "user_stop" | "agent_stop" | "max_steps" | "too_many_errors" | "max_agent_steps" | "agent_error" | "user_error" | "timeout";

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, any>;
  requestor: "assistant" | "user";
}
export interface Tau2Message {
  role: "assistant" | "user" | "tool";
  content: string | null;
  tool_calls?: ToolCall[] | null;
  /** tool messages: the call's id, its requestor and whether it failed */
  id?: string;
  requestor?: "assistant" | "user";
  error?: boolean;
  cost?: number | null;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  raw_data?: unknown;
  turn_idx?: number | null;
  timestamp?: string;
}

/** One model turn as `generate` returns it (τ²-bench's llm_utils.generate: content, tool calls with parsed arguments). */
export interface Generated {
  content: string | null;
  tool_calls: { id: string; name: string; arguments: Record<string, any> }[] | null;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
  raw_data: unknown;
}
export type Generate = (who: "agent" | "user", messages: Record<string, unknown>[], tools: Record<string, unknown>[] | undefined) => Promise<Generated>;

export interface Tau2Task {
  id: string;
  user_scenario: { persona?: string | null; instructions: unknown };
  initial_state?: Tau2InitialState | null;
  evaluation_criteria?: {
    actions?: { action_id?: string; requestor?: "assistant" | "user"; name: string; arguments: Record<string, any>; info?: string | null; compare_args?: string[] | null }[] | null;
    env_assertions?: EnvAssertion[] | null;
    communicate_info?: string[] | null;
    nl_assertions?: string[] | null;
    reward_basis: string[];
  } | null;
}

/** EnvFunctionCall: a method of the agent's ("assistant") or the user's toolkit, called by name. */
export interface EnvFunctionCall {
  env_type: "user" | "assistant";
  func_name: string;
  arguments: Record<string, any>;
}
export interface EnvAssertion extends EnvFunctionCall {
  assert_value?: boolean;
  message?: string | null;
}
export interface Tau2InitialState {
  initialization_data?: { agent_data?: Record<string, any> | null; user_data?: Record<string, any> | null } | null;
  initialization_actions?: EnvFunctionCall[] | null;
  message_history?: unknown[] | null;
}

const indent = (text: string) => text.replace(/^(?=.)/gm, "\t");
/** UserScenario.__str__ (with StructuredUserInstructions.__str__). */
export function scenarioText(scenario: Tau2Task["user_scenario"]): string {
  const lines: string[] = [];
  if (scenario.persona != null) lines.push("Persona:", indent(scenario.persona));
  lines.push("Instructions:");
  const i = scenario.instructions as any;
  if (typeof i === "string") lines.push(indent(i));
  else {
    const inner = [`Domain: ${i.domain}`, `Reason for call:\n${indent(i.reason_for_call)}`];
    if (i.known_info != null) inner.push(`Known info:\n${indent(i.known_info)}`);
    if (i.unknown_info != null) inner.push(`Unknown info:\n${indent(i.unknown_info)}`);
    inner.push(`Task instructions:\n${indent(i.task_instructions)}`);
    lines.push(indent(inner.join("\n")));
  }
  return lines.join("\n");
}

/** str() of a number a tool put in a plain dict or list (an integral one is a Python int there). */
const numberStr = (x: number) => (Number.isInteger(x) ? String(x) : floatRepr(x));
/** Environment.to_json_str's _process: models dumped, numbers and booleans turned into their str(), containers walked. */
function processed(value: unknown): unknown {
  if (value instanceof ModelValue) return shaped(value.value, value.shape);
  if (value === null || value === undefined || typeof value === "string") return value ?? null;
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return numberStr(value);
  if (Array.isArray(value)) return value.map(processed);
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, processed(v)]));
  return String(value);
}
/** Environment.to_json_str: a string as it is; a model (the tool's output shape) as its dump; anything else processed, then json.dumps. */
export function toJsonStr(value: unknown, shape?: Shape): string {
  if (typeof value === "string") return value;
  if (shape !== undefined && value !== null && typeof value === "object") return dumpShaped(value, shape);
  return pythonJsonDumpsTyped(processed(value));
}

/** A Python call `f(**kwargs)`: an unknown keyword or a missing required parameter is the TypeError Python raises. */
function checkCallArguments(qualname: string, schema: Record<string, any>, args: Record<string, unknown>): void {
  const parameters = schema.function?.parameters ?? {};
  const names = Object.keys(parameters.properties ?? {});
  for (const key of Object.keys(args)) if (!names.includes(key)) throw new TypeError(`${qualname} got an unexpected keyword argument '${key}'`);
  const missing = (parameters.required ?? []).filter((k: string) => !(k in args));
  if (missing.length === 0) return;
  const quoted = missing.map((k: string) => `'${k}'`);
  const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} and ${quoted[quoted.length - 1]}`;
  throw new TypeError(`${qualname} missing ${missing.length} required positional argument${missing.length === 1 ? "" : "s"}: ${list}`);
}

type Obj = Record<string, any>;

/** τ²-bench's Environment: the agent's toolkit over the domain DB and, where the domain has one, the user's over the user DB. */
export class Tau2Environment {
  readonly tools: Map<string, Tau2Tool>;
  readonly userTools: Map<string, Tau2Tool>;
  constructor(
    readonly domain: Tau2Domain,
    public db: Obj,
    public userDb: Obj | null = null,
  ) {
    this.tools = new Map(domain.tools.map((t) => [t.name, t]));
    this.userTools = new Map((domain.user?.tools ?? []).map((t) => [t.name, t]));
    if (domain.user && !userDb) throw new Error(`${domain.name}: an environment needs the user's DB`);
    this.sync();
  }
  /** sync_tools (a no-op where the user has no tools). */
  sync(): void {
    if (this.domain.user) this.domain.user.sync(this.db, this.userDb!);
  }
  /** make_tool_call: throws as the tool throws (an unknown tool too); no sync. */
  makeToolCall(name: string, requestor: string, args: Record<string, any>): unknown {
    if (requestor === "user") {
      if (!this.domain.user) throw new Error("User tools not available");
      const tool = this.userTools.get(name);
      if (!tool) throw new Error(`Tool '${name}' not found.`);
      checkCallArguments(`${this.domain.user.className}.${name}()`, tool.schema, args ?? {});
      return tool.run(this.userDb!, args ?? {});
    }
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`Tool '${name}' not found.`);
    checkCallArguments(`${this.domain.className}.${name}()`, tool.schema, args ?? {});
    return tool.run(this.db, args ?? {});
  }
  toolFor(call: { name: string; requestor?: string }): Tau2Tool | undefined {
    return call.requestor === "user" ? this.userTools.get(call.name) : this.tools.get(call.name);
  }
  /** get_response: the call, then sync_tools; a failure of either becomes the tool message "Error: <message>" with error=true. */
  getResponse(call: ToolCall): Tau2Message {
    let content: string;
    let error = false;
    try {
      const result = this.makeToolCall(call.name, call.requestor, call.arguments);
      this.sync();
      content = toJsonStr(result, this.toolFor(call)?.output);
    } catch (e) {
      content = `Error: ${e instanceof Error ? e.message : String(e)}`;
      error = true;
    }
    return { role: "tool", id: call.id, content, requestor: call.requestor, error };
  }
  /** run_env_function_call: any method of either toolkit by name (getattr), then sync_tools. */
  runFunction(call: EnvFunctionCall): unknown {
    const user = call.env_type === "user";
    if (!user && call.env_type !== "assistant") throw new HttpError(400, `env_type: invalid environment type ${call.env_type}`);
    const side = user ? this.domain.user : this.domain;
    const className = user ? (this.domain.user?.className ?? "NoneType") : this.domain.className;
    const functions = user ? this.domain.user?.functions : { ...Object.fromEntries(this.domain.tools.map((t) => [t.name, t.run])), ...this.domain.functions };
    const fn = side && functions?.[call.func_name];
    if (!fn) throw new HttpError(501, `${this.domain.name}: ${className}.${call.func_name} (called by the task's ${call.env_type} environment) is not a function this port has`);
    const result = fn(user ? this.userDb! : this.db, call.arguments ?? {});
    this.sync();
    return result;
  }
  /** run_env_assertion without raising: the function must answer a bool, compared with assert_value (default true). */
  checkAssertion(assertion: EnvAssertion): boolean {
    const result = this.runFunction(assertion);
    if (typeof result !== "boolean") throw new HttpError(500, `${assertion.func_name} returned ${typeof result} instead of bool`);
    return result === (assertion.assert_value ?? true);
  }
  /**
   * set_state for a task's initial state: initialization_data merged into the DBs, the initialization_actions run, and
   * (not ported) a message history replayed.
   */
  setInitialState(state: Tau2InitialState | null | undefined, taskId: string): void {
    if (state == null) return;
    if ((state.message_history ?? []).length > 0) throw new HttpError(501, `task ${taskId}: initial_state.message_history (a conversation to resume) is not ported`);
    const data = state.initialization_data;
    if (data != null && (data.agent_data != null || data.user_data != null)) {
      // τ²-bench re-points the other toolkit at the updated DB after update_db, which only works where one DB serves both.
      if (this.domain.user) throw new HttpError(501, `task ${taskId}: initialization_data in the ${this.domain.name} domain (τ²-bench then gives both toolkits one DB) is not ported`);
      if (data.agent_data != null) this.db = deepUpdate(structuredClone(this.db), data.agent_data); // update_pydantic_model_with_dict
      if (data.user_data != null) throw new HttpError(501, `task ${taskId}: initialization_data.user_data, but the ${this.domain.name} domain has no user DB`);
    }
    for (const action of state.initialization_actions ?? []) this.runFunction(action);
    this.sync();
  }
}

export interface SimulationOptions {
  domain: Tau2Domain;
  /** A fresh copy of the domain DB; mutated by the run. */
  db: Record<string, any>;
  /** A fresh copy of the user's DB, in a domain where the user has tools. */
  userDb?: Record<string, any> | null;
  policy: string;
  userGuidelines: string;
  task: Tau2Task;
  maxSteps: number;
  maxErrors: number;
  maxAgentSteps: number | null;
  turnsRemainingInterval: number;
  generate: Generate;
}
export interface SimulationResult {
  messages: Tau2Message[];
  agentMessages: Tau2Message[] | null;
  terminationReason: TerminationReason;
  agentSteps: number | null;
  maxAgentSteps: number | null;
  stepCount: number;
  numErrors: number;
  env: Tau2Environment;
}

const isToolCall = (m: Tau2Message) => Array.isArray(m.tool_calls) && m.tool_calls.length > 0;
const now = () => new Date().toISOString();

/** The chat message a participant sends its model for one of its history messages (to_litellm_messages). */
export function toChatMessage(m: Tau2Message): Record<string, unknown> {
  if (m.role === "tool") return { role: "tool", content: m.content, tool_call_id: m.id };
  if (m.role === "assistant") {
    const out: Record<string, unknown> = { role: "assistant", content: m.content };
    if (isToolCall(m)) out.tool_calls = m.tool_calls!.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: pythonJsonDumps(c.arguments) } }));
    return out;
  }
  return { role: "user", content: m.content };
}
/** UserState.flip_roles: the agent's text is the user model's "user" turn, the user's own turns are its "assistant" turns. */
function flipped(m: Tau2Message): Record<string, unknown> {
  if (m.role === "assistant") {
    if (isToolCall(m)) throw new Error("Tool calls are not supported in the flipped messages");
    return { role: "user", content: m.content };
  }
  if (m.role === "user") return toChatMessage({ ...m, role: "assistant" });
  return toChatMessage(m);
}

/** Message.validate(): a message with neither text nor tool calls raises in τ²-bench, failing the task (NeMo answers a 500). */
function validate(m: Tau2Message, who: string): void {
  if (!((m.content ?? "").trim() || isToolCall(m))) throw new InfrastructureFailure("invalid_inner_answer", `the ${who} model answered a message with neither content nor tool calls (τ²-bench's Message.validate fails the task)`);
}

const reminderText = (left: number) => `ENVIRONMENT REMINDER: You have ${left} turns left to complete the task.`;

/** Orchestrator.run for a task without initial state: the fixed greeting, then turns until a stop or a limit. */
export async function runSimulation(o: SimulationOptions): Promise<SimulationResult> {
  const env = new Tau2Environment(o.domain, o.db, o.userDb ?? null);
  env.setInitialState(o.task.initial_state, o.task.id);
  const agentSystem = { role: "system", content: agentSystemPrompt(o.policy) };
  const userSystem = { role: "system", content: userSystemPrompt(o.userGuidelines, scenarioText(o.task.user_scenario)) };
  const toolSchemas = o.domain.tools.map((t) => t.schema);
  // get_user_tools(include=task.user_tools) or None: the user model is offered the domain's user tools, if any.
  const include = (o.task as { user_tools?: string[] | null }).user_tools;
  const userToolSchemas = (o.domain.user?.tools ?? []).filter((t) => include == null || include.includes(t.name)).map((t) => t.schema);

  const first: Tau2Message = { role: "assistant", content: FIRST_AGENT_MESSAGE, cost: 0, timestamp: now() };
  const trajectory: Tau2Message[] = [first];
  // What the agent saw, reminders included (SimulationRun.agent_messages); only kept when a step limit is set.
  const agentVisible: Tau2Message[] = [first];
  const agentHistory: Tau2Message[] = [first];
  const userHistory: Tau2Message[] = [];
  let message: Tau2Message | Tau2Message[] = first;
  let from: "agent" | "user" | "env" = "agent";
  let to: "agent" | "user" | "env" = "user";
  let stepCount = 0;
  let numErrors = 0;
  let agentSteps = 0;
  let userTurnsToAgent = 0;
  let done = false;
  let reason: TerminationReason | undefined;

  while (!done) {
    if ((from === "agent" || from === "env") && to === "user") {
      if (Array.isArray(message)) userHistory.push(...message);
      else if (message.content || isToolCall(message)) userHistory.push(message);
      const g = await o.generate("user", [userSystem, ...userHistory.map(flipped)], userToolSchemas.length > 0 ? userToolSchemas : undefined);
      const userMsg: Tau2Message = { role: "user", content: g.content, cost: 0, usage: g.usage, raw_data: g.raw_data, timestamp: now() };
      if (g.tool_calls) userMsg.tool_calls = g.tool_calls.map((c) => ({ ...c, requestor: "user" }));
      validate(userMsg, "user simulator");
      if (!isToolCall(userMsg) && userMsg.content != null && [STOP, TRANSFER, OUT_OF_SCOPE].some((t) => userMsg.content!.includes(t))) {
        done = true;
        reason = "user_stop";
      }
      userHistory.push(userMsg);
      trajectory.push(userMsg);
      agentVisible.push(userMsg);
      message = userMsg;
      from = "user";
      to = isToolCall(userMsg) ? "env" : "agent";
    } else if ((from === "user" || from === "env") && to === "agent") {
      let incoming = Array.isArray(message) ? message : [message];
      if (o.maxAgentSteps != null) {
        const left = o.maxAgentSteps - agentSteps;
        const remind = (m: Tau2Message): Tau2Message => ({ ...m, content: `${m.content ?? ""}\n\n${reminderText(left)}` });
        if (from === "env") incoming = [...incoming.slice(0, -1), remind(incoming[incoming.length - 1]!)];
        else if (++userTurnsToAgent % o.turnsRemainingInterval === 0) incoming = [remind(incoming[0]!)];
        agentVisible.splice(agentVisible.length - incoming.length, incoming.length, ...incoming);
      }
      agentHistory.push(...incoming);
      const g = await o.generate("agent", [agentSystem, ...agentHistory.map(toChatMessage)], toolSchemas);
      const agentMsg: Tau2Message = { role: "assistant", content: g.content, cost: 0, usage: g.usage, raw_data: g.raw_data, timestamp: now() };
      if (g.tool_calls) agentMsg.tool_calls = g.tool_calls.map((c) => ({ ...c, requestor: "assistant" }));
      validate(agentMsg, "agent");
      agentSteps++;
      if (agentMsg.content != null && agentMsg.content.includes(STOP)) {
        done = true;
        reason = "agent_stop";
      }
      agentHistory.push(agentMsg);
      trajectory.push(agentMsg);
      agentVisible.push(agentMsg);
      message = agentMsg;
      from = "agent";
      to = isToolCall(agentMsg) ? "env" : "user";
    } else if ((from === "agent" || from === "user") && to === "env") {
      const calls: ToolCall[] = (message as Tau2Message).tool_calls!;
      const results: Tau2Message[] = calls.map((c) => {
        const r = env.getResponse(c);
        if (r.error) numErrors++;
        return { ...r, timestamp: now() };
      });
      trajectory.push(...results);
      agentVisible.push(...results);
      message = results.length > 1 ? results : results[0]!;
      to = from;
      from = "env";
    }
    stepCount++;
    env.sync();
    // _check_termination: never while a tool call waits for the environment; later checks override earlier reasons.
    if (to !== "env") {
      if (o.maxAgentSteps != null && !done && agentSteps >= o.maxAgentSteps) {
        done = true;
        reason = "max_agent_steps";
      }
      if (stepCount >= o.maxSteps) {
        done = true;
        reason = "max_steps";
      }
      if (numErrors >= o.maxErrors) {
        done = true;
        reason = "too_many_errors";
      }
    }
  }
  const number = (ms: Tau2Message[]) => ms.map((m, i) => ({ ...m, turn_idx: i }));
  return {
    messages: number(trajectory),
    agentMessages: o.maxAgentSteps != null ? number(agentVisible) : null,
    terminationReason: reason!,
    agentSteps: o.maxAgentSteps != null ? agentSteps : null,
    maxAgentSteps: o.maxAgentSteps,
    stepCount,
    numErrors,
    env,
  };
}

/** Key-order-free equality of two DB dumps, a field set to null counting as absent (pydantic fills absent Optionals with None). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) if ((value as any)[key] !== null) out[key] = canonical((value as any)[key]);
    return out;
  }
  return value;
}
export const sameDb = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

export interface RewardInfo {
  reward: number;
  [key: string]: unknown;
}

/** A fresh copy of a domain's DBs: the agent's, and the user's where the user has tools. */
export interface Tau2World {
  db: Record<string, any>;
  userDb: Record<string, any> | null;
}

/** EnvAssertion as pydantic dumps it into an EnvAssertionCheck. */
const assertionDump = (a: EnvAssertion) => ({ env_type: a.env_type, func_name: a.func_name, arguments: a.arguments, assert_value: a.assert_value ?? true, message: a.message ?? null });

/**
 * evaluate_simulation for the half-duplex text mode. `fresh` builds the domain's initial DBs: τ²-bench's environment
 * evaluator rebuilds the run's world (the task's initial state, then the run's mutating tool calls replayed, each
 * output checked against the recorded one) and a gold world (the initial state, then the task's gold actions) and
 * compares both DBs; the env assertions run on the run's world.
 */
export async function evaluateSimulation(run: SimulationResult, task: Tau2Task, evaluationType: string, fresh: () => Tau2World, judgeNl?: NlJudge): Promise<RewardInfo> {
  if (run.terminationReason !== "agent_stop" && run.terminationReason !== "user_stop") {
    return { reward: 0, reward_basis: null, info: { note: `Simulation terminated prematurely. Termination reason: ${run.terminationReason}` } };
  }
  const criteria = task.evaluation_criteria;
  if (criteria == null) return { reward: 1, reward_basis: null, info: { note: "No evaluation criteria" } };
  const basis = new Set(criteria.reward_basis);
  const known = new Set(["DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE", "NL_ASSERTION"]);
  for (const b of basis) if (!known.has(b)) throw new HttpError(400, `task.evaluation_criteria.reward_basis: unknown ${b}`);
  if (!["all", "env", "action", "communicate"].includes(evaluationType)) throw new HttpError(501, `evaluation_type ${evaluationType} is not ported (all, env, action and communicate are)`);
  const wants = (b: string) => evaluationType !== "all" || basis.has(b);
  const needsNl = evaluationType === "all" && basis.has("NL_ASSERTION");
  if (needsNl && !judgeNl) throw new HttpError(501, `task ${task.id}: reward_basis NL_ASSERTION needs τ²-bench's NL-assertions LLM judge: set the agent's nl_assertions_model_server`);
  const nl = needsNl ? await evaluateNlAssertions(run.messages, criteria.nl_assertions ?? [], judgeNl!) : null;

  let env: RewardInfo;
  if (criteria.actions == null && criteria.env_assertions == null) {
    env = { reward: 1, db_check: { db_match: true, db_reward: 1 }, info: { note: "No expected actions or env assertions" } };
  } else {
    const world = (w: Tau2World) => new Tau2Environment(run.env.domain, w.db, w.userDb);
    const predicted = world(fresh());
    predicted.setInitialState(task.initial_state, task.id);
    const mismatches = replayTrajectory(predicted, run.messages);
    // τ²-bench's strict replay raises here; a deterministic port of its tools never gets one from its own run.
    if (mismatches.length > 0) throw new HttpError(500, `task ${task.id}: replaying the run's ${mismatches[0]!.call.name} call gave another output than the run recorded`);
    const gold = world(fresh());
    gold.setInitialState(task.initial_state, task.id);
    for (const a of criteria.actions ?? []) {
      try {
        gold.makeToolCall(a.name, a.requestor ?? "assistant", a.arguments);
      } catch {
        // τ²-bench logs a failing gold action and goes on.
      }
    }
    const match = sameDb(gold.db, predicted.db) && sameDb(gold.userDb, predicted.userDb);
    const dbReward = match ? 1 : 0;
    const assertionChecks = (criteria.env_assertions ?? []).map((assertion) => {
      const met = predicted.checkAssertion(assertion);
      return { env_assertion: assertionDump(assertion), met, reward: met ? 1 : 0 };
    });
    const assertionReward = assertionChecks.every((c) => c.met) ? 1 : 0;
    const breakdown: Record<string, number> = {};
    let reward = 1;
    if (basis.has("DB")) reward *= breakdown.DB = dbReward;
    if (basis.has("ENV_ASSERTION")) reward *= breakdown.ENV_ASSERTION = assertionReward;
    env = { reward, db_check: { db_match: match, db_reward: dbReward }, env_assertions: assertionChecks, reward_basis: criteria.reward_basis, reward_breakdown: breakdown };
  }

  // Action: every gold action matched by some tool call of the run (name, then compare_args or all the call's args).
  const calls = run.messages.filter((m) => m.role !== "tool" && isToolCall(m)).flatMap((m) => m.tool_calls!);
  const actionChecks = (criteria.actions ?? []).map((a) => {
    const match = calls.some((c) => {
      if (c.name !== a.name) return false;
      const keys = a.compare_args ?? Object.keys(c.arguments);
      if (keys.length === 0) return true;
      const pick = (o: Record<string, any>) => Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
      return sameValue(pick(c.arguments), pick(a.arguments));
    });
    return { action: a, action_match: match, action_reward: match ? 1 : 0, tool_type: run.env.tools.get(a.name)?.kind ?? null };
  });
  const actionReward = actionChecks.every((c) => c.action_match) ? 1 : 0;

  // Communicate: each required string, lower-cased, inside some assistant text (lower-cased, commas removed).
  const communicateChecks = (criteria.communicate_info ?? []).map((info) => {
    const found = run.messages.find((m) => m.role === "assistant" && m.content && m.content.toLowerCase().replaceAll(",", "").includes(info.toLowerCase()));
    return { info, met: found !== undefined, justification: found ? `Information '${info}' communicated in the message:\n '${found.content}'` : `Information '${info}' not communicated.` };
  });
  const communicateReward = communicateChecks.every((c) => c.met) ? 1 : 0;

  if (evaluationType === "env") return env;
  if (evaluationType === "action") return { reward: actionReward, action_checks: actionChecks, reward_breakdown: { ACTION: actionReward } };
  if (evaluationType === "communicate") return { reward: communicateReward, communicate_checks: communicateChecks, reward_breakdown: { COMMUNICATE: communicateReward } };

  let reward = 1;
  const breakdown: Record<string, number> = {};
  if (wants("DB") || wants("ENV_ASSERTION")) {
    if (basis.has("DB") || basis.has("ENV_ASSERTION")) {
      Object.assign(breakdown, env.reward_breakdown ?? {});
      reward *= env.reward;
    }
  }
  if (basis.has("ACTION")) {
    breakdown.ACTION = actionReward;
    reward *= actionReward;
  }
  if (basis.has("COMMUNICATE")) {
    breakdown.COMMUNICATE = communicateReward;
    reward *= communicateReward;
  }
  if (nl) {
    Object.assign(breakdown, nl.reward_breakdown);
    reward *= nl.reward;
  }
  return {
    reward,
    db_check: env.db_check ?? null,
    env_assertions: env.env_assertions ?? null,
    action_checks: actionChecks,
    nl_assertions: nl ? nl.nl_assertions : null,
    communicate_checks: communicateChecks,
    reward_basis: criteria.reward_basis,
    reward_breakdown: breakdown,
    info: { env: env.info ?? null, nl: nl ? nl.info : null, communicate: null, action: null },
  };
}

/** Python == on JSON values (1 == 1.0; dict equality ignores key order). */
function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonicalKeepNull(a)) === JSON.stringify(canonicalKeepNull(b));
}
function canonicalKeepNull(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalKeepNull);
  if (value && typeof value === "object") return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonicalKeepNull((value as any)[k])]));
  return value;
}

/**
 * Environment.set_state's replay of a recorded trajectory: each call of a mutating (write) tool the domain has is run
 * again on `env` (unknown tools and read/generic/think ones are skipped, as τ²-bench does) and its output compared with
 * the recorded one (parsed as JSON when both are). Returns the calls whose output differed; `env` is left replayed.
 */
export function replayTrajectory(env: Tau2Environment, messages: Tau2Message[]): { call: ToolCall; recorded: unknown; replayed: unknown }[] {
  const mismatches: { call: ToolCall; recorded: unknown; replayed: unknown }[] = [];
  const results = new Map(messages.filter((m) => m.role === "tool").map((m) => [m.id, m]));
  const parse = (s: string | null) => {
    try {
      return JSON.parse(s ?? "");
    } catch {
      return s;
    }
  };
  for (const m of messages) {
    if (m.role === "tool" || !isToolCall(m)) continue;
    for (const call of m.tool_calls!) {
      const requestor = call.requestor ?? (m.role === "user" ? "user" : "assistant");
      const tool = env.toolFor({ name: call.name, requestor });
      if (!tool || tool.kind !== "write") continue;
      const replayed = parse(env.getResponse({ ...call, requestor }).content);
      const recorded = parse(results.get(call.id)?.content ?? null);
      if (!sameValue(replayed, recorded)) mismatches.push({ call, recorded, replayed });
    }
  }
  env.sync();
  return mismatches;
}

/** The NL-assertions judge: one chat call (system and user prompt) answering the model's text. */
export type NlJudge = (messages: { role: string; content: string }[]) => Promise<string>;

// NLAssertionsEvaluator's prompts, byte for byte (triple-quoted strings inside a method: their indentation is theirs).
const NL_SYSTEM_PROMPT = [
  "",
  "        TASK",
  "        - You will be given a list of expected outcomes and a conversation that was collected during a test case run.",
  "        - The conversation is between an agent and a customer.",
  "        - Your job is to evaluate whether the agent satisfies each of the expected outcomes.",
  "        - Grade each expected outcome individually.",
  "",
  "        FORMAT",
  "        - Your response should be a JSON object with the following fields:",
  "        - `reasoning`: a short explanation for your classification",
  "        - `metExpectation`: `true` if the agent satisfies the expected outcomes, `false` otherwise",
  "        - `expectedOutcome`: repeat the expectation from the input that you are grading",
  "        ",
  "        Example response structure:",
  "        {",
  '            "results": [',
  "                {",
  '                    "expectedOutcome": "<one of the expected outcomes from the input>",',
  '                    "reasoning": "<reasoning trace>",',
  '                    "metExpectation": <false or true>,',
  "                }",
  "            ]",
  "        }",
  "        ",
].join("\n");
const nlUserPrompt = (trajectory: string, assertions: string[]) =>
  `\n        conversation:\n        ${trajectory}\n        \n        expectedOutcomes:\n        [${assertions.map(pythonStringRepr).join(", ")}]\n        `;

/**
 * NLAssertionsEvaluator.calculate_reward: the whole trajectory as "role: content" lines (None for a tool call's empty
 * text) and the assertions as a Python list go to the judge, whose JSON lists each outcome; all met → 1. An answer
 * that is not that JSON fails the task in τ²-bench (json.loads raises): here a typed failure, never a score.
 */
export async function evaluateNlAssertions(messages: Tau2Message[], assertions: string[], judge: NlJudge): Promise<{ reward: number; nl_assertions: unknown[]; reward_breakdown: Record<string, number>; info: unknown }> {
  if (assertions.length === 0) return { reward: 1, nl_assertions: [], reward_breakdown: { NL_ASSERTION: 1 }, info: { note: "No nl_assertions to evaluate" } };
  const trajectory = messages.map((m) => `${m.role}: ${m.content ?? "None"}`).join("\n");
  const text = await judge([
    { role: "system", content: NL_SYSTEM_PROMPT },
    { role: "user", content: nlUserPrompt(trajectory, assertions) },
  ]);
  let results: unknown;
  try {
    results = JSON.parse(text)?.results ?? [];
  } catch {
    throw new InfrastructureFailure("invalid_inner_answer", `the NL-assertions judge answered no JSON (τ²-bench's json.loads fails the task): ${text.slice(0, 200)}`);
  }
  if (!Array.isArray(results) || !results.every((r) => r && typeof r === "object" && typeof r.metExpectation === "boolean" && "expectedOutcome" in r && "reasoning" in r)) {
    throw new InfrastructureFailure("invalid_inner_answer", `the NL-assertions judge's results are not {expectedOutcome, reasoning, metExpectation} objects: ${text.slice(0, 200)}`);
  }
  const checks = results.map((r: any) => ({ nl_assertion: r.expectedOutcome, met: r.metExpectation, justification: r.reasoning }));
  const reward = checks.every((c) => c.met) ? 1 : 0;
  return { reward, nl_assertions: checks, reward_breakdown: { NL_ASSERTION: reward }, info: null };
}
