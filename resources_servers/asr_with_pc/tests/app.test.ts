// asr_with_pc's verify (fastify inject): NeMo Gym's response (fields, order, floats, the row echoed), each task type's
// scoring (ASR-PC's WER_PC threshold, WER_C, PER; ASR's Whisper-normalized WER; ASR_LEADERBOARD's per-reference WERs;
// Hallucination's character rate), the spelling table and the 501 without it, validation, the corpus metrics, the
// normalizers and the data. Every number here was computed by NeMo Gym's Python verify (jiwer 4.0.0 and
// whisper_normalizer's source) run locally as an oracle.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServers, readRows, responseWith, type InjectedGraph } from "../../../src/testing/index.ts";
import { basicNormalize, englishNormalize } from "../../../src/ports/speech/whisper-normalizer.ts";
import { corpusWer, wer } from "../../../src/ports/speech/wer.ts";
import asr, { punctuationErrorRate } from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");
const params = { input: [{ role: "user", content: "Transcribe the audio with proper punctuation and capitalization." }] };

let graph: InjectedGraph;
let tableDir: string;
before(async () => {
  tableDir = mkdtempSync(join(tmpdir(), "asr-spellings-"));
  // A table of our own in the package's format (word → word), standing in for whisper_normalizer's.
  writeFileSync(join(tableDir, "english.json"), JSON.stringify({ colour: "color", grey: "gray", theatre: "theater" }));
  graph = await injectServers({
    asr: [asr],
    asr_plain: [asr, { task_type: "ASR" }],
    asr_table: [asr, { task_type: "ASR", english_spelling_table_fpath: join(tableDir, "english.json") }],
  });
});
after(async () => {
  await graph.close();
  rmSync(tableDir, { recursive: true, force: true });
});

const verify = (text: string, row: Item = {}, server = "asr") => graph.server(server).post("/verify", { responses_create_params: params, expected_answer: "Hello, world.", ...row, response: responseWith([assistantMessage(text)]) });
async function scored(text: string, row: Item = {}, server = "asr") {
  const answer = await verify(text, row, server);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Item>();
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order, floats written as floats, the row's fields echoed after them", async () => {
    const answer = await verify("Hello, world.", { sample_id: "s-1", uuid: "u" });
    assert.deepEqual(Object.keys(answer.json<Item>()), [
      "responses_create_params", "response", "reward", "text", "pred_text", "wer", "wer_c", "wer_pc", "per", "is_correct", "ref_pc_tok", "hyp_pc_tok", "ref_c", "hyp_c",
      "hallucination_rate", "char_rate", "expected_answer", "sample_id", "split", "task_type", "audio_duration", "reference_fields", "uuid",
    ]);
    assert.match(answer.text, /"reward":1\.0,"text":"hello world","pred_text":"hello world","wer":0\.0,"wer_c":0\.0,"wer_pc":0\.0,"per":0\.0,"is_correct":true,"ref_pc_tok":"Hello , world \.","hyp_pc_tok":"Hello , world \.","ref_c":"Hello world","hyp_c":"Hello world","hallucination_rate":null,"char_rate":null,"expected_answer":"Hello, world\.","sample_id":"s-1","split":null,"task_type":null,"audio_duration":null,"reference_fields":null,"uuid":"u"}$/);
  });
});

describe("ASR-PC (the default)", () => {
  test("the reward is WER_PC < 0.5: punctuation and case are tokens", async () => {
    const body = await scored("hello world");
    assert.deepEqual([body.reward, body.wer_pc, body.wer_c, body.wer, body.per], [0, 0.75, 0.5, 0, 1]);
    assert.equal((await scored("Hello, world!")).reward, 1, "one punctuation token of four wrong");
  });

  test("WER_C drops punctuation but keeps case; PER aligns the punctuation marks", async () => {
    const body = await scored("Please close the window, it's cold.", { expected_answer: "Please close the window; it's cold." });
    assert.deepEqual([body.wer_c, body.wer_pc, body.per, body.reward], [0, 0.1, 0.3333333333333333, 1]);
    assert.equal(punctuationErrorRate("a, b. c?", "a b. c!"), 2 / 3);
    assert.equal(punctuationErrorRate("no marks", "none"), 0);
  });

  test("an empty transcript scores 0 with every WER 1.0; an empty reference makes a WER the hypothesis' word count", async () => {
    const empty = await scored("");
    assert.deepEqual([empty.reward, empty.wer_pc, empty.wer], [0, 1, 1]);
    const noReference = await scored("two words", { expected_answer: "" });
    assert.deepEqual([noReference.wer_pc, noReference.wer, noReference.reward], [2, 2, 0]);
  });

  test("the transcript is every output_text part of every message, joined and stripped", async () => {
    const answer = await graph.server("asr").post("/verify", { responses_create_params: params, expected_answer: "Hello, world.", response: responseWith([assistantMessage(" Hello, ", "world. "), assistantMessage("")]) });
    assert.equal(answer.json<Item>().reward, 1);
  });
});

describe("ASR", () => {
  test("the Whisper-normalized WER < 0.5 decides; the PC fields are zeroed", async () => {
    const body = await scored("mister smith paid $25.50", { task_type: "ASR", expected_answer: "Mr. Smith paid twenty-five dollars and fifty cents." });
    assert.deepEqual([body.reward, body.wer, body.wer_pc, body.ref_pc_tok, body.text], [1, 0, 0, "", "mister smith paid $25.50"]);
  });

  test("an empty normalized reference scores 0; an empty hypothesis is read as 'empty'", async () => {
    assert.deepEqual(Object.values(await scored("anything", { task_type: "ASR", expected_answer: "(noise)" })).slice(2, 6), [0, "", "anything", 0]);
    const body = await scored("", { task_type: "ASR" });
    assert.deepEqual([body.pred_text, body.wer, body.reward], ["empty", 1, 0]);
  });

  test("the instance's task_type is the default; the row's wins", async () => {
    assert.equal((await scored("hello world", {}, "asr_plain")).reward, 1);
    assert.equal((await scored("hello world", { task_type: "ASR-PC" }, "asr_plain")).reward, 0);
  });
});

describe("British spellings", () => {
  test("with the spelling table, both sides are respelled before the WER", async () => {
    const body = await scored("gray color", { expected_answer: "Grey colour." }, "asr_table");
    assert.deepEqual([body.reward, body.text, body.wer], [1, "gray color", 0]);
  });

  test("without it, a reward that respelling could change is a 501 naming the table; a certain one is scored", async () => {
    const answer = await verify("gray color", { task_type: "ASR", expected_answer: "Grey colour." });
    assert.equal(answer.status, 501);
    assert.match(answer.text, /english\.json.*english_spelling_table_fpath/);
    assert.equal((await scored("a gray sky over the big old town", { task_type: "ASR", expected_answer: "A grey sky over the big old town." })).reward, 1, "WER 1/8 without respelling: below 0.5 either way");
    assert.equal((await scored("no", { task_type: "ASR", expected_answer: "One two three four." })).reward, 0, "three words missing: at least 0.75 either way");
    assert.equal((await scored("Gray color.", { expected_answer: "Grey colour." })).reward, 0, "ASR-PC's reward never uses the normalizer");
  });
});

describe("ASR_LEADERBOARD", () => {
  test("WER against expected_answer, plus wer_<suffix> / is_correct_<suffix> per reference field, after the row's fields", async () => {
    const row = { task_type: "ASR_LEADERBOARD", expected_answer: "Call 911 now", reference_fields: ["text_tn", "text_itn"], text_tn: "call nine one one now", text_itn: "call 911 now" };
    const answer = await verify("call nine one now", row);
    const body = answer.json<Item>();
    assert.deepEqual(Object.keys(body).slice(-6), ["text_tn", "text_itn", "wer_tn", "is_correct_tn", "wer_itn", "is_correct_itn"]);
    assert.deepEqual([body.reward, body.wer, body.wer_tn, body.is_correct_tn, body.wer_itn], [1, 0.3333333333333333, 0.3333333333333333, true, 0.3333333333333333]);
    assert.match((await verify("call 911 now", row)).text, /"wer_itn":0\.0,/);
  });

  test("an empty reference field gives null scores; a missing one is a 422 naming it", async () => {
    const body = await scored("x", { task_type: "ASR_LEADERBOARD", expected_answer: "x", reference_fields: ["text_tn"], text_tn: null });
    assert.deepEqual([body.wer_tn, body.is_correct_tn], [null, null]);
    const answer = await verify("x", { task_type: "ASR_LEADERBOARD", reference_fields: ["text_itn"] });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.json<Item>().detail[0].loc, ["body", "text_itn"]);
  });
});

describe("Hallucination", () => {
  test("more than 1500 characters a minute of audio_duration is a hallucination", async () => {
    const ok = await scored("a".repeat(200), { task_type: "Hallucination", audio_duration: 10 });
    assert.deepEqual([ok.reward, ok.hallucination_rate, ok.char_rate, ok.text], [1, 0, 1200, "Hello, world."]);
    const bad = await verify("a".repeat(300), { task_type: "Hallucination", audio_duration: 10 });
    assert.match(bad.text, /"reward":0\.0,.*"hallucination_rate":1\.0,"char_rate":1800\.0,.*"audio_duration":10\.0,/);
    assert.equal((await scored("word ".repeat(20).trim(), { task_type: "Hallucination", audio_duration: 3 })).char_rate, 1980);
  });

  test("without a positive audio_duration the row counts as fine, with zero rates", async () => {
    for (const audio_duration of [undefined, 0, -1]) {
      const body = await scored("x".repeat(1000), { task_type: "Hallucination", audio_duration });
      assert.deepEqual([body.reward, body.hallucination_rate, body.char_rate], [1, 0, 0]);
    }
  });
});

describe("validation", () => {
  test("an unknown task_type and ill-typed fields are 422s naming them", async () => {
    for (const [row, field] of [[{ task_type: "ASR-PCX" }, "task_type"], [{ expected_answer: 3 }, "expected_answer"], [{ audio_duration: "ten" }, "audio_duration"], [{ reference_fields: "text_tn" }, "reference_fields"]] as const) {
      const answer = await verify("x", row);
      assert.equal(answer.status, 422, JSON.stringify(row));
      assert.match(answer.text, new RegExp(field));
    }
  });
});

describe("aggregate metrics", () => {
  test("pass@k of accuracy / per / no_answer, corpus WER over the normalized texts, mean WER_C / WER_PC / PER, and the key metrics", async () => {
    const record = (task: number, rollout: number, fields: Item) => ({ _ng_task_index: task, _ng_rollout_index: rollout, reward: fields.is_correct ? 1 : 0, ...fields });
    const verify_responses = [
      record(0, 0, { text: "a b c d", pred_text: "a b c d", is_correct: true, wer_c: 0, wer_pc: 0, per: 0 }),
      record(0, 1, { text: "a b c d", pred_text: "a x c", is_correct: false, wer_c: 0.5, wer_pc: 0.5, per: 1 }),
      record(1, 0, { text: "e f", pred_text: "", is_correct: false, wer_c: 1, wer_pc: 1, per: 0 }),
      record(1, 1, { text: "e f", pred_text: "e f", is_correct: true, wer_c: 0, wer_pc: 0, per: 0 }),
    ];
    const answer = await graph.server("asr").post("/aggregate_metrics", { verify_responses });
    assert.equal(answer.status, 200, answer.text);
    const { agent_metrics: metrics, key_metrics: key } = answer.json<Record<string, Item>>();
    assert.equal(metrics["corpus_wer@k=1"], 100 * (2 / 6));
    assert.equal(metrics["corpus_wer@k=2"], 100 * (4 / 12));
    assert.equal(metrics["wer_c@k=2"], 37.5);
    assert.equal(metrics["per@k=1"], 0);
    assert.equal(metrics["pass@2/accuracy"], 100);
    assert.equal(metrics["pass@1[avg-of-2]/no_answer"], 25);
    assert.deepEqual(Object.keys(key).filter((k) => !k.startsWith("pass@")), ["wer", "wer_c", "wer_pc", "per"]);
    assert.equal(key.wer, metrics["corpus_wer@k=2"]);
  });
});

describe("jiwer and whisper_normalizer", () => {
  test("WER is word edits over reference words, summed over a corpus", () => {
    assert.equal(wer("a b c", "a x c d"), 2 / 3);
    assert.equal(wer("", "a b"), 2);
    assert.equal(corpusWer(["a b", ""], ["a c", "d"]), 1);
    assert.equal(wer("  a   b ", "a b"), 0);
  });

  test("the English normalizer: titles, numbers, currencies, fillers, contractions, diacritics", () => {
    for (const [text, normalized] of [
      ["Mr. Smith paid twenty-five dollars and fifty cents, colour!", "mister smith paid $25.50 colour"],
      ["one oh one", "101"], ["double seven triple zero", "77000"], ["two hundred and fifty thousand", "250000"], ["three and a half million", "3500000"],
      ["ten per cent", "10%"], ["uh hmm um, well [noise] (laughs) okay", "well okay"], ["Café naïve straße", "cafe naive strasse"],
      ["He'd been there. It's done.", "he had been there it is done"], ["1,000,000 people", "1000000 people"], ["$2 and ¢7", "$2.07"],
      ["twenty first century", "21st century"], ["one million two hundred thousand three hundred and four", "1200304"], ["a quintillion", "a 1000000000000000000"],
    ]) assert.equal(englishNormalize(text).trim(), normalized, text);
    assert.equal(englishNormalize("colour", new Map([["colour", "color"]])), "color");
  });

  test("the basic normalizer, with and without diacritics", () => {
    assert.equal(basicNormalize("Héllo, [x] Wörld! (aside) ok"), "héllo wörld ok");
    assert.equal(basicNormalize("Héllo, Wörld!", { removeDiacritics: true }), "hello world ");
  });
});

describe("the data", () => {
  test("the example rows are run requests carrying audio and a reference", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.match(row.responses_create_params.metadata.audio_url, /^data:audio\/wav;base64,/);
  });

  test("every verifier case scores as written", () => assertVerifierCasesScore(graph.server("asr"), join(dataDir, "verifier_cases.jsonl"), { minCases: 12 }));
});
