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
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

const NUMBER = /-?\d+(?:\.\d+)?/g;

function candidatesFrom(text: string) {
  const numbers = [...text.matchAll(NUMBER)].map((m) => Number(m[0]));
  // "double" or 'single' quotes; an apostrophe inside a word ("what's", "don't") opens no quote.
  const quoted = [...text.matchAll(/["\u201c]([^"\u201d]+)["\u201d]|(?<![\w'])'([^'\s](?:[^']*[^'\s])?)'(?![\w'])/g)].map((m) => (m[1] ?? m[2])!);
  // Capitalised words that do not start a sentence: names of cities, people, products.
  const names = [...text.matchAll(/(?<![.!?]\s|^)\b([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)/g)].map((m) => m[1]!).filter((name) => name !== "I");
  const words = text.match(/[A-Za-z][\w-]*/g) ?? [];
  const strings = quoted.length > 0 ? quoted : names.length > 0 ? names : words.length > 0 ? [words.at(-1)!] : ["unknown"];
  return { text, numbers, strings };
}
type Candidates = ReturnType<typeof candidatesFrom>;

/** The schema a value is generated for: the first non-null branch of an anyOf / oneOf. */
function branch(schema: JsonSchema | undefined): JsonSchema | undefined {
  const options = schema?.anyOf ?? schema?.oneOf;
  if (!options) return schema;
  return branch(options.find((s) => s.type !== "null" && !(Array.isArray(s.type) && s.type.every((t) => t === "null"))) ?? options[0]);
}

function schemaType(schema: JsonSchema | undefined): string | undefined {
  const resolved = branch(schema);
  if (!resolved) return undefined;
  if (Array.isArray(resolved.type)) return resolved.type.find((t) => t !== "null");
  if (resolved.type) return resolved.type;
  if (resolved.enum?.length) return typeof resolved.enum[0] === "number" ? "number" : typeof resolved.enum[0];
  return resolved.properties ? "object" : undefined;
}

const isNumeric = (schema: JsonSchema | undefined) => ["integer", "number"].includes(schemaType(schema) ?? "");

/** The enum value the user named (case-insensitive), else the first. */
function enumChoice(options: unknown[], wanted: unknown, text: string): unknown {
  if (options.some((o) => o === wanted)) return wanted;
  const lower = text.toLowerCase();
  return options.find((o) => typeof o === "string" && o !== "" && lower.includes(o.toLowerCase())) ?? options[0];
}

/** A number made valid for a numeric schema: rounded for integers, moved inside its bounds. */
function toNumber(schema: JsonSchema, value: number): number {
  const integer = schemaType(schema) === "integer";
  let n = integer ? Math.round(value) : value;
  const step = integer ? 1 : 0.5;
  if (schema.minimum !== undefined && n < schema.minimum) n = integer ? Math.ceil(schema.minimum) : schema.minimum;
  if (schema.exclusiveMinimum !== undefined && n <= schema.exclusiveMinimum) n = (integer ? Math.floor(schema.exclusiveMinimum) : schema.exclusiveMinimum) + step;
  if (schema.maximum !== undefined && n > schema.maximum) n = integer ? Math.floor(schema.maximum) : schema.maximum;
  if (schema.exclusiveMaximum !== undefined && n >= schema.exclusiveMaximum) n = (integer ? Math.ceil(schema.exclusiveMaximum) : schema.exclusiveMaximum) - step;
  return n;
}

function toString(schema: JsonSchema, value: string): string {
  let s = value;
  if (schema.maxLength !== undefined) s = s.slice(0, schema.maxLength);
  if (schema.minLength !== undefined && s.length < schema.minLength) s = s.padEnd(schema.minLength, "x");
  return s;
}

/**
 * A value that validates against `schema`, built from the user's text: the `index`-th number or string
 * when the schema takes one (`wanted` overrides), enums and consts honoured, bounds respected, nested
 * objects filled with their required properties.
 */
function valueFor(schema: JsonSchema | undefined, candidates: Candidates, index: number, wanted?: unknown): unknown {
  const s = branch(schema) ?? {};
  if (s.const !== undefined) return s.const;
  const type = schemaType(s);
  let value: unknown;
  switch (type) {
    case "integer":
    case "number":
      value = toNumber(s, typeof wanted === "number" ? wanted : (candidates.numbers[index] ?? candidates.numbers[0] ?? 0));
      break;
    case "boolean":
      value = true;
      break;
    case "null":
      value = null;
      break;
    case "array": {
      const items = s.items ?? {};
      let list: unknown[] = isNumeric(items)
        ? candidates.numbers.map((n) => valueFor(items, candidates, 0, n))
        : schemaType(items) === "string"
          ? candidates.strings.map((str) => valueFor(items, candidates, 0, str))
          : [];
      if (s.maxItems !== undefined) list = list.slice(0, s.maxItems);
      while (list.length < (s.minItems ?? 0)) list.push(valueFor(items, candidates, list.length));
      value = list;
      break;
    }
    case "object": {
      const properties = s.properties ?? {};
      value = Object.fromEntries((s.required ?? []).map((p, i) => [p, valueFor(properties[p], candidates, i)]));
      break;
    }
    default:
      value = toString(s, typeof wanted === "string" ? wanted : (candidates.strings[index] ?? candidates.strings[0] ?? "unknown"));
  }
  return s.enum?.length ? enumChoice(s.enum, value, candidates.text) : value;
}

/** The calls a tool gets from the user's text: one per number (or string) when it takes exactly one. */
function callsFromText(tool: FunctionTool, candidates: Candidates): PlannedCall[] {
  const properties = tool.parameters?.properties ?? {};
  const required = tool.parameters?.required ?? [];
  if (required.length === 0) return [{ name: tool.name, arguments: {} }];
  if (required.length === 1) {
    const [param] = required as [string];
    const schema = properties[param];
    if (isListOfNumbers(schema)) return []; // needs numbers from tool outputs
    const plain = branch(schema);
    if (isNumeric(schema) && plain?.const === undefined) {
      // With an enum, only the numbers it allows count.
      const numbers = plain?.enum ? candidates.numbers.filter((n) => plain.enum!.includes(n)) : candidates.numbers;
      return numbers.map((n) => ({ name: tool.name, arguments: { [param]: valueFor(schema, candidates, 0, n) } }));
    }
    if (schemaType(schema) === "string" && !plain?.enum && plain?.const === undefined) {
      return candidates.strings.map((s) => ({ name: tool.name, arguments: { [param]: valueFor(schema, candidates, 0, s) } }));
    }
  }
  return [{ name: tool.name, arguments: Object.fromEntries(required.map((p, i) => [p, valueFor(properties[p], candidates, i)])) }];
}

const isListOfNumbers = (schema: JsonSchema | undefined) => schemaType(schema) === "array" && isNumeric(branch(schema)?.items);

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

  const candidates = candidatesFrom(userText);
  // Tools without arguments (readers) run after the ones that change something.
  const ordered = [...tools].sort((a, b) => Number((a.parameters?.required ?? []).length === 0) - Number((b.parameters?.required ?? []).length === 0));
  const plan = ordered.flatMap((tool) => callsFromText(tool, candidates));
  const submitters = tools.filter((tool) => {
    const required = tool.parameters?.required ?? [];
    return required.length === 1 && isListOfNumbers(tool.parameters?.properties?.[required[0]!]);
  });

  if (callsMade < plan.length) {
    const pending = plan.slice(callsMade);
    return { kind: "calls", calls: parallelToolCalls ? pending : pending.slice(0, 1) };
  }
  if (callsMade < plan.length + submitters.length) {
    const gathered = parsedOutputs(outputs).flatMap(numbersIn);
    const pending = submitters.slice(callsMade - plan.length).map((tool) => {
      const param = tool.parameters!.required![0]!;
      return { name: tool.name, arguments: { [param]: valueFor(tool.parameters!.properties![param], { ...candidates, numbers: gathered }, 0) } };
    });
    return { kind: "calls", calls: parallelToolCalls ? pending : pending.slice(0, 1) };
  }
  if (outputs.length > 0) return { kind: "message", text: `The tools returned: ${outputs.join("; ")}` };
  const answer = candidates.numbers.length > 0 ? String(candidates.numbers.at(-1)) : (candidates.strings.at(-1) ?? "");
  return { kind: "message", text: `My answer is ${answer}.` };
}
