// aviary's HotPotQA `search` reads Wikipedia's search page, `https://en.wikipedia.org/w/index.php?search=<entity>`
// (spaces as `+`, redirects followed, aviary's User-Agent, 15 s): a page of results when the entity is no title
// (the result headings, `div.mw-search-result-heading`), else the article the search redirected to (the text of
// every `<p>`, then of every `<ul>`, as BeautifulSoup's find_all and get_text().strip() give them).
// The backend is src/client/search-backend.ts': the real provider (ProviderSearchBackend: deadlines, bounded 429/5xx
// retries, a request rate, a cache) or a fixture file answering from local JSONL, both keyed by the search text.
import { FixtureSearchBackend, ProviderSearchBackend, type SearchBackend, type SearchBackendSettings } from "../../client/search-backend.ts";
import { HttpClient, type HttpResponse, type RequestOptions } from "../../client/http-client.ts";

/** What one search page says: result titles (no article matched), or the article's paragraph and list texts. */
export type WikipediaPage = { similar: string[] } | { texts: string[] };

export const WIKIPEDIA_SEARCH_URL = "https://en.wikipedia.org/w/index.php";
export const AVIARY_USER_AGENT = "Aviary (https://github.com/Future-House/aviary)";

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", ndash: "–", mdash: "—" };
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith("#x")) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name] ?? whole;
  });
}

interface Element {
  tag: string;
  attributes: string;
  text: string[];
}

/** The elements of `tags` (nested ones too) with their text, in document order of their start tags. */
function elementTexts(html: string, matches: (tag: string, attributes: string) => boolean): { tag: string; attributes: string; text: string }[] {
  const body = html.replace(/<!--[\s\S]*?-->/g, "").replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, "");
  const open: Element[] = [];
  const found: Element[] = [];
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|([^<]+)/g;
  for (let m = token.exec(body); m !== null; m = token.exec(body)) {
    if (m[4] !== undefined) {
      const text = decodeEntities(m[4]);
      for (const element of open) element.text.push(text);
      continue;
    }
    const tag = m[2]!.toLowerCase();
    if (m[1] === "/") {
      const at = open.map((e) => e.tag).lastIndexOf(tag);
      if (at >= 0) open.splice(at, 1);
      continue;
    }
    if (!matches(tag, m[3]!) || m[3]!.trim().endsWith("/")) continue;
    const element = { tag, attributes: m[3]!, text: [] };
    open.push(element);
    found.push(element);
  }
  return found.map((e) => ({ tag: e.tag, attributes: e.attributes, text: e.text.join("") }));
}

/** A search page as aviary's search reads it. */
export function parseWikipediaSearchPage(html: string): WikipediaPage {
  const headings = elementTexts(html, (tag, attributes) => tag === "div" && /class\s*=\s*["'][^"']*\bmw-search-result-heading\b/.test(attributes));
  if (headings.length > 0) return { similar: headings.map((h) => h.text.trim()) };
  const blocks = elementTexts(html, (tag) => tag === "p" || tag === "ul");
  return { texts: [...blocks.filter((b) => b.tag === "p"), ...blocks.filter((b) => b.tag === "ul")].map((b) => b.text.trim()) };
}

/** An HttpClient that follows up to five redirects within Wikipedia (httpx's follow_redirects=True). */
class RedirectFollowingClient extends HttpClient {
  override async request(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
    let current = url;
    for (let hop = 0; ; hop++) {
      const response = await super.request(current, options);
      const location = response.headers.location;
      if (![301, 302, 303, 307, 308].includes(response.status) || typeof location !== "string" || hop >= 5) return response;
      const next = new URL(location, current);
      if (next.hostname !== new URL(url).hostname) return response;
      current = next.href;
    }
  }
}

export interface WikipediaBackendOptions extends SearchBackendSettings {
  /** Where the search page is (a mirror, a test server); default en.wikipedia.org. */
  searchUrl?: string;
}

/** The real Wikipedia search: its key is the search text aviary puts in the URL (spaces as `+`). */
export function wikipediaSearchBackend(options: WikipediaBackendOptions = {}): SearchBackend<WikipediaPage> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  // aviary's own timeout is 15 s per request and 2 attempts; the backend's bounded retries and deadline replace them.
  const attemptDeadlineMs = options.attemptDeadlineMs ?? 15_000;
  const http = new RedirectFollowingClient({ connectTimeoutMs, deadlineMs: attemptDeadlineMs, maxRetries: 0 });
  const backend = new ProviderSearchBackend<WikipediaPage>({
    ...options,
    attemptDeadlineMs,
    provider: "wikipedia",
    // Wikipedia's search needs no key; the interface asks for one.
    apiKey: { configKey: "wikipedia (no key)", value: "none" },
    http,
    buildRequest: (query) => {
      // aviary writes the entity into the URL with its spaces as '+', unescaped otherwise.
      const url = `${options.searchUrl ?? WIKIPEDIA_SEARCH_URL}?search=${encodeURIComponent(String(query)).replace(/%2B/g, "+")}`;
      return { url, method: "GET", headers: { "User-Agent": AVIARY_USER_AGENT } };
    },
    parseResponse: (response) => parseWikipediaSearchPage(response.text),
  });
  return {
    label: backend.label,
    search: (query, searchOptions) => backend.search(query, searchOptions),
    async close() {
      await backend.close();
      await http.close();
    },
  };
}

/** Search pages from a JSONL file of `{"query": "<entity with + for spaces>", "results": {"similar": […]} | {"texts": […]}}`. */
export function wikipediaFixtureBackend(path: string): SearchBackend<WikipediaPage> {
  return new FixtureSearchBackend<WikipediaPage>(path);
}
