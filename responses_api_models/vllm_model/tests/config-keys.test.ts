// vllm_model's NeMo Gym config keys that change what reaches vLLM: sampling_overrides pinned on every engine request
// (over the caller and extra_body, on each path), preserve_reasoning_in_assistant_content, and the keys refused by name.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { ServerConfigError } from "../../../src/server/index.ts";
import { type FakeVllm, startFakeVllm } from "../../../src/testing/index.ts";
import { startVllmModels, type Harness } from "./helpers.ts";

let vllm: FakeVllm;
let harness: Harness;
const common = { api_key: "k", model: "served", return_token_id_information: false, uses_reasoning_parser: true };
const pinned = { temperature: 1.0, top_p: 1.0, top_k: -1 };

before(async () => {
  vllm = await startFakeVllm();
  const at = { ...common, base_url: vllm.url };
  harness = await startVllmModels({
    pinned: { ...at, sampling_overrides: pinned, extra_body: { top_k: 20, min_tokens: 3 } },
    pinned_training: { ...at, sampling_overrides: pinned, return_token_id_information: true },
    pinned_native: { ...at, sampling_overrides: pinned, is_responses_native: true, extra_body: { temperature: 0.2 } },
    unpinned: { ...at, sampling_overrides: null },
    preserving: { ...at, preserve_reasoning_in_assistant_content: true },
    not_preserving: { ...at, preserve_reasoning_in_assistant_content: false },
  });
});
after(async () => {
  await harness.close();
  await vllm.close();
});
beforeEach(() => {
  vllm.reset();
  vllm.setDefault({ content: "ok" });
});

const lastChat = () => vllm.chatBodies().at(-1);

test("sampling_overrides replace the caller's sampling params and extra_body's, and are sent when the caller sets none", async () => {
  await harness.ok("pinned", { input: "hi", temperature: 0.3, top_p: 0.5 });
  assert.equal(lastChat().temperature, 1.0);
  assert.equal(lastChat().top_p, 1.0);
  assert.equal(lastChat().top_k, -1, "over extra_body's top_k");
  assert.equal(lastChat().min_tokens, 3, "the rest of extra_body still applies");

  await harness.ok("pinned", { input: "hi" });
  assert.deepEqual([lastChat().temperature, lastChat().top_p, lastChat().top_k], [1.0, 1.0, -1]);

  await harness.ok("unpinned", { input: "hi", temperature: 0.3 });
  assert.equal(lastChat().temperature, 0.3, "null pins nothing");
  assert.equal("top_k" in lastChat(), false);
});

test("sampling_overrides apply on /v1/chat/completions, in training mode and on the responses-native path", async () => {
  const chat = await harness.post("pinned", "/v1/chat/completions", { messages: [{ role: "user", content: "hi" }], temperature: 0.3 });
  assert.equal(chat.status, 200, chat.text);
  assert.deepEqual([lastChat().temperature, lastChat().top_k], [1.0, -1]);

  await harness.ok("pinned_training", { input: "hi", temperature: 0.3 });
  assert.equal(lastChat().temperature, 1.0);
  assert.equal(lastChat().logprobs, true, "training mode's flags stay");

  vllm.script({ response: { id: "resp_n", created_at: 1, model: "served", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] } });
  const native = await harness.responses("pinned_native", { input: "hi", temperature: 0.3 });
  assert.equal(native.status, 200, native.text);
  const sent = vllm.requests.find((r) => r.path === "/v1/responses")!.body as Record<string, unknown>;
  assert.deepEqual([sent.temperature, sent.top_p, sent.top_k], [1.0, 1.0, -1], "over the request and extra_body");
});

test("preserve_reasoning_in_assistant_content keeps <think> blocks in the history's content instead of moving them to reasoning fields", async () => {
  const input = [
    { role: "user", content: "q" },
    { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "earlier thought" }] },
    { role: "assistant", content: "a" },
    { role: "user", content: "q2" },
  ];
  await harness.ok("preserving", { input });
  const kept = lastChat().messages[1];
  assert.match(JSON.stringify(kept.content), /<think>earlier thought<\/think>/);
  assert.equal(kept.reasoning_content, undefined);

  await harness.ok("not_preserving", { input });
  const moved = lastChat().messages[1];
  assert.equal(moved.reasoning_content, "earlier thought");
  assert.doesNotMatch(JSON.stringify(moved.content), /<think>/);
});

test("use_completions_api and render_chat_template are refused at start, naming the key; false is the default and starts", async () => {
  for (const key of ["use_completions_api", "render_chat_template"]) {
    await assert.rejects(
      startVllmModels({ policy_model: { ...common, base_url: vllm.url, [key]: true } }),
      (error: unknown) =>
        error instanceof ServerConfigError && new RegExp(`^test 'policy_model': config key \`${key}\` is not implemented here \\(.+\\)$`).test(error.message),
    );
  }
  const started = await startVllmModels({ policy_model: { ...common, base_url: vllm.url, use_completions_api: false, render_chat_template: false, tokenizer: "org/tok" } });
  await started.close();
});
