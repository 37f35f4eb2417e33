// Heuristic policy: a deterministic stand-in for a model. It calls the offered tools with schema-valid
// arguments taken from the last user message (numbers, quoted strings, capitalised names), then tools that
// take a list of numbers with the numbers the first calls returned, then answers with what the tools said.
// It does not understand the task; rewards it earns say so honestly.
import { isMessage, messageText, type Item } from "./conversation.ts";

export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type HeuristicTurn = { kind: "calls"; calls: PlannedCall[] } | { kind: "message"; text: string };

interface FunctionTool {
  name: string;
  parameters: JsonSchema | null;
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
}

const NUMBER = /-?\d+(?:\.\d+)?/g;

function candidatesFrom(text: string) {
  const numbers = [...text.matchAll(NUMBER)].map((m) => Number(m[0]));
  const quoted = [...text.matchAll(/"([^"]+)"|'([^'\s][^']*[^'\s])'/g)].map((m) => (m[1] ?? m[2])!);
  // Capitalised words that do not start a sentence: names of cities, people, products.
  const names = [...text.matchAll(/(?<![.!?]\s|^)\b([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)/g)].map((m) => m[1]!).filter((name) => name !== "I");
  const words = text.match(/[A-Za-z][\w-]*/g) ?? [];
  const strings = quoted.length > 0 ? quoted : names.length > 0 ? names : words.length > 0 ? [words.at(-1)!] : ["unknown"];
  return { numbers, strings };
}

function schemaType(schema: JsonSchema | undefined): string | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== "null");
  if (schema.type) return schema.type;
  return schema.anyOf ? schemaType(schema.anyOf.find((s) => s.type !== "null")) : undefined;
}

const isNumeric = (schema: JsonSchema | undefined) => ["integer", "number"].includes(schemaType(schema) ?? "");
const toType = (schema: JsonSchema | undefined, value: number) => (schemaType(schema) === "integer" ? Math.round(value) : value);

function scalarFor(schema: JsonSchema | undefined, strings: string[], numbers: number[], index: number): unknown {
  if (schema?.enum?.length) return schema.enum[0];
  if (schema?.const !== undefined) return schema.const;
  switch (schemaType(schema)) {
    case "integer":
    case "number":
      return toType(schema, numbers[index] ?? 0);
    case "boolean":
      return true;
    case "array":
      return isNumeric(schema?.items) ? numbers.map((n) => toType(schema?.items, n)) : strings;
    case "object":
      return {};
    default:
      return strings[index] ?? strings[0] ?? "unknown";
  }
}

/** The calls a tool gets from the user's text: one per number (or string) when it takes exactly one. */
function callsFromText(tool: FunctionTool, strings: string[], numbers: number[]): PlannedCall[] {
  const properties = tool.parameters?.properties ?? {};
  const required = tool.parameters?.required ?? [];
  if (required.length === 0) return [{ name: tool.name, arguments: {} }];
  if (required.length === 1) {
    const [param] = required as [string];
    const schema = properties[param];
    if (schemaType(schema) === "array" && isNumeric(schema?.items)) return []; // needs numbers from tool outputs
    if (isNumeric(schema)) return numbers.map((n) => ({ name: tool.name, arguments: { [param]: toType(schema, n) } }));
    if (schemaType(schema) === "string" && !schema?.enum) return strings.map((s) => ({ name: tool.name, arguments: { [param]: s } }));
  }
  return [{ name: tool.name, arguments: Object.fromEntries(required.map((p, i) => [p, scalarFor(properties[p], strings, numbers, i)])) }];
}

function numbersIn(value: unknown): number[] {
  if (typeof value === "number") return [value];
  if (Array.isArray(value)) return value.flatMap(numbersIn);
  if (value && typeof value === "object") return Object.values(value).flatMap(numbersIn);
  return [];
}

function parsedOutputs(outputs: string[]): unknown[] {
  return outputs.map((text) => {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  });
}

export function heuristicTurn(items: Item[], tools: FunctionTool[], parallelToolCalls: boolean): HeuristicTurn {
  const lastUser = items.findLastIndex((item) => isMessage(item) && item.role === "user");
  const userText = lastUser >= 0 ? messageText(items[lastUser]!) : "";
  const turn = items.slice(lastUser + 1);
  const callsMade = turn.filter((item) => item.type === "function_call").length;
  const outputs = turn.filter((item) => item.type === "function_call_output").map((item) => String(item.output));

  const { strings, numbers } = candidatesFrom(userText);
  // Tools without arguments (readers) run after the ones that change something.
  const ordered = [...tools].sort((a, b) => Number((a.parameters?.required ?? []).length === 0) - Number((b.parameters?.required ?? []).length === 0));
  const plan = ordered.flatMap((tool) => callsFromText(tool, strings, numbers));
  const submitters = tools.filter((tool) => {
    const required = tool.parameters?.required ?? [];
    const schema = tool.parameters?.properties?.[required[0] ?? ""];
    return required.length === 1 && schemaType(schema) === "array" && isNumeric(schema?.items);
  });

  if (callsMade < plan.length) {
    const pending = plan.slice(callsMade);
    return { kind: "calls", calls: parallelToolCalls ? pending : pending.slice(0, 1) };
  }
  if (callsMade < plan.length + submitters.length) {
    const gathered = parsedOutputs(outputs).flatMap(numbersIn);
    const pending = submitters.slice(callsMade - plan.length).map((tool) => {
      const param = tool.parameters!.required![0]!;
      const items = tool.parameters!.properties![param]!.items;
      return { name: tool.name, arguments: { [param]: gathered.map((n) => toType(items, n)) } };
    });
    return { kind: "calls", calls: parallelToolCalls ? pending : pending.slice(0, 1) };
  }
  if (outputs.length > 0) return { kind: "message", text: `The tools returned: ${outputs.join("; ")}` };
  const answer = numbers.length > 0 ? String(numbers.at(-1)) : (strings.at(-1) ?? "");
  return { kind: "message", text: `My answer is ${answer}.` };
}
