// NeMo Gym tavily_search's text shaping, with Python's semantics (re MULTILINE anchors at "\n" only, `.` not
// matching "\n", `\s` as str.isspace(), lengths and slices over code points): what the model reads from each tool.
import { PYTHON_SPACE_CHARS } from "../../src/python/chars.ts";
import { codePoints, pythonLen, pythonStrip } from "../../src/python/str.ts";

const S = `[${PYTHON_SPACE_CHARS}]`;
// `^`/`$` of Python's re.MULTILINE: at the text's ends and next to "\n" (never "\r" or U+2028, which JS's `m` takes).
const BOL = "(?<=^|\\n)";
const EOL = "(?=\\n|$)";
const EDIT_MARKER = /\[edit\]/g;
const WIKI_CHROME = new RegExp(`${BOL}\\[(?:Jump to content|Search|Read|Edit|View history)[^\\]]*\\][^\\n]*${EOL}`, "gu");
const WIKI_LANGUAGE_LINK = /\[[^\]]+\]\(https?:\/\/[a-z]{2,3}\.wikipedia\.org\/[^)]*\)/g;
const TOC_ANCHOR = new RegExp(`${BOL}${S}*\\*${S}*\\[[^\\]]*\\]\\(#[^)]*\\)${S}*${EOL}`, "gu");
const TRAILING_BLANKS = new RegExp(`[ \\t]+${EOL}`, "g");

/** `_clean_text`: wiki/web navigation artifacts removed, whitespace normalised. */
export function cleanText(text: string): string {
  let out = text.replace(EDIT_MARKER, "");
  out = out.replace(WIKI_CHROME, "");
  out = out.replace(WIKI_LANGUAGE_LINK, "");
  out = out.replace(TOC_ANCHOR, "");
  out = out.replace(/[\u200b\u200c\u200d\ufeff]/g, "").replace(/\u3010/g, "[").replace(/\u3011/g, "]");
  out = out.replace(TRAILING_BLANKS, "");
  out = out.replace(/\n{3,}/g, "\n\n");
  return pythonStrip(out);
}

/** `_add_line_numbers`: `L0: …`, `L1: …` per "\n"-separated line. */
export const addLineNumbers = (text: string): string =>
  text
    .split("\n")
    .map((line, i) => `L${i}: ${line}`)
    .join("\n");

/** `_truncate_text`: at most `maxChars` code points, cut at the last "\n" before them when there is one. */
export function truncateText(text: string, maxChars = 2000): [string, boolean] {
  if (pythonLen(text) <= maxChars) return [text, false];
  const points = codePoints(text);
  const cut = points.slice(0, maxChars).lastIndexOf("\n");
  return [points.slice(0, cut === -1 ? maxChars : cut).join(""), true];
}

/** `urlparse(url).hostname`: lowercased, without userinfo or port; null when there is no netloc. */
export function urlHostname(url: string): string | null {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(url);
  const rest = scheme ? url.slice(scheme[0].length) : url;
  if (!rest.startsWith("//")) return null;
  const netloc = /^\/\/([^/?#]*)/.exec(rest)![1]!;
  const host = netloc.slice(netloc.lastIndexOf("@") + 1);
  let name: string;
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    name = close === -1 ? host.slice(1) : host.slice(1, close);
  } else name = host.split(":")[0]!;
  return name === "" ? null : name.toLowerCase();
}

/** `_extract_domain`. */
export const extractDomain = (url: string): string => urlHostname(url) || url;

/** `_is_url_excluded`: the host is an excluded domain or a subdomain of one. */
export const isUrlExcluded = (url: string, excluded: readonly string[]): boolean => {
  const host = urlHostname(url) ?? "";
  return excluded.some((domain) => host === domain || host.endsWith(`.${domain}`));
};

const pyStr = (value: unknown): string => (value === null || value === undefined ? "None" : typeof value === "boolean" ? (value ? "True" : "False") : String(value));

/** `_postprocess_search_results`: Tavily's answer alone when it has one, else the numbered results. */
export function formatSearchResults(results: { answer?: unknown; results?: unknown }): string {
  if (results.answer !== undefined && results.answer !== null) return `Search Answer\n==============\n${pyStr(results.answer)}\n`;
  if (!Array.isArray(results.results)) throw new Error("Tavily's search answer has no `results` list");
  let out = "Search Results\n==============\n";
  results.results.forEach((result: Record<string, unknown>, index) => {
    const url = String(result.url);
    const [snippet] = truncateText(cleanText(String(result.content ?? "")));
    out += `[${index + 1}] ${pyStr(result.title)} (${extractDomain(url)})\n    URL: ${url}\n    Summary: ${snippet}\n\n`;
  });
  return out;
}

/** `words[start:start+n]` with Python's slice semantics (negative and out-of-range bounds). */
export function sliceWords(words: string[], start: number, n: number): string[] {
  const clamp = (index: number) => (index < 0 ? Math.max(0, words.length + index) : Math.min(index, words.length));
  return words.slice(clamp(start), clamp(start + n));
}
