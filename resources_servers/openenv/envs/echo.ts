// OpenEnv's echo_env (envs/echo_env/server/echo_environment.py): an MCP environment with two FastMCP tools,
// echo_message and echo_with_length. Its actions are MCP's: {"type": "list_tools"} and
// {"type": "call_tool", "tool_name", "arguments"}. Every reward is null (CallToolObservation's default) except the
// reset's 0.0, so an echo episode scores 0.
import { randomUUID } from "node:crypto";
import { ActionValidationError, isRecord, type ValidationIssue } from "../../../src/ports/openenv/protocol.ts";
import type { Observation, OpenEnvEnvironment, OpenEnvEnvironmentSpec } from "../../../src/ports/openenv/env-server.ts";

/** The tools as FastMCP lists them (name, description from the docstring, input schema from the signature). */
export const ECHO_TOOLS = [
  {
    name: "echo_message",
    description: "Echo back the provided message.\n\nArgs:\n    message: The message to echo back\n\nReturns:\n    The same message that was provided",
    input_schema: { properties: { message: { title: "Message", type: "string" } }, required: ["message"], type: "object" },
  },
  {
    name: "echo_with_length",
    description: "Echo back the message with its length.\n\nArgs:\n    message: The message to echo back\n\nReturns:\n    Dictionary with the message and its length",
    input_schema: { properties: { message: { title: "Message", type: "string" } }, required: ["message"], type: "object" },
  },
];

/** Python's len(): code points, not UTF-16 units. */
const pythonLength = (text: string) => [...text].length;

/** FastMCP's CallToolResult as pydantic dumps it: a text block, structured content, the data. */
function callToolResult(value: unknown) {
  // A str return is wrapped as {"result": ...} (not an object schema); a dict is its own structured content.
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return {
    content: [{ type: "text", text, annotations: null, _meta: null }],
    structured_content: isRecord(value) ? value : { result: value },
    meta: null,
    data: value,
    is_error: false,
  };
}

function toolError(toolName: string, errorType: string, message: string): Observation {
  return { fields: { tool_name: toolName, result: null, error: { error_type: errorType, message } }, reward: null, done: false, metadata: {} };
}

class EchoEnvironment implements OpenEnvEnvironment {
  private episodeId: string = randomUUID();
  private stepCount = 0;

  reset(kwargs: Record<string, unknown>): Observation {
    this.episodeId = typeof kwargs.episode_id === "string" ? kwargs.episode_id : randomUUID();
    this.stepCount = 0;
    return { fields: {}, reward: 0, done: false, metadata: { status: "ready", message: "Echo environment ready!" } };
  }

  step(action: Record<string, unknown>): Observation {
    this.stepCount++;
    if (action.type === "list_tools") {
      const extra = Object.keys(action).filter((key) => key !== "type" && key !== "metadata");
      if (extra.length > 0) throw new ActionValidationError("ListToolsAction", extra.map((key) => ({ type: "extra_forbidden", loc: [key], msg: "Extra inputs are not permitted", input: action[key] })));
      return { fields: { tools: ECHO_TOOLS }, reward: null, done: false, metadata: {} };
    }
    if (action.type !== "call_tool") {
      // A non-MCP action reaches _step_impl: an error observation with reward 0.0 (OpenEnv would first refuse it
      // against the server's Action class; the generic Action accepts only `metadata`).
      return { fields: {}, reward: 0, done: false, metadata: { error: "Unknown action type: Action. Use ListToolsAction or CallToolAction for MCP interactions." } };
    }
    const issues: ValidationIssue[] = [];
    if (typeof action.tool_name !== "string") issues.push({ type: action.tool_name === undefined ? "missing" : "string_type", loc: ["tool_name"], msg: action.tool_name === undefined ? "Field required" : "Input should be a valid string", input: action.tool_name ?? action });
    if (action.arguments !== undefined && !isRecord(action.arguments)) issues.push({ type: "dict_type", loc: ["arguments"], msg: "Input should be a valid dictionary", input: action.arguments });
    for (const key of Object.keys(action)) if (!["type", "tool_name", "arguments", "metadata"].includes(key)) issues.push({ type: "extra_forbidden", loc: [key], msg: "Extra inputs are not permitted", input: action[key] });
    if (issues.length > 0) throw new ActionValidationError("CallToolAction", issues);
    const toolName = action.tool_name as string;
    const args = (action.arguments ?? {}) as Record<string, unknown>;
    const tool = ECHO_TOOLS.find((t) => t.name === toolName);
    if (!tool) return toolError(toolName, "tool_not_found", `Unknown tool: ${toolName}`);
    // FastMCP validates the arguments against the signature (message: str) before calling the tool.
    const message = args.message;
    if (typeof message !== "string") {
      return toolError(toolName, "invalid_args", `1 validation error for call[${toolName}]\nmessage\n  ${message === undefined ? "Missing required argument" : "Input should be a valid string"}`);
    }
    const unexpected = Object.keys(args).filter((key) => key !== "message");
    if (unexpected.length > 0) return toolError(toolName, "invalid_args", `1 validation error for call[${toolName}]\n${unexpected[0]}\n  Unexpected keyword argument`);
    const value = toolName === "echo_message" ? message : { message, length: pythonLength(message) };
    return { fields: { tool_name: toolName, result: callToolResult(value), error: null }, reward: null, done: false, metadata: {} };
  }

  state() {
    return { episode_id: this.episodeId, step_count: this.stepCount };
  }
}

export const echoEnvironment: OpenEnvEnvironmentSpec = {
  name: "echo_env",
  description: "Echoes messages back through two MCP tools (OpenEnv's echo_env).",
  create: () => new EchoEnvironment(),
  schemas: {
    action: { title: "CallToolAction", type: "object", properties: { type: { const: "call_tool" }, tool_name: { type: "string" }, arguments: { type: "object" }, metadata: { type: "object" } }, required: ["tool_name"] },
    observation: { title: "CallToolObservation", type: "object", properties: { tool_name: { type: "string" }, result: {}, error: {} } },
    state: { title: "State", type: "object", properties: { episode_id: { type: ["string", "null"] }, step_count: { type: "integer" } } },
  },
};
