// Seeded stand-ins for the token ids and logprobs a vLLM server returns in training mode, so pipelines
// that consume `prompt_token_ids` / `generation_token_ids` / `generation_log_probs` run without weights.
import { createHash } from "node:crypto";
import { seededRandom } from "../../src/models/seeded-random.ts";

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
  const uniform = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const u = uniform();
    return -4 * u * u;
  });
}
