// Tavily search (NeMo Gym's tavily_search): open questions answered with three tools over Tavily — `web_search`
// (Tavily search, formatted results), `find_in_page` (Tavily extract with a query: the page's cleaned, line-numbered
// text, cut at 2,000 characters) and `scroll_page` (a window of the page's words) — and graded by an LLM judge with
// BrowseComp's `correct: yes|no` format, or, with `use_judge: false`, by the `Answer: … Confidence:` line.
//
// On purpose unlike NeMo Gym: a failed Tavily call is a typed failure (HTTP 502: the agent files it as
// environment_unavailable), never a 500 handed to the model; and Tavily is reached through the search backend
// (src/client/search-backend.ts: fixture or live, retries, rate limit, cache — its config keys are this port's).
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { askJudge, JudgeError, judgeEndpoint, readServerPromptFile, resourcesServer, tool, type NemoGymText } from "../../src/server/index.ts";
import { ServerConfigError as UserError } from "../../src/server/config-error.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { pythonLen, splitWhitespace } from "../../src/python/str.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { ProviderSearchBackend, searchBackendConfigShape, searchBackendFromConfig, type SearchBackend, type SearchBackendConfig, type SearchQuery } from "../../src/client/search-backend.ts";
import { addLineNumbers, cleanText, extractDomain, formatSearchResults, isUrlExcluded, sliceWords, truncateText } from "./text.ts";

const SERVER_DIR = import.meta.dirname;
const TAVILY_BASE_URL = "https://api.tavily.com";
const MAX_RESULTS = 10;

/** NeMo Gym's judge prompt is a constant of its judge_prompt.py, fetched (pinned) into this git-ignored file. */
const NEMO_GYM_PROMPTS: Readonly<Record<string, NemoGymText>> = {
  "prompt_templates/tavily_search_judge.txt": { repoPath: "resources_servers/tavily_search/judge_prompt.py", extract: { kind: "python_constant", name: "JUDGE_PROMPT_TEMPLATE" } },
};

const Config = z.looseObject({
  tavily_api_key: z.union([z.string(), z.array(z.string())]).nullish(),
  exclude_domains_file_path: z.string(),
  use_judge: z.boolean().default(true),
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }).nullish(),
  judge_responses_create_params: z.record(z.string(), z.unknown()).nullish(),
  debug: z.boolean().default(false),
  dump_session_id_to_metrics_on_exit: z.boolean().default(false),
  /** Ours: the judge prompt ({question}, {correct_answer}, {response}); NeMo Gym's text is fetched there when absent. */
  judge_prompt_template_fpath: z.string().default("prompt_templates/tavily_search_judge.txt"),
  ...searchBackendConfigShape,
});
type Config = z.output<typeof Config>;

interface TavilyCall {
  function: string;
  status: string;
  start_time: number;
  end_time: number;
  time_taken: number;
}

interface Runtime {
  backend: SearchBackend<Record<string, unknown>>;
  excludeDomains: string[];
  template: string | undefined;
  /** NeMo Gym's _session_id_to_metrics: the Tavily calls of each session. */
  metrics: Map<string, { async_tavily_calls: TavilyCall[] }>;
  log: (line: string) => void;
}
const runtimes = new WeakMap<object, Runtime>();
const runtimeOf = (config: Config): Runtime => {
  const runtime = runtimes.get(config);
  if (!runtime) throw new Error("tavily_search: not started");
  return runtime;
};
const metricsOf = (runtime: Runtime, sessionId: string) => {
  let metrics = runtime.metrics.get(sessionId);
  if (!metrics) runtime.metrics.set(sessionId, (metrics = { async_tavily_calls: [] }));
  return metrics;
};

/** `_parse_exclude_domains`: every `{"type": "domain", "value": …}` property of every notice. */
export function parseExcludeDomains(path: string): string[] {
  let parsed: { notices?: { properties?: { type?: string; value?: string }[] }[] };
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UserError(`exclude_domains_file_path ${path}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed?.notices)) throw new UserError(`exclude_domains_file_path ${path}: expected {"notices": [{"properties": [...]}]}`);
  return parsed.notices.flatMap((notice) => (notice.properties ?? []).filter((p) => p.type === "domain").map((p) => String(p.value)));
}

function buildBackend(config: Config, excludeDomains: string[]): SearchBackend<Record<string, unknown>> {
  return searchBackendFromConfig<Record<string, unknown>>(config as SearchBackendConfig, SERVER_DIR, (settings) =>
    new ProviderSearchBackend<Record<string, unknown>>({
      provider: "tavily",
      apiKey: { configKey: "tavily_api_key", value: config.tavily_api_key },
      ...settings,
      buildRequest(query: SearchQuery, key: string) {
        const call = query as { op: string; query?: string; url?: string };
        const base = (config.search_base_url ?? TAVILY_BASE_URL).replace(/\/+$/, "");
        const headers = { authorization: `Bearer ${key}` };
        // tavily-python's search(query, max_results=10, exclude_domains=…, search_depth="advanced") and extract(urls=…, query=…).
        if (call.op === "search") return { url: `${base}/search`, headers, json: { query: call.query, search_depth: "advanced", max_results: MAX_RESULTS, exclude_domains: excludeDomains } };
        return { url: `${base}/extract`, headers, json: call.query === undefined ? { urls: call.url } : { urls: call.url, query: call.query } };
      },
      parseResponse: (response) => {
        const body = response.json<Record<string, unknown>>();
        if (body === null || typeof body !== "object" || Array.isArray(body)) throw new Error("not a JSON object");
        return body;
      },
    }),
  );
}

/** One Tavily call, recorded in the session's metrics as NeMo Gym does (only successful calls are recorded). */
async function tavily(config: Config, sessionId: string, fn: "search" | "extract", query: SearchQuery, signal: AbortSignal) {
  const runtime = runtimeOf(config);
  const start = Date.now() / 1000;
  const results = await runtime.backend.search(query, { signal });
  const end = Date.now() / 1000;
  metricsOf(runtime, sessionId).async_tavily_calls.push({ function: fn, status: "success", start_time: start, end_time: end, time_taken: end - start });
  if (config.debug) runtime.log(`Received the following Tavily response: ${JSON.stringify(results).slice(0, 2000)}`);
  return results;
}

const firstRawContent = (results: Record<string, unknown>): string => {
  const list = results.results;
  if (!Array.isArray(list) || list.length === 0) return "";
  const raw = (list[0] as Record<string, unknown>).raw_content;
  return raw === undefined || raw === null ? "" : String(raw);
};

const optionalString = z.string().nullish().transform((value) => value ?? null);

// The parameters the model sees (NeMo Gym's dataset rows): web_search is not strict there.
const WEB_SEARCH_SCHEMA = { type: "object", properties: { query: { type: "string", description: "The term to search for" } }, required: ["query"], additionalProperties: false };
const FIND_IN_PAGE_SCHEMA = {
  type: "object",
  properties: { url: { type: "string", description: "The URL of the page to search" }, query: { type: "string", description: "What to look for in the page" } },
  required: ["url", "query"],
  additionalProperties: false,
};
const SCROLL_PAGE_SCHEMA = {
  type: "object",
  properties: {
    url: { type: "string", description: "The URL of the page to read" },
    start_index: { type: "integer", description: "Index of the first word to show (default 0)" },
    n: { type: "integer", description: "How many words to show (default 2000)" },
  },
  required: ["url"],
  additionalProperties: false,
};

const tavilySearch = resourcesServer({
  name: "TavilySearchResourcesServer",
  config: Config,
  tools: {
    web_search: tool({
      description: "Search the web for a query and return up to 10 search results with <link, summary> for each result.",
      input: z.object({ query: optionalString }),
      modelSchema: WEB_SEARCH_SCHEMA,
      strict: false,
      run: async (_state, { query }, { config, sessionId, signal }) => {
        if (config.debug) runtimeOf(config).log(`body.query: ${query}`);
        if (query === null) return { results_string: "Query is none" };
        if (pythonLen(query) > 400) return { results_string: "Query is too long" };
        return { results_string: formatSearchResults(await tavily(config, sessionId, "search", { op: "search", query }, signal)) };
      },
    }),
    find_in_page: tool({
      description: "Read a web page (from a search result) and return its content relevant to a query, with line numbers.",
      input: z.object({ url: optionalString, query: optionalString }),
      modelSchema: FIND_IN_PAGE_SCHEMA,
      strict: false,
      run: async (_state, { url, query }, { config, sessionId, signal }) => {
        if (url === null) return { results_string: "URL is none" };
        if (query === null) return { results_string: "Query is none" };
        if (isUrlExcluded(url, runtimeOf(config).excludeDomains)) return { results_string: "URL is in excluded domains" };
        const raw = firstRawContent(await tavily(config, sessionId, "extract", { op: "extract", url, query }, signal));
        if (!raw) return { results_string: "No content found." };
        const [truncated, wasTruncated] = truncateText(cleanText(raw));
        const header = `Content from: ${extractDomain(url)}\nURL: ${url}\nQuery: "${query}"\n========================================\n`;
        return { results_string: header + addLineNumbers(truncated) + (wasTruncated ? "\n[...truncated, use scroll_page for full content]" : "") };
      },
    }),
    scroll_page: tool({
      description: "Read a window of a web page's words: n words from start_index, with line numbers.",
      input: z.object({ url: optionalString, start_index: z.number().int().default(0), n: z.number().int().default(2000) }),
      modelSchema: SCROLL_PAGE_SCHEMA,
      strict: false,
      run: async (_state, { url, start_index, n }, { config, sessionId, signal }) => {
        if (url === null) return { results_string: "URL is none", total_words: 0 };
        if (isUrlExcluded(url, runtimeOf(config).excludeDomains)) return { results_string: "URL is in excluded domains", total_words: 0 };
        // NeMo Gym keeps each page for the life of the server; the backend's cache does that here.
        const words = splitWhitespace(firstRawContent(await tavily(config, sessionId, "extract", { op: "extract", url }, signal)));
        const numbered = addLineNumbers(cleanText(sliceWords(words, start_index, n).join(" ")));
        const end = Math.min(start_index + n, words.length);
        const header = `Page content from: ${extractDomain(url)}\nURL: ${url}\nShowing words [${start_index}-${end}] of ${words.length}\n========================================\n`;
        return { results_string: header + numbered, total_words: words.length };
      },
    }),
  },
  verify: {
    input: z.looseObject({ ground_truth: z.string(), question: z.string() }),
    async run(_state, body, { config, server, sessionId }) {
      const { responses_create_params: _p, response, ...row } = body;
      const answerText = responseOutputText(response);
      let evaluation: Record<string, unknown>;
      if (config.use_judge) {
        const prompt = pythonFormat(runtimeOf(config).template!, [], { question: body.question, correct_answer: body.ground_truth, response: answerText });
        const judged = await askJudge(server, judgeEndpoint(config), [{ role: "user", content: prompt }], { row: body });
        const last = judged.response.output.at(-1) as { content?: { text?: unknown }[] } | undefined;
        const grading = last?.content?.at(-1)?.text;
        if (typeof grading !== "string") throw new JudgeError("the judge's last output item has no text (NeMo Gym reads output[-1].content[-1].text)");
        const extracted = /correct: (yes|no)/.exec(grading)?.[1] ?? "";
        evaluation = { judge_response_create_params: judged.params, reasoning: grading, extracted_final_answer: extracted, reward: extracted === "yes" ? 1.0 : 0.0, judge_response: judged.response };
      } else {
        evaluation = regexEvaluation(body.ground_truth, answerText);
      }
      const metrics = metricsOf(runtimeOf(config), sessionId);
      return {
        ...row,
        ...(evaluation as { reward: number }),
        num_tool_calls: response.output.filter((item) => item.type === "function_call").length,
        metrics,
      };
    },
  },
  reverifyMode: "unsupported",
});

/** `_verify_answer_with_regex`: the last `Answer: … Confidence:` line's answer, compared exactly. */
export function regexEvaluation(groundTruth: string, text: string): { judge_response_create_params: unknown; reasoning: string; extracted_final_answer: string; reward: number; judge_response: null } {
  const SPACE = "[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
  const matches = [...text.matchAll(new RegExp(`Answer:${SPACE}*([^\\n]*)${SPACE}*Confidence:`, "giu"))];
  const answer = matches.length > 0 ? matches.at(-1)![1]!.trim() : "";
  const found = answer === groundTruth;
  return { judge_response_create_params: { input: [] }, reasoning: `Regex match for '${groundTruth}': ${found ? "found" : "not found"}`, extracted_final_answer: answer, reward: found ? 1.0 : 0.0, judge_response: null };
}

const definition: typeof tavilySearch = {
  ...tavilySearch,
  async register(app, context) {
    const { config, log } = context;
    if (config.use_judge && (!config.judge_model_server || !config.judge_responses_create_params)) {
      throw new UserError("tavily_search: use_judge is true but judge_model_server or judge_responses_create_params is not set");
    }
    const excludeDomains = parseExcludeDomains(resolve(config.exclude_domains_file_path));
    const template = config.use_judge ? await readServerPromptFile(SERVER_DIR, config.judge_prompt_template_fpath, NEMO_GYM_PROMPTS, { onFetched: (dest, url) => log.info(`fetched NeMo Gym's judge prompt from ${url} into ${dest}`) }) : undefined;
    const backend = buildBackend(config, excludeDomains);
    runtimes.set(config, { backend, excludeDomains, template, metrics: new Map(), log: (line) => log.info(line) });
    log.info(`Excluded domains: ${JSON.stringify(excludeDomains)}`);
    app.addHook("onClose", async () => {
      if (config.dump_session_id_to_metrics_on_exit) {
        const out = join(SERVER_DIR, "session_id_metrics.json");
        log.info(`Dumping session_id metrics to ${out}`);
        writeFileSync(out, JSON.stringify(Object.fromEntries(runtimeOf(config).metrics)));
      }
      await backend.close();
    });
    await tavilySearch.register(app, context);
  },
};
export default definition;
