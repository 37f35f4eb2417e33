// Shared by scripted_model's tests: function tools as a dataset row offers them, a small JSON-schema check,
// and a conversation driver that plays the agent (calls the model, runs the tools with a test function).
import assert from "node:assert/strict";
import type { HttpClient } from "../../../src/client/index.ts";

export type Item = Record<string, any>;
export type Schema = Record<string, any>;

/** A function tool exactly as NeMo Gym rows write them (`strict` is required). */
export function fnTool(name: string, properties: Record<string, Schema>, required = Object.keys(properties)) {
  return { type: "function", name, description: "", parameters: { type: "object", properties, required, additionalProperties: false }, strict: true };
}

/** The JSON-schema keywords tool schemas use; returns the violations (empty when valid). */
export function schemaViolations(schema: Schema, value: unknown, at = "$"): string[] {
  if (schema.anyOf) return schema.anyOf.some((s: Schema) => schemaViolations(s, value, at).length === 0) ? [] : [`${at}: matches no anyOf branch`];
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) return [`${at}: not the const ${JSON.stringify(schema.const)}`];
  if (schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value))) return [`${at}: ${JSON.stringify(value)} not in enum`];
  const types: string[] | undefined = schema.type === undefined ? undefined : [schema.type].flat();
  const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);
  const actual = typeOf(value);
  if (types && !types.includes(actual) && !(actual === "integer" && types.includes("number"))) return [`${at}: ${actual} is not ${types.join("|")}`];
  const problems: string[] = [];
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${at}: ${value} < minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${at}: ${value} > maximum ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) problems.push(`${at}: ${value} <= exclusiveMinimum`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) problems.push(`${at}: ${value} >= exclusiveMaximum`);
  }
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) problems.push(`${at}: longer than ${schema.maxLength}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items) value.forEach((v, i) => problems.push(...schemaViolations(schema.items, v, `${at}[${i}]`)));
  }
  if (actual === "object") {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) problems.push(`${at}.${key}: required`);
    for (const [key, v] of Object.entries(object)) {
      const property = schema.properties?.[key];
      if (property) problems.push(...schemaViolations(property, v, `${at}.${key}`));
      else if (schema.additionalProperties === false) problems.push(`${at}.${key}: not allowed`);
    }
  }
  return problems;
}

export interface Turn {
  status: number;
  body: any;
  /** The body the test sent for this turn. */
  request: any;
}

/**
 * Plays simple_agent's loop against a model URL: sends the conversation, runs each function call with
 * `runTool` (its return value is JSON-encoded as the tool output), stops at an assistant message, an
 * error status, or `maxTurns`.
 */
export async function converse(http: HttpClient, url: string, request: Record<string, any>, runTool: (name: string, args: any) => unknown, maxTurns = 8): Promise<Turn[]> {
  const prompt: Item[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
  const sent: Item[] = [];
  const turns: Turn[] = [];
  for (let i = 0; i < maxTurns; i++) {
    const body = { ...request, input: [...prompt, ...sent] };
    const answer = await http.request(url, { method: "POST", json: body });
    const turn: Turn = { status: answer.status, body: answer.json(), request: body };
    turns.push(turn);
    if (answer.status !== 200) return turns;
    const output: Item[] = turn.body.output;
    sent.push(...output);
    const calls = output.filter((item) => item.type === "function_call");
    if (calls.length === 0) return turns;
    for (const call of calls) sent.push({ type: "function_call_output", call_id: call.call_id, output: JSON.stringify(runTool(call.name, JSON.parse(call.arguments))) });
  }
  assert.fail(`no assistant message after ${maxTurns} turns`);
}

/** The function calls of each turn, as `name(args)` strings, for compact assertions. */
export const callsPerTurn = (turns: Turn[]) =>
  turns.map((turn) => turn.body.output.filter((item: Item) => item.type === "function_call").map((call: Item) => `${call.name}(${call.arguments})`));

export const messageTextOf = (item: Item) => item.content.map((part: Item) => part.text).join("");
