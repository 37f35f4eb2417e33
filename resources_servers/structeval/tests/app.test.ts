// structeval's verify (through fastify inject): the reward formula and its Python rounding, render and key-validation
// scores per format, the error fields, the echoed row fields in NeMo Gym's order, metrics, and the authored
// data and verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, type InjectedServer, injectServer, readRows, responseWith } from "../../../src/testing/index.ts";
import structeval from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");

let env: InjectedServer;
before(async () => (env = await injectServer(structeval, {}, { instanceName: "structeval" })));
after(() => env.close());

const params = { input: [{ role: "user", content: "Please output JSON code" }] };
const response = (text: string) => responseWith([assistantMessage(text)]);

async function verify(outputType: string, metric: string[], text: string) {
  const answer = await env.post("/verify", { responses_create_params: params, response: response(text), task_id: "1", task_name: `Text to ${outputType}`, input_type: "Text", output_type: outputType, raw_output_metric: metric, rendering: false });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}
const scores = (body: Record<string, any>) => [body.reward, body.render_score, body.key_validation_score];

describe("the verify response", () => {
  test("echoes the row fields, then the scores and errors, in NeMo Gym's order", async () => {
    const body = await verify("JSON", ["a"], '<|BEGIN_CODE|>{"a": 1}<|END_CODE|>');
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "task_id", "task_name", "input_type", "output_type", "raw_output_metric", "rendering", "render_score", "key_validation_score", "raw_output_score", "error_type", "error_message"]);
    assert.deepEqual(scores(body), [1, 1, 1]);
  });

  test("a missing row field is a 422 naming it", async () => {
    const answer = await env.post("/verify", { responses_create_params: params, response: response("x"), task_id: "1", task_name: "t", input_type: "Text", raw_output_metric: [] });
    assert.equal(answer.status, 422);
    assert.match(answer.text, /output_type/);
  });
});

describe("scores", () => {
  test("reward = round(0.2 * render + 0.8 * keys, 2), ties to even as Python rounds", async () => {
    // 5 of 8 paths: 0.2 + 0.8 * 0.625 = 0.7; 3 of 8: 0.2 + 0.3 = 0.5; 1 of 3 → 0.4666… → 0.47
    const json = '{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}';
    assert.deepEqual(scores(await verify("JSON", ["a", "b", "c", "d", "e", "x", "y", "z"], json)), [0.7, 1, 0.625]);
    assert.deepEqual(scores(await verify("JSON", ["a", "x", "y"], json)), [0.47, 1, 1 / 3]);
  });

  test("a parse failure scores 0 with the parser's message; an empty result too", async () => {
    const broken = await verify("XML", ["a"], "<|BEGIN_CODE|\n<a/>");
    assert.deepEqual([...scores(broken), broken.error_type, broken.error_message], [0, 0, 0, "parse_error", "ExpatError: not well-formed (invalid token): line 1, column 1"]);
    const empty = await verify("JSON", ["a"], "```json\n[]\n```");
    assert.deepEqual([...scores(empty), empty.error_type, empty.error_message], [0, 0, 0, "parse_error", "Parsed result is empty"]);
  });

  test("a control character fails PyYAML's reader: the ReaderError reaches error_message with its code-point position", async () => {
    // codecs.decode(text, "unicode_escape") first turns U+0080 into its UTF-8 bytes read as Latin-1 ("\xc2\x80"),
    // so PyYAML meets the U+0080 one position later than it stands in the answer.
    const body = await verify("YAML", ["a"], "```yaml\na: 1\nb: caf\x80\n```");
    const message = 'ReaderError: unacceptable character #x0080: special characters are not allowed\n  in "<unicode string>", position 12';
    assert.deepEqual([...scores(body), body.error_type, body.error_message], [0, 0, 0, "parse_error", message]);
  });

  test("renders without paths score 0.2", async () => {
    assert.deepEqual(scores(await verify("YAML", [], "a: 1")), [0.2, 1, 0]);
  });

  test("each format: YAML wildcards, TOML arrays of tables, XML attributes, CSV headers", async () => {
    assert.deepEqual(scores(await verify("YAML", ["t.w.*.name", "t.len"], "```yaml\nt:\n  len: 3\n  w:\n    - name: a\n    - x: 1\n```")), [1, 1, 1]);
    assert.deepEqual(scores(await verify("TOML", ["b.name", "b.breads[1].price"], '<|BEGIN_CODE|>\n[b]\nname = "x"\n[[b.breads]]\nprice = 1\n[[b.breads]]\nprice = 2\n<|END_CODE|>')), [1, 1, 1]);
    assert.deepEqual(scores(await verify("XML", ["m.@vessel", "m.item.*.w"], '<|BEGIN_CODE|><m vessel="v"><item><w>1</w></item><item><w>2</w></item></m><|END_CODE|>')), [1, 1, 1]);
    assert.deepEqual(scores(await verify("CSV", ["csv::river", "csv::length"], "<|BEGIN_CODE|>\nriver,country\nRhine,DE\n<|END_CODE|>")), [0.6, 1, 0.5]);
  });

  test("raw_output_score counts keywords in the whole answer, and does not change the reward", async () => {
    const body = await verify("JSON", ["alpha", "beta"], 'alpha is here: <|BEGIN_CODE|>{"x": 1}<|END_CODE|>');
    assert.deepEqual([body.reward, body.raw_output_score], [0.2, 0.5]);
  });

  test("a blank answer is empty_response", async () => {
    const body = await verify("JSON", ["a"], " \n ");
    assert.deepEqual([...scores(body), body.raw_output_score, body.error_type, body.error_message], [0, 0, 0, 0, "empty_response", "No assistant response text"]);
  });

  test("an unclosed [ in a path fails the verify, as NeMo Gym's does (500)", async () => {
    const answer = await env.post("/verify", { responses_create_params: params, response: response('{"a": 1}'), task_id: "1", task_name: "t", input_type: "Text", output_type: "JSON", raw_output_metric: ["a[0"] });
    assert.equal(answer.status, 500);
  });
});

describe("metrics and data", () => {
  test("mean scores overall and per output type, input type and task name", async () => {
    const records = [
      { reward: 1, render_score: 1, key_validation_score: 1, output_type: "JSON", input_type: "Text", task_name: "Text to JSON", _ng_task_index: 0, _ng_rollout_index: 0 },
      { reward: 0.2, render_score: 1, key_validation_score: 0, output_type: "JSON", input_type: "Text", task_name: "Text to JSON", _ng_task_index: 1, _ng_rollout_index: 0 },
      { reward: 0, render_score: 0, key_validation_score: 0, output_type: "XML", input_type: "Text", task_name: "Text to XML", _ng_task_index: 2, _ng_rollout_index: 0 },
    ];
    const answer = await env.post("/aggregate_metrics", { verify_responses: records.map((r) => ({ responses_create_params: params, response: response(""), ...r })) });
    assert.equal(answer.status, 200, answer.text);
    const metrics = answer.json<any>().agent_metrics;
    assert.equal(metrics["mean/render_score"], 2 / 3);
    assert.equal(metrics["mean/key_validation_score"], 1 / 3);
    assert.equal(metrics["mean/reward_output_JSON"], 0.6);
    assert.equal(metrics["mean/reward_input_Text"], 0.4);
    assert.equal(metrics["mean/reward_Text to XML"], 0);
    assert.equal(metrics["mean/render_score_XML"], 0);
    assert.equal(metrics["mean/key_validation_score_JSON"], 0.5);
  });

  test("the example rows are valid run requests", () => {
    assertRowsAreRunRequests(readRows(join(dataDir, "example.jsonl")));
  });

  test("every verifier case scores its expected reward", async () => {
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"));
  });
});
