// citation_if's scorer (NeMo Gym's scorer.py): the gates a citation answer passes — structure, an answer besides the
// citations, no malformed citation attempt, enough valid citations, none invented, and (when the row has them) the
// gold ids cited without over-citing. The reward reads citations only, never what the answer says. Python
// semantics throughout: the row's `verifier` values are taken as Python takes them (`set()`, `int()`, `str()` in an
// f-string), so a value Python cannot use raises here too (a 500 there and here).
import { jsonIterate, jsonLess, jsonStr, pythonIntOfJson } from "../../src/python/index.ts";
import { compilePythonRegex, type PythonMatch, type PythonPattern } from "../../src/python/re/index.ts";
import { compareStrings, pythonStrip } from "../../src/python/str.ts";

// Any ID-shaped token, case-insensitively: deliberately broader than every row's id_regex.
const ATTEMPT = compilePythonRegex("citation_[A-Za-z0-9_:]+", { ignoreCase: true });
const WORD_CHAR = compilePythonRegex("\\w");

/** id_regex for rows without one, by id_kind. */
const DEFAULT_ID_REGEX: Readonly<Record<string, string>> = {
  full_source: "citation_[0-9]+",
  snippet: "citation_[0-9]+:snippet_[0-9]+",
};

/** What the catch-all tool route answers any tool call (with max_steps 1 the rollout then ends, and scores 0). */
export const TERMINAL_TOOL_RESPONSE = "No further tool results are available. Provide your final answer.";

interface Grammar {
  /** The citation pattern; `{IDS}` is the row's id pattern (group 1 holds the id or ids). */
  template: string;
  /** Comma-separated id lists inside one span. */
  multi: boolean;
  dotAll?: boolean;
  /** The group holding the wrapped claim: a span with a blank claim is no citation. */
  claimGroup?: number;
  /** Tag grammars: opening and closing tags must be as many as the spans. */
  open?: PythonPattern;
  close?: PythonPattern;
}

const CITE_OPEN = compilePythonRegex("<cite\\b", { ignoreCase: true });
const CITE_CLOSE = compilePythonRegex("</cite\\s*>", { ignoreCase: true });

/** The nine trained grammars and the two holdout ones (curly_double, angle_pipe), which score like the others. */
export const GRAMMARS: ReadonlyMap<string, Grammar> = new Map<string, Grammar>([
  ["cite_xml", { template: "<cite>({IDS})</cite>", multi: true, open: CITE_OPEN, close: CITE_CLOSE }],
  // Not a markdown link [citation_N](url).
  ["ascii_brackets", { template: "\\[({IDS})\\](?!\\()", multi: false }],
  ["claim_wrap_xml", { template: '<cite index="({IDS})">(.*?)</cite>', multi: true, dotAll: true, claimGroup: 2, open: CITE_OPEN, close: CITE_CLOSE }],
  ["fullwidth_brackets", { template: "\u3010({IDS})\u3011", multi: false }],
  ["ref_colon", { template: "\\[ref:({IDS})\\]", multi: false }],
  ["double_angle", { template: "<<({IDS})>>", multi: false }],
  ["web_brackets", { template: "\\[web:({IDS})\\]", multi: false }],
  ["paren_part", { template: "\\(({IDS})\\)", multi: false }],
  ["markdown_footnote", { template: "\\[\\^({IDS})\\]", multi: false }],
  ["curly_double", { template: "\\{\\{({IDS})\\}\\}", multi: false }],
  ["angle_pipe", { template: "<ref\\|({IDS})>", multi: false }],
]);

/** A Python value as the key of a set or dict: 1, 1.0 and True are one key; a list or dict is unhashable. */
function hashKey(value: unknown): string {
  if (typeof value === "string") return `s${value}`;
  if (typeof value === "number") return `n${value}`;
  if (typeof value === "boolean") return `n${value ? 1 : 0}`;
  if (value === null || value === undefined) return "None";
  throw new TypeError(`unhashable type: '${Array.isArray(value) ? "list" : "dict"}'`);
}

/** `set(value)` (first occurrences, in order) as a key → value map. */
function pySet(value: unknown): Map<string, unknown> {
  const set = new Map<string, unknown>();
  for (const item of jsonIterate(value)) {
    const key = hashKey(item);
    if (!set.has(key)) set.set(key, item);
  }
  return set;
}

/** `sorted(values)`: strings by code point; mixing types Python cannot compare raises its TypeError. */
const pySorted = (values: unknown[]): unknown[] =>
  [...values].sort((a, b) => (typeof a === "string" && typeof b === "string" ? compareStrings(a, b) : jsonLess(a, b) ? -1 : jsonLess(b, a) ? 1 : 0));

/** `verifier.get(key, default)`. */
const get = (verifier: Readonly<Record<string, unknown>>, key: string, fallback: unknown = null): unknown => (Object.hasOwn(verifier, key) ? verifier[key] : fallback);

/** The grammar's pattern for the row's id scheme (`f"(?:{id_regex})"`: a non-string id_regex is its str()). */
function grammarPattern(grammar: Grammar, idRegex: unknown): PythonPattern {
  if (idRegex !== null && typeof idRegex === "object") hashKey(idRegex); // lru_cache: unhashable
  const id = jsonStr(idRegex);
  const ids = grammar.multi ? `(?:${id})(?:,(?:${id}))*` : `(?:${id})`;
  return compilePythonRegex(grammar.template.replace("{IDS}", ids), { dotAll: grammar.dotAll });
}

/** Well-formed citation spans; for claim-wrapping grammars, those with a non-blank claim. */
function citationSpans(pattern: PythonPattern, grammar: Grammar, text: string): PythonMatch[] {
  return [...pattern.finditer(text)].filter((match) => grammar.claimGroup === undefined || pythonStrip(match.groups[grammar.claimGroup] ?? "") !== "");
}

/** The ids in the spans' group 1 (comma-split), first occurrences in order. */
const spanIds = (spans: PythonMatch[]): string[] => [...new Set(spans.flatMap((match) => match.groups[1]!.split(",")))];

/** The text with each span blanked — except, for claim-wrapping grammars, the claim (it is answer text). */
function blankSpans(spans: PythonMatch[], text: string, keepClaim?: number): string {
  const chars = text.split("");
  for (const match of spans) {
    const keep = keepClaim === undefined ? undefined : match.spans[keepClaim];
    for (let i = match.start; i < match.end; i++) if (!(keep && keep[0] <= i && i < keep[1])) chars[i] = " ";
  }
  return chars.join("");
}

/** Tag grammars: opening tags == spans == closing tags. */
const tagsBalanced = (grammar: Grammar, text: string, spans: number) =>
  !grammar.open || !grammar.close || (grammar.open.findall(text).length === spans && spans === grammar.close.findall(text).length);

export type MatchDetails = Record<string, unknown>;

interface Verdict {
  gate_failed: string | null;
  parsed_ids: string[];
  valid_cited: string[];
  invalid_cited: string[];
  attempt_hits: boolean;
  expected_ids?: unknown[] | null;
  missed_ids?: unknown[];
  over_cap?: boolean;
}

/**
 * `score_citation_if(text, function_call_count, verifier)`: the reward and NeMo Gym's match_details. Throws where
 * Python raises (a verifier value it cannot use, an invalid id_regex).
 */
export function scoreCitationIf(text: string, functionCallCount: number, verifier: Readonly<Record<string, unknown>>): { reward: number; details: MatchDetails } {
  const grammarName = get(verifier, "grammar", "");
  const idKind = get(verifier, "id_kind", "full_source");
  const validIdValue = get(verifier, "valid_id_set");
  const validIds = pySet(truthy(validIdValue) ? validIdValue : []);
  const expectedIds = get(verifier, "expected_ids");
  const minValid = pythonIntOfJson(get(verifier, "min_valid_citations", 1));
  const mode = get(verifier, "mode", "cite");

  hashKey(grammarName);
  const grammar = typeof grammarName === "string" ? GRAMMARS.get(grammarName) : undefined;
  if (!grammar) return { reward: 0, details: { gate_failed: "unknown_grammar", grammar: grammarName } };

  const explicitRegex = get(verifier, "id_regex");
  let idRegex: unknown = explicitRegex;
  if (!truthy(explicitRegex)) {
    hashKey(idKind);
    idRegex = (typeof idKind === "string" && Object.hasOwn(DEFAULT_ID_REGEX, idKind) ? DEFAULT_ID_REGEX[idKind] : undefined) ?? DEFAULT_ID_REGEX.full_source;
  }
  const pattern = grammarPattern(grammar, idRegex);

  const structuralOk = pythonStrip(text) !== "" && functionCallCount === 0;
  const details = (verdict: Verdict): MatchDetails => ({
    gate_failed: verdict.gate_failed,
    mode,
    grammar: grammarName,
    id_kind: idKind,
    id_regex: idRegex,
    structural_ok: structuralOk,
    function_call_count: functionCallCount,
    attempt_hits: verdict.attempt_hits,
    bare_id_hits: verdict.attempt_hits,
    parsed_ids: verdict.parsed_ids,
    cited_ids: verdict.valid_cited,
    valid_cited: verdict.valid_cited,
    invalid_cited: verdict.invalid_cited,
    num_valid_cited: verdict.valid_cited.length,
    expected_ids: verdict.expected_ids ?? null,
    missed_ids: verdict.missed_ids ?? [],
    over_cap: verdict.over_cap ?? false,
  });

  // Gate 0: structural — some text, no tool call.
  if (!structuralOk) return { reward: 0, details: details({ gate_failed: "structural", parsed_ids: [], valid_cited: [], invalid_cited: [], attempt_hits: false }) };

  const spans = citationSpans(pattern, grammar, text);
  const parsed = spanIds(spans);
  const seen = { parsed_ids: parsed, valid_cited: parsed.filter((id) => validIds.has(hashKey(id))), invalid_cited: parsed.filter((id) => !validIds.has(hashKey(id))), attempt_hits: ATTEMPT.search(text) !== undefined };
  const fail = (gate: string, extra: Partial<Verdict> = {}) => ({ reward: 0, details: details({ gate_failed: gate, ...seen, ...extra }) });

  // No-cite rows: no citation of any shape.
  if (mode === "no_cite") {
    const anyMarkup = spans.length > 0 || (grammar.open !== undefined && grammar.open.search(text) !== undefined);
    const reward = !seen.attempt_hits && !anyMarkup ? 1 : 0;
    return { reward, details: details({ gate_failed: reward === 1 ? null : "no_cite", ...seen }) };
  }

  // Gate 0b: an answer besides the citation markup (a wrapped claim counts).
  if (WORD_CHAR.search(blankSpans(spans, text, grammar.claimGroup)) === undefined) return fail("no_answer");

  // Gate 1: every ID-shaped token sits in a well-formed span; tag grammars balance their tags.
  if (ATTEMPT.search(blankSpans(spans, text)) !== undefined || !tagsBalanced(grammar, text, spans.length)) return fail("malformed_attempt");

  // Gate 2: enough valid citations. Gate 3: none outside valid_id_set.
  if (seen.valid_cited.length < minValid) return fail("must_cite");
  if (seen.invalid_cited.length > 0) return fail("no_hallucination");

  // Gate 4: the gold ids all cited, and at most expected_slack more.
  let missed: unknown[] = [];
  let overCap = false;
  if (expectedIds !== null) {
    const slack = pythonIntOfJson(get(verifier, "expected_slack", 1));
    const expected = pySet(expectedIds);
    const cited = new Set(seen.valid_cited.map(hashKey));
    missed = pySorted([...expected].filter(([key]) => !cited.has(key)).map(([, value]) => value));
    overCap = seen.valid_cited.length > expected.size + slack;
    if (missed.length > 0 || overCap) return fail(missed.length > 0 ? "correctness_missed_gold" : "correctness_over_cap", { expected_ids: jsonIterate(expectedIds), missed_ids: missed, over_cap: overCap });
  }
  return { reward: 1, details: details({ gate_failed: null, ...seen, expected_ids: expectedIds !== null ? jsonIterate(expectedIds) : null, missed_ids: missed, over_cap: overCap }) };
}

/** Python's `bool(value)` of a JSON value. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}
