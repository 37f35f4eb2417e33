// Google search (NeMo Gym's google_search): multiple-choice questions answered with two tools, `search` (Google
// Programmable Search, the JSON answer passed to the model as a string) and `browse` (a page's extracted text); the
// reward is 1.0 when the option inside the last assistant message's first \boxed{…} is the expected answer.
//
// Where this port differs from NeMo Gym, on purpose:
//   - A failed provider call is a typed failure (HTTP 502, which an agent files as environment_unavailable), never the
//     text "Error: Unexpected error - …" NeMo Gym hands the model.
//   - `browse`, live, fetches the page as trafilatura.fetch_url does (src/client/web-page.ts) and extracts its main
//     text with Mozilla's Readability instead of trafilatura, which has no TypeScript twin (src/ports/page-text.ts):
//     the same kind of text, not byte-identical. With a search fixture it serves the text stored per URL.
//   - A rollout without a \boxed{…} answer (or whose last output is not an assistant message) scores 0.0 with
//     parsed_option null; NeMo Gym's response model requires a str there, so its /verify answers 500 for it.
import { z } from "zod";
import { HttpError, resourcesServer, tool } from "../../src/server/index.ts";
import { pythonJsonDumps } from "../../src/python/json-dumps.ts";
import { pythonStringRepr } from "../../src/python/repr.ts";
import { pythonSlice, splitWhitespace } from "../../src/python/str.ts";
import {
  ProviderSearchBackend,
  requireApiKey,
  searchBackendConfigShape,
  searchBackendFromConfig,
  FixtureSearchBackend,
  type SearchBackend,
  type SearchBackendConfig,
} from "../../src/client/search-backend.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { fetchWebPage } from "../../src/client/web-page.ts";
import { extractMainText } from "../../src/ports/page-text.ts";

const SERVER_DIR = import.meta.dirname;
const GOOGLE_SEARCH_URL = "https://www.googleapis.com/customsearch/v1";

const Config = z.looseObject({
  google_api_key: z.string().nullish(),
  google_cx: z.string().nullish(),
  ...searchBackendConfigShape,
});
type Config = z.output<typeof Config>;

/** Google's JSON answer for a query string; a browse fixture entry is `{"op": "browse", "url": …}` → text or null. */
function buildBackend(config: Config): SearchBackend {
  return searchBackendFromConfig(config as SearchBackendConfig, SERVER_DIR, (settings) => {
    const cx = requireApiKey("google_cx", config.google_cx, "Google Programmable Search (the search engine id)");
    return new ProviderSearchBackend({
      provider: "google_custom_search",
      apiKey: { configKey: "google_api_key", value: config.google_api_key },
      ...settings,
      attemptDeadlineMs: settings.attemptDeadlineMs ?? 10_000,
      buildRequest(query, key) {
        if (typeof query !== "string") throw new Error("google_search: the live backend only runs search queries");
        const url = new URL(config.search_base_url ?? GOOGLE_SEARCH_URL);
        url.searchParams.set("key", key);
        url.searchParams.set("cx", cx);
        url.searchParams.set("q", query);
        return { url: url.toString() };
      },
      parseResponse: (response) => response.json(),
    });
  });
}

const backends = new WeakMap<object, SearchBackend>();
const backendOf = (config: Config): SearchBackend => {
  const backend = backends.get(config);
  if (!backend) throw new Error("google_search: the search backend was not built at start");
  return backend;
};

/** NeMo Gym's browse post-processing of the extracted text. */
function pageContent(text: unknown): string {
  if (text === null || text === undefined) return "No HTML found";
  let page = String(text);
  // NeMo Gym counts words but cuts characters.
  if (splitWhitespace(page).length > 10000) page = `${pythonSlice(page, 0, 5000)}...${pythonSlice(page, -5000, undefined)}`;
  return page === "" ? "No text found" : page;
}

// ---- verify: NeMo Gym runs its regex over str() of the last message's content list (pydantic reprs) ----

const reprValue = (value: unknown): string => {
  if (value === null || value === undefined) return "None";
  if (typeof value === "string") return pythonStringRepr(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(value);
  if (Array.isArray(value)) return `[${value.map(reprValue).join(", ")}]`;
  return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonStringRepr(k)}: ${reprValue(v)}`).join(", ")}}`;
};

/** `str(message.content)` as Python prints the list of NeMoGymResponseOutputText / Refusal models. */
export function pythonContentRepr(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return reprValue(content);
  const parts = content.map((part: Record<string, unknown>) => {
    if (part?.type === "refusal") return `NeMoGymResponseOutputRefusal(refusal=${reprValue(part.refusal)}, type='refusal')`;
    return `NeMoGymResponseOutputText(annotations=${reprValue(part?.annotations ?? [])}, text=${reprValue(part?.text)}, type='output_text', logprobs=${reprValue(part?.logprobs ?? null)})`;
  });
  return `[${parts.join(", ")}]`;
}

/** NeMo Gym's box_parser: the shortest `\boxed{…}` content, searched in str() of the text. */
export function boxParser(text: string | null): string | null {
  const match = /\\boxed\{([^\n]*?)\}/.exec(text === null ? "None" : text);
  return match ? match[1]! : null;
}

function lastAssistantContentRepr(response: NeMoGymResponse): string | null {
  const last = response.output.at(-1) as { type?: string; role?: string; content?: unknown } | undefined;
  if (last === undefined) throw new HttpError(422, "response.output is empty: NeMo Gym reads its last item");
  return last.type === "message" && last.role === "assistant" ? pythonContentRepr(last.content) : null;
}

export default resourcesServer({
  name: "GoogleSearchResourcesServer",
  config: Config,
  tools: {
    search: tool({
      description: "Search Google for a query and return up to 10 search results.",
      input: z.object({ query: z.string().describe("The term to search for") }),
      run: async (_state, { query }, { config, signal }) => ({ search_results: pythonJsonDumps(await backendOf(config).search(query, { signal })) }),
    }),
    browse: tool({
      description: "Returns the cleaned content of a webpage. If the page is too long, it will be truncated to 10,000 words.",
      input: z.object({ url: z.string().describe("The url of the page to get the content of") }),
      run: async (_state, { url }, { config, signal }) => {
        const backend = backendOf(config);
        if (backend instanceof FixtureSearchBackend) return { page_content: pageContent(await backend.search({ op: "browse", url }, { signal })) };
        // A page that cannot be fetched is NeMo Gym's "No HTML found": the world's answer, which the model reads.
        const html = await fetchWebPage(url, { signal });
        if (!html) return { page_content: "No HTML found" };
        const text = extractMainText(html);
        // NeMo Gym splits trafilatura's None: its except clause hands the model this text.
        if (text === null) return { page_content: "Error: Unexpected error = 'NoneType' object has no attribute 'split'" };
        return { page_content: pageContent(text) };
      },
    }),
  },
  verify: {
    input: z.looseObject({ expected_answer: z.string(), task_difficulty_qwen3_32b_avg_8: z.number() }),
    run(_state, body) {
      const parsed = boxParser(lastAssistantContentRepr(body.response));
      const { responses_create_params: _p, response: _r, ...rest } = body;
      return { ...rest, reward: parsed === body.expected_answer ? 1.0 : 0.0, parsed_option: parsed };
    },
  },
  reverifyMode: "stateless",
  routes(app, { config }) {
    const backend = buildBackend(config);
    backends.set(config, backend);
    app.addHook("onClose", async () => backend.close());
  },
});
