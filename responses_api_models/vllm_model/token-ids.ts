// Training mode: the prompt and generation token ids and the generation log-probs of a vLLM answer, put on
// the choice's message. Sources, first found wins (NeMo Gym HEAD):
//   1. a complete bundle already on the message (a trainer-side server that attaches its own);
//   2. vLLM's inline `prompt_token_ids` (top level) + `choice.token_ids` (`return_token_ids`), with log-probs
//      and a cross-check against `choice.logprobs`;
//   3. `choice.logprobs` ("token_id:N" tokens) for the generation and `POST /tokenize` for the prompt.
// Where two sources are present they must agree; a partial source is an error, never silently dropped.
import { UpstreamContractError } from "./upstream.ts";

type Json = Record<string, unknown>;

const REQUIRED_FIELDS = ["prompt_token_ids", "generation_token_ids", "generation_log_probs"] as const;

export interface TokenBundle {
  prompt_token_ids: unknown[];
  generation_token_ids: unknown[];
  generation_log_probs: unknown[];
  routed_experts?: unknown;
}

function list(value: unknown, url: string, field: string): unknown[] {
  if (!Array.isArray(value)) throw new UpstreamContractError(url, `answered without a list for ${field} (got ${JSON.stringify(value)?.slice(0, 200)})`);
  return value;
}

function bundle(fields: Json, url: string, source: string): TokenBundle {
  const missing = REQUIRED_FIELDS.filter((field) => fields[field] === undefined || fields[field] === null);
  if (missing.length > 0) throw new UpstreamContractError(url, `returned partial token metadata on ${source}; missing: ${missing.join(", ")}`);
  const result: TokenBundle = {
    prompt_token_ids: list(fields.prompt_token_ids, url, `${source}.prompt_token_ids`),
    generation_token_ids: list(fields.generation_token_ids, url, `${source}.generation_token_ids`),
    generation_log_probs: list(fields.generation_log_probs, url, `${source}.generation_log_probs`),
  };
  if (result.generation_token_ids.length !== result.generation_log_probs.length) {
    throw new UpstreamContractError(
      url,
      `returned ${result.generation_token_ids.length} generation token ids but ${result.generation_log_probs.length} log-probs on ${source}`,
    );
  }
  if (fields.routed_experts !== undefined && fields.routed_experts !== null) result.routed_experts = fields.routed_experts;
  return result;
}

const sameIds = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((id, index) => id === b[index]);

export interface LogprobTokens {
  ids: number[];
  logProbs: number[];
}

const LOGPROBS_CONTENT = '"logprobs":{"content":[';
// One entry as vLLM writes it (compact JSON, pydantic field order) for top_logprobs: 0.
const TOKEN_ID_ENTRY = /\{"token":"token_id:(\d+)","logprob":(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?),"bytes":(?:null|\[[\d,]*\]),"top_logprobs":\[\]\}([,\]])/y;

/**
 * A fast path for long generations: the `choice.logprobs.content` entries are read straight from the answer
 * text (a 65k-token answer is ~8 MB, mostly these entries) and the text is returned with an empty list in
 * their place, so JSON.parse only reads the rest. Numbers parse exactly as JSON.parse would read them.
 * Anything unexpected (another layout, several choices, top logprobs) returns undefined: the caller parses
 * the whole text instead.
 */
export function takeLogprobTokens(text: string): { text: string; tokens: LogprobTokens } | undefined {
  const start = text.indexOf(LOGPROBS_CONTENT);
  if (start === -1 || text.indexOf(LOGPROBS_CONTENT, start + 1) !== -1) return undefined;
  const listStart = start + LOGPROBS_CONTENT.length;
  const ids: number[] = [];
  const logProbs: number[] = [];
  let listEnd = listStart;
  if (text[listStart] !== "]") {
    TOKEN_ID_ENTRY.lastIndex = listStart;
    for (;;) {
      const match = TOKEN_ID_ENTRY.exec(text);
      if (!match) return undefined;
      ids.push(Number(match[1]));
      logProbs.push(Number(match[2]));
      if (match[3] === "]") {
        listEnd = TOKEN_ID_ENTRY.lastIndex - 1;
        break;
      }
    }
  }
  return { text: text.slice(0, listStart) + text.slice(listEnd), tokens: { ids, logProbs } };
}

/** Generation ids and log-probs from `choice.logprobs.content` entries `{token: "token_id:N", logprob}`. */
export function logprobTokens(choice: Json, url: string): LogprobTokens {
  const content = (choice.logprobs as Json | null | undefined)?.content;
  if (!Array.isArray(content)) {
    throw new UpstreamContractError(
      url,
      `returned no per-token logprobs (choice.logprobs=${JSON.stringify(choice.logprobs ?? null)}) although return_token_id_information asked for them ` +
        "(logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true); token ids and log-probs cannot be extracted",
    );
  }
  const ids = new Array<number>(content.length);
  const logProbs = new Array<number>(content.length);
  for (let index = 0; index < content.length; index++) {
    const entry = content[index] as Json;
    const token = entry?.token;
    const id = typeof token === "string" && token.startsWith("token_id:") ? Number(token.slice(9)) : NaN;
    if (!Number.isInteger(id)) {
      throw new UpstreamContractError(url, `returned choice.logprobs.content[${index}].token ${JSON.stringify(token)}, not "token_id:<int>" (is return_tokens_as_token_ids honoured?)`);
    }
    if (typeof entry.logprob !== "number") throw new UpstreamContractError(url, `returned a non-numeric choice.logprobs.content[${index}].logprob`);
    ids[index] = id;
    logProbs[index] = entry.logprob;
  }
  return { ids, logProbs };
}

/**
 * Puts the token bundle on `choice.message` and removes the transport fields (`choice.logprobs`,
 * top-level `prompt_token_ids`, `choice.token_ids`). `promptTokenIds` is called only when no inline
 * source has them (it POSTs /tokenize).
 */
export async function attachTokenIds(
  completion: Json,
  choice: Json,
  url: string,
  promptTokenIds: () => Promise<unknown>,
  /** The logprob tokens when `takeLogprobTokens` already read them from the answer text. */
  taken?: LogprobTokens,
): Promise<void> {
  const message = choice.message as Json;
  const inline =
    completion.prompt_token_ids !== undefined && completion.prompt_token_ids !== null
      ? { prompt: list(completion.prompt_token_ids, url, "prompt_token_ids"), generation: choice.token_ids }
      : undefined;
  if ((inline === undefined) !== (choice.token_ids === undefined || choice.token_ids === null)) {
    throw new UpstreamContractError(url, `returned partial token metadata; missing: ${inline === undefined ? "prompt_token_ids" : "choice.token_ids"}`);
  }
  const inlineGeneration = inline ? list(inline.generation, url, "choice.token_ids") : undefined;

  if (REQUIRED_FIELDS.some((field) => message[field] !== undefined)) {
    const onMessage = bundle(message, url, "choice.message");
    if (inline && (!sameIds(onMessage.prompt_token_ids, inline.prompt) || !sameIds(onMessage.generation_token_ids, inlineGeneration!))) {
      throw new UpstreamContractError(url, "returned token ids on choice.message that disagree with its prompt_token_ids / choice.token_ids");
    }
    Object.assign(message, onMessage);
  } else {
    const fromLogprobs = taken ?? logprobTokens(choice, url);
    let prompt: unknown[];
    if (inline) {
      if (!sameIds(inlineGeneration!, fromLogprobs.ids)) throw new UpstreamContractError(url, "returned choice.token_ids that disagree with the token ids of choice.logprobs");
      prompt = inline.prompt;
    } else {
      prompt = list(await promptTokenIds(), url, "tokenize tokens");
    }
    Object.assign(
      message,
      bundle({ prompt_token_ids: prompt, generation_token_ids: fromLogprobs.ids, generation_log_probs: fromLogprobs.logProbs, routed_experts: message.routed_experts }, url, "vLLM answer"),
    );
  }
  // The logprobs were only the transport of the generation ids.
  delete choice.logprobs;
  delete completion.prompt_token_ids;
  delete choice.token_ids;
}
