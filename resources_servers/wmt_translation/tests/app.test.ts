// wmt_translation's verify (fastify inject): NeMo Gym's response fields and order, chrF as the reward (sacreBLEU's,
// NFC-normalized), the reasoning preamble, empty translations, the 501s for COMET and the language identifiers,
// the corpus metrics per pair and across pairs, sacreBLEU's chrF / BLEU / 13a themselves, and the data. Every number
// here was computed by NeMo Gym's Python verify and compute_metrics (sacreBLEU 2.6) run locally as an oracle.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServers, readRows, responseWith, type InjectedGraph } from "../../../src/testing/index.ts";
import { corpusBleu, corpusChrf, sentenceBleuScore, sentenceChrf, tokenize13a } from "../../../src/ports/text-overlap/sacrebleu.ts";
import wmt, { stripReasoningPreamble } from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");
const ROW = {
  responses_create_params: { input: [{ role: "user", content: "Translate the following segment into German, without additional explanation.\n\nThe library opens at eight." }] },
  text: "The library opens at eight.",
  translation: "Die Bibliothek öffnet um acht.",
  source_language: "en",
  target_language: "de_DE",
  source_lang_name: "English",
  target_lang_name: "German",
};

let graph: InjectedGraph;
before(async () => {
  graph = await injectServers({
    wmt: [wmt, { compute_comet: false }],
    wmt_raw: [wmt, { compute_comet: false, strip_reasoning: false }],
    wmt_comet: [wmt, {}],
    wmt_cld2: [wmt, { compute_comet: false, language_consistency_backend: "wmt24pp_cld2" }],
  });
});
after(() => graph.close());

const verify = (text: string, row: Item = {}, server = "wmt") => graph.server(server).post("/verify", { ...ROW, ...row, response: responseWith([assistantMessage(text)]) });
async function scored(text: string, row: Item = {}, server = "wmt") {
  const answer = await verify(text, row, server);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Item>();
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order; the row's other fields are not echoed; floats are floats", async () => {
    const answer = await verify("Die Bibliothek öffnet um acht.", { agent_ref: { name: "x" } });
    assert.deepEqual(Object.keys(answer.json<Item>()), [
      "responses_create_params", "response", "reward", "text", "translation", "source_language", "target_language", "source_lang_name", "target_lang_name",
      "generation", "sentence_chrf", "sentence_spbleu", "comet_score", "language_consistency_score",
    ]);
    assert.match(answer.text, /"reward":1\.0,.*"generation":"Die Bibliothek öffnet um acht\.","sentence_chrf":100\.0,"sentence_spbleu":null,"comet_score":null,"language_consistency_score":null}$/);
  });
});

describe("the reward", () => {
  test("is sentence chrF / 100 against the reference", async () => {
    assert.equal((await scored("The library opens at eight.")).reward, 0.13970090413455508);
    const body = await scored("La sopa está caliente.", { translation: "La sopa está demasiado caliente." });
    assert.deepEqual([body.reward, body.sentence_chrf], [0.5834233652544463, 58.34233652544463]);
  });

  test("both sides are NFC-normalized; the generation is stripped", async () => {
    const body = await scored("  Die Bibliothek o\u0308ffnet um acht. \n");
    assert.deepEqual([body.reward, body.generation], [1, "Die Bibliothek o\u0308ffnet um acht."]);
  });

  test("a <think> preamble is dropped: after the last </think>; nothing when it never closed", async () => {
    assert.equal((await scored("We need to translate.</think>\nDie Bibliothek öffnet um acht.")).reward, 1);
    assert.deepEqual(Object.values(await scored("<think>Let me think about the German")).slice(9, 14), ["", 0, 0, null, null]);
    assert.equal(stripReasoningPreamble("a</think>b</think>\n\nc"), "c");
    assert.equal(stripReasoningPreamble("plain"), "plain");
    assert.ok((await scored("x</think>Die Bibliothek öffnet um acht.", {}, "wmt_raw")).reward < 1, "strip_reasoning: false scores the whole text");
  });

  test("an empty translation scores 0 with sentence_spbleu 0.0", async () => {
    const answer = await verify("");
    assert.match(answer.text, /"reward":0\.0,.*"generation":"","sentence_chrf":0\.0,"sentence_spbleu":0\.0,"comet_score":null,"language_consistency_score":null}$/);
  });
});

describe("what cannot run here", () => {
  test("compute_comet (NeMo Gym's default) is a 501 naming the COMET model", async () => {
    const answer = await verify("Die Bibliothek öffnet um acht.", {}, "wmt_comet");
    assert.equal(answer.status, 501);
    assert.match(answer.text, /Unbabel\/XCOMET-XXL/);
  });

  test("a language-consistency backend is a 501 naming its detector; an empty translation is 0% without one", async () => {
    const answer = await verify("Die Bibliothek öffnet um acht.", {}, "wmt_cld2");
    assert.equal(answer.status, 501);
    assert.match(answer.text, /CLD2/);
    assert.equal((await scored("", {}, "wmt_cld2")).language_consistency_score, 0);
  });

  test("an unknown backend or a threshold outside 0–100 is refused at start", async () => {
    for (const config of [{ language_consistency_backend: "fasttext" }, { language_consistency_warning_threshold: 101 }]) {
      await assert.rejects(injectServers({ bad: [wmt, config] }));
    }
  });

  test("a row without its reference or languages is a 422", async () => {
    for (const field of ["translation", "source_language", "text"]) {
      const { [field as keyof typeof ROW]: _dropped, ...row } = ROW;
      const answer = await graph.server("wmt").post("/verify", { ...row, response: responseWith([assistantMessage("x")]) });
      assert.equal(answer.status, 422, field);
    }
  });
});

describe("aggregate metrics", () => {
  const rollout = (task: number, index: number, source: string, target: string, generation: string, translation: string, extra: Item = {}) => ({
    _ng_task_index: task, _ng_rollout_index: index, reward: 0, source_language: source, target_language: target, generation, translation, ...extra,
  });
  const responses = [
    rollout(0, 0, "en", "de_DE", "Die Bibliothek öffnet um acht.", "Die Bibliothek öffnet um acht.", { comet_score: 0.5 }),
    rollout(0, 1, "en", "de_DE", "Die Bibliothek.", "Die Bibliothek öffnet um acht.", { comet_score: 0.7 }),
    rollout(1, 0, "en", "fr_FR", "Où est la gare ?", "Où est la gare ?"),
    rollout(1, 1, "en", "fr_FR", "Il pleut.", "Où est la gare ?"),
    rollout(2, 0, "", "fr_FR", "x", "y"),
    rollout(2, 1, "", "fr_FR", "x", "y"),
  ];

  test("corpus chrF per pair and rollout index, means and population std across runs, then across pairs", async () => {
    const answer = await graph.server("wmt").post("/aggregate_metrics", { verify_responses: responses });
    assert.equal(answer.status, 200, answer.text);
    const { agent_metrics: metrics, key_metrics: key } = answer.json<Record<string, Item>>();
    const de = [100, sentenceChrf("Die Bibliothek.", ["Die Bibliothek öffnet um acht."])];
    const fr = [100, sentenceChrf("Il pleut.", ["Où est la gare ?"])];
    assert.equal(metrics["en->de_DE/chrF"], (de[0]! + de[1]!) / 2);
    assert.equal(metrics["en->de_DE/chrF_std_dev_across_runs"], Math.abs(de[0]! - de[1]!) / 2);
    assert.equal(metrics["xx->xx/chrF"], (100 + (de[1]! + fr[1]!) / 2) / 2);
    assert.equal(metrics["en->xx/chrF"], metrics["xx->xx/chrF"]);
    assert.equal(metrics["xx->fr_FR/chrF"], metrics["en->fr_FR/chrF"]);
    assert.ok(!Object.keys(metrics).some((k) => k.includes("->") && (k.includes("spBLEU") || k.includes("comet"))), "no spBLEU here; COMET only when compute_comet");
    assert.deepEqual(Object.keys(key), ["xx->xx/chrF", "en->xx/chrF"]);
  });

  test("stored COMET scores are averaged when compute_comet is on, per pair and where every pair has them", async () => {
    const { agent_metrics: metrics } = (await graph.server("wmt_comet").post("/aggregate_metrics", { verify_responses: responses })).json<Record<string, Item>>();
    assert.equal(metrics["en->de_DE/comet"], 60);
    assert.equal(metrics["en->de_DE/comet_std_dev_across_runs"], 10);
    assert.equal(metrics["xx->de_DE/comet"], 60);
    assert.ok(!("xx->xx/comet" in metrics), "en->fr_FR has none");
  });
});

describe("sacreBLEU", () => {
  test("chrF: character 6-grams without whitespace, beta 2, effective order; corpus statistics summed", () => {
    assert.equal(sentenceChrf("The cat sat on the mat.", ["The cat sat on the mat."]), 100);
    assert.equal(sentenceChrf("", ["abc"]), 0);
    assert.equal(corpusChrf(["a b c", "the dog"], [["a b d", "the dog!"]]), corpusChrf(["a b c", "the dog"], [["a b d", "the dog!"]]));
    assert.equal(sentenceChrf("Le chat s'est assis.", ["Le chat est assis."], { wordOrder: 2 }) < sentenceChrf("Le chat s'est assis.", ["Le chat est assis."]), true);
  });

  test("BLEU with 13a and exp smoothing: sentence (effective order) and corpus", () => {
    assert.equal(tokenize13a("Hello, world! It costs $3.50 -- ok?"), "Hello , world ! It costs $ 3.50 -- ok ?");
    assert.equal(tokenize13a("&quot;a&quot; &amp; b"), '" a " & b');
    assert.equal(sentenceBleuScore("The cat sat on the mat.", ["The cat sat on the mat."], { effectiveOrder: true }).score, 100.00000000000004);
    assert.equal(sentenceBleuScore("the cat", ["the cat sat"], { effectiveOrder: true }).score, 60.653065971263366);
    assert.equal(corpusBleu(["the cat sat", "a dog"], [["the cat sat down", "a dog barks"]]).score, 0);
  });
});

describe("the data", () => {
  test("the example rows are run requests with a reference and both languages", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.ok(row.translation && row.source_language && row.target_language);
  });

  test("every verifier case scores as written", () => assertVerifierCasesScore(graph.server("wmt"), join(dataDir, "verifier_cases.jsonl"), { minCases: 10 }));
});
