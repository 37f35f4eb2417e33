// bunsenbench_chemistry_mcq's verify (fastify inject): NeMo Gym's response fields and order, the answer candidates
// (XML tags, boxes, Answer: lines, phrases; the latest-starting wins), option texts normalised for chemistry, the gold
// letter, options from `choices`, the error modes, validation, the grouped and error-mode metrics, and the data.
// Every expectation here was checked against NeMo Gym's Python verify (run locally as an oracle).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import { normalizeChemistryText } from "../extract.ts";
import bunsen from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");
const OPTIONS = [{ A: "H2O" }, { B: "CO2" }, { C: "Na" }, { D: "Ne" }];
const params = { input: [{ role: "user", content: "Which gas turns limewater milky?" }] };

let env: InjectedServer;
before(async () => (env = await injectServer(bunsen)));
after(() => env.close());

const verifyWith = (response: Item, row: Item = {}) => env.post("/verify", { responses_create_params: params, options: OPTIONS, expected_answer: "B", ...row, response });
const verify = (text: string, row: Item = {}) => verifyWith(responseWith([assistantMessage(text)]), row);
async function scored(text: string, row: Item = {}) {
  const answer = await verify(text, row);
  assert.equal(answer.status, 200, answer.text);
  const { reward, extracted_answer, error_mode } = answer.json<Item>();
  return { reward, extracted_answer, error_mode };
}
const letter = async (text: string, row: Item = {}) => (await scored(text, row)).extracted_answer;

describe("the verify response", () => {
  test("has NeMo Gym's fields in order; uuid, choices and metadata are echoed, the grouping fields read from metadata", async () => {
    const metadata = { source: "example", bct_field: "general", bct_subfield: "acids_bases", bunsen_id: "b-1" };
    const answer = await verify("<choice>CO2</choice>", { uuid: "u-1", metadata });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Item>();
    assert.deepEqual(Object.keys(body), [
      "responses_create_params", "response", "reward", "expected_answer", "extracted_answer", "uuid", "bunsen_id", "choices",
      "no_answer", "error_mode", "source", "bct_field", "bct_subfield", "metadata",
    ]);
    assert.match(answer.text, /"reward":1\.0,"expected_answer":"B","extracted_answer":"B","uuid":"u-1","bunsen_id":"b-1","choices":null,"no_answer":false,"error_mode":"correct","source":"example","bct_field":"general","bct_subfield":"acids_bases","metadata":/);
  });

  test("a row's own source wins over metadata's; absent ones are null", async () => {
    const body = (await verify("B", { source: "mine", metadata: { source: "theirs" } })).json<Item>();
    assert.deepEqual([body.source, body.bct_field, body.bunsen_id, body.uuid], ["mine", null, null, null]);
  });

  test("no answer: extracted_answer null, no_answer true, reward 0.0", async () => {
    const answer = await verify("Carbon dioxide, I think.");
    assert.match(answer.text, /"reward":0\.0,"expected_answer":"B","extracted_answer":null,/);
    assert.equal(answer.json<Item>().no_answer, true);
  });
});

describe("the answer candidates", () => {
  test("Answer: lines (bulleted, numbered, bold) and inline, \\boxed, XML tags and answer phrases", async () => {
    for (const text of ["Reasoning\nAnswer: B", "- Answer: B", "1. Answer: B", "Reasoning. Answer: B", "**Answer:** B", String.raw`Final \boxed{\text{B}}`, "<answer>CO2</answer>", "<response>B</response>", "<final_answer>(B)</final_answer>", "The answer is B.", "I choose option B", "Final answer:\nCO2"]) {
      assert.equal(await letter(text), "B", text);
    }
  });

  test("the latest-starting candidate that parses wins", async () => {
    assert.equal(await letter("<answer>H2O</answer>\nReasoning\nAnswer: B"), "B");
    assert.equal(await letter(String.raw`\boxed{A}\boxed{B}`), "B");
    assert.equal(await letter("Answer: B\n<answer>zz</answer>"), "B", "an unparseable later candidate is skipped");
  });

  test("without candidates, the last then the first non-empty line", async () => {
    assert.equal(await letter("B\n\nReasoning follows."), "B");
    assert.equal(await letter("Reasoning first.\n(C)"), "C");
  });

  test("two letters are no answer, and <choice> inside <choices> is the question, not the answer", async () => {
    assert.equal(await letter("Answer: A or B"), null);
    assert.equal(await letter("<choices><choice>H2O</choice><choice>CO2</choice></choices>"), null);
  });

  test("letters: one letter, 'option X', 'X) …', a letter among non-letters; only the options' letters", async () => {
    assert.equal(await letter("answer: (b)"), "B");
    assert.equal(await letter("Answer: choice d"), "D");
    assert.equal(await letter("Answer: C) Na"), "C");
    assert.equal(await letter("Answer: E"), null);
  });

  test("option texts match exactly after normalising (case kept): subscripts, entities, dashes, format characters", async () => {
    assert.equal(await letter("<answer>CO₂</answer>"), "B");
    assert.equal(await letter("<answer>co2</answer>"), null);
    assert.equal(await letter("<choice> &#72;&#8322;O </choice>"), "A");
    assert.equal(await letter("<answer>Ne</answer>"), "D");
    assert.equal(normalizeChemistryText("SO₄²⁻ + 2×H⁺"), "SO42- + 2xH+");
    assert.equal(normalizeChemistryText("ΔG = −10 kJ·mol⁻¹"), "ΔG = -10 kJ.mol-1");
    assert.equal(normalizeChemistryText("Na\u00adCl &amp; µM"), "NaCl & uM");
  });

  test("wrappers come off: quotes, emphasis, \\text / \\mathrm, brackets, trailing punctuation", async () => {
    for (const text of ["Answer: `B`", "Answer: *B*", "Answer: \\mathrm{CO2}", "Answer: [CO2]", "Answer: 'CO₂'"]) assert.equal(await letter(text), "B", text);
    assert.equal(await letter("Answer: [CO2]."), null, "a bracket not at the end stays");
  });
});

describe("the gold letter and the options", () => {
  test("expected_answer may be wrapped, lower-case, or an option's text", async () => {
    assert.equal((await scored("B", { expected_answer: "(b)" })).reward, 1);
    assert.equal((await scored("B", { expected_answer: "CO₂" })).reward, 1);
    const body = (await verify("B", { expected_answer: "carbon dioxide" })).json<Item>();
    assert.deepEqual([body.expected_answer, body.reward], ["CARBON DIOXIDE", 0]);
  });

  test("a gold letter outside the options is still allowed as an answer", async () => {
    assert.deepEqual(await scored("Answer: E", { expected_answer: "E" }), { reward: 1, extracted_answer: "E", error_mode: "correct" });
  });

  test("without options, choices give them: texts lettered by position, or objects with a label and a text", async () => {
    assert.equal(await letter("<choice>CO2</choice>", { options: null, choices: ["H2O", "CO2"] }), "B");
    const choices = [{ label: "x", text: "H2O" }, { key: "y", content: "CO2" }, { text: "Ne" }, { label: "toolong", text: "Na" }];
    assert.equal(await letter("<choice>CO2</choice>", { options: [], choices, expected_answer: "Y" }), "Y");
    assert.equal(await letter("<choice>Ne</choice>", { options: [], choices, expected_answer: "C" }), "C", "no letter: its position");
    assert.equal(await letter("<choice>Na</choice>", { options: [], choices, expected_answer: "D" }), null, "a label of more than one letter drops the choice");
  });
});

describe("error modes", () => {
  const response = (text: string, extra: Item = {}, itemStatus = "completed") => {
    const r = responseWith([assistantMessage(text)]) as Item;
    r.output[0].status = itemStatus;
    return { ...r, ...extra };
  };
  const modeOf = async (r: Item) => (await verifyWith(r)).json<Item>().error_mode;

  test("correct and wrong_answer when a choice was read", async () => {
    assert.equal((await scored("<choice>CO2</choice>")).error_mode, "correct");
    assert.equal((await scored("<choice>H2O</choice>")).error_mode, "wrong_answer");
  });

  test("refusal: a refusal content part, or refusal words", async () => {
    const withRefusal = response("");
    withRefusal.output[0].content = [{ type: "refusal", refusal: "I cannot assist." }];
    assert.equal(await modeOf(withRefusal), "refusal");
    assert.equal((await scored("I'm sorry, but I can't help with that.")).error_mode, "refusal");
    assert.equal((await scored("As an AI language model, I cannot")).error_mode, "refusal");
  });

  test("early_termination: an incomplete response or item, max_output_tokens, an unclosed <think>", async () => {
    assert.equal(await modeOf(response("partial", { status: "incomplete" })), "early_termination");
    assert.equal(await modeOf(response("partial", {}, "incomplete")), "early_termination");
    assert.equal(await modeOf(response("partial", { incomplete_details: { reason: "max_output_tokens" } })), "early_termination");
    assert.equal(await modeOf(response("partial", { incomplete_details: { reason: "content_filter" } })), "format_violation");
    assert.equal((await scored("<think>Let me reason about this")).error_mode, "early_termination");
    assert.equal((await scored("<think>a</think> I'm sorry, but I cannot")).error_mode, "refusal", "a closed think is fine");
  });

  test("malformed_choice: a <choice> tag whose content is no option; otherwise format_violation", async () => {
    assert.equal((await scored("<choice>Helium</choice>")).error_mode, "malformed_choice");
    assert.equal((await scored("Carbon dioxide")).error_mode, "format_violation");
    assert.equal((await scored("")).error_mode, "format_violation");
  });
});

describe("validation", () => {
  test("an unknown row grading_mode, ill-typed choices or options are 422s naming the field", async () => {
    for (const [row, field] of [[{ grading_mode: "loose" }, "grading_mode"], [{ choices: [1] }, "choices"], [{ options: [{ A: 1 }] }, "options"], [{ source: 3 }, "source"]] as const) {
      const answer = await verify("B", row);
      assert.equal(answer.status, 422, JSON.stringify(row));
      assert.match(answer.text, new RegExp(field));
    }
  });

  test("a non-string grouping value in metadata is a 422 naming it (NeMo Gym's response model rejects it)", async () => {
    const answer = await verify("B", { metadata: { bct_field: 7 } });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.json<Item>().detail[0].loc, ["body", "metadata", "bct_field"]);
  });

  test("the instance's grading_mode is validated and has no effect", async () => {
    const strict = await injectServer(bunsen, { grading_mode: "strict_single_letter_boxed" });
    try {
      assert.equal((await strict.post("/verify", { responses_create_params: params, options: OPTIONS, expected_answer: "B", response: responseWith([assistantMessage("<choice>CO2</choice>")]) })).json<Item>().reward, 1);
    } finally {
      await strict.close();
    }
  });
});

describe("aggregate metrics", () => {
  const record = (task: number, rollout: number, reward: number, extracted: string | null, fields: Item) => ({ _ng_task_index: task, _ng_rollout_index: rollout, reward, extracted_answer: extracted, ...fields });

  test("pass@k overall and per source / BCT field / subfield (slugged), the error-mode shares, and the key metrics", async () => {
    const org = { source: "Chem Bench", bct_field: "organic", bct_subfield: "acids/bases" };
    const gen = { source: "mmlu", bct_field: "general", bct_subfield: "stoich" };
    const answer = await env.post("/aggregate_metrics", {
      verify_responses: [
        record(0, 0, 1, "B", { ...org, error_mode: "correct" }),
        record(0, 1, 0, "A", { ...org, error_mode: "wrong_answer" }),
        record(1, 0, 0, null, { ...gen, error_mode: "refusal" }),
        record(1, 1, 0, null, gen),
      ],
    });
    assert.equal(answer.status, 200, answer.text);
    const { agent_metrics: metrics, key_metrics: key } = answer.json<Record<string, Item>>();
    assert.equal(metrics["pass@2/accuracy"], 50);
    assert.equal(metrics["by_source/Chem_Bench/pass@2/accuracy"], 100);
    assert.equal(metrics["by_source/mmlu/pass@2/accuracy"], 0);
    assert.equal(metrics["by_bct_field/organic/pass@1[avg-of-2]/accuracy"], 50);
    assert.equal(metrics["by_bct_subfield/organic/acids__bases/pass@2/accuracy"], 100);
    assert.ok(!Object.keys(metrics).some((k) => k.startsWith("by_") && k.endsWith("per_sample_aggregate")));
    assert.equal(metrics["error_modes/correct"], 25);
    assert.equal(metrics["error_modes/format_violation/count"], 1, "a rollout without error_mode falls back on its reward and answer");
    assert.equal(metrics["error_modes/early_termination"], 0);
    assert.deepEqual(Object.keys(key), [
      "mean/reward", "pass@1[avg-of-2]/accuracy", "pass@1[avg-of-2]/no_answer", "pass@2/no_answer", "majority@2/accuracy", "pass@1/accuracy", "pass@2/accuracy",
      "pass@1/no_answer", "error_modes/correct", "error_modes/wrong_answer", "error_modes/refusal", "error_modes/early_termination", "error_modes/malformed_choice", "error_modes/format_violation",
    ]);
  });

  test("reverify mode is unknown (NeMo Gym pins it back from mcqa's stateless)", async () => {
    assert.equal((await env.get("/reverify_mode")).json(), "unknown");
  });
});

describe("the data", () => {
  test("the example rows are run requests whose gold letter is among their options", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.ok(row.options.some((option: Item) => row.expected_answer in option), row.uuid);
  });

  test("every verifier case scores its expected reward", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 15 }));
});
