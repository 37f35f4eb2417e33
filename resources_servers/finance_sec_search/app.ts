// Finance SEC search (NeMo Gym's finance_sec_search): financial questions answered from SEC EDGAR filings with five
// tools — `sec_filing_search` (a company's filings by ticker), `parse_html_page` (a page's text saved under a key in
// the session's data storage), `retrieve_information` (an LLM prompt over saved documents, `{{key}}` placeholders),
// `web_search` (Tavily) and `submit_final_result` — graded on the submitted answer only (the hard gate) by a
// `[[0]]/[[1]]/[[2]]` judge, or by a case-insensitive substring match when no judge is configured.
//
// SEC.gov and Tavily are reached through the project's search backend (src/client/search-backend.ts): the fixture
// backend answers both from one local JSONL file (`search_fixture_path`), else a provider backend each (EDGAR: GETs
// with NeMo Gym's User-Agent; Tavily: POST /search with tavily_api_key).
//
// On purpose unlike NeMo Gym: an SEC.gov, Tavily or retrieval-model call that fails after its retries is a typed
// failure (HTTP 502; 503 on a fixture miss), never an error text handed to the model or a reward 0.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { parse as parseYaml } from "yaml";
import { askJudge, JudgeError, judgeEndpoint, readServerPromptFile, resourcesServer, tool, type NemoGymText } from "../../src/server/index.ts";
import { ServerConfigError as UserError } from "../../src/server/config-error.ts";
import { pythonJsonDumps, pythonJsonDumpsTyped } from "../../src/python/json-dumps.ts";
import { ProviderSearchBackend, searchBackendFromConfig, type SearchBackend, type SearchBackendConfig, type SearchQuery, searchBackendConfigShape } from "../../src/client/search-backend.ts";
import { HttpClient } from "../../src/client/http-client.ts";
import { parseHtmlToText } from "./html.ts";
import { TOOL_DEFINITIONS as T } from "./tool-schemas.ts";

const SERVER_DIR = import.meta.dirname;
const TAVILY_BASE_URL = "https://api.tavily.com";
const TICKERS_URL = "https://www.sec.gov/files/company_tickers.json";

/** NeMo Gym's two prompt files, fetched (pinned) into these git-ignored paths when absent. */
const NEMO_GYM_PROMPTS: Readonly<Record<string, NemoGymText>> = {
  "prompt_templates/finance_sec_search_judge.yaml": { repoPath: "resources_servers/finance_sec_search/prompt_templates/finance_sec_search_judge.yaml", extract: { kind: "file" } },
  "prompt_templates/finance_sec_search_retrieval.yaml": { repoPath: "resources_servers/finance_sec_search/prompt_templates/finance_sec_search_retrieval.yaml", extract: { kind: "file" } },
};

const ModelRef = z.looseObject({ type: z.string().optional(), name: z.string() });
const Config = z.looseObject({
  cache_dir: z.string().nullish(),
  use_cache: z.boolean().default(false),
  user_agent: z.string().default("Gym-SEC-Search/1.0 (research@nvidia.com)"),
  requests_per_second: z.number().int().positive().default(10),
  tavily_api_key: z.string().nullish(),
  retrieval_model_server: ModelRef.nullish(),
  judge_model_server: ModelRef.nullish(),
  judge_responses_create_params: z.record(z.string(), z.unknown()).nullish(),
  judge_prompt_template: z.string().nullish(),
  judge_prompt_template_fpath: z.string().default("prompt_templates/finance_sec_search_judge.yaml"),
  retrieval_responses_create_params: z.record(z.string(), z.unknown()).nullish(),
  retrieval_system_prompt: z.string().nullish(),
  retrieval_system_prompt_fpath: z.string().default("prompt_templates/finance_sec_search_retrieval.yaml"),
  large_doc_threshold_chars: z.number().int().default(100000),
  reward_mode: z.enum(["binary", "scaled"]).default("binary"),
  retrieval_max_output_tokens: z.number().int().nullish(),
  retrieval_model_context_length: z.number().int().default(131072),
  max_filing_results: z.number().int().default(200),
  request_timeout: z.number().positive().default(30),
  max_connections_per_host: z.number().int().positive().default(10),
  max_retries: z.number().int().positive().default(3),
  sec_dump_path: z.string().nullish(),
  max_rollout_time_seconds: z.number().nullish(),
  max_end_date: z.string().nullish(),
  judge_call_timeout: z.number().nullish().default(60),
  // Ours.
  /** The first wait (s) before a judge retry, doubled per retry (NeMo Gym: 1 s). */
  judge_retry_backoff_s: z.number().nonnegative().default(1),
  /** SEC.gov's origin (tests point it at loopback): `https://www.sec.gov/<path>` and `https://data.sec.gov/<path>` go to `<sec_base_url>/<path>`. */
  sec_base_url: z.string().nullish(),
  ...searchBackendConfigShape,
});
type Config = z.output<typeof Config>;

interface Filing {
  ticker: string;
  cik: string;
  form: string;
  filing_date: string;
  report_date: string;
  accession_number: string;
  primary_document: string;
  filing_url: string;
}

interface Runtime {
  edgar: SearchBackend<unknown>;
  tavily: SearchBackend<Record<string, unknown>> | undefined;
  tickers: Map<string, { cik: string; name: string }>;
  filings: Map<string, Promise<Map<string, Filing>>>;
  judgeTemplate: string;
  retrievalPrompt: string;
}
const runtimes = new WeakMap<object, Runtime>();
const runtimeOf = (config: Config): Runtime => {
  const runtime = runtimes.get(config);
  if (!runtime) throw new Error("finance_sec_search: not started");
  return runtime;
};

interface State {
  storage: Map<string, string>;
  start: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers (each named after NeMo Gym's)

/** `_coerce_stringified_collection`: a list/dict sent as a JSON (or Python-literal) string. */
export function coerceStringifiedCollection(value: unknown): unknown {
  if (typeof value !== "string") return value;
  for (const text of [value, pythonLiteralToJson(value)]) {
    try {
      const parsed = JSON.parse(text);
      if (parsed !== null && typeof parsed === "object") return parsed;
    } catch {
      /* next */
    }
  }
  return value;
}
/** Python repr of a list/dict of strings, numbers, True/False/None, as JSON (single quotes → double). */
function pythonLiteralToJson(text: string): string {
  return text
    .replace(/'((?:[^'\\]|\\.)*)'/g, (_m, body: string) => JSON.stringify(body.replace(/\\'/g, "'")))
    .replace(/\bTrue\b/g, "true")
    .replace(/\bFalse\b/g, "false")
    .replace(/\bNone\b/g, "null");
}

/** `_parse_sec_url`. */
export function parseSecUrl(url: string): { cik: string; accession_number: string; document: string } | undefined {
  const match = /sec\.gov\/Archives\/edgar\/data\/(\d+)\/(\d+)\/([^?#]*)/.exec(url);
  if (!match) return undefined;
  const acc = match[2]!;
  return {
    cik: match[1]!.padStart(10, "0"),
    accession_number: acc.length === 18 ? `${acc.slice(0, 10)}-${acc.slice(10, 12)}-${acc.slice(12)}` : acc,
    document: match[3]!.replace(/^\/+|\/+$/g, ""),
  };
}

/** `_parse_filings_columns`. */
export function parseFilingsColumns(columns: Record<string, unknown>, cik: string, ticker: string): Map<string, Filing> {
  const col = (name: string) => (Array.isArray(columns[name]) ? (columns[name] as unknown[]) : []);
  const [acc, forms, dates, reports, docs] = ["accessionNumber", "form", "filingDate", "reportDate", "primaryDocument"].map(col) as unknown[][];
  const n = Math.min(acc!.length, forms!.length, dates!.length, reports!.length, docs!.length);
  const filings = new Map<string, Filing>();
  for (let i = 0; i < n; i++) {
    const accession = String(acc![i]);
    const nodash = accession.replaceAll("-", "");
    filings.set(nodash, {
      ticker,
      cik,
      form: String(forms![i]),
      filing_date: String(dates![i]),
      report_date: String(reports![i]),
      accession_number: accession,
      primary_document: String(docs![i]),
      filing_url: `https://www.sec.gov/Archives/edgar/data/${cik.replace(/^0+/, "")}/${nodash}/${String(docs![i])}`,
    });
  }
  return filings;
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
/** `_validate_and_clamp_dates` (throws an Error whose message NeMo Gym hands the model). */
export function validateAndClampDates(maxEndDate: string | null | undefined, start: string | null | undefined, end: string | null | undefined, defaultStart = "1900-01-01"): [string, string | undefined] {
  let endDate = end ?? undefined;
  if (endDate) {
    if (!DATE_RE.test(endDate)) throw new Error(`Invalid end_date format: '${endDate}'. Expected YYYY-MM-DD.`);
    if (maxEndDate && endDate > maxEndDate) endDate = maxEndDate;
  } else if (maxEndDate) endDate = maxEndDate;
  let startDate = start ?? undefined;
  if (startDate) {
    if (!DATE_RE.test(startDate)) throw new Error(`Invalid start_date format: '${startDate}'. Expected YYYY-MM-DD.`);
    if (maxEndDate && startDate > maxEndDate) startDate = maxEndDate;
  } else startDate = defaultStart;
  if (startDate && endDate && startDate > endDate) throw new Error(`start_date '${startDate}' is later than end_date '${endDate}'.`);
  return [startDate, endDate];
}

/** Python's repr of a list of strings (`['10-K', '10-Q']`), for the no-filings message. */
const reprList = (items: string[]) => `[${items.map((s) => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`)).join(", ")}]`;

// ---------------------------------------------------------------------------------------------------------------
// SEC.gov

/** A GET of one SEC.gov (or any) URL through the EDGAR backend: the page's text (a fixture may hold JSON for a JSON URL). */
async function secGet(config: Config, url: string, signal?: AbortSignal): Promise<unknown> {
  return runtimeOf(config).edgar.search({ op: "get", url }, { signal });
}
const asJson = (body: unknown): unknown => (typeof body === "string" ? JSON.parse(body) : body);
const asText = (body: unknown): string => (typeof body === "string" ? body : JSON.stringify(body));

function buildEdgarBackend(config: Config, http: HttpClient): SearchBackend<unknown> {
  return searchBackendFromConfig<unknown>(config as SearchBackendConfig, SERVER_DIR, (settings) =>
    new ProviderSearchBackend<unknown>({
      http,
      provider: "sec_edgar",
      // SEC.gov needs no key; its rule is a User-Agent naming the caller, which takes the key's place.
      apiKey: { configKey: "user_agent", value: config.user_agent },
      ...settings,
      // NeMo Gym's max_retries counts attempts; request_timeout bounds one attempt; requests_per_second spaces them.
      maxRetries: config.search_max_retries ?? config.max_retries - 1,
      attemptDeadlineMs: settings.attemptDeadlineMs ?? config.request_timeout * 1000,
      requestsPerSecond: settings.requestsPerSecond ?? config.requests_per_second,
      cachePath: config.use_cache ? join(cacheDir(config), "sec_edgar.sqlite") : null,
      cache: config.use_cache,
      buildRequest(query: SearchQuery, userAgent: string) {
        let url = String((query as { url: string }).url);
        if (config.sec_base_url) url = url.replace(/^https?:\/\/(www|data)\.sec\.gov/, config.sec_base_url.replace(/\/+$/, ""));
        return { url, method: "GET", headers: { "user-agent": userAgent } };
      },
      parseResponse: (response) => response.text,
    }),
  );
}

function buildTavilyBackend(config: Config): SearchBackend<Record<string, unknown>> | undefined {
  if (!config.search_fixture_path && !config.tavily_api_key) return undefined;
  return searchBackendFromConfig<Record<string, unknown>>(config as SearchBackendConfig, SERVER_DIR, (settings) =>
    new ProviderSearchBackend<Record<string, unknown>>({
      provider: "tavily",
      apiKey: { configKey: "tavily_api_key", value: config.tavily_api_key },
      ...settings,
      // NeMo Gym tries a Tavily search 3 times.
      maxRetries: settings.maxRetries ?? 2,
      buildRequest(query: SearchQuery, key: string) {
        const { op: _op, ...body } = query as Record<string, unknown>;
        return { url: `${(config.search_base_url ?? TAVILY_BASE_URL).replace(/\/+$/, "")}/search`, headers: { authorization: `Bearer ${key}` }, json: body };
      },
      parseResponse: (response) => {
        const body = response.json<Record<string, unknown>>();
        if (body === null || typeof body !== "object" || Array.isArray(body)) throw new Error("not a JSON object");
        return body;
      },
    }),
  );
}

function cacheDir(config: Config): string {
  if (!config.cache_dir) return join(homedir(), ".cache", "nemo_gym", "finance_sec_search");
  return isAbsolute(config.cache_dir) ? config.cache_dir : resolve(process.cwd(), config.cache_dir);
}

/** `_get_company_filings`: memory → SEC.gov (the backend's cache stands for NeMo Gym's disk cache); one fetch per CIK. */
function companyFilings(config: Config, cik: string, ticker: string, signal?: AbortSignal): Promise<Map<string, Filing>> {
  const runtime = runtimeOf(config);
  const padded = cik.padStart(10, "0");
  let pending = runtime.filings.get(padded);
  if (!pending) {
    pending = (async () => {
      const data = asJson(await secGet(config, `https://data.sec.gov/submissions/CIK${padded}.json`, signal)) as { filings?: { recent?: Record<string, unknown>; files?: { name?: string }[] } };
      const filingsData = data?.filings ?? {};
      const filings = parseFilingsColumns(filingsData.recent ?? {}, cik, ticker);
      for (const ref of filingsData.files ?? []) {
        if (!ref?.name) continue;
        const extra = asJson(await secGet(config, `https://data.sec.gov/submissions/${ref.name}`, signal)) as Record<string, unknown>;
        for (const [k, v] of parseFilingsColumns(extra ?? {}, cik, ticker)) filings.set(k, v);
      }
      return filings;
    })();
    runtime.filings.set(padded, pending);
    // A failed fetch is not remembered (NeMo Gym caches only what it parsed).
    pending.catch(() => runtime.filings.delete(padded));
  }
  return pending;
}

/** `_lookup_dump`: `{sec_dump_path}/{TICKER}/{FORM}/{YEAR}/{ACCESSION}/primary-document.html`, from known metadata. */
async function lookupDump(config: Config, url: string): Promise<string | undefined> {
  if (!config.sec_dump_path) return undefined;
  const parts = parseSecUrl(url);
  if (!parts) return undefined;
  const pending = runtimeOf(config).filings.get(parts.cik);
  const meta = pending ? (await pending.catch(() => undefined))?.get(parts.accession_number.replaceAll("-", "")) : undefined;
  if (!meta) return undefined;
  const form = meta.form.replaceAll("/", "_");
  const year = meta.report_date.length >= 4 ? meta.report_date.slice(0, 4) : "";
  if (!meta.ticker || !form || !year || !meta.accession_number) return undefined;
  const path = join(config.sec_dump_path, meta.ticker, form, year, meta.accession_number, "primary-document.html");
  if (!existsSync(path)) return undefined;
  try {
    return parseHtmlToText(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Tools

const optionalStringList = z.preprocess(coerceStringifiedCollection, z.array(z.string()).nullish());
const timeBudgetError = (config: Config, state: State | undefined): string | undefined => {
  if (!config.max_rollout_time_seconds || !state) return undefined;
  const elapsed = (performance.now() - state.start) / 1000;
  if (elapsed <= config.max_rollout_time_seconds) return undefined;
  return pythonJsonDumps({
    error: `Time budget exhausted (${elapsed.toFixed(0)}s / ${config.max_rollout_time_seconds.toFixed(0)}s). No further tool calls will be executed. Call submit_final_result immediately with your best answer.`,
  });
};

const RETRIEVE_PROMPT_DESCRIPTION =
  "An LLM prompt applied to your saved documents. You MUST include at least one data-storage key using the exact double-brace format {{key_name}} -- for example: 'Summarize this 10-K filing: {{company_10k}}'. The full text stored under each key replaces its {{key_name}} placeholder before the prompt is sent. If you do not use this exact {{key_name}} format, the tool will fail.";

const financeSecSearch = resourcesServer({
  name: "FinanceAgentResourcesServer",
  config: Config,
  state: (): State => ({ storage: new Map(), start: performance.now() }),
  tools: {
    sec_filing_search: tool({
      description: T.sec_filing_search.description,
      modelSchema: T.sec_filing_search.parameters,
      strict: false,
      input: z.object({
        ticker: z.string().describe("Stock ticker symbol (e.g., 'AAPL', 'MSFT', 'NVDA')"),
        form_types: optionalStringList.describe("(optional) Limits search to specific EDGAR form types (e.g., ['10-K', '10-Q', '8-K']). Default: all form types."),
        start_date: z.string().nullish().describe("(optional) Filter filings on or after this date (YYYY-MM-DD)"),
        end_date: z.string().nullish().describe("(optional) Filter filings on or before this date (YYYY-MM-DD)"),
      }),
      run: async (state: State | undefined, body, { config, signal }) => {
        const late = timeBudgetError(config, state);
        if (late) return { results: late };
        const query = body.ticker.trim().toUpperCase();
        const info = runtimeOf(config).tickers.get(query);
        if (!info) {
          return {
            results: pythonJsonDumps({
              error: `No company found for ticker '${body.ticker}'`,
              suggestion: "Use the exact stock ticker symbol (e.g., 'AAPL' for Apple, 'MSFT' for Microsoft). Note: only companies listed at https://www.sec.gov/files/company_tickers.json are supported.",
            }),
          };
        }
        const filings = await companyFilings(config, info.cik, query, signal);
        const formTypes = body.form_types ?? undefined;
        let all = [...filings.values()]
          .filter((f) => !formTypes || formTypes.length === 0 || formTypes.includes(f.form))
          .map((f) => ({ ticker: query, company_name: info.name, form: f.form, filing_date: f.filing_date ?? "", report_date: f.report_date ?? "", accession_number: f.accession_number ?? "", filing_url: f.filing_url ?? "" }));
        // Python's sort is stable: equal dates keep insertion order.
        all.sort((a, b) => (a.filing_date < b.filing_date ? 1 : a.filing_date > b.filing_date ? -1 : 0));
        if (body.start_date) all = all.filter((r) => r.filing_date >= body.start_date!);
        if (body.end_date) all = all.filter((r) => r.filing_date <= body.end_date!);
        all = all.slice(0, Math.max(0, config.max_filing_results));
        if (all.length === 0) {
          const filters: string[] = [];
          if (formTypes && formTypes.length > 0) filters.push(`form types ${reprList(formTypes)}`);
          if (body.start_date) filters.push(`start_date=${body.start_date}`);
          if (body.end_date) filters.push(`end_date=${body.end_date}`);
          const filterMsg = filters.length > 0 ? ` with ${filters.join(", ")}` : "";
          return { results: pythonJsonDumps({ error: `No filings found for '${body.ticker}'${filterMsg}`, suggestion: "Try broadening your search: remove form_types filter, widen the date range, or check the ticker symbol." }) };
        }
        return { results: pythonJsonDumpsTyped(all, { indent: 2 }) };
      },
    }),
    parse_html_page: tool({
      description: T.parse_html_page.description,
      modelSchema: T.parse_html_page.parameters,
      strict: false,
      input: z.object({
        url: z.string().describe("The URL of the HTML page to parse"),
        key: z.string().describe("The key to use when saving the result in the conversation's data storage."),
      }),
      run: async (state: State | undefined, { url, key }, { config, signal }) => {
        const late = timeBudgetError(config, state);
        if (late) return { results: late };
        if (!url) return { results: "ERROR: url is required." };
        if (!key) return { results: "ERROR: key is required." };
        if (!state) throw new UserError("parse_html_page: call /seed_session first (the data storage is per session)");
        let text: string | undefined;
        if (parseSecUrl(url)) {
          text = await lookupDump(config, url);
          if (text === undefined) text = parseHtmlToText(asText(await secGet(config, url, signal)));
          if (!text) return { results: "Filing content was empty after parsing." };
        } else {
          text = parseHtmlToText(asText(await secGet(config, url, signal)));
          if (!text) return { results: "HTML output was empty" };
        }
        let result = state.storage.has(key) ? "WARNING: The key already exists in the data storage. The new result overwrites the old one.\n" : "";
        result += `SUCCESS: The result has been saved to the data storage under the key: ${key}.\n`;
        state.storage.set(key, text);
        result += `The data_storage currently contains the following keys:\n${[...state.storage.keys()].join("\n")}\n`;
        return { results: result };
      },
    }),
    retrieve_information: tool({
      description: T.retrieve_information.description,
      modelSchema: T.retrieve_information.parameters,
      strict: false,
      input: z.object({
        prompt: z.string().describe(RETRIEVE_PROMPT_DESCRIPTION),
        input_character_ranges: z.preprocess(coerceStringifiedCollection, z.array(z.record(z.string(), z.unknown())).nullish()).describe("Optional list of character ranges: [{'key': 'doc', 'start': 0, 'end': 100000}]"),
      }),
      run: async (state: State | undefined, body, { config, server, signal }) => {
        const late = timeBudgetError(config, state);
        if (late) return { results: late };
        if (!config.retrieval_model_server) return { results: "ERROR: Retrieval model not configured. Set retrieval_model_server in config." };
        const storage = state?.storage ?? new Map<string, string>();
        const keys = [...body.prompt.matchAll(/\{\{([^{}]+)\}\}/g)].map((m) => m[1]!);
        if (keys.length === 0) {
          return { results: "ERROR: Your prompt must include at least one key from data storage in the format {{key_name}}. Please try again with the correct format. You can add documents to the data storage with parse_html_page." };
        }
        for (const key of keys) {
          if (!storage.has(key)) {
            return { results: `ERROR: The key '${key}' was not found in the data storage. Available keys are: ${[...storage.keys()].join(", ")}. Use the parse_html_page tool to add keys to the data storage.` };
          }
        }
        const ranges = new Map<string, [number, number]>();
        for (const r of body.input_character_ranges ?? []) if ("key" in r && "start" in r && "end" in r) ranges.set(String(r.key), [Number(r.start), Number(r.end)]);
        let prompt = body.prompt;
        for (const key of keys) {
          let content = storage.get(key)!;
          const range = ranges.get(key);
          if (range) content = pySlice(content, range[0], range[1]);
          prompt = prompt.replaceAll(`{{${key}}}`, content);
        }
        const params = { ...(config.retrieval_responses_create_params ?? {}) };
        if (params.max_output_tokens === undefined || params.max_output_tokens === null) {
          if (config.retrieval_max_output_tokens === null || config.retrieval_max_output_tokens === undefined) delete params.max_output_tokens;
          else params.max_output_tokens = config.retrieval_max_output_tokens;
        }
        const endpoint = judgeEndpoint({ judge_model_server: config.retrieval_model_server, judge_responses_create_params: params });
        const answer = await askJudge(server, endpoint, [
          { role: "system", content: runtimeOf(config).retrievalPrompt },
          { role: "user", content: prompt },
        ], { signal });
        let text = "";
        for (const item of answer.response.output) {
          if (item.type !== "message") continue;
          for (const part of (item as { content?: { type?: string; text?: string }[] }).content ?? []) if (part.type === "output_text") text += part.text ?? "";
        }
        if (!text) {
          const response = answer.response as { incomplete_details?: { reason?: string } | null; status?: string; error?: unknown };
          const parts: string[] = [];
          if (response.incomplete_details?.reason) parts.push(`incomplete_details.reason=${response.incomplete_details.reason}`);
          if (response.status) parts.push(`status=${response.status}`);
          if (response.error !== undefined && response.error !== null) parts.push(`error=${JSON.stringify(response.error)}`);
          return { results: `ERROR: Retrieval LLM returned no output.${parts.length > 0 ? ` (${parts.join(", ")})` : ""}` };
        }
        return { results: text };
      },
    }),
    submit_final_result: tool({
      description: T.submit_final_result.description,
      modelSchema: T.submit_final_result.parameters,
      strict: false,
      input: z.object({ final_result: z.string().describe("The final result to submit") }),
      run: (_state: State | undefined, { final_result }) => (final_result ? { results: pythonJsonDumps({ success: true, result: final_result }) } : { results: "ERROR: final_result is required. Please provide your answer." }),
    }),
    web_search: tool({
      description: T.web_search.description,
      modelSchema: T.web_search.parameters,
      strict: false,
      input: z.object({
        search_query: z.string().describe("The query to search for"),
        start_date: z.string().nullish().describe("Start date for search range (YYYY-MM-DD)"),
        end_date: z.string().nullish().describe("End date for search range (YYYY-MM-DD)"),
        number_of_results: z.number().int().min(1).max(20).nullish().default(10).describe("Number of search results to return"),
      }),
      run: async (state: State | undefined, body, { config, signal }) => {
        const late = timeBudgetError(config, state);
        if (late) return { results: late };
        const tavily = runtimeOf(config).tavily;
        if (!tavily) return { results: pythonJsonDumps({ error: "web_search is not available. Use sec_filing_search, parse_html_page, and retrieve_information instead." }) };
        if (!body.search_query.trim()) return { results: pythonJsonDumps({ error: "search_query is required and cannot be empty." }) };
        let endDate: string | undefined;
        const extra: Record<string, string> = {};
        try {
          endDate = validateAndClampDates(config.max_end_date, null, body.end_date)[1];
          if (body.start_date) {
            const [start, end] = validateAndClampDates(config.max_end_date, body.start_date, endDate);
            extra.start_date = start;
            endDate = end;
          }
        } catch (error) {
          return { results: pythonJsonDumps({ error: (error as Error).message }) };
        }
        // tavily-python leaves unset (None) parameters out of its request body.
        const query: Record<string, string | number> = { op: "search", query: body.search_query, search_depth: "fast", ...(endDate ? { end_date: endDate } : {}), max_results: Math.min(body.number_of_results || 10, 20), chunks_per_source: 1, ...extra };
        const raw = await tavily.search(query, { signal });
        return { results: pythonJsonDumps(raw.results ?? []) };
      },
    }),
  },
  unknownTool: {
    run: (_state, name) => ({ results: pythonJsonDumps({ error: `Tool '${name}' does not exist. Available tools: sec_filing_search, parse_html_page, retrieve_information, submit_final_result, web_search` }) }),
  },
  verify: {
    input: z.looseObject({ question: z.string(), expected_answer: z.string() }),
    async run(state, body, { config, server, signal }) {
      if (state) state.storage.clear();
      let question = "";
      const input = body.responses_create_params.input;
      for (const message of Array.isArray(input) ? input : []) {
        const m = message as { role?: string; content?: unknown };
        if (m.role === "user" && typeof m.content === "string") question = m.content;
      }
      // The hard gate: only an answer submitted with submit_final_result is graded (the last such call).
      let answer = "";
      let called = false;
      for (const item of [...body.response.output].reverse()) {
        if (item.type !== "function_call" || (item as { name?: string }).name !== "submit_final_result") continue;
        called = true;
        try {
          const args = JSON.parse(String((item as { arguments?: string }).arguments ?? "{}"));
          const value = args?.final_result;
          answer = typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
        } catch {
          /* unparsable arguments: no answer */
        }
        break;
      }
      const { responses_create_params, response, ...row } = body;
      const base = { ...row, responses_create_params, response, expected_answer: body.expected_answer };
      if (!called || !answer) {
        return { ...base, reward: 0.0, judge_rating: 0, judge_text: "Hard gate: submit_final_result tool call missing or empty. The agent must submit its final answer via submit_final_result to be graded." };
      }
      if (!config.judge_model_server) {
        return { ...base, reward: answer.toLowerCase().includes(body.expected_answer.toLowerCase()) ? 1.0 : 0.0, judge_rating: null, judge_text: null };
      }
      const prompt = runtimeOf(config).judgeTemplate.replaceAll("{question}", question).replaceAll("{expected_answer}", body.expected_answer).replaceAll("{generated_answer}", answer);
      const endpoint = judgeEndpoint(config);
      let judgeText = "";
      let rating: number | null = null;
      const TRIES = 3;
      for (let attempt = 0; attempt < TRIES; attempt++) {
        let judged;
        try {
          const timeout = config.judge_call_timeout ? AbortSignal.timeout(config.judge_call_timeout * 1000) : undefined;
          judged = await askJudge(server, endpoint, [{ role: "user", content: prompt }], { row: body, signal: timeout ? AbortSignal.any([timeout, signal]) : signal });
        } catch (error) {
          if (attempt < TRIES - 1 && !signal.aborted) {
            await wait(config.judge_retry_backoff_s * 2 ** attempt);
            continue;
          }
          if (error instanceof JudgeError) throw error;
          throw new JudgeError(`the judge failed after ${TRIES} attempts: ${(error as Error).message}`);
        }
        judgeText = "";
        const last = judged.response.output.at(-1) as { type?: string; content?: { text?: unknown }[] } | undefined;
        if (last?.type === "message") {
          const text = last.content?.at(-1)?.text;
          judgeText = typeof text === "string" ? text : "";
        }
        const match = /\[\[(\d+)\]\]/.exec(judgeText);
        rating = match ? Number.parseInt(match[1]!, 10) : null;
        if (rating !== null) break;
        if (attempt < TRIES - 1) await wait(config.judge_retry_backoff_s * 2 ** attempt);
      }
      const reward = config.reward_mode === "scaled" ? ({ 0: 0.0, 1: 0.5, 2: 1.0 } as Record<number, number>)[rating ?? -1] ?? 0.0 : rating === 2 ? 1.0 : 0.0;
      return { ...base, reward, judge_rating: rating, judge_text: judgeText };
    },
  },
  reverifyMode: "unsupported",
  refusedConfigKeys: {},
});

const wait = (seconds: number) => new Promise<void>((done) => setTimeout(done, seconds * 1000));

/** Python's str[start:end] over code points (negative indices count from the end). */
function pySlice(text: string, start: number, end: number): string {
  const chars = [...text];
  const clamp = (i: number) => (i < 0 ? Math.max(0, chars.length + i) : Math.min(i, chars.length));
  return chars.slice(clamp(Math.trunc(start)), clamp(Math.trunc(end))).join("");
}

/** A prompt: the inline text, else the YAML file's key (NeMo Gym's file is fetched and pinned when absent). */
async function loadPrompt(inline: string | null | undefined, fpath: string, yamlKey: string, onFetched: (dest: string, url: string) => void): Promise<string> {
  if (inline) return inline.trim();
  const text = await readServerPromptFile(SERVER_DIR, fpath, NEMO_GYM_PROMPTS, { onFetched });
  const parsed = parseYaml(text) as Record<string, unknown> | null;
  const value = parsed?.[yamlKey];
  if (typeof value !== "string") throw new UserError(`${fpath}: expected a YAML mapping with a string ${yamlKey}`);
  return value.trim();
}

const definition: typeof financeSecSearch = {
  ...financeSecSearch,
  async register(app, context) {
    const { config, log } = context;
    const onFetched = (dest: string, url: string) => log.info(`fetched NeMo Gym's prompt from ${url} into ${dest}`);
    const judgeTemplate = await loadPrompt(config.judge_prompt_template, config.judge_prompt_template_fpath, "judge_prompt_template", onFetched);
    const retrievalPrompt = await loadPrompt(config.retrieval_system_prompt, config.retrieval_system_prompt_fpath, "retrieval_system_prompt", onFetched);
    if (config.use_cache) mkdirSync(cacheDir(config), { recursive: true });
    // max_connections_per_host bounds the connections to each SEC.gov origin; request_timeout one attempt.
    const attemptMs = (config.search_attempt_timeout_s ?? config.request_timeout) * 1000;
    const edgarHttp = new HttpClient({ connectTimeoutMs: Math.min(10_000, attemptMs), deadlineMs: attemptMs, maxRetries: 0, connectionsPerOrigin: config.max_connections_per_host });
    const edgar = buildEdgarBackend(config, edgarHttp);
    const tavily = buildTavilyBackend(config);
    const runtime: Runtime = { edgar, tavily, tickers: new Map(), filings: new Map(), judgeTemplate, retrievalPrompt };
    runtimes.set(config, runtime);
    // `_load_tickers_or_fail`: the server does not start without SEC's ticker list.
    let raw: unknown;
    try {
      raw = asJson(await edgar.search({ op: "get", url: TICKERS_URL }));
    } catch (error) {
      await edgar.close();
      await edgarHttp.close();
      throw new UserError(`Failed to load SEC ticker data (${TICKERS_URL}): ${(error as Error).message}. Server cannot start without company_tickers.json.`);
    }
    if (!raw || typeof raw !== "object") throw new UserError(`Failed to load SEC ticker data: ${TICKERS_URL} is not a JSON object`);
    for (const item of Object.values(raw as Record<string, { ticker: string; cik_str: number | string; title: string }>)) {
      runtime.tickers.set(item.ticker, { cik: String(item.cik_str).padStart(10, "0"), name: item.title });
    }
    log.info(`Loaded ${runtime.tickers.size} ticker mappings`);
    if (!tavily) log.info("No tavily_api_key configured — web_search will be unavailable");
    app.addHook("onClose", async () => {
      await edgar.close();
      await edgarHttp.close();
      await tavily?.close();
    });
    await financeSecSearch.register(app, context);
  },
};
export default definition;
