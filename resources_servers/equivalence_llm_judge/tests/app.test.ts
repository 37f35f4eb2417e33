// equivalence_llm_judge over real HTTP, with scripted_model in judge_rules mode as its judge (one graph, four
// configurations of the server): the single pass, the swap check and reward_if_swap_fails, the per-record regex with
// its full-generation rescue and length threshold, word labels with a question regex (lc_judge's shape), the
// response NeMo Gym sends, a failing judge giving the judge_failed row, and the config checks at start.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkInstanceConfig, ServerConfigError } from "../../../src/server/index.ts";
import { assertRowsAreRunRequests, assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers, testConfig } from "../../../src/testing/index.ts";
import equivalence from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const TEMPLATE = join(import.meta.dirname, "../prompt_templates/example.txt");

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A judge rule for the example template's prompt with this reference and this candidate (the prompt ends with it). */
const rule = (reference: string, candidate: string, answer: string) => ({ match: `REFERENCE:\\n${escape(reference)}\\n\\nCANDIDATE:\\n${escape(candidate)}$`, answer });
const LONG = `a very long reference answer ${"that keeps going ".repeat(7)}`.trim();

const judgeRules = [
  rule("carbon dioxide", "The gas is CO2.", "Both name the same gas.\n\n[[A=B]] they are equivalent"),
  rule("carbon dioxide", "It is oxygen.", "Different gases.\n\n[[A!=B]] they are not equivalent"),
  rule("carbon dioxide", "Maybe nitrogen?", "I cannot tell."),
  rule("carbon dioxide", "((x)) then CO2", "[[A=B]]"),
  rule("the ohm", "ohm", "[[A=B]]"),
  rule("ohm", "the ohm", "[[A=B]] still"),
  rule("the ohm", "volt per ampere", "[[A=B]]"),
  rule("volt per ampere", "the ohm", "[[A!=B]] not in this order"),
  rule("the ohm", "the volt", "[[A!=B]]"),
  rule("12", "12", "[[A=B]]"),
  rule("12", "twelve-ish", "[[A!=B]]"),
  rule("12", "((twelve-ish)) that is, 12 edges", "[[A=B]] on the whole text"),
  rule("12", "7", "[[A!=B]]"),
  rule("12", "((7)) edges", "[[A!=B]]"),
  rule(LONG, "((short)) and the long reasoning", "[[A!=B]]"),
  { match: "QUESTION:\\nWho wrote it\\?\\n\\nREFERENCE:\\nAnn\\n\\nCANDIDATE:\\n$", answer: "INCORRECT" },
  { match: "QUESTION:\\nWho wrote it\\?\\n\\nREFERENCE:\\nAnn\\n\\nCANDIDATE:\\nAnn$", answer: "CORRECT" },
];

const judgeRef = { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [], temperature: 0 } };
let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    plain: [equivalence, { ...judgeRef, judge_prompt_template_fpath: TEMPLATE, use_per_record_regex: false }],
    swap: [equivalence, { ...judgeRef, judge_prompt_template_fpath: TEMPLATE, check_twice_swap: true, reward_if_swap_fails: -1, judge_system_message: "You grade answers." }],
    openqa: [equivalence, { ...judgeRef, judge_prompt_template_fpath: TEMPLATE }],
    lc: [equivalence, { ...judgeRef, judge_prompt_template_fpath: TEMPLATE, judge_equal_label: "CORRECT", judge_not_equal_label: "INCORRECT", question_extract_regex: "^QUESTION:\\s*(.*)$|</text>\\n\\n(.*)$", msg_extraction_failure: "" }],
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: judgeRules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const row = (question: string, fields: Record<string, unknown>) => ({ responses_create_params: { input: [{ role: "user", content: question }] }, ...fields });
async function verify(server: string, body: Record<string, unknown>, ...texts: string[]) {
  const answer = await client.request(`${graph.url(server)}/verify`, { method: "POST", json: { ...body, response: responseWith([assistantMessage(...texts)]) } });
  assert.equal(answer.status, 200, answer.text);
  return { body: answer.json<Record<string, any>>(), text: answer.text };
}
const gas = (text: string) => verify("plain", row("Which gas do plants take in?", { expected_answer: "carbon dioxide" }), text);
const prompts = (body: Record<string, any>) => body.judge_evaluations.map((e: any) => e.responses_create_params.input.at(-1).content as string);
const labels = (body: Record<string, any>) => body.judge_evaluations.map((e: any) => e.verdict_label);

describe("one judge pass (check_twice_swap off)", () => {
  test("equal: reward 1.0, NeMo Gym's fields in order, the evaluation with its request, answer and label", async () => {
    const { body, text } = await gas("The gas is CO2.");
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "expected_answer", "judge_evaluations"]);
    assert.equal(body.reward, 1);
    assert.match(text, /"reward":1\.0,/);
    assert.equal(body.expected_answer, "carbon dioxide");
    const [evaluation] = body.judge_evaluations;
    assert.deepEqual(Object.keys(evaluation), ["responses_create_params", "response", "verdict_label"]);
    assert.equal(evaluation.verdict_label, "[[A=B]]");
    assert.equal(evaluation.responses_create_params.temperature, 0, "the configured sampling parameters are sent");
    assert.deepEqual(evaluation.responses_create_params.input, [
      { role: "user", type: "message", content: "Decide whether the CANDIDATE answer means the same as the REFERENCE answer to the question.\nReply with one short reason, then a blank line, then exactly one verdict: [[A=B]] if they are equivalent, [[A!=B]] if not.\n\nQUESTION:\nWhich gas do plants take in?\n\nREFERENCE:\ncarbon dioxide\n\nCANDIDATE:\nThe gas is CO2." },
    ].map((m) => ({ content: m.content, role: m.role, type: m.type })));
    assert.equal(evaluation.response.output[0].content[0].text, "Both name the same gas.\n\n[[A=B]] they are equivalent");
  });

  test("not equal: reward 0.0 and one evaluation", async () => {
    const { body } = await gas("It is oxygen.");
    assert.deepEqual([body.reward, labels(body)], [0, ["[[A!=B]]"]]);
  });

  test("a judge answer without a verdict is scored 'not equal' (the parser's score, not a failure)", async () => {
    const { body } = await gas("Maybe nitrogen?");
    assert.deepEqual([body.reward, labels(body), body._ng_failure_class], [0, [null], undefined]);
  });

  test("use_per_record_regex off: a row's output_regex is ignored and the whole answer judged", async () => {
    const { body } = await verify("plain", row("Which gas?", { expected_answer: "carbon dioxide", template_metadata: { output_regex: "\\(\\((.*?)\\)\\)" } }), "((x)) then CO2");
    assert.deepEqual([body.reward, body.judge_evaluations.length], [1, 1]);
  });

  test("expected_answer comes from metadata when the row has none", async () => {
    const { body } = await verify("plain", row("Which gas do plants take in?", { metadata: { expected_answer: "carbon dioxide" } }), "The gas is CO2.");
    assert.deepEqual([body.reward, body.expected_answer], [1, "carbon dioxide"]);
  });

  test("a judge call that fails (no rule answers: a 404) is NeMo Gym's judge_failed row, not a reward", async () => {
    const answer = await client.request(`${graph.url("plain")}/verify`, { method: "POST", json: { ...row("q", { expected_answer: "carbon dioxide", uuid: 7 }), response: responseWith([assistantMessage("unjudgeable")]) } });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.deepEqual([body._ng_failure_class, body.reward, body.uuid], ["judge_failed", 0, 7]);
    assert.match(body._ng_failure_judge_error, /answered 404/);
    assert.equal(body.judge_evaluations, undefined);
  });

  test("a bad row field is a 422 naming it", async () => {
    const answer = await client.request(`${graph.url("plain")}/verify`, { method: "POST", json: { ...row("q", { expected_answer: 5 }), response: responseWith([assistantMessage("x")]) } });
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.text, /expected_answer/);
  });
});

describe("the swap check (check_twice_swap on, reward_if_swap_fails -1)", () => {
  const ohm = (text: string) => verify("swap", row("What is the SI unit of resistance?", { expected_answer: "the ohm" }), text);

  test("equal in both orders: reward 1, two evaluations, the second with the answers exchanged; the system message first", async () => {
    const { body } = await ohm("ohm");
    assert.deepEqual([body.reward, labels(body)], [1, ["[[A=B]]", "[[A=B]]"]]);
    assert.match(prompts(body)[0], /REFERENCE:\nthe ohm\n\nCANDIDATE:\nohm$/);
    assert.match(prompts(body)[1], /REFERENCE:\nohm\n\nCANDIDATE:\nthe ohm$/);
    assert.deepEqual(body.judge_evaluations[0].responses_create_params.input[0], { content: "You grade answers.", role: "system", type: "message" });
  });

  test("equal, then not equal when swapped: reward_if_swap_fails", async () => {
    const { body } = await ohm("volt per ampere");
    assert.deepEqual([body.reward, labels(body)], [-1, ["[[A=B]]", "[[A!=B]]"]]);
  });

  test("not equal in the first order: 0.0 and no second pass", async () => {
    const { body } = await ohm("the volt");
    assert.deepEqual([body.reward, body.judge_evaluations.length], [0, 1]);
  });
});

describe("per-record regex (template_metadata.output_regex) with the rescue and the length threshold (defaults)", () => {
  const edges = (text: string, expected = "12") =>
    verify("openqa", row("How many edges does a cube have? Answer in ((…)).", { expected_answer: expected, template_metadata: { output_regex: "\\(\\((.*?)\\)\\)" } }), text);

  test("the regex's capture is what the judge sees", async () => {
    const { body } = await edges("A cube has ((12)) edges... ((12))");
    assert.deepEqual([body.reward, body.judge_evaluations.length], [1, 1]);
    assert.match(prompts(body)[0], /CANDIDATE:\n12$/);
  });

  test("not equal on the capture, equal on the whole generation: reward_if_full_generation_succeeds (0.5)", async () => {
    const { body } = await edges("((twelve-ish)) that is, 12 edges");
    assert.deepEqual([body.reward, labels(body)], [0.5, ["[[A!=B]]", "[[A=B]]"]]);
  });

  test("not equal on both: 0.0 with both evaluations", async () => {
    const { body } = await edges("((7)) edges");
    assert.deepEqual([body.reward, body.judge_evaluations.length], [0, 2]);
  });

  test("an expected answer longer than extraction_length_threshold: the whole generation, once, no rescue", async () => {
    const { body } = await edges("((short)) and the long reasoning", LONG);
    assert.ok(LONG.length > 120);
    assert.deepEqual([body.reward, body.judge_evaluations.length], [0, 1]);
    assert.match(prompts(body)[0], /CANDIDATE:\n\(\(short\)\) and the long reasoning$/);
  });
});

describe("word labels and a question regex (lc_judge's shape)", () => {
  const doc = row("<text>A story.</text>\n\nWho wrote it?", { expected_answer: "Ann" });
  test("CORRECT is equal; INCORRECT, which contains CORRECT, is not", async () => {
    assert.deepEqual(labels((await verify("lc", doc, "Ann")).body), ["CORRECT"]);
    const { body } = await verify("lc", doc, "   ");
    assert.deepEqual([body.reward, labels(body)], [0, ["INCORRECT"]]);
    assert.match(prompts(body)[0], /QUESTION:\nWho wrote it\?\n\n/, "the question regex's second alternative took the text after </text>");
  });
});

describe("config", () => {
  const check = (fields: Record<string, unknown>) => {
    const { config } = testConfig({ env: [equivalence, { ...judgeRef, ...fields }] });
    return checkInstanceConfig(equivalence, "env", (config.env as any).resources_servers.test, config);
  };

  test("NeMo Gym's defaults, and its shipped template named though not committed (fetched on first use)", () => {
    const { config } = check({});
    assert.deepEqual(
      [config.judge_prompt_template_fpath, config.judge_equal_label, config.judge_not_equal_label, config.msg_extraction_failure, config.check_twice_swap, config.reward_if_swap_fails, config.use_per_record_regex, config.extraction_length_threshold, config.check_full_generation_on_fail, config.reward_if_full_generation_succeeds, config.judge_endpoint_max_concurrency],
      ["prompt_templates/equivalence_llm_judge.txt", "[[A=B]]", "[[A!=B]]", "[NO VALID ANSWER EXTRACTED]", false, 0, true, 120, true, 0.5, 64],
    );
  });

  test("judge_prompt_template (an inline template NeMo Gym's config class drops) is refused by name", () => {
    assert.throws(() => check({ judge_prompt_template: "{question}" }), (error: unknown) => error instanceof ServerConfigError && /`judge_prompt_template` is not implemented here/.test(error.message));
  });

  test("a template file that is neither there nor NeMo Gym's fails the start naming the path", () => {
    assert.throws(() => check({ judge_prompt_template_fpath: "prompt_templates/nope.txt" }), /judge_prompt_template_fpath[\s\S]*no such file: .*prompt_templates\/nope\.txt/);
  });

  test("a regex in Python syntax this port cannot run fails the start; one Python rejects does not (it matches nothing)", () => {
    assert.throws(() => check({ response_extract_regex: "(?P<a>x)(?P=a)(?(1)y|z)" }), /response_extract_regex/);
    assert.doesNotThrow(() => check({ response_extract_regex: "(" }));
  });
});

describe("authored data", () => {
  test("data/example.jsonl and data/example_openqa.jsonl: 5 run requests each with an expected answer; the openqa ones carry output_regex", () => {
    for (const [file, perRecord] of [["example.jsonl", false], ["example_openqa.jsonl", true]] as const) {
      const rows = readRows(join(import.meta.dirname, "../data", file));
      assert.equal(rows.length, 5);
      assertRowsAreRunRequests(rows);
      for (const r of rows) {
        assert.equal(typeof r.expected_answer, "string");
        assert.equal(typeof r.template_metadata?.output_regex === "string", perRecord);
      }
    }
  });
});
