// aviary's HotPotQA environment (aviary.envs.hotpotqa, after ReAct's wikienv): a multi-hop question answered with
// `search` (a Wikipedia search page: similar titles, or the article's first five sentences), `lookup` (the next
// line of the current article containing a keyword) and `submit_answer` (terminal; reward 1.0 when the normalised
// gold answer is contained in the normalised answer: aviary's EvalAnswerMode.CONTAINS). Tool calls of one step run
// in order. Wikipedia is a SearchBackend (wikipedia.ts): a failure there is a typed 502/503, never an observation.
import { readFileSync } from "node:fs";
import { PyException } from "../../python/exception.ts";
import { pythonStringRepr } from "../../python/repr.ts";
import { jsonTypeName } from "../../python/json-value.ts";
import { HttpError } from "../../protocol/errors.ts";
import type { SearchBackend } from "../../client/search-backend.ts";
import { stringParameter, type AviaryEnvironment, type Observation, type StepResult, type TaskDataset, type ToolCall, type ToolInfo } from "./environment.ts";
import type { WikipediaPage } from "./wikipedia.ts";

export const HOTPOTQA_TOOLS: readonly ToolInfo[] = Object.freeze([
  { name: "search", description: "Searches Wikipedia for the given entity and processes the results.", parameters: { type: "object", properties: stringParameter("entity", "The entity to search for on Wikipedia."), required: ["entity"] } },
  { name: "lookup", description: "Construct a list of sentences from the given page content that contain the specified keyword.", parameters: { type: "object", properties: stringParameter("keyword", "The keyword to search for within the sentences."), required: ["keyword"] } },
  { name: "submit_answer", description: "Finish the task by submitting an answer to the question.", parameters: { type: "object", properties: stringParameter("answer", "The answer to the question."), required: ["answer"] } },
]);

const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/** aviary's normalize_answer (SQuAD's): lower case, punctuation out, articles out, whitespace collapsed. */
export function normalizeAnswer(answer: unknown): string {
  if (typeof answer !== "string") return typeof answer === "number" ? String(answer) : String(answer);
  const lower = answer.toLowerCase();
  const noPunctuation = [...lower].filter((ch) => !PUNCTUATION.has(ch)).join("");
  const noArticles = noPunctuation.replace(/\b(a|an|the)\b/gu, " ");
  return noArticles.split(/\s+/u).filter((word) => word !== "").join(" ");
}

/** eval_answer(…, CONTAINS): the stripped, case-folded gold answer is a substring of the proposed one. */
export const containsAnswer = (proposed: string, correct: string): boolean => proposed.trim().toLowerCase().includes(correct.trim().toLowerCase());

/**
 * ReAct's clean_str: `p.encode("latin1").decode("unicode-escape")` — backslash escapes in the text are read; a text
 * with characters beyond Latin-1, or a broken escape, is kept as it is.
 */
export function cleanStr(text: string): string {
  if ([...text].some((ch) => ch.codePointAt(0)! > 0xff)) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) return text;
    const simple: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\n": "" };
    if (next in simple) {
      out += simple[next];
      i++;
      continue;
    }
    const hex = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0;
    if (hex > 0) {
      const digits = text.slice(i + 2, i + 2 + hex);
      if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) return text;
      const code = parseInt(digits, 16);
      if (code > 0x10ffff) return text;
      out += String.fromCodePoint(code);
      i += 1 + hex;
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1));
    if (octal) {
      out += String.fromCodePoint(parseInt(octal[0], 8));
      i += octal[0].length;
      continue;
    }
    if (next === "N") return text;
    // An unknown escape stays as written (Python warns and keeps the backslash).
    out += ch;
  }
  return out;
}

/** str(list_of_str): `['a', "b's"]`. */
const pythonListRepr = (items: string[]) => `[${items.map(pythonStringRepr).join(", ")}]`;

export interface HotPotQAConfig {
  correct_reward: number;
  incorrect_reward: number;
  tool_failure_reward: number;
}
export const DEFAULT_HOTPOTQA_CONFIG: Readonly<HotPotQAConfig> = Object.freeze({ correct_reward: 1.0, incorrect_reward: 0.0, tool_failure_reward: 0.0 });

interface HotPotQAState {
  done: boolean;
  steps: number;
  reward: number;
  answer: string | null;
  lastActionIsLookup: boolean;
  lastLookup: string | null;
  lookupResults: string[];
  lookupIndex: number;
  page: string | null;
}

const freshState = (): HotPotQAState => ({ done: false, steps: 0, reward: 0, answer: null, lastActionIsLookup: false, lastLookup: null, lookupResults: [], lookupIndex: 0, page: null });

function keywordCheck(method: string, parameter: string, args: Record<string, unknown>): void {
  for (const key of Object.keys(args)) if (key !== parameter) throw new PyException("TypeError", `HotPotQAEnv.${method}() got an unexpected keyword argument '${key}'`);
  if (!Object.hasOwn(args, parameter)) throw new PyException("TypeError", `HotPotQAEnv.${method}() missing 1 required positional argument: '${parameter}'`);
}

/** Python truthiness of a JSON value (an empty string, 0, null, [] and {} are false). */
const truthy = (value: unknown) => !(value === null || value === undefined || value === false || value === 0 || value === "" || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && value !== null && Object.keys(value).length === 0));

export class HotPotQAEnv implements AviaryEnvironment {
  private state: HotPotQAState = freshState();
  private readonly normalizedCorrectAnswer: string;

  constructor(
    readonly question: string,
    correctAnswer: string,
    private readonly wikipedia: SearchBackend<WikipediaPage>,
    readonly config: HotPotQAConfig = DEFAULT_HOTPOTQA_CONFIG,
  ) {
    this.normalizedCorrectAnswer = normalizeAnswer(correctAnswer);
  }

  async reset(): Promise<{ obs: Observation[]; tools: ToolInfo[] }> {
    this.state = freshState();
    return { obs: [{ kind: "message", role: "user", content: `Question: ${this.question}` }], tools: HOTPOTQA_TOOLS.map((t) => structuredClone(t)) };
  }

  async step(calls: ToolCall[], signal: AbortSignal): Promise<StepResult> {
    this.state.steps += 1;
    if (calls.length === 0) {
      // aviary prints a Python set of the names, whose order varies per process; here in the tools' order.
      return { obs: [{ kind: "message", role: "user", content: `Must call one of the provided tools {${HOTPOTQA_TOOLS.map((t) => pythonStringRepr(t.name)).join(", ")}}.` }], reward: this.config.tool_failure_reward, done: this.state.done };
    }
    this.state.reward = 0;
    const obs: Observation[] = [];
    for (const call of calls) {
      let content: string;
      if (call.name === "search") {
        keywordCheck("search", "entity", call.arguments);
        content = await this.search(call.arguments.entity, signal);
      } else if (call.name === "lookup") {
        keywordCheck("lookup", "keyword", call.arguments);
        content = this.lookup(call.arguments.keyword);
      } else if (call.name === "submit_answer") {
        keywordCheck("submit_answer", "answer", call.arguments);
        content = this.submitAnswer(call.arguments.answer);
      } else content = `Invalid tool call: ${call.name}`;
      obs.push({ kind: "tool_response", toolCallId: call.id, content });
    }
    return { obs, reward: this.state.reward, done: this.state.done };
  }

  submitAnswer(answer: unknown): string {
    this.state.done = true;
    if (!truthy(answer)) return "submit_answer failed since it was provided an empty answer.";
    this.state.answer = String(answer);
    const correct = containsAnswer(normalizeAnswer(answer), this.normalizedCorrectAnswer);
    this.state.reward += correct ? this.config.correct_reward : this.config.incorrect_reward;
    this.state.lastActionIsLookup = false;
    return "Finished.";
  }

  async search(entity: unknown, signal: AbortSignal): Promise<string> {
    if (!truthy(entity)) {
      this.state.done = true;
      return "Search failed. No entity provided.";
    }
    if (typeof entity !== "string" && !(typeof entity === "number" && Number.isInteger(entity))) {
      throw new PyException("AttributeError", `'${jsonTypeName(entity)}' object has no attribute 'replace'`);
    }
    const text = String(entity);
    const searchEntity = typeof entity === "number" ? text : text.replace(/ /g, "+");
    const page = await this.wikipedia.search(searchEntity, { signal });
    if ("similar" in page && page.similar.length > 0) {
      this.state.page = null;
      return `Search for ${typeof entity === "number" ? text : pythonStringRepr(text)} returned no results. Similar: ${pythonListRepr(page.similar.map(cleanStr).slice(0, 5))}.`;
    }
    const texts = "texts" in page ? page.texts : [];
    if (texts.some((p) => p.includes("may refer to:"))) return this.search(`[${text}]`, signal);
    let article = "";
    for (const p of texts) {
      if (p.split(" ").length > 2) {
        article += cleanStr(p);
        if (!p.endsWith("\n")) article += "\n";
      }
    }
    this.state.page = article;
    const sentences = article
      .split("\n")
      .filter((p) => p.trim() !== "")
      .flatMap((p) => p.split(". ").filter((s) => s.trim() !== "").map((s) => `${s.trim()}.`));
    this.state.lastActionIsLookup = false;
    return sentences.slice(0, 5).join(" ");
  }

  lookup(keyword: unknown): string {
    if (!truthy(keyword)) {
      this.state.done = true;
      return "Lookup failed. No keyword provided";
    }
    if (!this.state.page) return "Lookup failed. You have not specified a Wikipedia page yet.";
    if (typeof keyword !== "string") throw new PyException("AttributeError", `'${jsonTypeName(keyword)}' object has no attribute 'lower'`);
    if (!this.state.lastActionIsLookup || this.state.lastLookup !== keyword) {
      this.state.lastLookup = keyword;
      this.state.lookupResults = this.state.page
        .split("\n")
        .filter((line) => line.trim() !== "" && line.toLowerCase().includes(keyword.toLowerCase()))
        .map((line) => line.trim());
      this.state.lookupIndex = 0;
    }
    if (this.state.lookupIndex >= this.state.lookupResults.length) return "No more results.";
    const obs = `(Result ${this.state.lookupIndex + 1} / ${this.state.lookupResults.length}) ${this.state.lookupResults[this.state.lookupIndex]}`;
    this.state.lookupIndex += 1;
    this.state.lastActionIsLookup = true;
    return obs;
  }

  async close(): Promise<void> {}
}

/** One HotPotQA row as Hugging Face's hotpotqa/hotpot_qa (fullwiki) has it. */
export interface HotPotQARow {
  id: string;
  question: string;
  answer: string;
  level?: string;
}

export class HotPotQADataset implements TaskDataset {
  constructor(
    private readonly rows: HotPotQARow[],
    private readonly wikipedia: SearchBackend<WikipediaPage>,
    readonly config: HotPotQAConfig = DEFAULT_HOTPOTQA_CONFIG,
  ) {}

  static readJsonl(path: string): HotPotQARow[] {
    return readFileSync(path, "utf8")
      .split("\n")
      .flatMap((line, index) => {
        if (line.trim() === "") return [];
        let row: Record<string, unknown>;
        try {
          row = JSON.parse(line);
        } catch (error) {
          throw new Error(`${path}:${index + 1}: not JSON (${(error as Error).message})`);
        }
        if (typeof row.question !== "string" || (typeof row.answer !== "string" && typeof row.answer !== "number")) {
          throw new Error(`${path}:${index + 1}: a HotPotQA row needs 'question' (string) and 'answer'`);
        }
        return [{ id: String(row.id ?? index), question: row.question, answer: String(row.answer), level: row.level as string | undefined }];
      });
  }

  newEnvironment(taskIndex: number): HotPotQAEnv {
    const row = this.rows[taskIndex < 0 ? this.rows.length + taskIndex : taskIndex];
    if (!row) throw new HttpError(422, `task_idx ${taskIndex} is out of range: the dataset has ${this.rows.length} tasks`);
    return new HotPotQAEnv(row.question, row.answer, this.wikipedia, this.config);
  }
}
