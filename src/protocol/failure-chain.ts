// A failure that crossed several servers arrives as one text, each server having wrapped the answer it got in its
// own words: NeMo Gym's "Hit an exception in <Class>___<instance> calling an inner server: b'…'", an agent's
// "<class>: <server>/<path> answered <reason>: "<its body as JSON>"", FastAPI's {"detail": …}, all as JSON strings,
// so every level escapes the quotes of the one inside it again. The wire keeps those formats (NeMo Gym's clients
// read them); this module only unwraps them for people: the innermost cause first, then each server it passed.
import { decodePythonBytesRepr } from "../python/repr.ts";
import { INFRASTRUCTURE_FAILURE_CLASSES } from "./failures.ts";

export interface FailureLink {
  /** The server whose words these are, when the text tells (or the caller knows who answered). */
  server?: string;
  message: string;
}

const MAX_DEPTH = 32;
const NEMO_INNER = /^Hit an exception(?: in (\S+?))? calling an inner server: ([\s\S]*)$/;
const INFRASTRUCTURE = new RegExp(`^(${INFRASTRUCTURE_FAILURE_CLASSES.join("|")}): ([\\s\\S]*)$`);
/** An agent's InfrastructureFailure: `<server>/<path> answered <reason>: "<the answer's body, as JSON>"` (maybe cut: `…`). */
const ANSWERED = /^(\S+?) answered (.*?): ("[\s\S]*)$/;
/** The collector's words for an agent's 500 relaying an inner server's status. */
const RELAYED = /^(an inner server answered \d+): ([\s\S]*)$/;
const CUT_DETAIL = /^\{\s*"detail"\s*:\s*(?=")/;

/**
 * The causes `text` holds, innermost first. `server` is who answered `text` (the agent a /run went to): the
 * outermost words are its, and so are the innermost unless the text says where they came from.
 */
export function failureChain(text: string, server?: string): FailureLink[] {
  return unwrap(text, server, 0);
}

/** One line per link: the innermost cause, then `← <server>: <its words>` for each server it passed through. */
export function formatFailureChain(chain: readonly FailureLink[], maxChars = 400): string[] {
  const clip = (text: string) => (text.length > maxChars ? `${text.slice(0, maxChars)}…` : text);
  const said = (link: FailureLink) => clip(oneLine(link.server ? `${link.server}: ${link.message}` : link.message));
  return chain.map((link, index) => (index === 0 ? said(link) : `← ${said(link)}`));
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();

function unwrap(text: string, server: string | undefined, depth: number): FailureLink[] {
  const trimmed = text.trim();
  if (trimmed === "") return [{ server, message: "(an empty answer)" }];
  if (depth >= MAX_DEPTH) return [{ server, message: trimmed }];
  const inner = (body: string, who: string | undefined) => unwrap(body, who, depth + 1);

  if (trimmed.startsWith('"')) return inner(decodeJsonString(trimmed), server);
  if (trimmed.startsWith("{")) {
    const body = parseJson(trimmed);
    if (body !== undefined) return unwrapObject(body, trimmed, server, inner);
    // A body cut short inside its detail string.
    const cut = CUT_DETAIL.exec(trimmed);
    if (cut) return inner(decodeJsonString(trimmed.slice(cut[0].length)), server);
    return [{ server, message: trimmed }];
  }

  const nemo = NEMO_INNER.exec(trimmed);
  if (nemo) {
    const who = nemo[1] ? instanceOfCookieName(nemo[1]) : server;
    const body = decodePythonBytesRepr(nemo[2]!) ?? nemo[2]!;
    return [...inner(body, undefined), { server: who, message: "an inner server answered with an error" }];
  }

  const infrastructure = INFRASTRUCTURE.exec(trimmed);
  if (infrastructure) {
    const [, failureClass, rest] = infrastructure;
    const answered = ANSWERED.exec(rest!);
    if (!answered) return [{ server, message: trimmed }];
    const [, url, reason, body] = answered;
    return [...inner(body!, url!.split("/")[0]), { server, message: `${url} answered ${reason} (${failureClass})` }];
  }

  const relayed = RELAYED.exec(trimmed);
  if (relayed) return [...inner(relayed[2]!, undefined), { server, message: relayed[1]! }];
  return [{ server, message: trimmed }];
}

function unwrapObject(body: unknown, text: string, server: string | undefined, inner: (body: string, who: string | undefined) => FailureLink[]): FailureLink[] {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return [{ server, message: text }];
  const record = body as Record<string, unknown>;
  if ("detail" in record) {
    const detail = record.detail;
    if (typeof detail === "string") return inner(detail, server);
    // FastAPI's 422: a list of {loc, msg}.
    if (Array.isArray(detail)) return [{ server, message: detail.map(validationIssue).join("; ") }];
    return [{ server, message: JSON.stringify(detail) }];
  }
  // OpenAI-style upstream errors: {"error": {"message": …}}.
  const error = record.error;
  if (typeof error === "string") return inner(error, server);
  if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") return inner((error as { message: string }).message, server);
  return [{ server, message: text }];
}

function validationIssue(issue: unknown): string {
  if (!issue || typeof issue !== "object") return JSON.stringify(issue);
  const { loc, msg } = issue as { loc?: unknown; msg?: unknown };
  return `${Array.isArray(loc) ? loc.join(".") : ""}: ${typeof msg === "string" ? msg : JSON.stringify(issue)}`;
}

/** `SimpleAgent___my_agent` (a session cookie's name: class, instance) → `my_agent`. */
function instanceOfCookieName(name: string): string {
  const at = name.indexOf("___");
  return at >= 0 ? name.slice(at + 3) : name;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const JSON_ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** A JSON string literal's text; one cut short (an excerpt ending in `…`, a truncated body) as far as it goes. */
function decodeJsonString(literal: string): string {
  const whole = parseJson(literal.endsWith("…") ? literal.slice(0, -1) : literal);
  if (typeof whole === "string") return whole;
  let out = "";
  for (let i = 1; i < literal.length; i++) {
    const ch = literal[i]!;
    if (ch === '"') break;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = literal[i + 1];
    if (next === "u" && /^[0-9a-fA-F]{4}$/.test(literal.slice(i + 2, i + 6))) {
      out += String.fromCharCode(parseInt(literal.slice(i + 2, i + 6), 16));
      i += 5;
    } else if (next !== undefined && JSON_ESCAPES[next] !== undefined) {
      out += JSON_ESCAPES[next];
      i += 1;
    } else break;
  }
  return out;
}
