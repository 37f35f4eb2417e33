// Token counts that a benchmark's preparation records and filters by (`len(enc.encode(text, disallowed_special=()))`
// in NeMo Gym's scripts): tiktoken's encodings through js-tiktoken, the same ranks and the same byte-pair merges, with
// special-token text counted as ordinary text as `disallowed_special=()` asks. NeMo Gym falls back to a Hugging
// Face tokenizer (transformers.AutoTokenizer) for a name that is no tiktoken encoding; that is not ported, and
// such a name is refused in one line before anything is downloaded.
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import { UserError } from "../../config/errors.ts";

/** tiktoken.get_encoding's names that js-tiktoken ships ranks for. */
export const TIKTOKEN_ENCODINGS = ["o200k_base", "cl100k_base", "p50k_base", "p50k_edit", "r50k_base", "gpt2"] as const;

export type TokenCounter = (text: string) => number;

/** Refuses, in one line, a tokenizer this project cannot count with (checked before the downloads start). */
export function checkTokenizerName(name: unknown, benchmark: string): string {
  if (typeof name === "string" && (TIKTOKEN_ENCODINGS as readonly string[]).includes(name)) return name;
  throw new UserError(
    `${benchmark}: tokenizer_name ${JSON.stringify(name)} is not a tiktoken encoding (${TIKTOKEN_ENCODINGS.join(", ")}); counting tokens with a Hugging Face tokenizer (NeMo Gym's transformers.AutoTokenizer fallback) is not ported`,
  );
}

export async function tiktokenCounter(name: string, benchmark: string): Promise<TokenCounter> {
  const encoding = checkTokenizerName(name, benchmark);
  // r50k_base is gpt2's ranks under tiktoken's other name; each ranks module is loaded only when asked for.
  const ranks = ((await import(`js-tiktoken/ranks/${encoding}`)) as { default: TiktokenBPE }).default;
  const encoder = new Tiktoken(ranks);
  return (text) => encoder.encode(text, [], []).length;
}

/** The prepare() arguments of NeMo Gym's long-context benchmarks: the tokenizer to count with, and the row cap. */
export interface LongContextArgs extends Record<string, unknown> {
  tokenizer_name: string;
  max_context_tokens: number | bigint | null;
}

/** `max_context_tokens is not None and n_tokens > max_context_tokens`: the row is dropped. */
export const overTokenCap = ({ max_context_tokens }: LongContextArgs, tokens: number): boolean =>
  max_context_tokens !== null && max_context_tokens !== undefined && tokens > Number(max_context_tokens);
