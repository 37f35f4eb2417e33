// OpenAI GraphWalks' grading (https://huggingface.co/datasets/openai/graphwalks), as NeMo Gym's graphwalks and
// lc_niah servers port it: the node list of the response's last `Final Answer: [...]` line against the row's JSON
// list of nodes, scored by F1 over the two sets.
import { compilePythonRegex, PyJsonDecodeError, pythonJsonLoads, pythonStrip, type PyValue } from "../../python/index.ts";

const FINAL_ANSWER = compilePythonRegex(String.raw`Final Answer:\s*\[(.*)\]`);

export interface ParsedNodeList {
  /** The listed nodes in order, repeats kept. */
  nodes: string[];
  /** No `Final Answer: [...]` on the last non-empty line (or no such line). */
  parseFailed: boolean;
}

export interface NodeListOptions {
  /**
   * Also strip quotes around each item (`["a", 'b']` reads as a, b), as lc_niah does; graphwalks keeps them (a quoted
   * item is then a different node from the bare one).
   */
  stripQuotes?: boolean;
}

/**
 * The nodes of `Final Answer: [n1, n2, ...]` on the response's last non-empty line (lines split at "\n" only; a line
 * of only whitespace is empty): the text between the first `[` after the marker and the line's last `]`, split at
 * commas, each item stripped, empty items dropped. `[]` (or only whitespace inside) is an explicit empty answer.
 */
export function parseFinalAnswerNodes(response: string, { stripQuotes = false }: NodeListOptions = {}): ParsedNodeList {
  const lines = pythonStrip(response)
    .split("\n")
    .filter((line) => pythonStrip(line) !== "");
  if (lines.length === 0) return { nodes: [], parseFailed: true };
  const match = FINAL_ANSWER.search(lines[lines.length - 1]!);
  if (!match) return { nodes: [], parseFailed: true };
  const content = match.groups[1]!;
  if (pythonStrip(content) === "") return { nodes: [], parseFailed: false };
  const nodes: string[] = [];
  for (const raw of content.split(",")) {
    const item = stripQuotes ? pythonStrip(pythonStrip(pythonStrip(raw), "\"'")) : pythonStrip(raw);
    if (item !== "") nodes.push(item);
  }
  return { nodes, parseFailed: false };
}

/**
 * `set(json.loads(expected_answer))`, or the empty set when it is no JSON (JSONDecodeError) or no set can be made of
 * it (TypeError: a number, null, or a list holding a list or an object). The elements are keyed by Python's set
 * equality (1, 1.0 and true are one element); a string element is keyed `s:<text>`, see {@link nodeKey}.
 */
export function expectedNodeSet(expectedAnswer: string): Set<string> {
  let value: PyValue;
  try {
    value = pythonJsonLoads(expectedAnswer);
  } catch (error) {
    // json.loads' other ValueError (an integer of more than 4300 digits) is not caught by NeMo Gym: it propagates.
    if (error instanceof PyJsonDecodeError) return new Set();
    throw error;
  }
  let elements: PyValue[];
  if (Array.isArray(value)) elements = value;
  else if (typeof value === "string") elements = Array.from(value);
  else if (value instanceof Map) elements = [...value.keys()];
  else return new Set();
  const keys = new Set<string>();
  for (const element of elements) {
    const key = hashKey(element);
    if (key === undefined) return new Set();
    keys.add(key);
  }
  return keys;
}

/** The key a predicted node (a str) has in {@link expectedNodeSet}'s keys. */
export const nodeKey = (node: string): string => `s:${node}`;

/** A hashable JSON value's identity under Python's ==; undefined for an unhashable one (list, dict). */
function hashKey(value: PyValue): string | undefined {
  if (typeof value === "string") return nodeKey(value);
  if (value === null) return "None";
  if (typeof value === "boolean") return `n:${value ? 1 : 0}`;
  if (typeof value === "bigint") return `n:${value}`;
  if (typeof value === "number") {
    // json.loads gives every NaN the same float object, so a set keeps one.
    if (Number.isNaN(value)) return "nan";
    return Number.isFinite(value) && Number.isInteger(value) ? `n:${BigInt(value)}` : `f:${value}`;
  }
  return undefined;
}

/**
 * F1 of the predicted node set against the expected one: 0.0 when parsing failed, 1.0 when both are empty, 0.0 when
 * only one is (or nothing is shared), else 2·P·R / (P + R).
 */
export function nodeSetF1(predicted: readonly string[], expected: Set<string>, parseFailed: boolean): number {
  if (parseFailed) return 0;
  const predictedSet = new Set(predicted);
  if (predictedSet.size === 0 && expected.size === 0) return 1;
  if (predictedSet.size === 0 || expected.size === 0) return 0;
  let truePositives = 0;
  for (const node of predictedSet) if (expected.has(nodeKey(node))) truePositives++;
  if (truePositives === 0) return 0;
  const precision = truePositives / predictedSet.size;
  const recall = truePositives / expected.size;
  return (2 * precision * recall) / (precision + recall);
}
