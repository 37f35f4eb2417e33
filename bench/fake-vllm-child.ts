// A fake vLLM in its own process, so the benchmark's CPU figures are the proxy's alone. Requests that
// ask for logprobs get a LARGE_TOKENS-token generation with realistic ids and full-precision log-probs;
// others a short answer. Prints its base URL on stdout, then serves until killed.
import { startFakeVllm } from "../src/testing/fake-vllm.ts";

const tokens = Number(process.env.FAKE_VLLM_TOKENS ?? 65_536);
let seed = 12345;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const tokenIds = Array.from({ length: tokens }, () => Math.floor(random() * 151_936));
const logprobs = Array.from({ length: tokens }, () => Math.log(random() * 0.999 + 0.001));

const fake = await startFakeVllm({
  defaultReply: (request) =>
    request.body?.logprobs ? { tokens, token_ids: tokenIds, logprobs, content: "x".repeat(tokens) } : { content: "The weather in SF is cold." },
});
setInterval(() => fake.reset(), 5_000).unref();
process.stdout.write(`${fake.url}\n`);
