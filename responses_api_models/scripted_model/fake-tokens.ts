// Seeded stand-ins for the token ids and logprobs a vLLM server returns in training mode, so pipelines
// that consume `prompt_token_ids` / `generation_token_ids` / `generation_log_probs` run without weights.
import { createHash } from "node:crypto";

const VOCAB_SIZE = 151_643;

/** Four characters a token, each chunk hashed into the vocabulary: deterministic, not a real tokenizer. */
export function fakeTokenIds(text: string): number[] {
  const ids: number[] = [];
  for (let i = 0; i < text.length; i += 4) {
    ids.push(createHash("sha1").update(text.slice(i, i + 4)).digest().readUInt32BE(0) % VOCAB_SIZE);
  }
  return ids.length > 0 ? ids : [0];
}

/** Logprobs in (-4, 0] from a seeded generator (mulberry32), one per generated token. */
export function fakeLogProbs(count: number, seed: number): number[] {
  let state = seed >>> 0;
  const logprobs: number[] = [];
  for (let i = 0; i < count; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    const uniform = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    logprobs.push(-4 * uniform * uniform);
  }
  return logprobs;
}
