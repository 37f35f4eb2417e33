// A name that becomes one segment of a URL path (a tool's route, a trial id). Names come from models and
// callers: `encodeURIComponent` throws URIError on a lone surrogate, which would turn the caller's odd name
// into our 500. A lone surrogate is written as U+FFFD instead (no route holds one, so the call meets a 404).

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `encodeURIComponent(name)`, total: lone surrogates become U+FFFD first (String#toWellFormed, ES2024). */
export function pathSegment(name: string): string {
  return encodeURIComponent(name.replace(LONE_SURROGATE, "\ufffd"));
}
