// The command-batch shapes of the two Terminus harnesses, as NeMo Gym's terminus_judge validates both the expected
// answer and the model's output against them (openapi_schema_validator, JSON Schema 2020-12). Structure only:
// titles, descriptions and defaults are annotations and change no verdict.
import { fromJsonValue, type PyValue } from "../../src/python/values.ts";

const command = (properties: Record<string, unknown>, required: string[]) => ({ type: "object", additionalProperties: false, properties, required });

const TERMINUS_1 = {
  type: "object",
  additionalProperties: false,
  definitions: {
    Command: command({ keystrokes: { type: "string" }, is_blocking: { type: "boolean" }, timeout_sec: { type: "number" } }, ["keystrokes", "is_blocking", "timeout_sec"]),
  },
  properties: {
    state_analysis: { type: "string" },
    explanation: { type: "string" },
    commands: { type: "array", items: { $ref: "#/definitions/Command" } },
    is_task_complete: { type: "boolean" },
  },
  required: ["state_analysis", "explanation", "commands", "is_task_complete"],
};

const TERMINUS_2 = {
  type: "object",
  additionalProperties: false,
  definitions: {
    Command: command({ keystrokes: { type: "string" }, duration: { type: "number" } }, ["keystrokes"]),
  },
  properties: {
    analysis: { type: "string" },
    plan: { type: "string" },
    commands: { type: "array", items: { $ref: "#/definitions/Command" } },
    task_complete: { type: "boolean" },
  },
  required: ["analysis", "plan", "commands"],
};

export const HARNESS_SCHEMAS: Readonly<Record<string, PyValue>> = { terminus_1: fromJsonValue(TERMINUS_1), terminus_2: fromJsonValue(TERMINUS_2) };
